import { and, count, desc, eq, gt, lt, sql, type SQL } from 'drizzle-orm'
import type { LoginFailureStore } from '../types'
import { audit, changes, type Executor, lock, row, write } from './executor'

/**
 * Kept in the database, not in memory, so every process and instance counts the same failures
 * (docs/postgresql.md). A reservation locks its login and its address (always in that order, so two
 * cannot deadlock): attempts on either are counted one after the other.
 */
export function loginFailureStore(ex: Executor): LoginFailureStore {
	const { loginFailures } = ex.tables
	const since = gt(loginFailures.at, sql.placeholder('since'))
	const loginKey = eq(loginFailures.loginKey, sql.placeholder('loginKey'))
	const address = eq(loginFailures.address, sql.placeholder('address'))
	/** The time of the n-th most recent failure in the window: it exists exactly when the count has reached n. */
	const nth = (scope: SQL | undefined) =>
		ex.prepare((db) =>
			db
				.select({ at: loginFailures.at })
				.from(loginFailures)
				.where(and(scope, since))
				.orderBy(desc(loginFailures.at))
				.limit(1)
				.offset(sql.placeholder('offset'))
		)
	const nthForLoginAddress = nth(and(loginKey, address))
	const nthForAddress = nth(address)
	// A login's failures from all addresses in the window: a range of the (login_key, at) index, what the slow-down reads.
	const countForLogin = ex.prepare((db) => db.select({ n: count() }).from(loginFailures).where(and(loginKey, since)))
	const insert = ex.prepare((db) =>
		db
			.insert(loginFailures)
			.values({ loginKey: sql.placeholder('loginKey'), address: sql.placeholder('address'), at: sql.placeholder('at') })
	)

	return {
		reserve: (attempt) =>
			ex.transaction(function* () {
				yield* lock('login', attempt.loginKey)
				yield* lock('address', attempt.address)
				const { limits } = attempt
				const values = { loginKey: attempt.loginKey, address: attempt.address, since: attempt.since }
				const tipped: number[] = []
				for (const [query, limit] of [
					[nthForLoginAddress, limits.perLoginAddress],
					[nthForAddress, limits.perAddress]
				] as const) {
					const at = (yield* row(query, { ...values, offset: limit - 1 }))?.at
					if (at !== undefined) tipped.push(at)
				}
				if (tipped.length > 0) return { ok: false as const, tippedAt: Math.max(...tipped) }
				const loginFailures = (yield* row(countForLogin, values))?.n ?? 0
				yield* write(insert, { loginKey: attempt.loginKey, address: attempt.address, at: attempt.at })
				return { ok: true as const, loginFailures }
			}),
		clearLoginAt: (key, from) =>
			ex.execute((db) =>
				write(db.delete(loginFailures).where(and(eq(loginFailures.loginKey, key), eq(loginFailures.address, from))))
			),
		clearLogin: (key, event) =>
			ex.transaction(function* (db) {
				const cleared = yield* changes(db.delete(loginFailures).where(eq(loginFailures.loginKey, key)))
				yield* audit(event && { ...event, details: { ...event.details, cleared } })
				return cleared
			}),
		prune: (before) => ex.execute((db) => changes(db.delete(loginFailures).where(lt(loginFailures.at, before))))
	}
}
