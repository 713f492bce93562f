import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, serversOfThisFile, type Server } from '../support/harness'
import { login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'

/**
 * Team and personal configs of one tool on one machine (docs/sync-model.md,
 * "Team and personal configs of one tool"), end to end with the compiled
 * client: a file a team config holds is synced with it only; sync, watch and
 * a plain push never add files to a team config; a plain member's sync pulls
 * and keeps changes here local; leaving a team forgets its configs here.
 * ada (team plan) owns each team, ben is an admin, cy a member.
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
let ben: User
let cy: User
beforeAll(async () => {
	;({ server, ada, ben, cy } = await serverWithUsers(servers))
}, 60_000)

const latest = async (user: User, tool: string, name: string, teamId?: string) =>
	api(server, 'GET', `/api/configs/latest?name=${name}&tool=${tool}${teamId ? `&teamId=${teamId}` : ''}`, user.key)
const filesOf = async (user: User, tool: string, teamId?: string) =>
	((await latest(user, tool, 'default', teamId)).body as { data: { files: Record<string, string> } }).data.files

const filesOfNamed = async (user: User, tool: string, name: string) =>
	((await latest(user, tool, name)).body as { data: { files: Record<string, string> } }).data.files

const ok = async (m: Machine, args: string[]) => {
	const result = await m.cfgsync(args)
	if (result.code !== 0)
		throw new Error(`cfgsync ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`)
	return result
}

/** A team with ada as owner, ben as admin and cy as member, each on a machine of their own; its id. */
async function team(slug: string) {
	const owner = machine(server)
	const admin = machine(server)
	const member = machine(server)
	const tag = Math.random().toString(36).slice(2, 8)
	await login(owner, ada, `o-${tag}`)
	await login(admin, ben, `a-${tag}`)
	await login(member, cy, `m-${tag}`)
	await ok(owner, ['team', 'create', slug])
	await ok(owner, ['team', 'invite', slug, 'ben', '--role', 'admin'])
	await ok(owner, ['team', 'invite', slug, 'cy', '--role', 'member'])
	await ok(admin, ['invitations', 'accept', slug])
	await ok(member, ['invitations', 'accept', slug])
	const id = ((await api(server, 'GET', `/api/teams/${slug}`, ada.key)).body as { id: string }).id
	return { owner, admin, member, id }
}

const adaMcp = `${JSON.stringify({ numStartups: 3, mcpServers: { adaMail: { command: 'ada-mail' } } }, null, 2)}\n`
const benMcp = `${JSON.stringify({ mcpServers: { benDb: { command: 'ben-db' } } }, null, 2)}\n`

describe('one file, one owner on a machine', () => {
	test("an admin's plain sync never uploads his private files into the team config; a team pull never touches the owner's personal files, and nothing spreads to her other machines", async () => {
		const { owner, admin, id } = await team('acme')
		const other = machine(server)
		await login(other, ada, `o2-${Math.random().toString(36).slice(2, 8)}`)
		// Both are ada's: her other machine trusts this one with code (docs/sync-model.md), as she would.
		await ok(other, ['trust', JSON.parse(owner.file('.config/cfgsync/credentials.json') as string).device])

		// ada's personal config, on two machines.
		owner.file('.claude/settings.json', '{\n  "theme": "dark"\n}\n')
		owner.file('.claude/CLAUDE.md', 'ada private notes\n')
		owner.file('.claude.json', adaMcp)
		await ok(owner, ['push', 'claude-code'])
		await ok(other, ['pull', 'claude-code'])
		// She starts the team config with the shared settings only.
		await ok(owner, ['push', 'claude-code', '--team', 'acme', join(owner.home, '.claude', 'settings.json')])
		expect(Object.keys(await filesOf(ada, 'claude-code', id))).toEqual(['.claude/settings.json'])

		// ben, an admin, syncs his personal config and the team's on one machine.
		admin.file('.claude/CLAUDE.md', 'ben private\n')
		admin.file('.claude/agents/private.md', 'ben agent\n')
		admin.file('.claude.json', benMcp)
		await ok(admin, ['push', 'claude-code'])
		await ok(admin, ['pull', 'claude-code', '--team', 'acme', '--yes'])
		admin.file('.claude/CLAUDE.md', 'ben private, edited\n')
		admin.file('.claude/settings.json', '{\n  "theme": "light"\n}\n')
		const synced = await ok(admin, ['sync', '--yes'])
		const shared = await filesOf(ada, 'claude-code', id)
		expect(Object.keys(shared)).toEqual(['.claude/settings.json'])
		expect(shared['.claude/settings.json']).toContain('light')
		expect(JSON.stringify(shared)).not.toMatch(/ben private|ben agent|benDb/)
		// His personal config got his edit, and not the team's settings.
		const bens = await filesOf(ben, 'claude-code')
		expect(bens['.claude/CLAUDE.md']).toBe('ben private, edited\n')
		expect(Object.keys(bens)).not.toContain('.claude/settings.json')
		expect(synced.stdout).toContain(
			'~/.claude/settings.json (skipped: synced with team config claude-code/default of team acme on this machine'
		)

		// ada's sync brings the team's change; her private files stay as they are and nothing of ben's lands here.
		await ok(owner, ['sync', '--yes'])
		expect(owner.file('.claude/settings.json')).toContain('light')
		expect(owner.file('.claude/CLAUDE.md')).toBe('ada private notes\n')
		expect(owner.file('.claude.json')).toBe(adaMcp)
		expect(owner.exists('.claude/agents/private.md')).toBe(false)
		await ok(owner, ['pull', 'claude-code', '--team', 'acme', '--yes'])
		expect(owner.file('.claude/CLAUDE.md')).toBe('ada private notes\n')
		expect(owner.file('.claude.json')).toBe(adaMcp)

		// status says which config the shared file is synced with.
		const status = await owner.cfgsync(['status'])
		expect(status.code).toBe(0)
		expect(status.stdout).toContain(
			'~/.claude/settings.json: synced with team config claude-code/default of team acme on this machine'
		)
		const asJson = JSON.parse((await owner.cfgsync(['status', '--json'])).stdout) as {
			config: { team: string | null }
			files: { path: string; change: string }[]
		}[]
		const personal = asJson.find((row) => row.config.team === null)
		expect(personal?.files).toEqual([expect.objectContaining({ path: '.claude/settings.json', change: 'skipped' })])

		// Nor does diff count the team's file as a difference of her personal config.
		const diff = await owner.cfgsync(['diff', 'claude-code', '--exit-code', '--no-pager'])
		expect(diff.stdout).not.toContain('settings.json')
		expect(diff.code).toBe(0)

		// Her personal config kept its own settings: her other machine gets nothing of the team's or ben's.
		expect((await filesOf(ada, 'claude-code'))['.claude/settings.json']).toContain('dark')
		await ok(other, ['sync'])
		expect(other.file('.claude/settings.json')).toContain('dark')
		expect(other.file('.claude/CLAUDE.md')).toBe('ada private notes\n')
		expect(JSON.parse(other.file('.claude.json') as string)).toEqual({
			mcpServers: { adaMail: { command: 'ada-mail' } }
		})
		expect(other.exists('.claude/agents/private.md')).toBe(false)
	}, 120_000)

	test("a member's sync with local edits to a team file pulls, says they stay local and exits 0; only admins and owners add files with push --team SLUG PATH", async () => {
		const { owner, admin, member, id } = await team('crew')
		owner.file('.claude/settings.json', '{\n  "theme": "dark",\n  "fontSize": 12\n}\n')
		await ok(owner, ['push', 'claude-code', '--team', 'crew', join(owner.home, '.claude', 'settings.json')])
		await ok(member, ['pull', 'claude-code', '--team', 'crew', '--yes'])

		member.file('.claude/settings.json', '{\n  "theme": "mine",\n  "fontSize": 12\n}\n')
		owner.file('.claude/settings.json', '{\n  "theme": "dark",\n  "fontSize": 14\n}\n')
		await ok(owner, ['push', 'claude-code', '--team', 'crew'])
		const synced = await member.cfgsync(['sync', '--yes'])
		expect(synced.code).toBe(0)
		expect(synced.stdout).toContain(
			'~/.claude/settings.json (changed here, stays local: you are a member of team crew; only its owners and admins push to its configs)'
		)
		expect(member.file('.claude/settings.json')).toBe('{\n  "theme": "mine",\n  "fontSize": 14\n}\n')
		expect((await filesOf(ada, 'claude-code', id))['.claude/settings.json']).toContain('"dark"')
		const again = await member.cfgsync(['sync'])
		expect(again.code).toBe(0)
		expect(again.stdout).toContain('stays local')
		const scripted = await member.cfgsync(['sync', '--json'])
		expect(scripted.code).toBe(0)
		expect(JSON.parse(scripted.stdout)[0].unsent).toEqual([expect.objectContaining({ path: '.claude/settings.json' })])
		expect(scripted.stderr).toContain('stay local: you are a member of team crew')

		// A member's push to the team is refused, with what to do instead; nothing is sent.
		member.file('.claude/CLAUDE.md', 'my rules\n')
		for (const paths of [[], [join(member.home, '.claude', 'CLAUDE.md')]]) {
			const refused = await member.cfgsync(['push', 'claude-code', '--team', 'crew', ...paths])
			expect(refused.code).toBe(1)
			expect(refused.stderr).toContain('you are a member of team crew')
			expect(refused.stderr).toContain('nothing was sent')
			expect(refused.stderr).toContain('cfgsync team show crew')
		}
		expect(Object.keys(await filesOf(ada, 'claude-code', id))).toEqual(['.claude/settings.json'])

		// An admin adds a file by naming it; the member's next sync brings it.
		admin.file('.claude/agents/reviewer.md', 'review carefully\n')
		await ok(admin, ['push', 'claude-code', '--team', 'crew', join(admin.home, '.claude', 'agents', 'reviewer.md')])
		expect(Object.keys(await filesOf(ada, 'claude-code', id)).sort()).toEqual([
			'.claude/agents/reviewer.md',
			'.claude/settings.json'
		])
		await ok(member, ['sync', '--yes'])
		expect(member.file('.claude/agents/reviewer.md')).toBe('review carefully\n')

		// A push without PATHs never starts a team config: it names the command that does.
		owner.file('.codex/AGENTS.md', 'owner notes\n')
		const unnamed = await owner.cfgsync(['push', 'codex', '--team', 'crew'])
		expect(unnamed.code).toBe(2)
		expect(unnamed.stderr).toContain('cfgsync push codex --team crew PATH...')
		expect((await latest(ada, 'codex', 'default', id)).status).toBe(404)
	}, 120_000)

	test("a member's conflict settled with --mine stays local, and no printed next step is a push they may not make; each file is named once", async () => {
		const { owner, member } = await team('keepers')
		const settings = (value: object) => `${JSON.stringify(value, null, 2)}\n`
		owner.file('.gemini/settings.json', settings({ theme: 'dark', fontSize: 12 }))
		await ok(owner, ['push', 'gemini-cli', '--team', 'keepers', join(owner.home, '.gemini', 'settings.json')])
		// The member's machine already has a setting of its own: the first sync merges the two.
		member.file('.gemini/settings.json', settings({ vimMode: true }))
		const first = await ok(member, ['sync', '--all-remote', '--yes'])
		const named = first.stdout.split('\n').filter((line) => line.includes('~/.gemini/settings.json (changed here'))
		expect(named).toEqual([expect.stringContaining('stays local: you are a member of team keepers')])

		member.file('.gemini/settings.json', settings({ theme: 'mine', fontSize: 12, vimMode: true }))
		owner.file('.gemini/settings.json', settings({ theme: 'light', fontSize: 12 }))
		await ok(owner, ['push', 'gemini-cli', '--team', 'keepers'])
		const conflicted = await member.cfgsync(['status', 'gemini-cli', '--team', 'keepers'])
		expect(conflicted.code).toBe(3)
		const resolved = await ok(member, ['resolve', 'gemini-cli', '--team', 'keepers', '--mine', '--yes'])
		expect(resolved.stdout).not.toContain('cfgsync push')
		expect(resolved.stdout).toContain('It stays on this machine (you are a member of team keepers')
		expect(resolved.stdout).toContain('cfgsync local --help')
		expect((await member.cfgsync(['local', '--help'])).code).toBe(0)
		expect(JSON.parse(member.file('.gemini/settings.json') as string)).toEqual({
			theme: 'mine',
			fontSize: 12,
			vimMode: true
		})

		// status says why the changes wait, and what to do with them; the command it names works.
		const status = await member.cfgsync(['status', 'gemini-cli', '--team', 'keepers'])
		expect(status.code).toBe(1)
		expect(status.stdout).toContain(
			'the changes here stay on this machine (you are a member of team keepers; only its owners and admins push to its configs): cfgsync discard gemini-cli --team keepers drops them'
		)
		expect(status.stdout).not.toContain('cfgsync push')
		const pulled = await ok(member, ['pull', 'gemini-cli', '--team', 'keepers'])
		expect(pulled.stdout).not.toContain('cfgsync push')
		await ok(member, ['discard', 'gemini-cli', '--team', 'keepers', '--yes'])
		expect(JSON.parse(member.file('.gemini/settings.json') as string)).toEqual({ theme: 'light', fontSize: 12 })
	}, 120_000)

	test("watch follows the same rules: a member's edit to a team file stays local, a private file goes to the personal config only", async () => {
		const { owner, member, id } = await team('watchers')
		owner.file('.claude/settings.json', '{\n  "theme": "dark",\n  "fontSize": 12\n}\n')
		await ok(owner, ['push', 'claude-code', '--team', 'watchers', join(owner.home, '.claude', 'settings.json')])
		member.file('.claude/CLAUDE.md', 'cy notes\n')
		await ok(member, ['push', 'claude-code'])
		await ok(member, ['pull', 'claude-code', '--team', 'watchers', '--yes'])
		const watcher = member.start(['watch', 'claude-code', '--interval', '1s', '--yes'])
		const until = async (what: string, check: () => Promise<boolean> | boolean) => {
			const deadline = Date.now() + 20_000
			while (!(await check())) {
				if (Date.now() > deadline) throw new Error(`watch did not ${what} in time`)
				await Bun.sleep(200)
			}
		}
		try {
			await Bun.sleep(1500)
			member.file('.claude/settings.json', '{\n  "theme": "mine",\n  "fontSize": 12\n}\n')
			member.file('.claude/CLAUDE.md', 'cy notes, edited\n')
			await until(
				'push the personal edit',
				async () => (await filesOf(cy, 'claude-code'))['.claude/CLAUDE.md'] === 'cy notes, edited\n'
			)
			owner.file('.claude/settings.json', '{\n  "theme": "dark",\n  "fontSize": 14\n}\n')
			await ok(owner, ['push', 'claude-code', '--team', 'watchers'])
			await until('pull the team change', () => member.file('.claude/settings.json')?.includes('14') === true)
			await Bun.sleep(1500)
		} finally {
			watcher.kill('SIGINT')
		}
		const code = await watcher.exited
		const [stdout, stderr] = await Promise.all([
			new Response(watcher.stdout as ReadableStream).text(),
			new Response(watcher.stderr as ReadableStream).text()
		])
		expect(code).toBe(0)
		expect(member.file('.claude/settings.json')).toBe('{\n  "theme": "mine",\n  "fontSize": 14\n}\n')
		expect(stdout).toContain('stays local: you are a member of team watchers')
		expect(stderr).not.toMatch(/Not allowed|admin role/)
		const shared = await filesOf(ada, 'claude-code', id)
		expect(Object.keys(shared)).toEqual(['.claude/settings.json'])
		expect(shared['.claude/settings.json']).toContain('"dark"')
		expect(Object.keys(await filesOf(cy, 'claude-code'))).toEqual(['.claude/CLAUDE.md'])
	}, 90_000)

	test('after team leave, status no longer lists the team configs; their files stay, and the personal config takes them in only when a push names them', async () => {
		const { owner, member } = await team('leavers')
		owner.file('.codex/AGENTS.md', 'team rules\n')
		await ok(owner, ['push', 'codex', '--team', 'leavers', join(owner.home, '.codex', 'AGENTS.md')])
		// The member has a personal codex config of their own on this machine.
		member.file('.codex/config.toml', 'model = "mine"\n')
		await ok(member, ['push', 'codex', '-n', 'own', join(member.home, '.codex', 'config.toml')])
		await ok(member, ['pull', 'codex', '--team', 'leavers', '--yes'])
		expect((await member.cfgsync(['status'])).stdout).toContain('codex/default of team leavers')

		const left = await ok(member, ['team', 'leave', 'leavers'])
		const status = await member.cfgsync(['status'])
		expect(status.stdout + status.stderr).not.toContain('of team leavers:')
		expect(left.stdout).toContain(
			'You left leavers. This machine no longer syncs its config (codex/default); its files here are untouched, and a personal config takes them in only when a push names them.'
		)
		expect(member.file('.codex/AGENTS.md')).toBe('team rules\n')
		const synced = await member.cfgsync(['sync'])
		expect(synced.code).toBe(0)
		// The team's file does not move into the personal config on its own.
		const personal = await member.cfgsync(['push', 'codex', '-n', 'personal'])
		expect(personal.stdout).toContain(
			'~/.codex/AGENTS.md (skipped: left here by team config codex/default of team leavers, which this machine no longer syncs'
		)
		expect(Object.keys(await filesOfNamed(cy, 'codex', 'personal'))).toEqual(['.codex/config.toml'])
		await ok(member, ['push', 'codex', '-n', 'own'])
		expect(Object.keys(await filesOfNamed(cy, 'codex', 'own'))).toEqual(['.codex/config.toml'])
		expect((await member.cfgsync(['status', 'codex', '-n', 'own'])).stdout).toContain(
			'~/.codex/AGENTS.md: left here by team config codex/default of team leavers'
		)
		// Named, it is taken in.
		await ok(member, ['push', 'codex', '-n', 'own', join(member.home, '.codex', 'AGENTS.md')])
		expect(Object.keys(await filesOfNamed(cy, 'codex', 'own')).sort()).toEqual([
			'.codex/AGENTS.md',
			'.codex/config.toml'
		])
		expect((await member.cfgsync(['status', 'codex', '-n', 'own'])).code).toBe(0)
	}, 90_000)

	test("removed from a team: sync says so without a push the member cannot make; a push names the command that takes the team's file in, and it works", async () => {
		const { owner, member } = await team('removers')
		owner.file('.gemini/settings.json', '{\n  "theme": "team"\n}\n')
		await ok(owner, ['push', 'gemini-cli', '--team', 'removers', join(owner.home, '.gemini', 'settings.json')])
		await ok(member, ['pull', 'gemini-cli', '--team', 'removers', '--yes'])
		await ok(owner, ['team', 'remove', 'removers', 'cy'])

		const synced = await member.cfgsync(['sync'])
		expect(synced.stderr).toContain('no longer syncs it; its files here are untouched')
		expect(synced.stderr).not.toContain('cfgsync push')
		const pushed = await member.cfgsync(['push', 'gemini-cli', '-n', 'mine'])
		expect(pushed.code).not.toBe(0)
		expect(pushed.stderr).toContain(
			'To make it part of this config: cfgsync push gemini-cli --name mine ~/.gemini/settings.json'
		)
		const command = /cfgsync (push gemini-cli --name mine \S+)/.exec(pushed.stderr)?.[1]?.split(' ') ?? []
		await ok(
			member,
			command.map((word) => (word.startsWith('~/') ? join(member.home, word.slice(2)) : word))
		)
		expect(Object.keys(await filesOfNamed(cy, 'gemini-cli', 'mine'))).toEqual(['.gemini/settings.json'])
	}, 90_000)

	test("a team file a killed sync had just created stays the team's: the personal config neither sends it nor discards it, before or after it is settled", async () => {
		const { owner, member, id } = await team('killers')
		owner.file('.claude/settings.json', '{\n  "theme": "dark"\n}\n')
		await ok(owner, ['push', 'claude-code', '--team', 'killers', join(owner.home, '.claude', 'settings.json')])
		member.file('.claude/CLAUDE.md', 'cy notes\n')
		await ok(member, ['push', 'claude-code', '-n', 'cys'])
		await ok(member, ['pull', 'claude-code', '--team', 'killers', '--yes'])
		owner.file('.claude/commands/team-3.md', '# Team command 3\n')
		await ok(owner, ['push', 'claude-code', '--team', 'killers', join(owner.home, '.claude', 'commands', 'team-3.md')])
		// The member's pull of the team config is killed just after it wrote the new file; they edit it at once.
		const killed = await member.cfgsync(['pull', 'claude-code', '--team', 'killers', '--yes'], {
			env: { CFGSYNC_TEST_CRASH_AT: 'write:1' }
		})
		expect(killed.code).toBe(137)
		member.file('.claude/commands/team-3.md', '# Team command 3\n- my line\n')

		const personal = await member.cfgsync(['push', 'claude-code', '-n', 'cys'])
		expect(personal.stdout + personal.stderr).not.toContain('team-3.md (added')
		expect(Object.keys(await filesOfNamed(cy, 'claude-code', 'cys'))).toEqual(['.claude/CLAUDE.md'])
		await ok(member, ['discard', 'claude-code', '-n', 'cys', '--yes'])
		expect(member.file('.claude/commands/team-3.md')).toBe('# Team command 3\n- my line\n')

		// Settled by the team config's next command (the edit is this machine's), and still the team's afterwards.
		await member.cfgsync(['status', 'claude-code', '--team', 'killers'])
		await member.cfgsync(['sync', '--yes'])
		const again = await member.cfgsync(['push', 'claude-code', '-n', 'cys'])
		expect(again.stdout + again.stderr).not.toContain('team-3.md (added')
		expect(Object.keys(await filesOfNamed(cy, 'claude-code', 'cys'))).toEqual(['.claude/CLAUDE.md'])
		expect(member.file('.claude/commands/team-3.md')).toBe('# Team command 3\n- my line\n')
		expect(Object.keys(await filesOf(ada, 'claude-code', id)).sort()).toEqual([
			'.claude/commands/team-3.md',
			'.claude/settings.json'
		])
	}, 90_000)

	test('two team configs of one tool holding one file: the first by team slug owns it here, the other leaves it out', async () => {
		const alpha = await team('alpha')
		const owner = alpha.owner
		await ok(owner, ['team', 'create', 'beta'])
		const beta = ((await api(server, 'GET', '/api/teams/beta', ada.key)).body as { id: string }).id
		owner.file('.claude/settings.json', '{\n  "theme": "alpha"\n}\n')
		await ok(owner, ['push', 'claude-code', '--team', 'alpha', join(owner.home, '.claude', 'settings.json')])
		const stored = await api(server, 'POST', '/api/configs', ada.key, {
			teamId: beta,
			tool: 'claude-code',
			name: 'default',
			data: { files: { '.claude/settings.json': '{\n  "theme": "beta"\n}\n', '.claude/CLAUDE.md': 'beta rules\n' } }
		})
		expect(stored.status).toBe(201)

		const pulled = await ok(owner, ['pull', 'claude-code', '--team', 'beta', '--yes'])
		expect(pulled.stdout).toContain(
			'~/.claude/settings.json (skipped: synced with team config claude-code/default of team alpha on this machine'
		)
		expect(owner.file('.claude/settings.json')).toBe('{\n  "theme": "alpha"\n}\n')
		expect(owner.file('.claude/CLAUDE.md')).toBe('beta rules\n')
		const status = await owner.cfgsync(['status', 'claude-code'])
		expect(status.code).toBe(0)
		expect(status.stdout).toContain('synced with team config claude-code/default of team alpha on this machine')
	}, 90_000)
})
