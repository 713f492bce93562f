import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { newId } from '../../../src/server/lib/ids'
import { openPostgresStore } from '../../../src/server/store/postgres'
import { isUniqueViolation, PostgresStoreError, sqlState } from '../../../src/server/store/postgres/errors'
import { migrations } from '../../../src/server/store/postgres/migrations'
import { emptyPostgresDatabase, openPostgresTestStore } from '../../support/engine'

/**
 * The PostgreSQL pitfalls the issue names, each pinned (docs/postgresql.md). These run
 * in npm test's PostgreSQL pass only (test/server/postgres/, scripts/test.ts); the rest
 * of the suite runs on both engines.
 */
describe('PostgreSQL specifics', () => {
	test("the SQLSTATE is read from Bun.SQL (errno), from pg (code) and through drizzle's wrapper (cause)", async () => {
		const client = new SQL({ url: await emptyPostgresDatabase(), max: 1 })
		const raised = await client.unsafe('SELECT 1/0').catch((error: unknown) => error)
		await client.close()
		expect(sqlState(raised)).toBe('22012')
		expect(sqlState({ code: '23505', message: 'duplicate key' })).toBe('23505')
		expect(isUniqueViolation(new Error('Failed query', { cause: { errno: '23505' } }))).toBe(true)
		expect(sqlState({ code: 'ERR_POSTGRES_CONNECTION_CLOSED' })).toBeUndefined()
	})

	test('four instances starting at once on an empty database migrate it once, and all start', async () => {
		const url = await emptyPostgresDatabase()
		const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresTestStore(url)))
		const client = new SQL({ url, max: 1 })
		const applied = await client.unsafe('SELECT hash FROM __drizzle_migrations')
		await client.close()
		expect(applied).toHaveLength(migrations.length)
		for (const store of stores) expect(await store.ping()).toBe(true)
		for (const store of stores) store.close()
	})

	test('counts come back as numbers (count(*) is a string on the wire), epoch milliseconds as numbers', async () => {
		const store = await openPostgresTestStore(await emptyPostgresDatabase())
		const userId = newId()
		await store.users.create({
			id: userId,
			email: 'n@example.test',
			username: 'n',
			passwordHash: null,
			plan: 'pro',
			isAdmin: false,
			createdAt: new Date().toISOString()
		})
		const stats = await store.stats()
		expect(stats.users).toBe(1)
		expect(typeof stats.databaseBytes).toBe('number')
		expect(stats.databaseBytes).toBeGreaterThan(0)
		const now = Date.now()
		expect(
			await store.loginFailures.reserve({
				loginKey: 'n',
				address: '192.0.2.9',
				at: now,
				since: now - 1000,
				limits: { perLoginAddress: 1, perAddress: 10, perLogin: 10 }
			})
		).toEqual({ ok: true, loginFailures: 0 })
		expect(
			await store.loginFailures.reserve({
				loginKey: 'n',
				address: '192.0.2.9',
				at: now + 1,
				since: now - 1000,
				limits: { perLoginAddress: 1, perAddress: 10, perLogin: 10 }
			})
		).toEqual({ ok: false, tippedAt: now })
		expect((await store.users.listWithActivity())[0]?.keyCount).toBe(0)
		store.close()
	})

	test('a failed query leaves the store without its parameters in the message (drizzle puts them there)', async () => {
		const store = await openPostgresTestStore(await emptyPostgresDatabase())
		const config = {
			id: newId(),
			userId: 'no-such-user',
			teamId: null,
			name: 'secret-name-in-params',
			tool: 'cursor' as const,
			version: 1,
			hash: 'h',
			currentVersionId: newId(),
			createdAt: 'x',
			updatedAt: 'x'
		}
		const error = await store.configs.importMany([{ config, versions: [] }]).catch((caught: unknown) => caught)
		store.close()
		expect(error).toBeInstanceOf(PostgresStoreError)
		expect((error as Error).message).toContain('23503')
		expect((error as Error).message).not.toContain('secret-name-in-params')
	})

	test('an unreachable database is one clear error naming it, without its password', async () => {
		const error = await openPostgresStore('postgres://someone:hunter2@127.0.0.1:1/nowhere').catch(
			(caught: unknown) => caught
		)
		expect((error as Error).message).toContain('cannot connect to postgres://someone:***@127.0.0.1:1/nowhere')
		expect((error as Error).message).not.toContain('hunter2')
	})
})
