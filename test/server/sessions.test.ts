import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runOnce } from '../../src/server/jobs/schedule'
import { createAuthService } from '../../src/server/modules/auth/service'
import { createSessionsService } from '../../src/server/modules/sessions/service'
import { createUsersService } from '../../src/server/modules/users/service'
import { openSqliteStore } from '../../src/server/store/sqlite'
import type { Store } from '../../src/server/store/types'
import { sharedTestDatabase } from '../support/engine'
import { fastPasswords, testApp } from '../support/helpers'
import { tempDir } from '../support/temp'

const DAY = 24 * 60 * 60 * 1000

function setup(store?: Store) {
	const t = testApp({ store, address: () => '198.51.100.1' })
	const auth = createAuthService({
		store: t.store,
		clock: t.clock,
		passwords: fastPasswords,
		logger: t.logger,
		sealer: t.sealer
	})
	const sessions = createSessionsService({
		store: t.store,
		clock: t.clock,
		passwords: fastPasswords,
		auth,
		sealer: t.sealer
	})
	return { t, sessions }
}

describe('web sessions (docs/web.md)', () => {
	test('sign-in stores only the hash of a random id; the cookie value resolves to the user until sign-out deletes it on the server', async () => {
		// SQLite only: it reads the database file for the cookie value.
		const file = join(tempDir('sessions'), 'cfgsync.db')
		const { t, sessions } = setup(openSqliteStore(file))
		const alice = await t.user('pro', 'alice')
		const signed = await sessions.signIn('ALICE@example.test', alice.password, '198.51.100.1', 'Mozilla/5.0 test')
		expect(signed.cookie).toMatch(/^[A-Za-z0-9_-]{43}$/)
		const caller = await sessions.resolve(signed.cookie)
		expect(caller).toMatchObject({ userId: alice.id, username: 'alice', plan: 'pro', isAdmin: false })
		expect(caller?.csrfToken).toMatch(/^[0-9a-f]{64}$/)
		const raw = new Database(file, { readonly: true })
		expect(raw.query('SELECT user_agent, address FROM sessions').all()).toEqual([
			{ user_agent: 'Mozilla/5.0 test', address: '198.51.100.1' }
		])
		raw.close()
		expect(readFileSync(file).includes(Buffer.from(signed.cookie))).toBe(false)
		await sessions.signOut({ ...(caller as NonNullable<typeof caller>), address: '198.51.100.1' })
		expect(await sessions.resolve(signed.cookie)).toBeUndefined()
		expect(await sessions.resolve('not a session id')).toBeUndefined()
		expect(await sessions.resolve(undefined)).toBeUndefined()
	})

	test('a session ends after 7 idle days, and after 30 days however often it is used', async () => {
		const { t, sessions } = setup()
		const alice = await t.user('pro', 'alice')
		const start = t.clock.now()
		const idle = (await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie
		const busy = (await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie
		for (let day = 1; day <= 6; day++) {
			t.clock.advance(DAY)
			expect(await sessions.resolve(busy)).toBeDefined()
		}
		t.clock.advance(DAY + 1)
		expect(await sessions.resolve(idle)).toBeUndefined()
		while (t.clock.now() + DAY < start + 30 * DAY) {
			expect(await sessions.resolve(busy)).toBeDefined()
			t.clock.advance(DAY)
		}
		t.clock.set(start + 30 * DAY - 1)
		expect(await sessions.resolve(busy)).toBeDefined()
		t.clock.set(start + 30 * DAY + 1)
		expect(await sessions.resolve(busy)).toBeUndefined()
	})

	test('sign-in shares the API login throttling: failures on either count for both', async () => {
		const { t, sessions } = setup()
		const alice = await t.user('pro', 'alice')
		for (let i = 0; i < 5; i++)
			await expect(sessions.signIn('alice', 'wrong-password', '198.51.100.1', 'ua')).rejects.toThrow(
				'Wrong login or password.'
			)
		for (let i = 0; i < 5; i++)
			await t.call('POST', '/api/auth/login', { body: { login: 'alice', password: 'wrong-password', device: 'x' } })
		await expect(sessions.signIn('alice', alice.password, '198.51.100.1', 'ua')).rejects.toMatchObject({
			code: 'rate_limited'
		})
		expect(
			(await t.store.audit.list({ userId: alice.id, type: 'login.failed', limit: 20 })).map((e) => e.details.via)
		).toContain('web')
	})

	test('changing the password keeps this session and ends the others; a wrong current password changes nothing', async () => {
		const { t, sessions } = setup()
		const alice = await t.user('pro', 'alice')
		const here = (await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie
		const there = (await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie
		const caller = { ...(await sessions.resolve(here))!, address: '198.51.100.1' }
		await expect(sessions.changePassword(caller, 'wrong-current', 'a brand new password')).rejects.toMatchObject({
			code: 'forbidden'
		})
		expect(await sessions.resolve(there)).toBeDefined()
		await expect(sessions.changePassword(caller, alice.password, '          ')).rejects.toMatchObject({
			code: 'invalid_request'
		})
		expect(await sessions.changePassword(caller, alice.password, 'a brand new password')).toEqual({ endedSessions: 1 })
		expect(await sessions.resolve(here)).toBeDefined()
		expect(await sessions.resolve(there)).toBeUndefined()
		// The API key stays: a password change alone does not sign devices out.
		expect((await t.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
		expect(
			(
				await t.call('POST', '/api/auth/login', {
					body: { login: 'alice', password: 'a brand new password', device: 'x' }
				})
			).status
		).toBe(201)
		const types = (await t.store.audit.list({ userId: alice.id, limit: 20 })).map((e) => [e.type, e.actorDevice])
		expect(types).toContainEqual(['password.changed', 'web'])
		expect(types).toContainEqual(['session.started', 'web'])
	})

	test("the admin's revoke-keys and passwd end every web session; passwd --revoke-keys also every key", async () => {
		const { t, sessions } = setup()
		const alice = await t.user('pro', 'alice')
		const users = createUsersService({ store: t.store, clock: t.clock, passwords: fastPasswords })
		const one = (await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie
		expect(await users.setPassword('alice', 'reset by the admin')).toEqual({ revokedKeys: 0, endedSessions: 1 })
		expect(await sessions.resolve(one)).toBeUndefined()
		expect((await t.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
		const two = (await sessions.signIn('alice', 'reset by the admin', 'x', 'ua')).cookie
		const result = await users.revokeKeys('alice')
		expect(result).toMatchObject({ revokedKeys: 1, endedSessions: 1 })
		expect(await sessions.resolve(two)).toBeUndefined()
		expect((await t.call('GET', '/api/me', { key: alice.key })).status).toBe(401)
	})

	test("the CSRF token belongs to its session: another session's token, or none, is refused", async () => {
		const { t, sessions } = setup()
		const alice = await t.user('pro', 'alice')
		const a = (await sessions.resolve((await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie))!
		const b = (await sessions.resolve((await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie))!
		expect(sessions.checkCsrf(a, a.csrfToken)).toBe(true)
		expect(sessions.checkCsrf(a, b.csrfToken)).toBe(false)
		expect(sessions.checkCsrf(a, '')).toBe(false)
		expect(sessions.checkCsrf(a, null)).toBe(false)
	})

	test('a session is not a key: it is not among the devices, and /api does not accept it', async () => {
		const { t, sessions } = setup()
		const alice = await t.user('pro', 'alice')
		const cookie = (await sessions.signIn('alice', alice.password, 'x', 'ua')).cookie
		expect(((await t.call('GET', '/api/keys', { key: alice.key })).body as unknown[]).length).toBe(1)
		expect((await t.call('GET', '/api/me', { headers: { cookie: `cfgsync_session=${cookie}` } })).status).toBe(401)
		expect((await t.call('GET', '/api/me', { headers: { authorization: `Bearer ${cookie}` } })).status).toBe(401)
	})
})

describe('jobs run once per schedule slot across instances (docs/postgresql.md)', () => {
	test('of several instances asking for the same slot, exactly one runs it; the next slot is claimed again', async () => {
		const shared = await sharedTestDatabase()
		const instances = [await shared.open(), await shared.open(), await shared.open()]
		let runs = 0
		const slot = Date.parse('2026-11-23T03:00:00.000Z')
		const first = await Promise.all(instances.map((store) => runOnce(store, 'backup', slot, async () => void runs++)))
		expect(first.filter(Boolean)).toHaveLength(1)
		expect(runs).toBe(1)
		expect(await runOnce(instances[1]!, 'backup', slot, async () => void runs++)).toBe(false)
		// Another job's lease is its own.
		expect(await runOnce(instances[2]!, 'purge', slot, async () => void runs++)).toBe(true)
		const next = await Promise.all(
			instances.map((store) => runOnce(store, 'backup', slot + 3_600_000, async () => void runs++))
		)
		expect(next.filter(Boolean)).toHaveLength(1)
		expect(runs).toBe(3)
		for (const store of instances) store.close()
	})
})
