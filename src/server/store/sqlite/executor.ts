import type { Database } from 'bun:sqlite'
import { sql } from 'drizzle-orm'
import { type Executor, runSync, type Step } from '../rows/executor'
import type { AuditWriter } from './audit'
import type { SqliteDb } from './client'
import { changed, isUniqueViolation } from './errors'
import * as schema from './schema'

/** What a query builder or a prepared statement runs with on bun:sqlite (both have these). */
interface Runnable {
	all(values?: unknown): unknown[]
	get(values?: unknown): unknown
	run(values?: unknown): unknown
}

/**
 * The plain-row stores' executor on SQLite (../rows/executor.ts): every step runs synchronously, so a
 * transaction is one `BEGIN IMMEDIATE` call that no other request's statement can enter.
 */
export function sqliteExecutor(db: SqliteDb, sqlite: Database, audit: AuditWriter): Executor {
	const inTransaction = sqlite.transaction((work: () => unknown) => work())
	const perform = (step: Step): unknown => {
		if (step.op === 'audit') return audit(step.event)
		if (step.op === 'lock') return undefined
		const { query, values } = step
		const runnable = ('build' in query ? query.statement : query) as Runnable
		if (step.op === 'rows') return runnable.all(values)
		if (step.op === 'row') return runnable.get(values) ?? undefined
		const result = runnable.run(values)
		return step.op === 'changes' ? changed(result) : undefined
	}
	return {
		tables: schema,
		prepare: (build) => ({ build, statement: (build(db) as unknown as { prepare(): Runnable }).prepare() }),
		execute: async (work) => runSync(work(db), perform),
		transaction: async (work) => inTransaction.immediate(() => runSync(work(db), perform)) as never,
		isUniqueViolation,
		bytewise: (column) => sql`${column}`
	}
}
