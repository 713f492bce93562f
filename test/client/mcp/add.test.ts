import { afterEach, describe, expect, test } from 'bun:test'
import { writeCredentials } from '../../../src/client/credentials'
import { localEntries } from '../../../src/client/local-keys'
import { secretInput } from '../../../src/client/mcp/add'
import { readServers } from '../../../src/client/mcp/translate'
import { setState, stateKey } from '../../../src/client/state'
import { emptyMap } from '../../../src/client/sync/engine'
import { findSecrets } from '../../../src/client/sync/secrets'
import type { Tool } from '../../../src/shared/constants'
import { homePerTest } from '../../support/client/home'
import { put, read, runMcp } from './run'

/** `cfgsync mcp add` (docs/client.md, "MCP servers"): one server into each tool's file, in its format, secrets kept home. */

const home = homePerTest('mcp-add')
const SERVER = 'http://127.0.0.1:9'
const originalRead = secretInput.read
afterEach(() => {
	secretInput.read = originalRead
})

/** Logged in as ada (no request needed: the saved login names the user), syncing these tools' personal configs. */
function loggedIn(tools: Tool[]) {
	writeCredentials({
		server: SERVER,
		apiKey: `cs_${'a'.repeat(64)}`,
		keyId: 'k',
		device: 'laptop',
		username: 'ada',
		email: 'ada@example.com'
	})
	for (const tool of tools)
		setState(stateKey({ server: SERVER, username: 'ada', tool, name: 'default' }), {
			format: 2,
			server: SERVER,
			username: 'ada',
			tool,
			name: 'default',
			version: 1,
			hash: 'h',
			files: emptyMap(),
			syncedAt: new Date().toISOString()
		})
}

const CLAUDE = `{
  "numStartups": 41,
  "installMethod": "global",
  "autoUpdates": true,
  "tipsHistory": { "new-user-warmup": 7, "memory-command": 12 },
  "projects": { "/home/ada/src/api": { "allowedTools": [], "history": [], "mcpServers": {}, "hasTrustDialogAccepted": true } },
  "mcpServers": {
    "sentry": { "type": "http", "url": "https://mcp.sentry.dev/mcp" }
  },
  "userID": "0f3c9e",
  "oauthAccount": { "emailAddress": "ada@example.com", "organizationRole": "admin" }
}
`
const CODEX = `# Codex, by hand
model = "o3"
approval_policy = "on-request"

# The docs server
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"] # pinned

[profiles.fast]
model = "o4-mini"
`
const GEMINI = `{
  // Gemini CLI
  "theme": "GitHub",
  "mcpServers": {}
}
`

describe('cfgsync mcp add', () => {
	test('stdio into three tools, each in its own format, every other byte kept', async () => {
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.codex/config.toml', CODEX)
		put(home(), '.gemini/settings.json', GEMINI)
		const { code, stdout, stderr } = await runMcp([
			'add',
			'github',
			'--tool',
			'claude-code',
			'--tool',
			'codex',
			'--tool',
			'gemini-cli',
			'--env',
			'GITHUB_TOOLSETS=repos,issues',
			'--',
			'npx',
			'-y',
			'@modelcontextprotocol/server-github'
		])
		expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
		expect(stdout).toContain('Added github in claude-code (~/.claude.json (mcpServers))')
		const claude = read(home(), '.claude.json')
		expect(JSON.parse(claude).mcpServers.github).toEqual({
			type: 'stdio',
			command: 'npx',
			args: ['-y', '@modelcontextprotocol/server-github'],
			env: { GITHUB_TOOLSETS: 'repos,issues' }
		})
		// Claude Code's own state is untouched, line for line.
		for (const line of CLAUDE.split('\n').filter(
			(l) => !l.includes('"sentry"') && !/^\s*}?,?$/.test(l) && !l.includes('"mcpServers": {')
		))
			expect(claude).toContain(line)
		const codex = read(home(), '.codex/config.toml')
		expect(codex.startsWith(CODEX.trimEnd())).toBe(true)
		expect(codex).toContain(
			'[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-github"]'
		)
		expect(codex).toContain('[mcp_servers.github.env]\nGITHUB_TOOLSETS = "repos,issues"')
		const gemini = read(home(), '.gemini/settings.json')
		expect(gemini).toContain('// Gemini CLI')
		expect(readServers('gemini-cli', gemini).get('github')?.command).toBe('npx')
		// The same everywhere: list says so.
		const listed = JSON.parse((await runMcp(['list', '--json'])).stdout)
		expect(listed.servers.find((s: { name: string }) => s.name === 'github').tools).toEqual({
			'claude-code': { status: 'same' },
			codex: { status: 'same' },
			'gemini-cli': { status: 'same' }
		})
	})

	test('--url: HTTP in each spelling; a tool without SSE is named, not written; exit 1 when it was named', async () => {
		const http = await runMcp([
			'add',
			'api',
			'--tool',
			'windsurf',
			'--tool',
			'vscode',
			'--url',
			'https://api.example.com/mcp',
			'--header',
			'X-Team=platform'
		])
		expect(http.code).toBe(0)
		expect(JSON.parse(read(home(), '.codeium/windsurf/mcp_config.json')).mcpServers.api).toEqual({
			serverUrl: 'https://api.example.com/mcp',
			headers: { 'X-Team': 'platform' }
		})
		expect(JSON.parse(read(home(), '.config/Code/User/mcp.json')).servers.api.type).toBe('http')
		const sse = await runMcp([
			'add',
			'events',
			'--tool',
			'codex',
			'--tool',
			'claude-code',
			'--url',
			'https://e.example.com/sse',
			'--sse'
		])
		expect(sse.code).toBe(1)
		expect(sse.stderr).toContain('codex left out: Codex cannot hold an SSE server')
		expect(JSON.parse(read(home(), '.claude.json')).mcpServers.events).toEqual({
			type: 'sse',
			url: 'https://e.example.com/sse'
		})
		expect(() => read(home(), '.codex/config.toml')).toThrow()
	})

	test('default tools: those this machine syncs', async () => {
		loggedIn(['cursor', 'codex'])
		const { code, stdout } = await runMcp([
			'add',
			'fs',
			'--json',
			'--',
			'npx',
			'-y',
			'@modelcontextprotocol/server-filesystem',
			'/home/ada'
		])
		expect(code).toBe(0)
		expect(JSON.parse(stdout).tools.map((t: { tool: string }) => t.tool)).toEqual(['cursor', 'codex'])
		expect(JSON.parse(read(home(), '.cursor/mcp.json')).mcpServers.fs.command).toBe('npx')
	})

	test('without a login or a synced tool, it asks for --tool', async () => {
		const { code, stderr } = await runMcp(['add', 'fs', '--', 'npx', 'x'])
		expect(code).toBe(4)
		expect(stderr).toContain('not logged in')
		writeCredentials({
			server: SERVER,
			apiKey: `cs_${'a'.repeat(64)}`,
			keyId: 'k',
			device: 'laptop',
			username: 'ada',
			email: 'a@b.c'
		})
		const none = await runMcp(['add', 'fs', '--', 'npx', 'x'])
		expect(none.code).toBe(2)
		expect(none.stderr).toContain('--tool T')
	})

	test('a differing entry is replaced only with --yes without a terminal; the same entry is left as it is', async () => {
		put(home(), '.codex/config.toml', CODEX)
		const differs = await runMcp(['add', 'docs', '--tool', 'codex', '--', 'npx', '-y', 'docs-mcp@2'])
		expect(differs.code).toBe(1)
		expect(differs.stderr).toContain('already has docs, different (args)')
		expect(read(home(), '.codex/config.toml')).toBe(CODEX)
		const same = await runMcp(['add', 'docs', '--tool', 'codex', '--', 'npx', '-y', 'docs-mcp'])
		expect(same.code).toBe(0)
		expect(same.stdout).toContain('left unchanged')
		const yes = await runMcp(['add', 'docs', '--tool', 'codex', '--yes', '--', 'npx', '-y', 'docs-mcp@2'])
		expect(yes.code).toBe(0)
		expect(read(home(), '.codex/config.toml')).toContain('# Codex, by hand')
		expect(readServers('codex', read(home(), '.codex/config.toml')).get('docs')?.args).toEqual(['-y', 'docs-mcp@2'])
	})

	test('usage: a name, a command or --url, not both; --env with a program, --header with a url', async () => {
		for (const args of [
			['add'],
			['add', 'bad name', '--', 'x'],
			['add', 'x', '--tool', 'codex'],
			['add', 'x', '--tool', 'codex', '--url', 'https://a', '--', 'npx'],
			['add', 'x', '--tool', 'codex', '--url', 'ftp://a'],
			['add', 'x', '--tool', 'codex', '--env', 'A=1', '--url', 'https://a'],
			['add', 'x', '--tool', 'codex', '--header', 'A=1', '--', 'npx'],
			['add', 'x', '--tool', 'nano', '--', 'npx']
		])
			expect((await runMcp(args)).code).toBe(2)
	})
})

describe('secrets stay home', () => {
	const TOKEN = 'ghp_0123456789abcdefghijABCDEFGHIJ012345'

	test("--env KEY asks for the value and keeps it a local key of each file's config", async () => {
		loggedIn(['claude-code', 'codex', 'vscode'])
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.codex/config.toml', CODEX)
		const asked: string[][] = []
		secretInput.read = async (names) => {
			asked.push(names)
			return names.map(() => TOKEN)
		}
		const { code, stdout } = await runMcp([
			'add',
			'github',
			'--env',
			'GITHUB_PERSONAL_ACCESS_TOKEN',
			'--',
			'npx',
			'-y',
			'@modelcontextprotocol/server-github'
		])
		expect(code).toBe(0)
		expect(asked).toEqual([['GITHUB_PERSONAL_ACCESS_TOKEN']])
		expect(stdout).not.toContain(TOKEN)
		expect(stdout).toContain('GITHUB_PERSONAL_ACCESS_TOKEN stays on this machine')
		// The value is in each file here, for the tool to use…
		expect(JSON.parse(read(home(), '.claude.json')).mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN).toBe(TOKEN)
		expect(read(home(), '.codex/config.toml')).toContain(
			`[mcp_servers.github.env]\nGITHUB_PERSONAL_ACCESS_TOKEN = "${TOKEN}"`
		)
		expect(JSON.parse(read(home(), '.config/Code/User/mcp.json')).servers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN).toBe(
			TOKEN
		)
		// …and a local key of that file's config, so no sync sends it.
		const keyOf = (tool: Tool) => stateKey({ server: SERVER, username: 'ada', tool, name: 'default' })
		expect(localEntries(keyOf('claude-code'), undefined, undefined).map((e) => e.entry)).toEqual([
			{ file: '.claude.json#mcpServers', path: ['mcpServers', 'github', 'env', 'GITHUB_PERSONAL_ACCESS_TOKEN'] }
		])
		expect(localEntries(keyOf('codex'), undefined, undefined).map((e) => e.entry)).toEqual([
			{ file: '.codex/config.toml', path: ['mcp_servers', 'github', 'env', 'GITHUB_PERSONAL_ACCESS_TOKEN'] }
		])
		expect(localEntries(keyOf('vscode'), undefined, undefined).map((e) => e.entry)).toEqual([
			{ file: '@Code/User/mcp.json', path: ['servers', 'github', 'env', 'GITHUB_PERSONAL_ACCESS_TOKEN'] }
		])
	})

	test('--header K asks too, for a remote server', async () => {
		loggedIn(['cursor'])
		secretInput.read = async (names) => names.map(() => 'Bearer abcdefghijklmnop0123456789')
		const { code } = await runMcp(['add', 'api', '--url', 'https://api.example.com/mcp', '--header', 'Authorization'])
		expect(code).toBe(0)
		expect(
			localEntries(
				stateKey({ server: SERVER, username: 'ada', tool: 'cursor', name: 'default' }),
				undefined,
				undefined
			).map((e) => e.entry.path)
		).toEqual([['mcpServers', 'api', 'headers', 'Authorization']])
	})

	test('a secret-looking value on the command line is refused without --allow-secrets, nothing written', async () => {
		put(home(), '.codex/config.toml', CODEX)
		const refused = await runMcp([
			'add',
			'github',
			'--tool',
			'codex',
			'--env',
			`GITHUB_PERSONAL_ACCESS_TOKEN=${TOKEN}`,
			'--',
			'npx',
			'x'
		])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain('looks like a secret')
		expect(refused.stderr).toContain('--env GITHUB_PERSONAL_ACCESS_TOKEN (without =VALUE)')
		expect(refused.stderr).not.toContain(TOKEN)
		expect(read(home(), '.codex/config.toml')).toBe(CODEX)
		const allowed = await runMcp([
			'add',
			'github',
			'--tool',
			'codex',
			'--allow-secrets',
			'--env',
			`GITHUB_PERSONAL_ACCESS_TOKEN=${TOKEN}`,
			'--',
			'npx',
			'x'
		])
		expect(allowed.code).toBe(0)
		expect(findSecrets('.codex/config.toml', read(home(), '.codex/config.toml')).length).toBe(1)
		// A plain setting is not a secret.
		expect((await runMcp(['add', 'fs', '--tool', 'codex', '--env', 'LOG_LEVEL=debug', '--', 'npx', 'y'])).code).toBe(0)
	})

	test('a header value that looks like a secret is refused the same way', async () => {
		const refused = await runMcp([
			'add',
			'api',
			'--tool',
			'cursor',
			'--url',
			'https://a.example.com/mcp',
			'--header',
			'Authorization=Bearer abcdefghijklmnop0123456789'
		])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain('--header Authorization')
	})
})
