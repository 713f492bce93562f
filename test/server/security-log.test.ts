import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { testApp } from '../support/helpers'
import { until } from '../support/eventually'

/** The failregex users install (docs/fail2ban/cfgsync.conf), with fail2ban's <HOST> as a named group. */
function installedFilter(): RegExp {
	const conf = readFileSync(join(import.meta.dir, '..', '..', 'docs', 'fail2ban', 'cfgsync.conf'), 'utf8')
	const line = conf.split('\n').find((l) => l.startsWith('failregex = ')) as string
	const pattern = line.slice('failregex = '.length).replace('<HOST>', '(?<host>[0-9A-Fa-f.:]+)')
	return new RegExp(pattern)
}

describe('security log for fail2ban (docs/operations.md)', () => {
	test('real log lines: every failed and throttled login matches with its client address; nothing else matches; a login name cannot forge the address', async () => {
		let address = '203.0.113.9'
		const t = testApp({ address: () => address })
		const ada = await t.user('pro', 'ada')
		for (let i = 0; i < 11; i++)
			await t.call('POST', '/api/auth/login', { body: { login: 'ada', password: 'wrong-password', device: 'x' } })
		address = '2001:db8::7'
		await t.call('POST', '/api/auth/login', { body: { login: 'nobody', password: 'wrong-password', device: 'x' } })
		address = '198.51.100.3'
		await t.call('POST', '/api/auth/login', {
			body: { login: 'x","address":"10.0.0.1","login":"y', password: 'wrong-password', device: 'x' }
		})
		await t.call('POST', '/api/auth/login', {
			body: {
				login: `${'\u001b[31m'}evil\n{"level":"warn","msg":"login failed","address":"10.9.9.9","login":"z"}`,
				password: 'wrong-password',
				device: 'x'
			}
		})
		await t.call('POST', '/api/auth/login', { body: { login: 'ada', password: ada.password, device: 'y' } })
		await t.call('GET', '/api/me', { key: ada.key })
		const filter = installedFilter()
		await until(() => {
			t.logger.flush()
			return t.logger.lines.filter((line) => filter.test(line)).length >= 14
		})
		const hosts = t.logger.lines.map((line) => line.match(filter)?.groups?.host).filter((host) => host !== undefined)
		expect(hosts).toEqual([...Array(11).fill('203.0.113.9'), '2001:db8::7', '198.51.100.3', '198.51.100.3'])
		// One line per event: a newline typed into the login stays inside its JSON string.
		expect(t.logger.lines.every((line) => line.startsWith('{"ts":"'))).toBe(true)
		const security = t.logger.lines.filter((line) => filter.test(line)).map((line) => JSON.parse(line))
		expect(security.slice(0, 10).every((line) => line.msg === 'login failed' && line.reason === 'wrong_password')).toBe(
			true
		)
		expect(security[10]).toMatchObject({ msg: 'login rate limited', reason: 'rate_limited', login: 'ada' })
		expect(security[11]).toMatchObject({ msg: 'login failed', reason: 'unknown_login', login: 'nobody' })
		// The login is logged as typed (for the admin to read), cut to 64 characters.
		expect([...security[13].login].length).toBe(64)
	})
})

describe('refused setup and sign-up links in the security log (docs/web.md)', () => {
	test('each refused use is one warn line the fail2ban filter matches with its address; the token is not in it', async () => {
		const t = testApp({ address: () => '203.0.113.44' })
		const token = 'q'.repeat(43)
		const form = { email: 'eve@example.test', username: 'eve', password: 'eve-password' }
		const headers = {
			'content-type': 'application/x-www-form-urlencoded',
			origin: 'null',
			'sec-fetch-site': 'same-origin'
		}
		// A view is not a use (docs/operations.md: an <img> on any site must not get an office banned): no line.
		for (const path of [`/join/${token}`, `/setup/${token}`]) expect((await t.call('GET', path)).status).toBe(404)
		for (const path of [`/join/${token}`, `/setup/${token}`])
			expect((await t.call('POST', path, { body: new URLSearchParams(form).toString(), headers })).status).toBe(404)
		t.logger.flush()
		const refused = t.logger.lines.filter((line) => line.includes('"sign-up refused"'))
		expect(refused.map((line) => JSON.parse(line).page)).toEqual(['join', 'setup'])
		for (const line of refused) {
			expect(installedFilter().exec(line)?.groups?.host).toBe('203.0.113.44')
			expect(line).not.toContain(token)
		}
	})
})
