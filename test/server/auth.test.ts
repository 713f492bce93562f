import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseTrustedProxies } from '../../src/server/lib/client-address'
import { generateApiKey } from '../../src/server/lib/crypto'
import { createUsersService } from '../../src/server/modules/users/service'
import { openSqliteStore } from '../../src/server/store/sqlite'
import { fastPasswords, testApp } from '../support/helpers'
import { tempDir } from '../support/temp'
import { until } from '../support/eventually'

const login = (t: ReturnType<typeof testApp>, body: unknown, headers?: Record<string, string>) =>
	t.call('POST', '/api/auth/login', { body, headers })

describe('bearer keys (docs/api.md)', () => {
	test('every /api route needs a valid key, known route or not, with WWW-Authenticate', async () => {
		const t = testApp()
		const alice = await t.user()
		const cases: [string, Record<string, string>][] = [
			['no header', {}],
			['not bearer', { authorization: `Basic ${btoa('alice:pw')}` }],
			['bearer without key', { authorization: 'Bearer' }],
			['malformed key', { authorization: 'Bearer cs_123' }],
			['uppercase hex', { authorization: `Bearer ${alice.key.toUpperCase().replace('CS_', 'cs_')}` }],
			['unknown key', { authorization: `Bearer ${generateApiKey()}` }]
		]
		for (const path of ['/api/me', '/api/keys', '/api/configs', '/api/no-such-route', '/api']) {
			for (const [name, headers] of cases) {
				const res = await t.call('GET', path, { headers })
				expect({ path, name, status: res.status }).toEqual({ path, name, status: 401 })
				expect(res.body.code).toBe('unauthorized')
				expect(typeof res.body.error).toBe('string')
				expect(res.headers.get('www-authenticate')).toBe('Bearer')
			}
		}
	})

	test('a valid key reaches the route; the scheme is case-insensitive', async () => {
		const t = testApp()
		const alice = await t.user()
		const res = await t.call('GET', '/api/me', { headers: { authorization: `bearer ${alice.key}` } })
		expect(res.status).toBe(200)
		expect(res.body).toEqual({ email: alice.email, username: alice.username })
	})

	test('authentication comes before validation and routing (docs/api.md order)', async () => {
		const t = testApp()
		expect((await t.call('POST', '/api/auth/logout', { body: '{not json' })).status).toBe(401)
		expect((await t.call('DELETE', '/api/keys/not-a-uuid')).status).toBe(401)
		expect((await t.call('GET', '/api/nothing-here')).status).toBe(401)
	})
})

describe('login (docs/api.md)', () => {
	test('by username or email, any case: 201 with a usable key', async () => {
		const t = testApp()
		const alice = await t.user('free', 'alice')
		for (const id of ['alice', 'ALICE', 'alice@example.test', 'Alice@Example.TEST']) {
			const res = await login(t, { login: id, password: alice.password, device: `d-${id}` })
			expect(res.status).toBe(201)
			expect(Object.keys(res.body).sort()).toEqual(['apiKey', 'createdAt', 'device', 'id'])
			expect(res.body.apiKey).toMatch(/^cs_[0-9a-f]{64}$/)
			expect(res.body.device).toBe(`d-${id}`)
			expect(res.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
			expect((await t.call('GET', '/api/me', { key: res.body.apiKey })).status).toBe(200)
		}
	})

	test('wrong password and unknown login get the same 401', async () => {
		const t = testApp()
		const alice = await t.user()
		const wrong = await login(t, { login: alice.username, password: 'not-it-at-all', device: 'x' })
		const unknown = await login(t, { login: 'nobody', password: 'whatever1', device: 'x' })
		expect(wrong.status).toBe(401)
		expect(unknown.status).toBe(401)
		expect(wrong.body).toEqual(unknown.body)
		expect(wrong.headers.get('www-authenticate')).toBe('Bearer')
	})

	test('logging in again from the same device revokes the previous key; other devices keep theirs', async () => {
		const t = testApp()
		const alice = await t.user()
		const first = (await login(t, { login: alice.username, password: alice.password, device: 'laptop' })).body.apiKey
		const other = (await login(t, { login: alice.username, password: alice.password, device: 'desktop' })).body.apiKey
		const second = (await login(t, { login: alice.username, password: alice.password, device: 'laptop' })).body.apiKey
		expect((await t.call('GET', '/api/me', { key: first })).status).toBe(401)
		expect((await t.call('GET', '/api/me', { key: second })).status).toBe(200)
		expect((await t.call('GET', '/api/me', { key: other })).status).toBe(200)
	})

	test('bad bodies are 400 invalid_request with details', async () => {
		const t = testApp()
		const cases: unknown[] = [
			{},
			{ login: 'a', password: 'b' },
			{ login: 'a', password: 'b', device: '' },
			{ login: 'a', password: 'b', device: 'x'.repeat(101) },
			{ login: 5, password: 'b', device: 'x' },
			[],
			JSON.stringify('just a string'),
			'null'
		]
		for (const body of cases) {
			const res = await login(t, body)
			expect(res.status).toBe(400)
			expect(res.body.code).toBe('invalid_request')
			expect(Array.isArray(res.body.details)).toBe(true)
		}
		const missing = await login(t, { login: 'a', password: 'b' })
		expect(missing.body.details).toEqual([{ path: 'device', message: 'Required.' }])
		expect((await login(t, '{"login": ')).body).toEqual({
			error: 'The request body is not valid JSON.',
			code: 'invalid_request'
		})
	})

	test('a device name counts characters, not UTF-16 units', async () => {
		const t = testApp()
		const alice = await t.user()
		const res = await login(t, { login: alice.username, password: alice.password, device: '💻'.repeat(100) })
		expect(res.status).toBe(201)
	})
})

describe('login throttling (docs/api.md, 429)', () => {
	test('10 failures for one login from one address lock that pair for 15 minutes, even with the right password', async () => {
		let address = '10.0.0.1'
		const t = testApp({ address: () => address })
		const alice = await t.user('free', 'alice')
		const bob = await t.user('free', 'bob')
		for (let i = 0; i < 10; i++)
			expect((await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })).status).toBe(401)
		const locked = await login(t, { login: 'ALICE@example.test', password: alice.password, device: 'x' })
		expect(locked.status).toBe(429)
		expect(locked.body.code).toBe('rate_limited')
		expect(Number(locked.headers.get('retry-after'))).toBe(15 * 60)
		// 429s are not failures: they do not extend the lock.
		t.clock.advance(5 * 60 * 1000)
		const later = await login(t, { login: 'alice', password: alice.password, device: 'x' })
		expect(later.status).toBe(429)
		expect(Number(later.headers.get('retry-after'))).toBe(10 * 60)
		// Other logins from this address, and this login from elsewhere, are not affected: a guesser cannot lock alice out.
		expect((await login(t, { login: 'bob', password: bob.password, device: 'x' })).status).toBe(201)
		address = '10.0.0.2'
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
		address = '10.0.0.1'
		t.clock.advance(10 * 60 * 1000 + 1)
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
	})

	test("100 failures for the admin's login from 10 addresses slow that login, never lock it: the admin signs in from an 11th (docs/operations.md, quotas and the lockout rule)", async () => {
		let address = '10.0.0.1'
		const waits: number[] = []
		const t = testApp({ address: () => address, sleep: async (ms) => void waits.push(ms) })
		const root = await t.user('team', 'root')
		const bob = await t.user('free', 'bob')
		const spray = async (from: number, to: number) => {
			for (let a = from; a < to; a++) {
				address = `10.0.${a}.1`
				for (let i = 0; i < 10; i++)
					expect((await login(t, { login: 'root', password: 'wrong-password', device: 'x' })).status).toBe(401)
			}
		}
		await spray(0, 10)
		// Below 100 failures nobody waits.
		expect(waits).toEqual([])
		// Each guessing address is refused for this login (10 per login and address), even with the right password.
		address = '10.0.3.1'
		expect((await login(t, { login: 'root', password: root.password, device: 'x' })).status).toBe(429)
		// From an address with no failures of its own, the right password signs in: slowed, not refused.
		address = '192.0.2.77'
		expect((await login(t, { login: 'root', password: root.password, device: 'x' })).status).toBe(201)
		expect(waits).toHaveLength(1)
		expect(waits[0]).toBeGreaterThan(0)
		// The guessing goes on (renewable forever): the wait grows to 5 s and no further, and the admin still signs in.
		await spray(10, 40)
		address = '192.0.2.78'
		expect((await login(t, { login: 'root', password: root.password, device: 'x' })).status).toBe(201)
		expect(Math.max(...waits)).toBe(5000)
		expect(waits.every((ms, i) => i === 0 || ms >= (waits[i - 1] as number))).toBe(true)
		// Other logins are not slowed.
		const before = waits.length
		expect((await login(t, { login: 'bob', password: bob.password, device: 'x' })).status).toBe(201)
		expect(waits).toHaveLength(before)
	})

	test('30 failures from one address lock that address only', async () => {
		let address = '192.0.2.1'
		const t = testApp({ address: () => address })
		const alice = await t.user('free', 'alice')
		for (let i = 0; i < 30; i++) {
			expect((await login(t, { login: `nobody${i}`, password: 'wrong-password', device: 'x' })).status).toBe(401)
		}
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(429)
		address = '192.0.2.2'
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
	})

	test('IPv6 clients are counted by their /64: rotating addresses inside it does not escape the limit', async () => {
		let address = ''
		const t = testApp({ address: () => address })
		const alice = await t.user('free', 'alice')
		for (let i = 0; i < 30; i++) {
			address = `2001:db8:aa:bb:${((i * 7919) % 65536).toString(16)}:${i.toString(16)}:1:2`
			expect((await login(t, { login: `nobody${i}`, password: 'wrong-password', device: 'x' })).status).toBe(401)
		}
		address = '2001:db8:aa:bb::99'
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(429)
		address = '2001:db8:aa:bc::99'
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
		// An IPv4-mapped address counts as the IPv4 address it carries.
		address = '::ffff:192.0.2.9'
		for (let i = 0; i < 30; i++) await login(t, { login: `x${i}`, password: 'wrong-password', device: 'x' })
		address = '192.0.2.9'
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(429)
	})

	test('X-Forwarded-For counts only from a trusted proxy, and then its right-most untrusted hop is the client', async () => {
		const spoofed = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}` })
		const direct = testApp({ address: () => '203.0.113.5' })
		const alice = await direct.user('free', 'alice')
		for (let i = 0; i < 30; i++)
			await login(direct, { login: `n${i}`, password: 'wrong-password', device: 'x' }, spoofed(i))
		expect((await login(direct, { login: 'alice', password: alice.password, device: 'x' }, spoofed(99))).status).toBe(
			429
		)

		const behind = testApp({
			address: () => '127.0.0.1',
			trustedProxies: parseTrustedProxies('127.0.0.1/32, 10.0.0.0/8')
		})
		const bob = await behind.user('free', 'bob')
		// The client rotates what it writes itself; the proxies append the real address, which is what counts.
		for (let i = 0; i < 30; i++) {
			await login(
				behind,
				{ login: `n${i}`, password: 'wrong-password', device: 'x' },
				{ 'x-forwarded-for': `198.51.100.${i}, 203.0.113.7, 10.1.1.1` }
			)
		}
		expect(
			(await login(behind, { login: 'bob', password: bob.password, device: 'x' }, { 'x-forwarded-for': '203.0.113.7' }))
				.status
		).toBe(429)
		expect(
			(await login(behind, { login: 'bob', password: bob.password, device: 'x' }, { 'x-forwarded-for': '203.0.113.8' }))
				.status
		).toBe(201)
		behind.logger.flush()
		expect(behind.logger.lines.join('\n')).toContain('"address":"203.0.113.7"')
		expect(behind.logger.lines.join('\n')).not.toContain('"address":"198.51.100.')
	})

	test('a parallel burst of wrong passwords gets at most 10 password checks from one address; from many, those past 100 wait', async () => {
		const one = testApp({ address: () => '10.9.0.1' })
		await one.user('free', 'victim')
		const burst = await Promise.all(
			Array.from({ length: 40 }, () => login(one, { login: 'victim', password: 'guess-guess', device: 'x' }))
		)
		expect(burst.filter((r) => r.status === 401)).toHaveLength(10)
		expect(burst.filter((r) => r.status === 429)).toHaveLength(30)

		// From many addresses each gets its 10 per login, slowed past 100 failures of that login (docs/operations.md).
		let n = 0
		const waits: number[] = []
		const many = testApp({ address: () => `10.${n >> 8}.${n++ & 255}.2`, sleep: async (ms) => void waits.push(ms) })
		await many.user('free', 'victim')
		const spray = await Promise.all(
			Array.from({ length: 130 }, () => login(many, { login: 'victim', password: 'guess-guess', device: 'x' }))
		)
		expect(spray.filter((r) => r.status === 401)).toHaveLength(130)
		expect(waits).toHaveLength(30)
	})

	test('a success clears the failures of that login from that address', async () => {
		const t = testApp({ address: () => '10.1.0.1' })
		const alice = await t.user('free', 'alice')
		for (let i = 0; i < 9; i++) await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
		for (let i = 0; i < 9; i++) await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
	})

	test('a name that is no user is stored only as a keyed hash: a password typed as the login never reaches the database', async () => {
		const dir = tempDir('keyed-hash')
		const file = join(dir, 'cfgsync.db')
		// SQLite only: it reads every byte of the database file (and its WAL) for the password.
		const t = testApp({ store: openSqliteStore(file), address: () => '10.2.0.1' })
		const alice = await t.user('free', 'alice')
		const typo = 'Tr0ub4dor&3-my-real-password'
		for (let i = 0; i < 3; i++) await login(t, { login: typo, password: 'whatever-else', device: 'x' })
		await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		t.store.close()
		const raw = new Database(file, { readonly: true })
		const rows = raw.query<{ login_key: string }, []>('SELECT login_key FROM login_failures').all()
		raw.close()
		expect(rows).toHaveLength(4)
		expect(rows.filter((r) => r.login_key === `user:${alice.id}`)).toHaveLength(1)
		for (const row of rows) expect(row.login_key.toLowerCase()).not.toContain('tr0ub4dor')
		expect(readFileSync(file).includes(Buffer.from('Tr0ub4dor'))).toBe(false)
		// The same name hashes the same way, so it is still counted as one login.
		expect(new Set(rows.map((r) => r.login_key)).size).toBe(2)
	})

	test("the admin's unlock clears a user's failed-login counts from every address", async () => {
		const address = '10.3.0.1'
		const t = testApp({ address: () => address })
		const alice = await t.user('free', 'alice')
		for (let i = 0; i < 10; i++) await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(429)
		const users = createUsersService({ store: t.store, clock: t.clock, passwords: fastPasswords })
		expect((await users.unlock('alice@example.test')).cleared).toBe(10)
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
		await expect(users.unlock('nobody')).rejects.toThrow('No user')
	})

	test('every failed or refused login writes one fixed-format warn line (docs/operations.md security log)', async () => {
		const t = testApp({ address: () => '192.0.2.50' })
		await t.user('free', 'alice')
		for (let i = 0; i < 10; i++) await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		await login(t, { login: 'ghost', password: 'wrong-password', device: 'x' })
		t.logger.flush()
		const lines = t.logger.lines.filter((line) => line.includes('"level":"warn"'))
		expect(lines).toHaveLength(12)
		expect(lines[0]).toMatch(
			/^\{"ts":"[^"]+","level":"warn","msg":"login failed","address":"192\.0\.2\.50","login":"alice","reason":"wrong_password"\}$/
		)
		expect(lines[10]).toMatch(
			/"msg":"login rate limited","address":"192\.0\.2\.50","login":"alice","reason":"rate_limited"/
		)
		expect(lines[11]).toMatch(/"msg":"login failed","address":"192\.0\.2\.50","login":"ghost","reason":"unknown_login"/)
		for (const line of lines) expect(line).not.toContain('wrong-password')
	})
})

describe('keys and logout (docs/api.md)', () => {
	test('GET /api/keys lists active keys without the keys themselves, marking the current one', async () => {
		const t = testApp()
		const alice = await t.user()
		const laptop = (await login(t, { login: alice.username, password: alice.password, device: 'laptop' })).body
		const res = await t.call('GET', '/api/keys', { key: alice.key })
		expect(res.status).toBe(200)
		expect(res.body).toHaveLength(2)
		for (const key of res.body)
			expect(Object.keys(key).sort()).toEqual(['createdAt', 'current', 'device', 'id', 'lastUsedAt', 'scope'])
		expect(res.body.find((k: { device: string }) => k.device === 'test').current).toBe(true)
		expect(res.body.find((k: { device: string }) => k.device === 'laptop')).toMatchObject({
			id: laptop.id,
			current: false,
			lastUsedAt: null
		})
		expect(res.text).not.toContain(alice.key)
		expect(res.text).not.toContain(laptop.apiKey)
	})

	test("DELETE /api/keys/:id revokes one of your keys; someone else's is 404", async () => {
		const t = testApp()
		const alice = await t.user()
		const bob = await t.user()
		const laptop = (await login(t, { login: alice.username, password: alice.password, device: 'laptop' })).body
		expect((await t.call('DELETE', `/api/keys/${laptop.id}`, { key: bob.key })).status).toBe(404)
		expect((await t.call('GET', '/api/me', { key: laptop.apiKey })).status).toBe(200)
		const res = await t.call('DELETE', `/api/keys/${laptop.id}`, { key: alice.key })
		expect(res.status).toBe(204)
		expect(res.text).toBe('')
		expect((await t.call('GET', '/api/me', { key: laptop.apiKey })).status).toBe(401)
		expect((await t.call('DELETE', `/api/keys/${laptop.id}`, { key: alice.key })).status).toBe(404)
		expect((await t.call('DELETE', '/api/keys/not-a-uuid', { key: alice.key })).status).toBe(404)
	})

	test('logout revokes exactly the key used', async () => {
		const t = testApp()
		const alice = await t.user()
		const laptop = (await login(t, { login: alice.username, password: alice.password, device: 'laptop' })).body.apiKey
		const res = await t.call('POST', '/api/auth/logout', { key: laptop })
		expect(res.status).toBe(204)
		expect((await t.call('GET', '/api/me', { key: laptop })).status).toBe(401)
		expect((await t.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
	})

	test('lastUsedAt is written at most once a minute per key', async () => {
		const t = testApp()
		const alice = await t.user()
		// The write is not awaited by the request (a network round trip on PostgreSQL): read once it has landed.
		const lastUsed = async (expected?: string) => {
			for (let tries = 0; ; tries++) {
				const at = (await t.store.keys.listForUser(alice.id))[0]?.lastUsedAt
				if (at === expected || expected === undefined || tries === 50) return at
				await Bun.sleep(10)
			}
		}
		await t.call('GET', '/api/me', { key: alice.key })
		const first = await lastUsed(new Date(t.clock.now()).toISOString())
		expect(first).toBe(new Date(t.clock.now()).toISOString())
		t.clock.advance(59_000)
		await t.call('GET', '/api/me', { key: alice.key })
		await Bun.sleep(50)
		expect(await lastUsed()).toBe(first)
		t.clock.advance(2_000)
		await t.call('GET', '/api/me', { key: alice.key })
		expect(await lastUsed(new Date(t.clock.now()).toISOString())).toBe(new Date(t.clock.now()).toISOString())
	})

	test('a last-use time that cannot be written (database busy) does not fail the request', async () => {
		const t = testApp()
		const alice = await t.user()
		t.store.keys.touch = async () => {
			throw new Error('database is locked')
		}
		expect((await t.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
		await until(() => {
			t.logger.flush()
			return t.logger.lines.some((line) => line.includes('database is locked'))
		})
		expect(t.logger.lines.some((line) => line.includes('"level":"warn"') && line.includes('database is locked'))).toBe(
			true
		)
	})
})
