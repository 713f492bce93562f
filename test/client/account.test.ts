import { describe, expect, test } from 'bun:test'
import { EXIT } from '../../src/client/output'
import { cfgsync } from '../support/client-io'
import { homePerTest } from '../support/client/home'
import { testApp } from '../support/helpers'

/**
 * login, whoami, keys, invitations and list in process
 * (test/support/client-io.ts): standard input and the terminal's answers
 * are scripted, the server is the in-process app.
 */

homePerTest('account-in-process')

const SERVER = 'http://cfgsync.test'

/** A Pro user olga, logged in on this machine as device "laptop" (her first key, "test", is another device). */
async function olgaOnLaptop() {
	const t = testApp()
	const olga = await t.user('pro', 'olga')
	const login = await cfgsync(
		['login', '--server', SERVER, '--user', 'olga', '--device', 'laptop', '--password-stdin'],
		{ app: t, stdin: `${olga.password}\n` }
	)
	expect(login.code).toBe(0)
	return { t, olga }
}

describe('cfgsync login, in process', () => {
	test('--password-stdin logs in and saves the login that whoami then uses', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		const login = await cfgsync(
			['login', '--server', SERVER, '--user', 'olga', '--device', 'laptop', '--password-stdin'],
			{ app: t, stdin: `${olga.password}\n` }
		)
		expect(login).toMatchObject({
			code: 0,
			stdout: `Logged in as olga <olga@example.test> on ${SERVER} (device "laptop").\n`,
			stderr: ''
		})
		const whoami = await cfgsync(['whoami'], { app: t })
		expect(whoami.code).toBe(0)
		expect(whoami.stdout.split('\n')[0]).toBe(`olga <olga@example.test> on ${SERVER} (device "laptop")`)
		const asJson = JSON.parse((await cfgsync(['whoami', '--json'], { app: t })).stdout)
		expect(asJson).toMatchObject({ username: 'olga', server: SERVER, device: 'laptop', key: 'saved' })
	})

	test('logout revokes the key and forgets it; the next command is not logged in', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		const args = ['login', '--server', SERVER, '--user', 'olga', '--device', 'laptop', '--password-stdin']
		expect((await cfgsync(args, { app: t, stdin: olga.password })).code).toBe(0)
		const logout = await cfgsync(['logout'], { app: t })
		expect(logout.code).toBe(0)
		expect(logout.stdout).toStartWith(`Logged out: the key of device "laptop" is revoked on ${SERVER} and `)
		expect((await cfgsync(['whoami'], { app: t })).code).toBe(EXIT.auth)
		expect((await cfgsync(['logout', '--json'], { app: t })).stderr).toBe(
			'{"error":"not logged in and no server: run cfgsync login --server URL (or set CFGSYNC_SERVER)","code":"not_logged_in"}\n'
		)
	})

	test('without a terminal, a password must come on standard input', async () => {
		const t = testApp()
		const refused = await cfgsync(['login', '--server', SERVER], { app: t })
		expect(refused.code).toBe(EXIT.usage)
		expect(refused.stderr).toBe(
			'cfgsync: there is no terminal to ask on for your login and password: pass --user LOGIN and the password on standard input with --password-stdin (e.g. cfgsync login --user ada --password-stdin < password-file), or an API key with --with-token\n'
		)
	})

	test('on a terminal: asks, asks again after a wrong password, then offers to trust the other devices', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		const login = await cfgsync(['login', '--server', SERVER, '--device', 'desk'], {
			app: t,
			tty: true,
			answers: ['olga', 'not it', olga.password, '2', '1']
		})
		expect(login.code).toBe(0)
		expect(login.io.asked).toEqual([
			'Email or username: ',
			'Password: ',
			'Password: ',
			'Trust which of them with code? Their numbers (1 3), "all", or Enter for none: ',
			'Trust which of them with code? Their numbers (1 3), "all", or Enter for none: '
		])
		expect(login.stderr).toBe('Wrong login or password; try again.\n')
		expect(login.stdout).toContain('  1  test (never used)\n')
		expect(login.stdout).toContain('Answer with numbers from 1 to 1, "all", or nothing.\n')
		expect(login.stdout).toEndWith('Trusted device "test".\n')
		// On a terminal the colours are on: the IO says it is one.
		expect(login.stdout).toStartWith('\x1b[32mLogged in\x1b[0m as olga')
	})

	test('--with-token takes a key from standard input', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		const login = await cfgsync(['login', '--server', SERVER, '--with-token', '--json'], { app: t, stdin: olga.key })
		expect(login.code).toBe(0)
		expect(JSON.parse(login.stdout)).toMatchObject({ username: 'olga', device: 'test', scope: 'read-write' })
		const bad = await cfgsync(['login', '--server', SERVER, '--with-token'], { app: t, stdin: 'cs_nope' })
		expect(bad.code).toBe(EXIT.usage)
	})
})

describe('keys, invitations and list, in process', () => {
	test('keys lists, and revoking the key in use asks, or needs --yes', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		const as = { app: t, user: olga }
		const listed = await cfgsync(['keys'], as)
		expect(listed.stdout.split('\n').map((line) => line.split(/ {2,}/))).toEqual([
			['DEVICE', 'ACCESS', 'CREATED', 'LAST USED', 'ID'],
			// The key's last use is recorded after the answer, so this first request may not see its own.
			[
				'test',
				'read-write',
				'just now',
				expect.stringMatching(/^(just now|never)$/),
				expect.any(String),
				'(this machine)'
			],
			['Revoke one with: cfgsync keys revoke DEVICE'],
			['']
		])
		expect((await cfgsync(['keys', 'list', 'more'], as)).stderr).toBe(
			'cfgsync: unexpected argument "more" (see cfgsync keys --help)\n'
		)
		const unattended = await cfgsync(['keys', 'revoke', 'test'], as)
		expect(unattended.code).toBe(EXIT.usage)
		expect(unattended.stderr).toContain('To do it without asking: cfgsync keys revoke test --yes')
		const revoked = await cfgsync(['keys', 'revoke', 'TEST', '--yes'], as)
		expect(revoked.stdout).toStartWith('Revoked the key of device "test" (')
		const after = await cfgsync(['keys'], as)
		expect(after.code).toBe(EXIT.auth)
	})

	test('keys rename gives a device another name by name or id; it keeps its key, and this machine remembers its new name', async () => {
		const { t } = await olgaOnLaptop()
		const renamed = await cfgsync(['keys', 'rename', 'LAPTOP', 'work', 'laptop'], { app: t })
		expect(renamed).toMatchObject({ code: 0, stderr: '' })
		expect(renamed.stdout).toStartWith('Renamed device "laptop" to "work laptop"; it keeps its key (')
		const whoami = await cfgsync(['whoami'], { app: t })
		expect(whoami.stdout).toContain('(device "work laptop")')
		const keys = JSON.parse((await cfgsync(['keys', '--json'], { app: t })).stdout) as { id: string; device: string }[]
		const other = keys.find((key) => key.device === 'test')!
		const json = await cfgsync(['keys', 'rename', other.id, 'ci', '--json'], { app: t })
		expect(JSON.parse(json.stdout)).toMatchObject({ id: other.id, device: 'ci', current: false })
		const taken = await cfgsync(['keys', 'rename', 'ci', 'work laptop'], { app: t })
		expect(taken.code).toBe(EXIT.error)
		expect(taken.stderr).toContain('Another of your devices is named "work laptop" already')
		const missing = await cfgsync(['keys', 'rename', 'ci'], { app: t })
		expect(missing.code).toBe(EXIT.usage)
		const unknown = await cfgsync(['keys', 'rename', 'phone', 'x'], { app: t })
		expect(unknown.stderr).toContain('no key of yours has the device name or id "phone"')
	})

	test('a trusted device renamed, here or on the web, is still trusted, and listed by its new name', async () => {
		const { t, olga } = await olgaOnLaptop()
		expect((await cfgsync(['trust', 'test'], { app: t })).code).toBe(0)
		const listed = async () =>
			JSON.parse((await cfgsync(['trust', '--list', '--json'], { app: t })).stdout) as {
				device: string
				trust: string
			}[]
		const keys = JSON.parse((await cfgsync(['keys', '--json'], { app: t })).stdout) as { id: string; device: string }[]
		const other = keys.find((key) => key.device === 'test')!
		// Renamed on the web (the API), where this machine's file cannot follow.
		expect((await t.call('PATCH', `/api/keys/${other.id}`, { key: olga.key, body: { name: 'ci' } })).status).toBe(200)
		expect(await listed()).toEqual([
			{ device: 'ci', trust: 'trusted' },
			{ device: 'laptop', trust: 'this machine' }
		])
		// Renamed here: the entry takes the new name, so --remove finds it by it.
		expect((await cfgsync(['keys', 'rename', 'ci', 'desk'], { app: t })).code).toBe(0)
		expect(await listed()).toEqual([
			{ device: 'desk', trust: 'trusted' },
			{ device: 'laptop', trust: 'this machine' }
		])
		const removed = await cfgsync(['trust', '--remove', 'desk', '--json'], { app: t })
		expect(JSON.parse(removed.stdout)).toEqual({ device: 'desk', trusted: false, changed: true })
	})

	test('invitations: none, then one, declined', async () => {
		const t = testApp()
		const olga = await t.user('team', 'olga')
		const mia = await t.user('free', 'mia')
		expect((await cfgsync(['invitations'], { app: t, user: mia })).stdout).toBe('No pending invitations.\n')
		await cfgsync(['team', 'create', 'Core'], { app: t, user: olga })
		await cfgsync(['team', 'invite', 'core', 'mia'], { app: t, user: olga })
		const missing = await cfgsync(['invitations', 'decline'], { app: t, user: mia })
		expect(missing).toMatchObject({
			code: EXIT.usage,
			stderr: 'cfgsync: which team? cfgsync invitations decline SLUG (see cfgsync invitations)\n'
		})
		expect((await cfgsync(['invitations', 'decline', 'core'], { app: t, user: mia })).stdout).toBe(
			'Declined the invitation to core.\n'
		)
	})

	test('list: no configs yet, as text and as JSON', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		expect((await cfgsync(['list'], { app: t, user: olga })).stdout).toBe('No configs yet: cfgsync push TOOL.\n')
		expect(JSON.parse((await cfgsync(['list', '--json'], { app: t, user: olga })).stdout)).toEqual([])
	})
})
