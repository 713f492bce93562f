import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync } from 'node:fs'
import { join } from 'node:path'
import { api, emptyDir, run, serversOfThisFile, startServer, type Server } from '../support/harness'
import { login, machine, ownMachines, serverWithUsers, type Machine, type User } from '../support/client/machines'

/**
 * Issue 20 against the compiled server: each point of the issue as it was
 * reported (the exact scenario), then the fixed behaviour. One server with
 * three users; each test uses its own team, config name or machine.
 */

const servers = serversOfThisFile()
let server: Server
let dir: string
let ada: User
let ben: User
let cy: User
beforeAll(async () => {
	;({ server, dir, ada, ben, cy } = await serverWithUsers(servers))
}, 60_000)

async function loggedIn(user: User, device = `d-${Math.random().toString(36).slice(2, 8)}`): Promise<Machine> {
	const m = machine(server)
	const result = await login(m, user, device)
	expect(result).toMatchObject({ code: 0 })
	return m
}

const credentialsOf = (m: Machine, profile?: string) =>
	JSON.parse(
		m.file(profile ? `.config/cfgsync/profiles/${profile}.json` : '.config/cfgsync/credentials.json') as string
	) as { apiKey: string; keyId: string; device: string; server: string }

describe('teams: every member operation from the command line', () => {
	test('list, create --slug, show, invite (add), role, remove, leave, rename --slug, delete --yes; a member can be promoted', async () => {
		const owner = await loggedIn(ada)
		const other = await loggedIn(ben)
		const third = await loggedIn(cy)
		const created = await owner.cfgsync(['team', 'create', 'Mobile', 'Squad', '--slug', 'mob'])
		expect(created).toMatchObject({ code: 0 })
		expect(created.stdout).toContain('"Mobile Squad" (mob)')
		expect((await owner.cfgsync(['team', 'invite', 'mob', 'ben'])).stdout).toContain('Invited ben to mob as member')
		expect((await owner.cfgsync(['team', 'add', 'mob', 'cy@example.test', '--role', 'admin'])).code).toBe(0)
		expect((await other.cfgsync(['invitations', 'accept', 'mob'])).code).toBe(0)

		// The issue: "A member cannot be promoted at all (already a member)". Adding again says how to change the role.
		const again = await owner.cfgsync(['team', 'add', 'mob', 'ben', '--role', 'admin'])
		expect(again.code).toBe(1)
		expect(again.stderr).toContain('cfgsync team role mob ben ROLE')
		const promoted = await owner.cfgsync(['team', 'role', 'mob', 'ben', 'admin'])
		expect(promoted).toMatchObject({ code: 0 })
		expect(promoted.stdout).toContain('ben is now an admin of mob')
		// A pending invitation's role changes the same way.
		expect((await owner.cfgsync(['team', 'role', 'mob', 'cy', 'member'])).stdout).toContain(
			'invitation of cy to mob is now for member'
		)
		expect((await owner.cfgsync(['team', 'role', 'mob', 'cy', 'owner'])).code).toBe(2)

		const shown = await owner.cfgsync(['team', 'show', 'mob'])
		expect(shown.stdout).toMatch(/Mobile Squad \(mob\), created just now; you are an owner/)
		expect(shown.stdout).toMatch(/ben\s+ben@example\.test\s+admin\s+just now/)
		expect(shown.stdout).toMatch(/Invitations waiting for an answer:\n.*\ncy\s+member\s+ada\s+in 7 days/)
		expect((await owner.cfgsync(['team', 'list'])).stdout).toMatch(/mob\s+Mobile Squad\s+owner\s+just now/)
		expect((await other.cfgsync(['teams'])).stdout).toMatch(/mob\s+Mobile Squad\s+admin/)

		// remove cancels an invitation, or takes a member out.
		expect((await owner.cfgsync(['team', 'remove', 'mob', 'cy'])).stdout).toContain(
			'Cancelled the invitation of cy to mob'
		)
		expect((await third.cfgsync(['invitations'])).stdout).toContain('No pending invitations')

		// The last owner cannot leave; the message says what to do instead.
		const stuck = await owner.cfgsync(['team', 'leave', 'mob'])
		expect(stuck.code).toBe(1)
		expect(stuck.stderr).toContain('cfgsync team role mob LOGIN owner')
		expect((await owner.cfgsync(['team', 'role', 'mob', 'ben', 'owner'])).code).toBe(0)
		expect((await owner.cfgsync(['team', 'leave', 'mob'])).stdout).toContain('You left mob')
		expect((await owner.cfgsync(['team', 'show', 'mob'])).code).toBe(1)

		// ben (now the owner) renames it with a new slug; a config synced on this machine follows the team.
		other.file('.codex/AGENTS.md', 'rules\n')
		expect(
			(await other.cfgsync(['push', 'codex', '--team', 'mob', join(other.home, '.codex', 'AGENTS.md')])).code
		).toBe(0)
		const renamed = await other.cfgsync(['team', 'rename', 'mob', 'Mobile', '--slug', 'mobile'])
		expect(renamed.stdout).toContain('Renamed mob to "Mobile" with the slug mobile')
		expect(renamed.stdout).toContain('--team mob no longer finds it')
		expect((await other.cfgsync(['sync'])).stdout).toContain('codex/default of team mobile')

		// delete asks first; without a terminal it needs --yes (exit 2), and on a terminal "n" keeps the team.
		const unattended = await other.cfgsync(['team', 'delete', 'mobile'])
		expect(unattended.code).toBe(2)
		expect(unattended.stderr).toContain('cfgsync team delete mobile --yes')
		const declined = await other.terminal(['team', 'delete', 'mobile'], 'n\r')
		expect(declined.output).toContain('Delete team "Mobile" (mobile, 1 member)?')
		expect(declined.code).toBe(1)
		expect((await other.cfgsync(['teams'])).stdout).toContain('mobile')
		expect((await other.cfgsync(['team', 'delete', 'mobile', '-y'])).stdout).toContain('Deleted team mobile')
		expect((await other.cfgsync(['teams'])).stdout).toContain('You are in no team')
	}, 90_000)
})

describe('configs', () => {
	test('delete TOOL asks first, refuses without --yes when there is no terminal, then removes the config and this machine stops syncing it', async () => {
		const m = await loggedIn(ada)
		m.file('.gemini/GEMINI.md', 'be brief\n')
		expect((await m.cfgsync(['push', 'gemini-cli', '-n', 'gone'])).code).toBe(0)
		const unattended = await m.cfgsync(['delete', 'gemini-cli', '-n', 'gone'])
		expect(unattended.code).toBe(2)
		expect(unattended.stderr).toContain('cfgsync delete gemini-cli --name gone --yes')
		const no = await m.terminal(['delete', 'gemini-cli', '--name', 'gone'], 'n\r')
		expect(no.output).toContain('Delete gemini-cli/gone (version 1, 1 file)')
		expect(no.code).toBe(1)
		expect((await api(server, 'GET', '/api/configs/latest?name=gone&tool=gemini-cli', ada.key)).status).toBe(200)
		const yes = await m.terminal(['delete', 'gemini-cli', '--name', 'gone'], 'y\r')
		expect(yes.code).toBe(0)
		expect(yes.output).toContain('Its files on this machine are untouched, and this machine no longer syncs it')
		expect((await api(server, 'GET', '/api/configs/latest?name=gone&tool=gemini-cli', ada.key)).status).toBe(404)
		expect(m.file('.gemini/GEMINI.md')).toBe('be brief\n')
		expect((await m.cfgsync(['status', 'gemini-cli', '-n', 'gone'])).stdout).toContain('not on the server')
		expect((await m.cfgsync(['delete', 'gemini-cli', '-n', 'gone', '--yes'])).stderr).toContain('does not exist')
	}, 60_000)

	test('history shows who pushed each version from which device (audit log); a team member is told why it cannot', async () => {
		const laptop = await loggedIn(ada, 'ada-laptop')
		const desktop = await loggedIn(ada, 'ada-desktop')
		laptop.file('.gemini/settings.json', '{"v":1}\n')
		await laptop.cfgsync(['push', 'gemini-cli', '-n', 'who'])
		await desktop.cfgsync(['pull', 'gemini-cli', '-n', 'who'])
		desktop.file('.gemini/settings.json', '{"v":2}\n')
		await desktop.cfgsync(['push', 'gemini-cli', '-n', 'who'])
		await laptop.cfgsync(['rollback', 'gemini-cli', '-n', 'who', '--to', '1'])
		const history = await laptop.cfgsync(['history', 'gemini-cli', '-n', 'who'])
		expect(history.code).toBe(0)
		expect(history.stdout).toMatch(/3\s+just now\s+ada on ada-laptop \(rollback to 1\)\s+1\s+\(current\)/)
		expect(history.stdout).toMatch(/2\s+just now\s+ada on ada-desktop\s+1/)
		expect(history.stdout).toMatch(/1\s+just now\s+ada on ada-laptop\s+1/)
		const asJson = JSON.parse((await laptop.cfgsync(['history', 'gemini-cli', '-n', 'who', '--json'])).stdout)
		expect(asJson.versions[1]).toMatchObject({
			version: 2,
			pushedBy: { username: 'ada', device: 'ada-desktop', rollbackTo: null }
		})
		expect(asJson.versions[0].createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)

		// A team config: an admin reads the team's audit log; a member may not, and is told so.
		const owner = await loggedIn(ada)
		const member = await loggedIn(ben)
		await owner.cfgsync(['team', 'create', 'Hist'])
		await owner.cfgsync(['team', 'invite', 'hist', 'ben'])
		await member.cfgsync(['invitations', 'accept', 'hist'])
		owner.file('.codex/AGENTS.md', 'team rules\n')
		await owner.cfgsync(['push', 'codex', '--team', 'hist', join(owner.home, '.codex', 'AGENTS.md')])
		expect((await owner.cfgsync(['history', 'codex', '--team', 'hist'])).stdout).toMatch(
			/1\s+just now\s+ada on d-\w+\s+1\s+\(current\)/
		)
		const seen = await member.cfgsync(['history', 'codex', '--team', 'hist'])
		expect(seen.code).toBe(0)
		expect(seen.stdout).toMatch(/1\s+just now\s+\?\s+1/)
		expect(seen.stdout).toContain('audit log of team hist, which only its owners and admins can read')
	}, 60_000)

	test('log shows your audit log with human times; --team for owners and admins only; --json keeps ISO times', async () => {
		const m = await loggedIn(ada, 'logger')
		const text = await m.cfgsync(['log', '--limit', '3'])
		expect(text.stdout).toMatch(/WHEN\s+WHO\s+DEVICE\s+EVENT/)
		expect(text.stdout).toMatch(/just now\s+ada\s+-\s+logged in\s+logger/)
		expect(text.stdout).toContain('Older events: cfgsync log --before ')
		const events = JSON.parse((await m.cfgsync(['log', '--json', '--type', 'login.succeeded', '--limit', '1'])).stdout)
		expect(events).toEqual([
			expect.objectContaining({
				type: 'login.succeeded',
				at: expect.stringMatching(/Z$/),
				actor: expect.objectContaining({ username: 'ada' })
			})
		])
		const owner = await loggedIn(ada)
		const member = await loggedIn(cy)
		await owner.cfgsync(['team', 'create', 'Logs'])
		await owner.cfgsync(['team', 'invite', 'logs', 'cy'])
		await member.cfgsync(['invitations', 'accept', 'logs'])
		expect((await owner.cfgsync(['log', '--team', 'logs'])).stdout).toMatch(/accepted invitation/)
		const refused = await member.cfgsync(['log', '--team', 'logs'])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain('only the owners and admins of logs can read its audit log')
	}, 60_000)
})

describe('keys and login', () => {
	test("keys revoke takes a device name; revoking this machine's own key asks first (--yes without a terminal) and logs it out; times are human", async () => {
		const laptop = await loggedIn(ada, 'revoke-laptop')
		const phone = await loggedIn(ada, 'revoke-old')
		const listed = await laptop.cfgsync(['keys'])
		expect(listed.stdout).toMatch(/revoke-laptop\s+read-write\s+just now\s+just now\s+[0-9a-f-]{36}\s+\(this machine\)/)
		expect(listed.stdout).not.toMatch(/\d{4}-\d{2}-\d{2}T/)
		// The issue: revoke needed the UUID. Now the device name does.
		const other = await laptop.cfgsync(['keys', 'revoke', 'revoke-old'])
		expect(other).toMatchObject({ code: 0 })
		expect((await phone.cfgsync(['whoami'])).code).toBe(4)
		// The issue: the key in use was revoked without asking.
		const unattended = await laptop.cfgsync(['keys', 'revoke', 'revoke-laptop'])
		expect(unattended.code).toBe(2)
		expect(unattended.stderr).toContain('cfgsync keys revoke revoke-laptop --yes')
		expect((await laptop.cfgsync(['whoami'])).code).toBe(0)
		const no = await laptop.terminal(['keys', 'revoke', 'revoke-laptop'], 'n\r')
		expect(no.output).toContain('Revoke the key this machine is using (device "revoke-laptop")?')
		expect((await laptop.cfgsync(['whoami'])).code).toBe(0)
		const yes = await laptop.cfgsync(['keys', 'revoke', 'revoke-laptop', '-y'])
		expect(yes.stdout).toContain('This machine is logged out')
		expect(laptop.exists('.config/cfgsync/credentials.json')).toBe(false)
		expect((await laptop.cfgsync(['keys', 'revoke', 'nothing-like-it'])).code).toBe(4)
	}, 60_000)

	test('login --with-token reads a key from standard input (CI) and checks it first', async () => {
		const ci = machine(server)
		const issued = await run(dir, ['key', 'issue', 'ada', '--device', 'ci-runner'])
		const key = issued.stdout.trim()
		const bad = await ci.cfgsync(['login', '--with-token'], { stdin: 'not-a-key\n' })
		expect(bad.code).toBe(2)
		const revoked = await ci.cfgsync(['login', '--with-token'], { stdin: `cs_${'0'.repeat(64)}\n` })
		expect(revoked.code).toBe(4)
		expect(ci.exists('.config/cfgsync/credentials.json')).toBe(false)
		const ok = await ci.cfgsync(['login', '--with-token'], { stdin: `${key}\n` })
		expect(ok).toMatchObject({ code: 0 })
		expect(ok.stdout).toContain('Logged in as ada <ada@example.test>')
		expect(ok.stdout).toContain('(device "ci-runner")')
		expect(credentialsOf(ci)).toMatchObject({ apiKey: key, device: 'ci-runner' })
		expect((await ci.cfgsync(['whoami'])).stdout).toContain('device "ci-runner"')
		expect((await ci.cfgsync(['login', '--with-token', '--user', 'ada'], { stdin: key })).code).toBe(2)
	}, 60_000)

	test('logging in again under a new device name says the old key stays active and how to revoke it', async () => {
		const m = await loggedIn(ada, 'first-name')
		const again = await login(m, ada, 'second-name')
		expect(again.code).toBe(0)
		expect(again.stderr).toContain('The key this machine used before (device "first-name") is still active')
		expect(again.stderr).toContain('cfgsync keys revoke first-name')
		// The same device name replaces the key on the server (docs/api.md): nothing to say.
		expect((await login(m, ada, 'second-name')).stderr).toBe('')
	}, 60_000)

	test('a wrong password is asked again on a terminal; without a terminal login names --password-stdin', async () => {
		const m = machine(server)
		const typed = await m.terminal(
			['login', '--user', 'ada', '--device', 'tty'],
			[
				{ after: 'Password: ', type: 'wrong-password\r' },
				{ after: 'Password: ', type: `${ada.password}\r` },
				// Then it offers to trust ada's other devices with code (docs/sync-model.md): none.
				{ after: 'Enter for none: ', type: '\r' }
			]
		)
		expect(typed.output).toContain('Wrong login or password; try again.')
		expect(typed.output).toContain('Logged in as ada')
		expect(typed.output).toMatch(/ {2}\d+ {2}e2e \((never used|last used)/)
		expect(typed.code).toBe(0)
		expect((await m.cfgsync(['trust', '--list'])).stdout).toMatch(/^e2e +not trusted$/m)
		const thrice = await m.terminal(
			['login', '--user', 'ada', '--device', 'tty'],
			[
				{ after: 'Password: ', type: 'a\r' },
				{ after: 'Password: ', type: 'b\r' },
				{ after: 'Password: ', type: 'c\r' }
			]
		)
		expect(thrice.code).toBe(4)
		// The issue: "without a terminal login says 'pass it as an option'".
		const noTerminal = await machine(server).cfgsync(['login', '--user', 'ada'])
		expect(noTerminal.code).toBe(2)
		expect(noTerminal.stderr).toContain('--password-stdin')
		expect(noTerminal.stderr).not.toContain('pass it as an option')
	}, 60_000)

	test("--profile NAME (or CFGSYNC_PROFILE) keeps a second server's login; --server picks the profile logged in to it", async () => {
		const other = await startServer(emptyDir())
		servers.push(other)
		const add = await run(
			other.dir,
			['user', 'add', '--email', 'ada@work.test', '--username', 'ada-work', '--password-stdin'],
			{ stdin: 'work-password\n' }
		)
		expect(add.code).toBe(0)
		const m = machine(server)
		const noEnv = { CFGSYNC_SERVER: '' }
		expect((await login(m, ada, 'home')).code).toBe(0)
		// One profile holds one login: the first one is never dropped with its key still active.
		const clash = await m.cfgsync(['login', '--server', other.url, '--user', 'ada-work', '--password-stdin'], {
			stdin: 'work-password\n',
			env: noEnv
		})
		expect(clash.code).toBe(2)
		expect(clash.stderr).toContain(`cfgsync login --server ${other.url} --profile NAME`)
		const work = await m.cfgsync(
			['login', '--server', other.url, '--profile', 'work', '--user', 'ada-work', '--password-stdin'],
			{ stdin: 'work-password\n', env: noEnv }
		)
		expect(work.stdout).toContain('profile "work"')
		expect(credentialsOf(m, 'work').server).toBe(other.url)
		expect((await m.cfgsync(['whoami'], { env: noEnv })).stdout).toContain(`ada <ada@example.test> on ${server.url}`)
		expect((await m.cfgsync(['whoami', '--profile', 'work'], { env: noEnv })).stdout).toContain(
			`ada-work <ada@work.test> on ${other.url}`
		)
		expect((await m.cfgsync(['whoami'], { env: { ...noEnv, CFGSYNC_PROFILE: 'work' } })).stdout).toContain('ada-work')
		expect((await m.cfgsync(['whoami', '--server', other.url], { env: noEnv })).stdout).toContain('ada-work')
		m.file('.codex/AGENTS.md', 'both\n')
		expect((await m.cfgsync(['push', 'codex', '--profile', 'work'], { env: noEnv })).code).toBe(0)
		expect((await m.cfgsync(['push', 'codex', '-n', 'profiles'], { env: noEnv })).code).toBe(0)
		expect((await m.cfgsync(['list', '--profile', 'work', '--json'], { env: noEnv })).stdout).toContain(
			'"name": "default"'
		)
		expect((await m.cfgsync(['whoami', '--profile', 'nope'], { env: noEnv })).code).toBe(4)
		expect((await m.cfgsync(['whoami', '--profile', 'no/pe'], { env: noEnv })).code).toBe(2)
		expect((await m.cfgsync(['whoami', '--server', 'http://127.0.0.1:9'], { env: noEnv })).stderr).toContain(
			'--profile NAME'
		)
	}, 60_000)
})

describe('honesty', () => {
	test('logout with the server down says the key is still active there, how to revoke it, and exits 1; --local forgets it here', async () => {
		const own = await startServer(emptyDir())
		servers.push(own)
		const add = await run(
			own.dir,
			['user', 'add', '--email', 'dee@example.test', '--username', 'dee', '--password-stdin'],
			{ stdin: 'dee-password\n' }
		)
		expect(add.code).toBe(0)
		const m = machine(own)
		expect(
			(
				await m.cfgsync(['login', '--user', 'dee', '--device', 'offline', '--password-stdin'], {
					stdin: 'dee-password\n'
				})
			).code
		).toBe(0)
		await own.stop('SIGKILL')
		// The issue: "the key was already revoked" and exit 0, while the key stays active.
		const down = await m.cfgsync(['logout'])
		expect(down.code).toBe(1)
		expect(down.stderr).toContain(`The key of device "offline" is still active on ${own.url}`)
		expect(down.stderr).toContain('cfgsync keys revoke offline')
		expect(down.stderr).toContain('cfgsync logout --local')
		expect(down.stderr).not.toContain('already revoked')
		expect(m.exists('.config/cfgsync/credentials.json')).toBe(true)
		const local = await m.cfgsync(['logout', '--local'])
		expect(local.code).toBe(0)
		expect(local.stderr).toContain('still active')
		expect(m.exists('.config/cfgsync/credentials.json')).toBe(false)
	}, 60_000)

	test('logout after the key was revoked elsewhere says so and exits 0', async () => {
		const m = await loggedIn(cy, 'revoked-elsewhere')
		await api(server, 'DELETE', `/api/keys/${credentialsOf(m).keyId}`, cy.key)
		const out = await m.cfgsync(['logout'])
		expect(out).toMatchObject({ code: 0 })
		expect(out.stdout).toContain('had already been revoked')
	}, 60_000)
})

describe('input handling', () => {
	test('--server without a scheme is a usage error naming the fix', async () => {
		const m = machine(server)
		const host = server.url.replace('http://', '')
		const out = await m.cfgsync(['login', '--server', host, '--user', 'ada', '--password-stdin'], {
			stdin: ada.password
		})
		expect(out.code).toBe(2)
		expect(out.stderr).toContain(`--server ${host} has no scheme: use --server http://${host}`)
		expect(out.stderr).not.toContain('URL is invalid')
		const env = await m.cfgsync(['whoami'], { env: { CFGSYNC_SERVER: host } })
		expect(env.code).toBe(2)
		expect(env.stderr).toContain(`CFGSYNC_SERVER=http://${host}`)
	}, 60_000)

	test('a bad CFGSYNC_API_KEY says the variable overrides the saved login', async () => {
		const m = await loggedIn(ada)
		const revoked = await m.cfgsync(['list'], { env: { CFGSYNC_API_KEY: `cs_${'1'.repeat(64)}` } })
		expect(revoked.code).toBe(4)
		expect(revoked.stderr).toContain('CFGSYNC_API_KEY')
		expect(revoked.stderr).toContain('overrides the login saved by cfgsync login')
		expect(revoked.stderr).not.toContain('run cfgsync login.')
		const malformed = await m.cfgsync(['list'], { env: { CFGSYNC_API_KEY: 'oops' } })
		expect(malformed.code).toBe(4)
		expect(malformed.stderr).toContain('unset CFGSYNC_API_KEY')
		// A good one works without any saved login.
		expect((await machine(server).cfgsync(['whoami'], { env: { CFGSYNC_API_KEY: ben.key } })).stdout).toContain(
			'key from CFGSYNC_API_KEY'
		)
	}, 60_000)

	test('usage errors exit 2: team add --role owner, extra arguments, "did you mean" for commands and subcommands; -f, -n and -y work', async () => {
		const m = await loggedIn(ada)
		await m.cfgsync(['team', 'create', 'Usage'])
		const owner = await m.cfgsync(['team', 'add', 'usage', 'ben', '--role', 'owner'])
		expect(owner.code).toBe(2)
		expect(owner.stderr).toContain('cfgsync team role SLUG LOGIN owner')
		const extra = await m.cfgsync(['list', 'extra'])
		expect(extra.code).toBe(2)
		expect(extra.stderr).toContain('unexpected argument "extra"')
		for (const args of [
			['whoami', 'x'],
			['history', 'codex', 'x'],
			['team', 'show', 'usage', 'x'],
			['keys', 'revoke', 'a', 'b'],
			['invitations', 'accept', 'a', 'b'],
			['status', 'codex', 'x']
		]) {
			expect({ args, code: (await m.cfgsync(args)).code }).toEqual({ args, code: 2 })
		}
		expect((await m.cfgsync(['pul'])).stderr).toContain('did you mean "cfgsync pull"?')
		expect((await m.cfgsync(['team', 'lsit'])).stderr).toContain('did you mean "cfgsync team list"?')
		expect((await m.cfgsync(['push', 'claude'])).stderr).toContain('did you mean "claude-code"?')
		m.file('.codex/AGENTS.md', 'short flags\n')
		expect((await m.cfgsync(['push', 'codex', '-n', 'short'])).stdout).toContain('codex/short')
		m.file('.codex/AGENTS.md', 'changed here\n')
		await api(server, 'POST', '/api/configs', ada.key, {
			tool: 'codex',
			name: 'short',
			data: { files: { '.codex/AGENTS.md': 'changed there\n' } }
		})
		expect((await m.cfgsync(['pull', 'codex', '-n', 'short'])).code).toBe(3)
		expect((await m.cfgsync(['pull', 'codex', '-n', 'short', '-f'])).code).toBe(0)
		expect(m.file('.codex/AGENTS.md')).toBe('changed there\n')
		expect((await m.cfgsync(['team', 'delete', 'usage', '-y'])).code).toBe(0)
	}, 60_000)
})

describe('scripts and terminals', () => {
	test('--json errors are {"error","code"} on stderr with the exit status; warnings are JSON lines', async () => {
		const m = await loggedIn(ada)
		const missing = await m.cfgsync(['history', 'vscode', '--json'])
		expect(missing.code).toBe(1)
		expect(JSON.parse(missing.stderr)).toEqual({ error: expect.stringContaining('does not exist'), code: 'not_found' })
		const usage = await m.cfgsync(['pul', '--json'])
		expect(usage.code).toBe(2)
		expect(JSON.parse(usage.stderr)).toMatchObject({ code: 'usage' })
		const auth = await machine(server).cfgsync(['list', '--json'], { env: { CFGSYNC_SERVER: '' } })
		expect(auth.code).toBe(4)
		expect(JSON.parse(auth.stderr)).toMatchObject({ code: 'not_logged_in' })
		m.file('.claude/settings.json', '{"env": {"API_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}\n')
		const noted = await m.cfgsync(['push', 'claude-code', '-n', 'warned', '--json'])
		expect(noted.code).toBe(0)
		JSON.parse(noted.stdout)
		const lines = noted.stderr
			.trim()
			.split('\n')
			.map((line) => JSON.parse(line))
		expect(lines).toEqual([{ warning: expect.stringContaining('like a secret') }])
	}, 60_000)

	test('a long diff goes through PAGER on a terminal; --no-pager, a short diff or no terminal print directly', async () => {
		const m = await loggedIn(ada)
		m.file('.codex/AGENTS.md', 'one\n')
		await m.cfgsync(['push', 'codex', '-n', 'paged'])
		m.file('.codex/AGENTS.md', `${Array.from({ length: 80 }, (_, i) => `line ${i}`).join('\n')}\n`)
		const paged = join(m.home, 'paged.txt')
		const env = { PAGER: `cat > ${paged}`, TERM: 'dumb' }
		const viaPager = await m.terminal(['diff', 'codex', '-n', 'paged'], '', { env })
		expect(viaPager.code).toBe(0)
		expect(readFileSync(paged, 'utf8')).toContain('+line 79')
		expect(viaPager.output).not.toContain('+line 79')
		const direct = await m.terminal(['diff', 'codex', '-n', 'paged', '--no-pager'], '', {
			env: { ...env, PAGER: `cat > ${paged}.2` }
		})
		expect(direct.output).toContain('+line 79')
		expect(existsSync(`${paged}.2`)).toBe(false)
		const piped = await m.cfgsync(['diff', 'codex', '-n', 'paged', '--exit-code'], {
			env: { PAGER: `cat > ${paged}.3` }
		})
		expect(piped.code).toBe(1)
		expect(piped.stdout).toContain('+line 79')
		expect(existsSync(`${paged}.3`)).toBe(false)
	}, 60_000)
})

describe("the tools' real files", () => {
	test('whole directories of text files sync (~/.claude/commands, agents, ~/.cursor/rules, Windsurf memories); deletions follow; binary files are skipped with a note', async () => {
		const [a, b] = [await loggedIn(ada), await loggedIn(ada)] as [Machine, Machine]
		a.file('.claude/commands/review.md', 'Review this diff.\n')
		a.file('.claude/commands/frontend/component.md', 'Make a component.\n')
		a.file('.claude/agents/tester.md', '---\nname: tester\n---\nWrite tests.\n')
		a.file('.claude/commands/.DS_Store', Buffer.from([0, 1, 2, 0xff]))
		a.file('.claude/commands/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe]))
		const pushed = await a.cfgsync(['push', 'claude-code', '-n', 'dirs'])
		expect(pushed.code).toBe(0)
		expect(pushed.stdout).toContain('~/.claude/commands/logo.png (skipped: not UTF-8 text)')
		expect(pushed.stdout).not.toContain('.DS_Store')
		const stored = (await api(server, 'GET', '/api/configs/latest?name=dirs&tool=claude-code', ada.key)).body.data.files
		expect(Object.keys(stored).sort()).toEqual([
			'.claude/agents/tester.md',
			'.claude/commands/frontend/component.md',
			'.claude/commands/review.md'
		])
		expect((await b.cfgsync(['pull', 'claude-code', '-n', 'dirs'])).code).toBe(0)
		expect(b.file('.claude/commands/frontend/component.md')).toBe('Make a component.\n')
		// A file added to the directory on one machine arrives on the other; one deleted is deleted.
		b.file('.claude/commands/ship.md', 'Ship it.\n')
		await b.cfgsync(['push', 'claude-code', '-n', 'dirs'])
		expect((await a.cfgsync(['pull', 'claude-code', '-n', 'dirs'])).stdout).toContain(
			'~/.claude/commands/ship.md (created)'
		)
		expect((await a.cfgsync(['push', 'claude-code', '-n', 'dirs', join(a.home, '.claude', 'agents')])).code).toBe(0)

		// Cursor rules and Windsurf memories are well-known directories too.
		a.file('.cursor/rules/style.mdc', '---\ndescription: style\n---\nTabs.\n')
		expect((await a.cfgsync(['push', 'cursor', '-n', 'dirs'])).stdout).toContain('~/.cursor/rules/style.mdc')
		a.file('.codeium/windsurf/memories/global_rules.md', 'Be kind.\n')
		a.file('.codeium/windsurf/memories/project-notes.md', 'Notes.\n')
		expect((await a.cfgsync(['push', 'windsurf', '-n', 'dirs'])).stdout).toContain('2 files')
	}, 90_000)

	test('a directory over the file-count or size cap is left out whole and says so; named on the command line it is an error', async () => {
		const m = await loggedIn(ada)
		m.file('.claude/settings.json', '{}\n')
		for (let i = 0; i < 201; i++) m.file(`.claude/agents/a${String(i).padStart(3, '0')}.md`, `agent ${i}\n`)
		m.file('.claude/commands/big.md', `${'x'.repeat(300 * 1024)}\n`)
		const pushed = await m.cfgsync(['push', 'claude-code', '-n', 'capped'])
		expect(pushed.code).toBe(0)
		expect(pushed.stdout).toMatch(
			/~\/\.claude\/agents \(skipped: 201 files, \d+ KiB: more than cfgsync syncs from one directory \(200 files, 256 KiB\)\)/
		)
		expect(pushed.stdout).toContain('~/.claude/commands (skipped: 1 file, 301 KiB: more than')
		const stored = (await api(server, 'GET', '/api/configs/latest?name=capped&tool=claude-code', ada.key)).body.data
			.files
		expect(Object.keys(stored)).toEqual(['.claude/settings.json'])
		const named = await m.cfgsync(['push', 'claude-code', '-n', 'capped', join(m.home, '.claude', 'agents')])
		expect(named.code).toBe(1)
		expect(named.stderr).toContain('nothing was done')
	}, 90_000)

	test('~/.claude.json: only mcpServers is synced, merged back into the rest of the file without touching its other keys', async () => {
		// Ada's two machines trust each other with code (docs/sync-model.md): MCP servers are such settings.
		const [a, b] = (await ownMachines(server, ada, 2, 'mcp')) as [Machine, Machine]
		const fileA = {
			numStartups: 12,
			oauthAccount: { emailAddress: 'ada@example.test' },
			projects: { '/home/ada/x': { allowedTools: ['Bash'] } },
			mcpServers: { github: { command: 'github-mcp', args: ['--stdio'] } }
		}
		a.file('.claude.json', `${JSON.stringify(fileA, null, 2)}\n`)
		expect((await a.cfgsync(['push', 'claude-code', '-n', 'mcp'])).stdout).toContain('~/.claude.json (mcpServers)')
		const stored = (await api(server, 'GET', '/api/configs/latest?name=mcp&tool=claude-code', ada.key)).body.data.files
		expect(stored['.claude.json#mcpServers']).toBe(`${JSON.stringify({ mcpServers: fileA.mcpServers }, null, 2)}\n`)
		expect(JSON.stringify(stored)).not.toContain('oauthAccount')
		expect(JSON.stringify(stored)).not.toContain('numStartups')

		const fileB = { numStartups: 99, tipsHistory: { hint: 3 }, projects: { '/home/ada/y': { history: [] } } }
		const textB = `${JSON.stringify(fileB, null, 2)}\n`
		b.file('.claude.json', textB)
		expect((await b.cfgsync(['pull', 'claude-code', '-n', 'mcp'])).code).toBe(0)
		const merged = JSON.parse(b.file('.claude.json') as string)
		expect(merged).toEqual({ ...fileB, mcpServers: fileA.mcpServers })
		// Claude Code keeps writing its own keys; they never travel and never conflict.
		b.file('.claude.json', (b.file('.claude.json') as string).replace('"numStartups": 99', '"numStartups": 100'))
		expect((await b.cfgsync(['status', 'claude-code', '-n', 'mcp'])).stdout).toContain('in sync')
		// A server added on one machine reaches the other, whose other keys stay byte for byte.
		a.file(
			'.claude.json',
			`${JSON.stringify({ ...fileA, mcpServers: { ...fileA.mcpServers, linear: { url: 'https://mcp.linear.app/sse' } } }, null, 2)}\n`
		)
		await a.cfgsync(['push', 'claude-code', '-n', 'mcp'])
		const before = b.file('.claude.json') as string
		expect((await b.cfgsync(['pull', 'claude-code', '-n', 'mcp'])).stdout).toContain(
			'~/.claude.json (mcpServers) (updated)'
		)
		const after = b.file('.claude.json') as string
		expect(JSON.parse(after).mcpServers.linear).toEqual({ url: 'https://mcp.linear.app/sse' })
		expect(after.replace(/,\n\s+"linear": \{\n\s+"url": "https:\/\/mcp\.linear\.app\/sse"\n\s+\}/, '')).toBe(before)
	}, 90_000)

	test('pull backups older than 30 days are pruned beyond the newest 20 (CFGSYNC_BACKUP_DAYS sets the age; 0 keeps them)', async () => {
		const [a, b] = [await loggedIn(ada), await loggedIn(ada)] as [Machine, Machine]
		a.file('.codex/AGENTS.md', 'v1\n')
		await a.cfgsync(['push', 'codex', '-n', 'backups'])
		b.file('.codex/AGENTS.md', 'mine\n')
		const backups = join(b.home, '.local', 'state', 'cfgsync', 'backups')
		mkdirSync(join(backups, '2020-01-01T00-00-00-000Z'), { recursive: true })
		mkdirSync(join(backups, 'kept-by-hand'), { recursive: true })
		utimesSync(join(backups, 'kept-by-hand'), new Date(), new Date(Date.now() - 40 * 86_400_000))
		const recent = new Date(Date.now() - 10 * 86_400_000).toISOString().replace(/[:.]/g, '-')
		mkdirSync(join(backups, recent), { recursive: true })
		// The newest 20 are kept whatever their age: these are newer than the three above.
		for (let i = 0; i < 20; i++)
			mkdirSync(join(backups, new Date(Date.now() - 86_400_000 - i * 1000).toISOString().replace(/[:.]/g, '-')), {
				recursive: true
			})
		expect(
			(await b.cfgsync(['pull', 'codex', '-n', 'backups', '--force'], { env: { CFGSYNC_BACKUP_DAYS: '0' } })).code
		).toBe(0)
		expect(readdirSync(backups)).toHaveLength(24)
		a.file('.codex/AGENTS.md', 'v2\n')
		await a.cfgsync(['push', 'codex', '-n', 'backups'])
		expect((await b.cfgsync(['pull', 'codex', '-n', 'backups'])).code).toBe(0)
		const left = readdirSync(backups).sort()
		expect(left).toHaveLength(23)
		expect(left).toContain(recent)
		expect(left).not.toContain('2020-01-01T00-00-00-000Z')
		expect(left).not.toContain('kept-by-hand')
		expect((await b.cfgsync(['pull', 'codex', '-n', 'backups'], { env: { CFGSYNC_BACKUP_DAYS: 'soon' } })).code).toBe(2)
	}, 60_000)
})
