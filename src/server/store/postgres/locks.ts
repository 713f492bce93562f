import { sql } from 'drizzle-orm'
import type { PgTx } from './client'

/**
 * docs/postgresql.md: what SQLite gets from its single writer, PostgreSQL gets from
 * locks. A transaction-scoped advisory lock on a name serialises the
 * transactions that touch the same thing (one owner's config name, one slug,
 * one device's key) without locking anything else, and ends with the transaction.
 */
export async function lockName(tx: PgTx, ...parts: string[]): Promise<void> {
	await tx.execute(sql`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey(...parts)}, 0))`)
}

/** The lock's name as one text (parts joined by a unit separator, which no name contains). */
export const lockKey = (...parts: string[]): string => parts.join('\u001f')

/** `lockName` as plain SQL for transactions run on Bun.SQL directly; its one parameter is a `lockKey`. */
export const LOCK_SQL = 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))'
