import { and, count, desc, eq, gt, lt, sql, type SQL } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { AuditEvent, LoginFailureStore } from '../types'
import type { AuditWriter } from './audit'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { loginFailures } from './schema'

/** Kept in the database, not in memory, so every process on the file sees the same counts. */
export function sqliteLoginFailures(db: SqliteDb, sqlite: Database, audit: AuditWriter): LoginFailureStore {
	const since = gt(loginFailures.at, sql.placeholder('since'))
	/** The time of the n-th most recent failure in the window: it exists exactly when the count has reached n. */
	const nth = (scope: SQL | undefined) =>
		db
			.select({ at: loginFailures.at })
			.from(loginFailures)
			.where(and(scope, since))
			.orderBy(desc(loginFailures.at))
			.limit(1)
			.offset(sql.placeholder('offset'))
			.prepare()
	const loginKey = eq(loginFailures.loginKey, sql.placeholder('loginKey'))
	const address = eq(loginFailures.address, sql.placeholder('address'))
	const nthForLoginAddress = nth(and(loginKey, address))
	const nthForAddress = nth(address)
	// A login's failures from all addresses in the window: a range of the (login_key, at) index, what the slow-down reads.
	const countForLogin = db.select({ n: count() }).from(loginFailures).where(and(loginKey, since)).prepare()
	const insert = db
		.insert(loginFailures)
		.values({ loginKey: sql.placeholder('loginKey'), address: sql.placeholder('address'), at: sql.placeholder('at') })
		.prepare()

	type Attempt = Parameters<LoginFailureStore['reserve']>[0]
	const reserve = sqlite.transaction(
		(attempt: Attempt): { ok: true; loginFailures: number } | { ok: false; tippedAt: number } => {
			const { limits } = attempt
			const values = { loginKey: attempt.loginKey, address: attempt.address, since: attempt.since }
			const tipped = [
				nthForLoginAddress.get({ ...values, offset: limits.perLoginAddress - 1 })?.at,
				nthForAddress.get({ ...values, offset: limits.perAddress - 1 })?.at
			].filter((at): at is number => at !== undefined)
			if (tipped.length > 0) return { ok: false, tippedAt: Math.max(...tipped) }
			const loginFailures = countForLogin.get(values)?.n ?? 0
			insert.run({ loginKey: attempt.loginKey, address: attempt.address, at: attempt.at })
			return { ok: true, loginFailures }
		}
	)

	const clearTx = sqlite.transaction((key: string, event: AuditEvent | undefined) => {
		const cleared = changed(db.delete(loginFailures).where(eq(loginFailures.loginKey, key)).run())
		audit(event && { ...event, details: { ...event.details, cleared } })
		return cleared
	})

	return {
		reserve: async (attempt) => reserve.immediate(attempt),
		clearLoginAt: async (key, from) =>
			void db
				.delete(loginFailures)
				.where(and(eq(loginFailures.loginKey, key), eq(loginFailures.address, from)))
				.run(),
		clearLogin: async (key, event) => clearTx.immediate(key, event),
		prune: async (before) => changed(db.delete(loginFailures).where(lt(loginFailures.at, before)).run())
	}
}
