import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { ownMachines, type Machine } from '../support/client/machines'
import { inProcessWorld, type User, type World } from '../support/client/in-process'
import { parseJsonc } from '../../src/client/sync/json'

/**
 * The merge (docs/sync-model.md): two machines against one server, in
 * process (test/support/client/in-process.ts), in the scenarios people
 * met — a comment that turned a Gemini settings file into a conflict and a settled conflict that dropped
 * the other side's edits; a new machine whose resolve replaced the server's
 * MCP servers; Markdown edited on two machines. Each test uses its own
 * config name so they share one server.
 */

let world: World
let ada: User
beforeAll(async () => {
	world = inProcessWorld()
	ada = await world.user('team', 'ada')
})

const stored = async (tool: string, name: string): Promise<Record<string, string>> =>
	(await world.api('GET', `/api/configs/latest?name=${name}&tool=${tool}`, ada.key)).body.data.files

/** Ada's machines, which trust each other with code (docs/sync-model.md: she ran `cfgsync trust` on each). */
const machines = (count = 2): Promise<Machine[]> => ownMachines(world.machine, ada, count, 'm')

/** What a person sees of a run: both streams, to search for messages. */
const said = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`

const GEMINI = '.gemini/settings.json'
const geminiBase =
	'{\n  "theme": "Default",\n  "ui": {\n    "hideBanner": false\n  },\n  "telemetry": {\n    "enabled": false\n  }\n}\n'

/** Two machines synced on a Gemini settings file. */
async function syncedGemini(name: string): Promise<[Machine, Machine]> {
	const [a, b] = (await machines()) as [Machine, Machine]
	a.file(GEMINI, geminiBase)
	expect((await a.cfgsync(['push', 'gemini-cli', '--name', name])).code).toBe(0)
	expect((await b.cfgsync(['pull', 'gemini-cli', '--name', name])).code).toBe(0)
	return [a, b]
}

const jsonValue = (text: string | undefined) => parseJsonc(text ?? '')?.value

describe('comments are not keys; settling a conflict keeps every change that did not clash', () => {
	test('Gemini: a theme and a comment on one machine, telemetry on the other: sync merges cleanly and both machines end with all of it', async () => {
		const name = 'g1'
		const [a, b] = await syncedGemini(name)
		a.file(
			GEMINI,
			geminiBase.replace('  "theme": "Default"', '  // dark at night, easier on the eyes\n  "theme": "Dracula"')
		)
		expect((await a.cfgsync(['sync', 'gemini-cli', '--name', name])).code).toBe(0)
		b.file(GEMINI, geminiBase.replace('"enabled": false', '"enabled": true'))

		const merged = await b.cfgsync(['sync', 'gemini-cli', '--name', name])
		expect({ code: merged.code, said: said(merged) }).toMatchObject({ code: 0 })
		expect(merged.stdout).toContain('~/.gemini/settings.json (merged')
		const both =
			'{\n  // dark at night, easier on the eyes\n  "theme": "Dracula",\n  "ui": {\n    "hideBanner": false\n  },\n  "telemetry": {\n    "enabled": true\n  }\n}\n'
		expect(b.file(GEMINI)).toBe(both)
		expect((await stored('gemini-cli', name))[GEMINI]).toBe(both)
		expect((await a.cfgsync(['sync', 'gemini-cli', '--name', name])).code).toBe(0)
		expect(a.file(GEMINI)).toBe(both)
	}, 60_000)

	/**
	 * A real clash on `theme`, with changes beside it on both sides: A adds a
	 * comment and hides the banner; B turns telemetry on. Whichever way B
	 * settles it, both machines keep the comment, the banner and telemetry.
	 */
	for (const [settle, args, theme] of [
		['resolve --mine', ['resolve', 'gemini-cli', '--mine'], 'Solarized'],
		['resolve --theirs', ['resolve', 'gemini-cli', '--theirs'], 'Dracula'],
		['push --force', ['push', 'gemini-cli', '--force'], 'Solarized']
	] as const) {
		test(`Gemini: a clash on theme settled with ${settle}: the conflict names theme, and every change that did not clash survives on both machines`, async () => {
			const name = `g-${settle.replace(/\W+/g, '-')}`
			const [a, b] = await syncedGemini(name)
			a.file(
				GEMINI,
				geminiBase
					.replace('  "theme": "Default"', '  // dark at night\n  "theme": "Dracula"')
					.replace('"hideBanner": false', '"hideBanner": true')
			)
			expect((await a.cfgsync(['push', 'gemini-cli', '--name', name])).code).toBe(0)
			b.file(GEMINI, geminiBase.replace('"Default"', '"Solarized"').replace('"enabled": false', '"enabled": true'))

			const clash = await b.cfgsync(['sync', 'gemini-cli', '--name', name])
			expect(clash.code).toBe(3)
			expect(clash.stderr).toContain('~/.gemini/settings.json (changed here and on the server: theme)')

			const settled = await b.cfgsync([...args, '--name', name])
			expect({ code: settled.code, said: said(settled) }).toMatchObject({ code: 0 })
			if (args[0] === 'resolve') expect((await b.cfgsync(['push', 'gemini-cli', '--name', name])).code).toBe(0)
			expect((await a.cfgsync(['pull', 'gemini-cli', '--name', name])).code).toBe(0)
			for (const m of [a, b]) {
				const text = m.file(GEMINI)
				expect(text).toContain('// dark at night')
				expect(jsonValue(text)).toEqual({ theme, ui: { hideBanner: true }, telemetry: { enabled: true } })
			}
			expect(jsonValue((await stored('gemini-cli', name))[GEMINI])).toEqual({
				theme,
				ui: { hideBanner: true },
				telemetry: { enabled: true }
			})
		}, 60_000)
	}
})

describe('a new machine merges against an empty base', () => {
	const github = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-github'] }
	const postgres = {
		command: 'npx',
		args: ['-y', '@modelcontextprotocol/server-postgres', 'postgresql://localhost/db']
	}
	const filesystem = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/ada/src'] }

	test("~/.claude.json: the server's github and postgres and this machine's filesystem do not overlap: resolve --mine keeps all three, on the server too", async () => {
		const name = 'mcp1'
		const [a, fresh] = (await machines(2)) as [Machine, Machine]
		a.file('.claude.json', `${JSON.stringify({ numStartups: 3, mcpServers: { github, postgres } }, null, 2)}\n`)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)

		fresh.file(
			'.claude.json',
			`${JSON.stringify({ numStartups: 40, userID: 'x', mcpServers: { filesystem } }, null, 2)}\n`
		)
		const resolved = await fresh.cfgsync(['resolve', 'claude-code', '--name', name, '--mine'])
		expect({ code: resolved.code, said: said(resolved) }).toMatchObject({ code: 0 })
		const here = JSON.parse(fresh.file('.claude.json') as string)
		expect(here).toEqual({ numStartups: 40, userID: 'x', mcpServers: { filesystem, github, postgres } })

		const pushed = await fresh.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: pushed.code, said: said(pushed) }).toMatchObject({ code: 0 })
		expect(JSON.parse((await stored('claude-code', name))['.claude.json#mcpServers'] as string)).toEqual({
			mcpServers: { filesystem, github, postgres }
		})
		expect((await a.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		expect(JSON.parse(a.file('.claude.json') as string).mcpServers).toEqual({ github, postgres, filesystem })
	}, 60_000)

	test('~/.claude.json on a new machine: pull merges the lists (exit 0, not a conflict); only a server both sides define differently clashes, and resolve --mine keeps the rest', async () => {
		const name = 'mcp2'
		const [a, fresh, other] = (await machines(3)) as [Machine, Machine, Machine]
		a.file('.claude.json', `${JSON.stringify({ mcpServers: { github, postgres } }, null, 2)}\n`)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)

		fresh.file('.claude.json', `${JSON.stringify({ mcpServers: { filesystem } }, null, 2)}\n`)
		const pulled = await fresh.cfgsync(['pull', 'claude-code', '--name', name])
		expect({ code: pulled.code, said: said(pulled) }).toMatchObject({ code: 0 })
		expect(JSON.parse(fresh.file('.claude.json') as string).mcpServers).toEqual({ filesystem, github, postgres })
		// What only this machine had is its unsent change: the server still has its two, until a push.
		expect(
			Object.keys(JSON.parse((await stored('claude-code', name))['.claude.json#mcpServers'] as string).mcpServers)
		).toEqual(['github', 'postgres'])

		const mine = { command: 'docker', args: ['run', 'ghcr.io/github/github-mcp-server'] }
		other.file('.claude.json', `${JSON.stringify({ mcpServers: { filesystem, github: mine } }, null, 2)}\n`)
		const clash = await other.cfgsync(['pull', 'claude-code', '--name', name])
		expect(clash.code).toBe(3)
		expect(clash.stderr).toContain('mcpServers.github.')
		expect(clash.stderr).not.toContain('postgres')
		expect((await other.cfgsync(['resolve', 'claude-code', '--name', name, '--mine'])).code).toBe(0)
		expect((await other.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		expect(JSON.parse((await stored('claude-code', name))['.claude.json#mcpServers'] as string).mcpServers).toEqual({
			github: mine,
			postgres,
			filesystem
		})
	}, 60_000)
})

describe('text files merge line by line', () => {
	const MD = '.claude/CLAUDE.md'
	const rules = '# Rules\n\nUse tabs.\n\n## Tests\n\nRun bun test before a commit.\n'

	async function syncedRules(name: string): Promise<[Machine, Machine]> {
		const [a, b] = (await machines()) as [Machine, Machine]
		a.file(MD, rules)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		return [a, b]
	}

	test('CLAUDE.md edited in different places on two machines: sync merges both edits on both machines', async () => {
		const name = 'md1'
		const [a, b] = await syncedRules(name)
		a.file(MD, rules.replace('# Rules', '# Rules for this repo'))
		expect((await a.cfgsync(['sync', 'claude-code', '--name', name])).code).toBe(0)
		b.file(MD, rules.replace('Run bun test before a commit.', 'Run bun test and biome before a commit.'))
		const merged = await b.cfgsync(['sync', 'claude-code', '--name', name])
		expect({ code: merged.code, said: said(merged) }).toMatchObject({ code: 0 })
		const both = '# Rules for this repo\n\nUse tabs.\n\n## Tests\n\nRun bun test and biome before a commit.\n'
		expect(b.file(MD)).toBe(both)
		expect((await stored('claude-code', name))[MD]).toBe(both)
		expect((await a.cfgsync(['sync', 'claude-code', '--name', name])).code).toBe(0)
		expect(a.file(MD)).toBe(both)
	}, 60_000)

	test('CLAUDE.md edited in the same place: a conflict naming the line; resolve --edit writes markers; push refuses while they remain; once edited, push sends it', async () => {
		const name = 'md2'
		const [a, b] = await syncedRules(name)
		a.file(MD, rules.replace('Use tabs.', 'Use two spaces.').replace('Run bun test', 'Run bun test --bail'))
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		b.file(MD, rules.replace('# Rules', '# Rules (laptop)').replace('Use tabs.', 'Use four spaces.'))

		const clash = await b.cfgsync(['sync', 'claude-code', '--name', name])
		expect(clash.code).toBe(3)
		expect(clash.stderr).toContain('~/.claude/CLAUDE.md (changed here and on the server: line 3)')
		const suggested = /cfgsync (resolve claude-code --name md2 --edit [^\s;]+)/.exec(clash.stderr)?.[1]
		expect(suggested).toBe('resolve claude-code --name md2 --edit ~/.claude/CLAUDE.md')

		// Run as printed (the shell expands ~).
		const edit = await b.cfgsync((suggested as string).split(' ').map((word) => word.replace(/^~\//, `${b.home}/`)))
		expect({ code: edit.code, said: said(edit) }).toMatchObject({ code: 0 })
		expect(edit.stdout).toContain('Wrote conflict markers into ~/.claude/CLAUDE.md (the first at line 3)')
		expect(edit.stdout).toContain('cfgsync push claude-code --name md2')
		// Every change that did not clash is in, from both sides; the clash is marked.
		expect(b.file(MD)).toBe(
			'# Rules (laptop)\n\n<<<<<<< this machine\nUse four spaces.\n=======\nUse two spaces.\n>>>>>>> server (version 2)\n\n## Tests\n\nRun bun test --bail before a commit.\n'
		)

		for (const command of [
			['push', 'claude-code', '--name', name],
			['sync', 'claude-code', '--name', name]
		]) {
			const refused = await b.cfgsync(command)
			expect(refused.code).toBe(1)
			expect(refused.stderr).toContain(
				'~/.claude/CLAUDE.md is still marked with conflict markers (the first at line 3, from cfgsync resolve --edit)'
			)
			expect(refused.stderr).toContain('Nothing of it was sent')
		}
		expect((await stored('claude-code', name))[MD]).not.toContain('<<<<<<<')

		const settled = '# Rules (laptop)\n\nUse three spaces.\n\n## Tests\n\nRun bun test --bail before a commit.\n'
		b.file(MD, settled)
		const pushed = await b.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: pushed.code, said: said(pushed) }).toMatchObject({ code: 0 })
		expect((await stored('claude-code', name))[MD]).toBe(settled)
		expect((await a.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		expect(a.file(MD)).toBe(settled)
	}, 60_000)
})

describe('half-removed conflict markers are refused (docs/sync-model.md)', () => {
	const MD = '.claude/CLAUDE.md'
	// A Markdown heading underlined with =======: a line like a marker that resolve --edit did not write.
	const rules = 'Rules\n=======\n\nUse tabs.\n\n## Tests\n\nRun bun test before a commit.\n'

	test('only the <<<<<<< line deleted: push and sync refuse naming the file and a marker line; a heading underline is no marker', async () => {
		const name = 'md3'
		const [a, b] = (await machines()) as [Machine, Machine]
		a.file(MD, rules)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		a.file(MD, rules.replace('Use tabs.', 'Use two spaces.'))
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		b.file(MD, rules.replace('Use tabs.', 'Use four spaces.'))
		expect((await b.cfgsync(['sync', 'claude-code', '--name', name])).code).toBe(3)
		expect((await b.cfgsync(['resolve', 'claude-code', '--name', name, '--edit', join(b.home, MD)])).code).toBe(0)
		const marked = b.file(MD) as string
		expect(marked).toContain('<<<<<<< this machine\n')

		// Only the opening line removed: the split, the closing line and both sides stay.
		b.file(MD, marked.replace('<<<<<<< this machine\n', ''))
		for (const command of [
			['push', 'claude-code', '--name', name],
			['sync', 'claude-code', '--name', name]
		]) {
			const refused = await b.cfgsync(command)
			expect({ code: refused.code, stderr: refused.stderr }).toMatchObject({ code: 1 })
			expect(refused.stderr).toContain('~/.claude/CLAUDE.md is still marked with conflict markers')
		}
		// Only the closing line left.
		b.file(MD, rules.replace('Use tabs.', 'Use three spaces.\n>>>>>>> server (version 2)'))
		expect((await b.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(1)
		// Only a split left, the heading's underline beside it.
		b.file(MD, rules.replace('Use tabs.', 'Use four spaces.\n=======\nUse two spaces.'))
		const split = await b.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: split.code, stderr: split.stderr }).toMatchObject({ code: 1 })
		expect((await stored('claude-code', name))[MD]).not.toContain('spaces.\n=======')

		// Every marker gone, the heading's underline kept: sent.
		const settled = rules.replace('Use tabs.', 'Use three spaces.')
		b.file(MD, settled)
		const pushed = await b.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: pushed.code, said: said(pushed) }).toMatchObject({ code: 0 })
		expect((await stored('claude-code', name))[MD]).toBe(settled)
	}, 60_000)
})

describe('JSON nested too deeply is refused with a message, never a crash', () => {
	const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}\n`
	const noStack = (r: { stdout: string; stderr: string }) => {
		expect(said(r)).not.toContain('RangeError')
		expect(said(r)).not.toMatch(/\n\s+at /)
	}

	test('a settings file or ~/.claude.json 20,000 levels deep: push refuses naming the file and why; one pushed with --force reaches another machine as a conflict, not a crash', async () => {
		const name = 'deep1'
		const [a, b] = await syncedGemini(name)
		a.file(GEMINI, deep(20_000))
		const refused = await a.cfgsync(['push', 'gemini-cli', '--name', name])
		noStack(refused)
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain(
			'~/.gemini/settings.json is not valid JSON, line 1, column 10241: it nests more than 2,048 levels deep'
		)

		const forced = await a.cfgsync(['push', 'gemini-cli', '--name', name, '--force'])
		noStack(forced)
		expect(forced.code).toBe(0)
		b.file(GEMINI, geminiBase.replace('"Default"', '"Dracula"'))
		for (const [command, code] of [
			['sync', 3],
			['status', 3],
			['diff', 0]
		] as const) {
			const run = await b.cfgsync([command, 'gemini-cli', '--name', name])
			noStack(run)
			expect({ command, code: run.code }).toEqual({ command, code })
		}
		expect(b.file(GEMINI)).toBe(geminiBase.replace('"Default"', '"Dracula"'))

		const [c] = (await machines(1)) as [Machine]
		c.file('.claude.json', deep(20_000))
		const part = await c.cfgsync(['push', 'claude-code', '--name', name])
		noStack(part)
		expect(part.code).toBe(1)
		expect(part.stderr).toContain(
			'~/.claude.json is not valid JSON (line 1, column 10241: it nests more than 2,048 levels deep)'
		)
	}, 60_000)
})
