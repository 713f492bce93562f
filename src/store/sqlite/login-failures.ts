import { and, desc, eq, gt, lt, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { LoginFailureStore } from '../types'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { loginFailures } from './schema'

/** Kept in the database, not in memory, so every process on the file sees the same counts. */
export function sqliteLoginFailures(db: SqliteDb, sqlite: Database): LoginFailureStore {
	const nth = (column: typeof loginFailures.loginKey | typeof loginFailures.address) =>
		db
			.select({ at: loginFailures.at })
			.from(loginFailures)
			.where(and(eq(column, sql.placeholder('value')), gt(loginFailures.at, sql.placeholder('since'))))
			.orderBy(desc(loginFailures.at))
			.limit(1)
			.offset(sql.placeholder('offset'))
			.prepare()
	const nthForLogin = nth(loginFailures.loginKey)
	const nthForAddress = nth(loginFailures.address)
	const insert = db
		.insert(loginFailures)
		.values({ loginKey: sql.placeholder('loginKey'), address: sql.placeholder('address'), at: sql.placeholder('at') })
		.prepare()

	type Attempt = Parameters<LoginFailureStore['reserve']>[0]
	const reserve = sqlite.transaction((attempt: Attempt): { ok: true } | { ok: false; tippedAt: number } => {
		// The limit-th most recent failure in the window exists exactly when the count has reached the limit.
		const byLogin = nthForLogin.get({ value: attempt.loginKey, since: attempt.since, offset: attempt.perLogin - 1 })?.at
		const byAddress = nthForAddress.get({ value: attempt.address, since: attempt.since, offset: attempt.perAddress - 1 })?.at
		if (byLogin !== undefined || byAddress !== undefined) return { ok: false, tippedAt: Math.max(byLogin ?? 0, byAddress ?? 0) }
		insert.run({ loginKey: attempt.loginKey, address: attempt.address, at: attempt.at })
		return { ok: true }
	})

	return {
		reserve: async (attempt) => reserve.immediate(attempt),
		clearLogin: async (loginKey) => void db.delete(loginFailures).where(eq(loginFailures.loginKey, loginKey)).run(),
		prune: async (before) => changed(db.delete(loginFailures).where(lt(loginFailures.at, before)).run())
	}
}
