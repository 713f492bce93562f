import { sql } from 'drizzle-orm'
import { type Db, type Executor, runAsync, type Step } from '../rows/executor'
import type * as sqliteSchema from '../sqlite/schema'
import { writeAudit } from './audit'
import type { PgDb, PgTx } from './client'
import { isUniqueViolation } from './errors'
import { lockName } from './locks'
import * as schema from './schema'

/** What a PostgreSQL query builder runs with. */
interface Runnable extends PromiseLike<unknown> {
	execute(values?: unknown): Promise<unknown>
	for(strength: string): Runnable
}

/**
 * The plain-row stores' executor on PostgreSQL (../rows/executor.ts): each step awaited, a transaction
 * on one pooled connection; `lock` is an advisory lock, a row lock `FOR UPDATE` or `FOR NO KEY UPDATE`.
 */
export function postgresExecutor(db: PgDb): Executor {
	const perform = async (on: PgTx, step: Step): Promise<unknown> => {
		if (step.op === 'audit') return writeAudit(on, step.event)
		if (step.op === 'lock') return lockName(on, ...step.parts)
		const { query, values, lock } = step
		let result: unknown
		if ('build' in query) result = await (query.build(on as unknown as Db) as unknown as Runnable).execute(values)
		else result = await (lock ? (query as Runnable).for(lock) : query)
		// Bun.SQL answers a write without RETURNING with an empty array that counts the rows it changed.
		if (step.op === 'changes')
			return (result as { count?: number; length: number }).count ?? (result as unknown[]).length
		if (step.op === 'row') return (result as unknown[])[0]
		return step.op === 'rows' ? result : undefined
	}
	return {
		// The two schemas are twins (the schema-parity test); the SQLite one's types stand for both.
		tables: schema as unknown as typeof sqliteSchema,
		prepare: (build) => ({ build }),
		execute: (work) => runAsync(work(db as unknown as Db), (step) => perform(db, step)),
		transaction: (work) => db.transaction((tx) => runAsync(work(tx as unknown as Db), (step) => perform(tx, step))),
		isUniqueViolation,
		bytewise: (column) => sql`${column} COLLATE "C"`
	}
}
