import { describe, expect, test } from 'bun:test'
import { appConfigDir, neutralFiles, toLocal, toNeutral, type Platform } from '../../src/client/sync/paths'
import { assignment, findSecrets, newSecrets } from '../../src/client/sync/secrets'
import { printable } from '../../src/client/sync/text'

const mac: Platform = { os: 'darwin', home: '/Users/ada' }
const linux: Platform = { os: 'linux', home: '/home/ada' }
const linuxXdg: Platform = { os: 'linux', home: '/home/ada', xdgConfigHome: '/home/ada/.xdg' }
const linuxXdgOutside: Platform = { os: 'linux', home: '/home/ada', xdgConfigHome: '/etc/xdg' }
const windows: Platform = { os: 'win32', home: 'C:\\Users\\ada', appData: 'C:\\Users\\ada\\AppData\\Roaming' }

describe('the platform path map: editor user directories have one name on every OS', () => {
	const table: [string, Platform, string | undefined][] = [
		['@Code/User/settings.json', mac, 'Library/Application Support/Code/User/settings.json'],
		['@Code/User/settings.json', linux, '.config/Code/User/settings.json'],
		['@Code/User/settings.json', windows, 'AppData/Roaming/Code/User/settings.json'],
		['@Cursor/User/keybindings.json', mac, 'Library/Application Support/Cursor/User/keybindings.json'],
		['@Cursor/User/keybindings.json', linux, '.config/Cursor/User/keybindings.json'],
		['@Windsurf/User/snippets/go.json', windows, 'AppData/Roaming/Windsurf/User/snippets/go.json'],
		['@Windsurf/User/settings.json', linuxXdg, '.xdg/Windsurf/User/settings.json'],
		['@Code/User/settings.json', linuxXdgOutside, undefined],
		['@Emacs/User/init.el', linux, undefined],
		['@Code/settings.json', linux, undefined],
		['.claude/settings.json', windows, '.claude/settings.json']
	]
	for (const [key, platform, local] of table) {
		test(`${key} on ${platform.os}${platform.xdgConfigHome ? ` (XDG_CONFIG_HOME=${platform.xdgConfigHome})` : ''} → ${local ?? 'no place'}`, () => {
			expect(toLocal(key, platform)).toBe(local)
			if (local !== undefined) expect(toNeutral(local, platform)).toBe(key)
		})
	}

	test('keys pushed with any OS spelling map to the neutral name, on any OS', () => {
		for (const platform of [mac, linux, windows, linuxXdg]) {
			for (const root of ['Library/Application Support', '.config', 'AppData/Roaming']) {
				for (const app of ['Code', 'Cursor', 'Windsurf']) {
					expect(toNeutral(`${root}/${app}/User/settings.json`, platform)).toBe(`@${app}/User/settings.json`)
				}
			}
		}
		expect(toNeutral('.config/gh/config.yml', linux)).toBe('.config/gh/config.yml')
		expect(toNeutral('.config/Code/Cache/x', linux)).toBe('.config/Code/Cache/x')
		expect(toNeutral('.xdg/Code/User/settings.json', linuxXdg)).toBe('@Code/User/settings.json')
		expect(appConfigDir(linuxXdgOutside)).toBeUndefined()
	})

	test('a file set in old and neutral spellings: the neutral spelling wins and the other is reported', () => {
		const { files, duplicates } = neutralFiles(
			{
				'Library/Application Support/Code/User/settings.json': 'mac',
				'@Code/User/settings.json': 'neutral',
				'.claude/CLAUDE.md': 'x'
			},
			linux
		)
		expect(files).toEqual({ '@Code/User/settings.json': 'neutral', '.claude/CLAUDE.md': 'x' })
		expect(duplicates).toEqual(['Library/Application Support/Code/User/settings.json'])
	})
})

describe('secret-looking values', () => {
	test('MCP env and headers values, secret-like key names and token prefixes are found by path; placeholders are not', () => {
		const cursor = JSON.stringify({
			mcpServers: {
				github: {
					command: 'npx',
					env: {
						GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789',
						LOG_LEVEL: 'debug',
						FROM_ENV: '${GITHUB_TOKEN}'
					}
				},
				api: { url: 'https://x', headers: { Authorization: 'Bearer 0123456789abcdef', 'X-Env': 'production' } }
			},
			apiKey: 'sk-ant-abcdefghijklmnopqrstuv',
			maxTokens: 4096,
			env: { MAX_THINKING_TOKENS: '31999' },
			args: ['--note', 'xoxb-1234567890-abcdef']
		})
		expect(findSecrets('.cursor/mcp.json', cursor).map((s) => s.path)).toEqual([
			'mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN',
			'mcpServers.api.headers.Authorization',
			'apiKey',
			'args[1]'
		])
		expect(
			findSecrets('.codex/config.toml', '[mcp_servers.x.env]\nAPI_KEY = "abc123def456"\nMODE = "fast"\n').map(
				(s) => s.path
			)
		).toEqual(['mcp_servers.x.env.API_KEY'])
		expect(
			findSecrets('.claude/CLAUDE.md', 'use token ghp_abcdefghijklmnopqrstuvwxyz0123456789\nnothing here\n').map(
				(s) => s.path
			)
		).toEqual(['line 1'])
		expect(
			findSecrets(
				'.claude/settings.json',
				JSON.stringify({ env: { ANTHROPIC_API_KEY: '${ANTHROPIC_API_KEY}' }, theme: 'dark' })
			)
		).toEqual([])
	})

	test('credentials inside values: a password in any URL, key-like query parameters, Authorization headers in any string, private-key blocks', () => {
		const settings = JSON.stringify({
			env: {
				DATABASE_URL: 'postgres://app:Hunter2-prod-pw@db.internal:5432/app',
				REFERENCED: 'postgres://app:${DB_PASSWORD}@db.internal:5432/app',
				PLAIN_URL: 'https://example.com/path?page=2'
			},
			hooks: {
				PostToolUse: [
					{
						hooks: [
							{
								type: 'command',
								command: 'curl -s -H "Authorization: Bearer 9f8e7d6c5b4a39281706f5e4d3c2b1a0" https://hooks.example/x'
							}
						]
					}
				]
			},
			mcpServers: {
				pg: { command: 'npx', args: ['-y', 'mcp-postgres', 'postgresql://admin:S3cretPw!@prod-db:5432/main'] },
				remote: { type: 'http', url: 'https://mcp.example.com/sse?api_key=4f3c2b1a09f8e7d6c5b4a3928170' },
				short: { type: 'http', url: 'https://mcp.example.com/sse?key=abc&page=1' }
			},
			note: '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----'
		})
		expect(findSecrets('.claude/settings.json', settings).map((s) => s.path)).toEqual([
			'env.DATABASE_URL',
			'hooks.PostToolUse[0].hooks[0].command',
			'mcpServers.pg.args[2]',
			'mcpServers.remote.url',
			'note'
		])
		expect(
			findSecrets(
				'.claude/CLAUDE.md',
				'# Notes\nconnect with postgres://app:Hunter2-prod-pw@db/app\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n'
			).map((s) => s.path)
		).toEqual(['line 2', 'line 3'])
		expect(
			findSecrets('.codex/config.toml', 'notify = ["curl", "-H", "Authorization: Basic dXNlcjpwYXNzd29yZA=="]\n').map(
				(s) => s.path
			)
		).toEqual(['notify[2]'])
	})

	test('a value the server already has at the same place is not new; a changed one is', () => {
		const a = JSON.stringify({ mcpServers: { gh: { env: { TOKEN: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789' } } } })
		const b = JSON.stringify({ mcpServers: { gh: { env: { TOKEN: 'ghp_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz' } } } })
		expect(newSecrets('.cursor/mcp.json', a, a)).toEqual([])
		expect(newSecrets('.cursor/mcp.json', b, a).map((s) => s.path)).toEqual(['mcpServers.gh.env.TOKEN'])
		expect(newSecrets('.cursor/mcp.json', a, undefined)).toHaveLength(1)
	})
})

/**
 * docs/client.md: nothing the client runs on server content takes more than
 * linear time. Not timed: each input below is sized so that the expressions
 * the detector used before (one 40,000-character line took 2.5 s, growing with
 * the square of its length) would need minutes, while a linear scan takes
 * milliseconds, far inside the test's default 5 s time-out.
 */
describe('secret scanning takes linear time on hostile content', () => {
	const LONG = 400_000
	const mcp = (value: string) => JSON.stringify({ mcpServers: { x: { command: 'npx', env: { K: value } } } })

	test('long lines of text: one name-like run, repeated token prefixes, dots', () => {
		for (const line of ['a'.repeat(LONG), 'ghp_'.repeat(LONG / 4), '.'.repeat(LONG), 'x='.repeat(LONG / 2)])
			expect(findSecrets('.claude/CLAUDE.md', `${line}\n`)).toEqual([])
		// `sk-` and 16 more token characters is a key's shape
		expect(findSecrets('.claude/CLAUDE.md', 'sk-'.repeat(LONG / 3)).map((s) => s.path)).toEqual(['line 1'])
		// and what follows such a line is still found
		expect(
			findSecrets('.claude/CLAUDE.md', `${'a'.repeat(LONG)}\napi_key = abc123def456\n`).map((s) => s.path)
		).toEqual(['line 2'])
	})

	test('URL-like MCP values with many colons', () => {
		expect(findSecrets('.cursor/mcp.json', mcp(`http://${':'.repeat(LONG)}`))).toEqual([])
		expect(findSecrets('.cursor/mcp.json', mcp(`http://${'a:'.repeat(LONG / 2)}`))).toEqual([])
		expect(findSecrets('.cursor/mcp.json', mcp(`http://${'a:'.repeat(LONG / 2)}@host`)).map((s) => s.path)).toEqual([
			'mcpServers.x.env.K'
		])
	})

	test('deep nesting with many findings: each is named with a bounded path', () => {
		// Deep enough that copying the path at every level, as the old walk did, costs seconds; shallow
		// enough for jsonc-parser, which recurses (about 10,000 levels overflowed the stack in one CI run).
		const depth = 2_000
		const leaves = 20_000
		const inner = `{${Array.from({ length: leaves }, (_, i) => `"token${i}":"abcdefghij"`).join(',')}}`
		const found = findSecrets('.claude/settings.json', `${'{"a":'.repeat(depth)}${inner}${'}'.repeat(depth)}`)
		expect(found).toHaveLength(leaves)
		expect(found[0]?.path).toBe(`a.a.a.a.a.a.a.a[…${depth + 1 - 15} more…].a.a.a.a.a.a.token0`)
	})

	test('name = value lines are found exactly as the former expression found them', () => {
		// The former single expression, as a reference on lines short enough for it.
		const former = /["']?([A-Za-z0-9_.-]+)["']?\s*[:=]\s*["']?([^"'\s,]+)/
		const alphabet = ['a', 'k', '_', '.', '-', '1', ' ', '\t', '"', "'", ':', '=', ',', '/', '@']
		let seed = 26
		const random = () => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31
			return seed / 2 ** 31
		}
		for (let n = 0; n < 20_000; n++) {
			const line = Array.from(
				{ length: Math.floor(random() * 24) },
				() => alphabet[Math.floor(random() * alphabet.length)]
			).join('')
			const match = former.exec(line)
			expect({ line, found: assignment(line) }).toEqual({
				line,
				found: match ? { name: match[1] as string, value: match[2] as string } : undefined
			})
		}
	})

	test('a password in an MCP URL is found exactly as the former expression found it', () => {
		const former = /:\/\/[^/@\s]+:[^/@\s]+@/
		const alphabet = ['a', ':', '/', '@']
		let seed = 11
		const random = () => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31
			return seed / 2 ** 31
		}
		for (let n = 0; n < 20_000; n++) {
			const value = `http://${Array.from({ length: Math.floor(random() * 14) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('')}`
			expect({ value, found: findSecrets('.cursor/mcp.json', mcp(value)).length === 1 }).toEqual({
				value,
				found: former.test(value)
			})
		}
	})
})

describe('terminal safety', () => {
	test('control characters, bidi overrides and other invisible characters are escaped; text and tabs stay', () => {
		expect(printable('.claude/\u001b[31mred\u0007.json')).toBe('.claude/\\u{1b}[31mred\\u{7}.json')
		expect(printable('a\nb\rc\td')).toBe('a\\nb\\rc\td')
		expect(printable('evil\u202Egnp.exe')).toBe('evil\\u{202e}gnp.exe')
		expect(printable('\uFEFF{}')).toBe('\\u{feff}{}')
		expect(printable('\u009b2J')).toBe('\\u{9b}2J')
		expect(printable('héllo 日本 🙂')).toBe('héllo 日本 🙂')
	})
})
