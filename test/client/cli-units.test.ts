import { describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { mergePart, readText, scanDir } from '../../src/client/files'
import { ago } from '../../src/client/output'
import { scopeFor } from '../../src/client/scope'
import { backupRoot, backupsDir, pruneBackups } from '../../src/client/state'
import { type Json, parseJsonc, rewrite } from '../../src/client/sync/json'
import { homePerTest } from '../support/client/home'

/** Issue 20's client rules that need no server: human times, directories and their caps, ~/.claude.json's part, backup pruning. */

const homeNow = homePerTest('client-units')

const put = (path: string, content: string | Buffer) => {
	mkdirSync(join(homeNow(), path, '..'), { recursive: true })
	writeFileSync(join(homeNow(), path), content)
}

describe('human times (--json keeps ISO)', () => {
	const now = Date.parse('2026-11-23T12:00:00.000Z')
	const at = (ms: number) => new Date(now - ms).toISOString()
	test.each([
		[10_000, 'just now'],
		[60_000, '1 minute ago'],
		[3 * 60_000 + 59_000, '3 minutes ago'],
		[2 * 3_600_000, '2 hours ago'],
		[23.6 * 3_600_000, '24 hours ago'],
		[3 * 86_400_000, '3 days ago'],
		[-(7 * 86_400_000 - 5_000), 'in 7 days'],
		[-(90 * 60_000), 'in 2 hours'],
		[45 * 86_400_000, '2026-10-09']
	])('%d ms ago → %s', (ms, words) => {
		expect(ago(at(ms), now)).toBe(words)
	})
	test('no time is "never"', () => {
		expect(ago(null, now)).toBe('never')
	})
})

describe('directories', () => {
	test('text files recursively; hidden names left out; not UTF-8 skipped with a reason', () => {
		put('.claude/commands/a.md', 'a\n')
		put('.claude/commands/deep/b.md', 'b\n')
		put('.claude/commands/.DS_Store', Buffer.from([0, 0xff]))
		put('.claude/commands/.git/config', 'x')
		put('.claude/commands/icon.png', Buffer.from([0x89, 0xff, 0xfe]))
		expect(scanDir('.claude/commands')).toEqual({
			keys: ['.claude/commands/a.md', '.claude/commands/deep/b.md'],
			skipped: [{ key: '.claude/commands/icon.png', why: 'not UTF-8 text' }]
		})
		expect(scanDir('.claude/agents')).toEqual({ keys: [], skipped: [] })
	})

	test('a well-known directory over a cap is left out whole, base and server files included; named, it is an error', () => {
		for (let i = 0; i < 201; i++) put(`.claude/agents/${i}.md`, 'x')
		put('.claude/commands/ok.md', 'fine\n')
		const base = { '.claude/agents/1.md': { hash: 'h' }, '.claude/settings.json': { hash: 'h' } }
		const remote = { '.claude/agents/new.md': 'n', '.claude/commands/theirs.md': 't' }
		const scope = scopeFor('claude-code', { base, remote })
		expect(scope.keys.filter((key) => key.startsWith('.claude/agents'))).toEqual([])
		expect(scope.keys).toContain('.claude/commands/ok.md')
		expect(scope.keys).toContain('.claude/commands/theirs.md')
		expect(scope.excluded).toEqual(['.claude/agents'])
		expect(scope.skipped[0]?.why).toContain('201 files')
		expect(() => scopeFor('claude-code', { named: ['.claude/agents/'] })).toThrow('nothing was done')
	})

	test('a named PATH that is not here but has files under it on the server is a directory', () => {
		const scope = scopeFor('cursor', {
			named: ['.cursor/rules'],
			remote: { '.cursor/rules/a.mdc': 'a', '.cursor/other': 'o' }
		})
		expect(scope.keys).toEqual(['.cursor/rules/a.mdc'])
	})
})

describe('~/.claude.json: only mcpServers', () => {
	const key = '.claude.json#mcpServers'
	test('read: the member alone, as JSON; absent file or member reads as absent', () => {
		expect(readText(key)).toBeUndefined()
		put('.claude.json', '{"numStartups": 3}')
		expect(readText(key)).toBeUndefined()
		put('.claude.json', '{"numStartups": 3, "mcpServers": {"gh": {"command": "gh"}}, "oauthAccount": {"x": 1}}')
		expect(readText(key)).toBe('{\n  "mcpServers": {\n    "gh": {\n      "command": "gh"\n    }\n  }\n}\n')
		put('.claude.json', '{broken')
		expect(() => readText(key)).toThrow('not valid JSON')
	})

	test('write: merged into the rest of the file (its formatting kept); a removed part removes only its key', () => {
		const current = '{\n\t"numStartups": 3,\n\t"mcpServers": {\n\t\t"old": {}\n\t},\n\t"projects": {}\n}\n'
		const next = mergePart(
			key,
			current,
			'{\n  "mcpServers": {\n    "gh": {\n      "command": "gh"\n    }\n  }\n}\n'
		) as string
		expect(JSON.parse(next)).toEqual({ numStartups: 3, mcpServers: { gh: { command: 'gh' } }, projects: {} })
		expect(next).toContain('\t"numStartups": 3,\n')
		expect(next).toContain('\t"projects": {}\n')
		expect(JSON.parse(mergePart(key, current, null) as string)).toEqual({ numStartups: 3, projects: {} })
		expect(mergePart(key, undefined, '{"mcpServers": {}}')).toBe('{"mcpServers": {}}')
		expect(mergePart(key, undefined, null)).toBeUndefined()
		expect(() => mergePart(key, current, '{"other": 1}')).toThrow('nothing was written')
	})

	test('write: an MCP server entry that did not change keeps its bytes, however compact', () => {
		const current =
			'{"numStartups": 5, "mcpServers": {"github": { "command": "gh", "args": ["mcp"] }, "pg": { "command": "npx", "args": ["-y", "pg"] }}}\n'
		const part = (servers: object) => `${JSON.stringify({ mcpServers: servers }, null, 2)}\n`
		const edited = mergePart(
			key,
			current,
			part({
				github: { command: 'gh2', args: ['mcp'] },
				pg: { command: 'npx', args: ['-y', 'pg'] },
				new: { command: 'n' }
			})
		) as string
		expect(JSON.parse(edited).mcpServers).toEqual({
			github: { command: 'gh2', args: ['mcp'] },
			pg: { command: 'npx', args: ['-y', 'pg'] },
			new: { command: 'n' }
		})
		expect(edited).toContain('"pg": { "command": "npx", "args": ["-y", "pg"] }')
		expect(edited).toContain('"args": ["mcp"]')
		expect(edited.startsWith('{"numStartups": 5, ')).toBe(true)
		// Written over several lines, as Claude Code writes it: only the changed entry's lines change.
		const lines =
			'{\n  "numStartups": 5,\n  "mcpServers": {\n    "github": { "command": "gh" },\n    "pg": { "command": "npx", "args": ["-y", "pg"] }\n  }\n}\n'
		const added = mergePart(
			key,
			lines,
			part({ github: { command: 'gh' }, pg: { command: 'npx', args: ['-y', 'pg'] }, new: { command: 'n' } })
		) as string
		expect(added.startsWith(lines.slice(0, lines.indexOf('\n  }\n}')))).toBe(true)
		expect(JSON.parse(added).mcpServers.new).toEqual({ command: 'n' })
		// Writing back what is already there changes nothing.
		expect(
			mergePart(
				key,
				current,
				part({ github: { command: 'gh', args: ['mcp'] }, pg: { command: 'npx', args: ['-y', 'pg'] } })
			)
		).toBe(current)
	})
})

describe('pull backups', () => {
	test('the newest 20 of each config are never removed, whatever the clock says; older ones go after CFGSYNC_BACKUP_DAYS', () => {
		const dir = backupsDir()
		rmSync(dir, { recursive: true, force: true })
		const day = 86_400_000
		const start = Date.parse('2026-09-01T12:00:00.000Z')
		const made: string[] = []
		for (let i = 0; i < 53; i++) {
			const root = backupRoot('codex-key', new Date(start + i * day))
			mkdirSync(root, { recursive: true })
			made.push(root)
		}
		// Another config's backups, all old: its newest 20 stay too.
		for (let i = 0; i < 3; i++) mkdirSync(backupRoot('gemini-key', new Date(start + i * day)), { recursive: true })
		// The clock 40 days ahead of the newest backup: only the codex ones beyond the newest 20 go.
		const removed = pruneBackups(30, start + (52 + 40) * day)
		expect(removed.sort()).toEqual(made.slice(0, 33).sort())
		expect(readdirSync(dir)).toHaveLength(23)
		rmSync(dir, { recursive: true, force: true })
	})

	test('older than CFGSYNC_BACKUP_DAYS (default 30) are removed, by the time in their name or else their modification time', () => {
		const now = Date.parse('2026-11-23T12:00:00.000Z')
		const dir = backupsDir()
		rmSync(dir, { recursive: true, force: true })
		// Beyond the newest 20 of the same (unnamed) kind: only those are removed by age.
		for (let i = 0; i < 20; i++)
			mkdirSync(join(dir, `2026-11-22T00-00-00-0${String(i).padStart(2, '0')}Z`), { recursive: true })
		for (const name of ['2026-10-01T00-00-00-000Z', '2026-11-20T08-30-00-123Z', 'by-hand', 'recent-by-hand'])
			mkdirSync(join(dir, name), { recursive: true })
		writeFileSync(join(dir, '2026-10-01T00-00-00-000Z', 'settings.json'), '{}')
		writeFileSync(join(dir, 'a-file'), 'left alone')
		utimesSync(join(dir, 'by-hand'), new Date(now), new Date(now - 31 * 86_400_000))
		utimesSync(join(dir, 'recent-by-hand'), new Date(now), new Date(now - 29 * 86_400_000))
		expect(pruneBackups(0, now)).toEqual([])
		expect(
			pruneBackups(30, now)
				.map((path) => path.slice(dir.length + 1))
				.sort()
		).toEqual(['2026-10-01T00-00-00-000Z', 'by-hand'])
		expect(existsSync(join(dir, '2026-11-20T08-30-00-123Z'))).toBe(true)
		expect(existsSync(join(dir, 'recent-by-hand'))).toBe(true)
		expect(readFileSync(join(dir, 'a-file'), 'utf8')).toBe('left alone')
		expect(
			pruneBackups(1, now)
				.map((path) => path.slice(dir.length + 1))
				.sort()
		).toEqual(['2026-11-20T08-30-00-123Z', 'recent-by-hand'])
	})
})

describe('a JSON edit lays out only what it inserts, like its neighbours', () => {
	const edit = (text: string, change: (value: never) => unknown) => {
		const value = parseJsonc(text)?.value as never
		return rewrite(text, value, change(structuredClone(value)) as Json)
	}

	test('an entry put first in a list gets a line of its own, the others keep theirs', () => {
		expect(
			edit('[\n    {\n        "key": "ctrl+a",\n        "command": "a"\n    }\n]\n', (v: object[]) => [
				{ key: 'ctrl+z', command: 'z' },
				...v
			])
		).toBe(
			'[\n    {\n        "key": "ctrl+z",\n        "command": "z"\n    },\n    {\n        "key": "ctrl+a",\n        "command": "a"\n    }\n]\n'
		)
		expect(
			edit(
				'{\n  "permissions": {\n    "allow": [\n      "Bash(ls)"\n    ]\n  }\n}\n',
				(v: { permissions: { allow: string[] } }) => {
					v.permissions.allow.unshift('Bash(git status)')
					return v
				}
			)
		).toBe('{\n  "permissions": {\n    "allow": [\n      "Bash(git status)",\n      "Bash(ls)"\n    ]\n  }\n}\n')
	})

	test('an entry added after a compact neighbour leaves it compact', () => {
		expect(
			edit(
				'{\n  "servers": {\n    "github": { "command": "gh" },\n    "pg": { "command": "npx", "args": ["-y", "pg"] }\n  }\n}\n',
				(v: { servers: Record<string, unknown> }) => {
					v.servers.new = { command: 'n' }
					return v
				}
			)
		).toBe(
			'{\n  "servers": {\n    "github": { "command": "gh" },\n    "pg": { "command": "npx", "args": ["-y", "pg"] },\n    "new": {\n      "command": "n"\n    }\n  }\n}\n'
		)
	})
})
