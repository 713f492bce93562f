import { expect, onTestFinished, test } from 'bun:test'
import { eq } from 'drizzle-orm'
import { connect, wrap as wrapPostgres } from '../../../src/server/store/postgres/client'
import { postgresExecutor } from '../../../src/server/store/postgres/executor'
import { type Executor, row, rows, write } from '../../../src/server/store/rows/executor'
import { auditWriter } from '../../../src/server/store/sqlite/audit'
import { openDatabase, wrap as wrapSqlite } from '../../../src/server/store/sqlite/client'
import { sqliteExecutor } from '../../../src/server/store/sqlite/executor'
import { applyMigrations } from '../../../src/server/store/sqlite/migrate'
import { migrations } from '../../../src/server/store/sqlite/migrations'
import { newPostgresDatabase, TEST_ENGINE, TEST_POOL } from '../../support/engine'

/**
 * The executor the plain-row stores are written once against (docs/architecture.md, "The store"):
 * what its steps mean must be the same on both engines.
 */
async function executor(): Promise<Executor> {
	if (TEST_ENGINE === 'postgres') {
		const client = connect(await newPostgresDatabase(), TEST_POOL)
		onTestFinished(() => client.close())
		return postgresExecutor(wrapPostgres(client))
	}
	const sqlite = openDatabase(':memory:')
	applyMigrations(sqlite, migrations)
	onTestFinished(() => sqlite.close())
	const db = wrapSqlite(sqlite)
	return sqliteExecutor(db, sqlite, auditWriter(db))
}

const metaRow = (ex: Executor, key: string) =>
	ex.execute((db) => row(db.select().from(ex.tables.meta).where(eq(ex.tables.meta.key, key))))

test('a transaction is all or nothing: a step that fails undoes the writes before it', async () => {
	const ex = await executor()
	const { meta } = ex.tables
	await ex.execute((db) => write(db.insert(meta).values({ key: 'taken', value: '1' })))
	const failed = await ex
		.transaction(function* (db) {
			yield* write(db.insert(meta).values({ key: 'first', value: '1' }))
			// Row locks are PostgreSQL's; SQLite reads the same rows.
			expect(yield* rows(db.select().from(meta).where(eq(meta.key, 'taken')), 'update')).toHaveLength(1)
			yield* write(db.insert(meta).values({ key: 'taken', value: '2' }))
		})
		.then(
			() => undefined,
			(error: unknown) => error
		)
	expect(ex.isUniqueViolation(failed)).toBe(true)
	expect(await metaRow(ex, 'first')).toBeUndefined()
	expect(await metaRow(ex, 'taken')).toEqual({ key: 'taken', value: '1' })
})

test('a step that fails is thrown into the method, which may go on', async () => {
	const ex = await executor()
	const { meta } = ex.tables
	await ex.execute((db) => write(db.insert(meta).values({ key: 'taken', value: '1' })))
	const outcome = await ex.execute(function* (db) {
		try {
			yield* write(db.insert(meta).values({ key: 'taken', value: '2' }))
			return 'written'
		} catch (error) {
			expect(ex.isUniqueViolation(error)).toBe(true)
		}
		return (yield* row(db.select().from(meta).where(eq(meta.key, 'taken'))))?.value
	})
	expect(outcome).toBe('1')
})

test.if(TEST_ENGINE === 'sqlite')(
	'on SQLite a transaction runs whole before anything else continues: no other statement can enter it',
	async () => {
		const ex = await executor()
		const { meta } = ex.tables
		const order: string[] = []
		const done = ex.transaction(function* (db) {
			order.push('begin')
			yield* write(db.insert(meta).values({ key: 'a', value: '1' }))
			order.push('between')
			yield* write(db.insert(meta).values({ key: 'b', value: '1' }))
			order.push('end')
		})
		void Promise.resolve().then(() => order.push('another request'))
		await done
		expect(order).toEqual(['begin', 'between', 'end', 'another request'])
	}
)
