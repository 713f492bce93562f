import type { Column, SQL } from 'drizzle-orm'
import type { SqliteDb } from '../sqlite/client'
import type * as sqliteSchema from '../sqlite/schema'
import type { AuditEvent } from '../types'

/**
 * The dialect-neutral executor the plain-row stores (users, keys, sessions, sign-up links, login
 * failures, meta) are written once against; push, teams and the feed keep a twin per engine, since
 * their concurrency differs (docs/architecture.md, "The store").
 *
 * A store method is a generator over a Drizzle database: it builds queries with Drizzle's query
 * builder, whose API both engines share, and `yield*`s them as steps (`rows`, `row`, `changes`,
 * `write`, `audit`, `lock`), getting each result back. The engine runs the steps: SQLite
 * synchronously, a transaction inside one `BEGIN IMMEDIATE` that no other request's statement can
 * enter (its single writer is the whole concurrency story, so `lock` does nothing); PostgreSQL
 * asynchronously, a transaction on one pooled connection where `lock` takes an advisory lock and a
 * row lock (`rows(query, 'update')`) is `SELECT … FOR UPDATE`.
 */

/**
 * The database a method builds its queries on. Its TypeScript type is the SQLite one for both engines:
 * the schema-parity test keeps the two schemas' tables, columns and field names equal, and their values
 * are the same (ISO 8601 text times, booleans, epoch milliseconds as numbers). Only the builder's shared
 * API may be used: a query is run by yielding it, never by `.get()`, `.all()` or `.run()`.
 */
export type Db = SqliteDb
/** Each engine's schema module (their TypeScript types as `Db`'s). */
export type Tables = typeof sqliteSchema

/** A query with its result: a Drizzle query builder (awaitable on both engines). */
type Query<Result> = PromiseLike<Result>
/** Placeholder values of a prepared query. */
export type Values = Record<string, string | number | boolean | null>
/** PostgreSQL's row locks; SQLite's writer is already alone. */
export type RowLock = 'update' | 'no key update'

/**
 * A query built once with placeholders (`sql.placeholder`): SQLite prepares its statement once, for the
 * hot paths; PostgreSQL builds it in the transaction it runs in.
 */
export interface Prepared<Result> {
	readonly build: (db: Db) => Query<Result>
	/** The engine's own prepared statement, when it keeps one. */
	readonly statement?: unknown
}

export type Step =
	| {
			op: 'rows' | 'row' | 'changes' | 'write'
			query: Query<unknown> | Prepared<unknown>
			values?: Values
			lock?: RowLock
	  }
	| { op: 'audit'; event: AuditEvent | undefined }
	| { op: 'lock'; parts: string[] }

/** A store method's body: the steps it yields, and what it returns. */
export type Work<T> = Generator<Step, T, unknown>

export interface Executor {
	/** The engine's tables, to build queries on. */
	readonly tables: Tables
	/** Builds a query once, to run with `rows`, `row`, `changes` or `write` and its placeholders' values. */
	prepare<Result>(build: (db: Db) => Query<Result>): Prepared<Result>
	/** Runs `work`'s statements each on its own, outside any transaction. */
	execute<T>(work: (db: Db) => Work<T>): Promise<T>
	/** Runs `work` in one transaction: all of its writes and audit events, or none. */
	transaction<T>(work: (db: Db) => Work<T>): Promise<T>
	/** A unique index refused a write. */
	isUniqueViolation(error: unknown): boolean
	/** The column in byte order (PostgreSQL sorts text by its collation, SQLite by bytes). */
	bytewise(column: Column): SQL
}

/** The rows of a select (or of a write's `returning`). `lock`: PostgreSQL locks them until the transaction ends. */
export function rows<Row>(query: Query<Row[]>, lock?: RowLock): Work<Row[]>
export function rows<Row>(query: Prepared<Row[]>, values: Values): Work<Row[]>
export function* rows<Row>(query: Query<Row[]> | Prepared<Row[]>, arg?: RowLock | Values): Work<Row[]> {
	return (yield step('rows', query, arg)) as Row[]
}

/** The first row of a select, or undefined. */
export function row<Row>(query: Query<Row[]>, lock?: RowLock): Work<Row | undefined>
export function row<Row>(query: Prepared<Row[]>, values: Values): Work<Row | undefined>
export function* row<Row>(query: Query<Row[]> | Prepared<Row[]>, arg?: RowLock | Values): Work<Row | undefined> {
	return (yield step('row', query, arg)) as Row | undefined
}

/** How many rows an update or delete changed. */
export function* changes(query: Query<unknown> | Prepared<unknown>, values?: Values): Work<number> {
	return (yield step('changes', query, values)) as number
}

/** Runs a write whose result is not needed. */
export function* write(query: Query<unknown> | Prepared<unknown>, values?: Values): Work<void> {
	yield step('write', query, values)
}

/** Records an audit event in the transaction of the change it describes (nothing when undefined). */
export function* audit(event: AuditEvent | undefined): Work<void> {
	yield { op: 'audit', event }
}

/**
 * Serialises the transactions that touch the same named thing (one device's key, one login) until this
 * one ends: an advisory lock on PostgreSQL, nothing on SQLite, whose writers already take turns.
 */
export function* lock(...parts: string[]): Work<void> {
	yield { op: 'lock', parts }
}

const isPrepared = (query: unknown): query is Prepared<unknown> =>
	typeof query === 'object' && query !== null && 'build' in query && typeof query.build === 'function'

function step(
	op: 'rows' | 'row' | 'changes' | 'write',
	query: Query<unknown> | Prepared<unknown>,
	arg: RowLock | Values | undefined
): Step {
	if (isPrepared(query)) return { op, query, values: (arg as Values | undefined) ?? {} }
	return { op, query, lock: arg as RowLock | undefined }
}

/** Runs a method's steps one after another, synchronously; a failed step is thrown into the method. */
export function runSync<T>(work: Work<T>, perform: (step: Step) => unknown): T {
	let next = work.next()
	while (!next.done) {
		let result: unknown
		try {
			result = perform(next.value)
		} catch (error) {
			next = work.throw(error)
			continue
		}
		next = work.next(result)
	}
	return next.value
}

/** Runs a method's steps one after another, each awaited; a failed step is thrown into the method. */
export async function runAsync<T>(work: Work<T>, perform: (step: Step) => Promise<unknown>): Promise<T> {
	let next = work.next()
	while (!next.done) {
		let result: unknown
		try {
			result = await perform(next.value)
		} catch (error) {
			next = work.throw(error)
			continue
		}
		next = work.next(result)
	}
	return next.value
}
