import { describe, expect, test } from 'bun:test'
import { generateApiKey } from '../src/lib/crypto'
import { testApp } from './helpers'

const login = (t: ReturnType<typeof testApp>, body: unknown, headers?: Record<string, string>) =>
	t.call('POST', '/api/auth/login', { body, headers })

describe('bearer keys (CONTRACT §2)', () => {
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

	test('authentication comes before validation and routing (CONTRACT §2 order)', async () => {
		const t = testApp()
		expect((await t.call('POST', '/api/auth/logout', { body: '{not json' })).status).toBe(401)
		expect((await t.call('DELETE', '/api/keys/not-a-uuid')).status).toBe(401)
		expect((await t.call('GET', '/api/nothing-here')).status).toBe(401)
	})
})

describe('login (CONTRACT §3)', () => {
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
		expect((await login(t, '{"login": ')).body).toEqual({ error: 'The request body is not valid JSON.', code: 'invalid_request' })
	})

	test('a device name counts characters, not UTF-16 units', async () => {
		const t = testApp()
		const alice = await t.user()
		const res = await login(t, { login: alice.username, password: alice.password, device: '💻'.repeat(100) })
		expect(res.status).toBe(201)
	})
})

describe('login throttling (CONTRACT §2, 429)', () => {
	test('10 failures for one login lock it for 15 minutes, even with the right password; others are unaffected', async () => {
		let address = '10.0.0.1'
		const t = testApp({ address: () => address })
		const alice = await t.user('free', 'alice')
		const bob = await t.user('free', 'bob')
		for (let i = 0; i < 10; i++) {
			address = `10.0.0.${i + 10}`
			expect((await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })).status).toBe(401)
		}
		const locked = await login(t, { login: 'ALICE@example.test', password: alice.password, device: 'x' })
		expect(locked.status).toBe(429)
		expect(locked.body.code).toBe('rate_limited')
		expect(Number(locked.headers.get('retry-after'))).toBe(15 * 60)
		// 429s are not failures: they do not extend the lock.
		t.clock.advance(5 * 60 * 1000)
		const later = await login(t, { login: 'alice', password: alice.password, device: 'x' })
		expect(later.status).toBe(429)
		expect(Number(later.headers.get('retry-after'))).toBe(10 * 60)
		expect((await login(t, { login: 'bob', password: bob.password, device: 'x' })).status).toBe(201)
		t.clock.advance(10 * 60 * 1000 + 1)
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
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

	test('a parallel burst of wrong passwords gets at most 10 password checks, the rest 429', async () => {
		let n = 0
		const t = testApp({ address: () => `10.9.0.${n++}` })
		await t.user('free', 'victim')
		const burst = await Promise.all(
			Array.from({ length: 40 }, () => login(t, { login: 'victim', password: 'guess-guess', device: 'x' }))
		)
		const statuses = burst.map((r) => r.status)
		expect(statuses.filter((s) => s === 401)).toHaveLength(10)
		expect(statuses.filter((s) => s === 429)).toHaveLength(30)
	})

	test('a success clears the failures counted against that login', async () => {
		let n = 0
		const t = testApp({ address: () => `10.1.0.${n++}` })
		const alice = await t.user('free', 'alice')
		for (let i = 0; i < 9; i++) await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
		for (let i = 0; i < 9; i++) await login(t, { login: 'alice', password: 'wrong-password', device: 'x' })
		expect((await login(t, { login: 'alice', password: alice.password, device: 'x' })).status).toBe(201)
	})
})

describe('keys and logout (CONTRACT §3)', () => {
	test('GET /api/keys lists active keys without the keys themselves, marking the current one', async () => {
		const t = testApp()
		const alice = await t.user()
		const laptop = (await login(t, { login: alice.username, password: alice.password, device: 'laptop' })).body
		const res = await t.call('GET', '/api/keys', { key: alice.key })
		expect(res.status).toBe(200)
		expect(res.body).toHaveLength(2)
		for (const key of res.body) expect(Object.keys(key).sort()).toEqual(['createdAt', 'current', 'device', 'id', 'lastUsedAt'])
		expect(res.body.find((k: { device: string }) => k.device === 'test').current).toBe(true)
		expect(res.body.find((k: { device: string }) => k.device === 'laptop')).toMatchObject({ id: laptop.id, current: false, lastUsedAt: null })
		expect(res.text).not.toContain(alice.key)
		expect(res.text).not.toContain(laptop.apiKey)
	})

	test('DELETE /api/keys/:id revokes one of your keys; someone else\'s is 404', async () => {
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
		const lastUsed = async () => (await t.store.keys.listForUser(alice.id))[0]?.lastUsedAt
		await t.call('GET', '/api/me', { key: alice.key })
		const first = await lastUsed()
		expect(first).toBe(new Date(t.clock.now()).toISOString())
		t.clock.advance(59_000)
		await t.call('GET', '/api/me', { key: alice.key })
		expect(await lastUsed()).toBe(first)
		t.clock.advance(2_000)
		await t.call('GET', '/api/me', { key: alice.key })
		expect(await lastUsed()).toBe(new Date(t.clock.now()).toISOString())
	})

	test('a last-use time that cannot be written (database busy) does not fail the request', async () => {
		const t = testApp()
		const alice = await t.user()
		t.store.keys.touch = async () => {
			throw new Error('database is locked')
		}
		expect((await t.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
		await Bun.sleep(1)
		t.logger.flush()
		expect(t.logger.lines.some((line) => line.includes('"level":"warn"') && line.includes('database is locked'))).toBe(true)
	})
})
