import { and, desc, eq, gt, lt, sql } from 'drizzle-orm'
import type { LoginFailureStore } from '../types'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { loginFailures } from './schema'

/** Kept in the database, not in memory, so every worker on the file sees the same counts. */
export function sqliteLoginFailures(db: SqliteDb): LoginFailureStore {
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

	return {
		record: async (failure) => void db.insert(loginFailures).values(failure).run(),
		nthRecentForLogin: async (loginKey, since, limit) => nthForLogin.get({ value: loginKey, since, offset: limit - 1 })?.at,
		nthRecentForAddress: async (address, since, limit) => nthForAddress.get({ value: address, since, offset: limit - 1 })?.at,
		clearLogin: async (loginKey) => void db.delete(loginFailures).where(eq(loginFailures.loginKey, loginKey)).run(),
		prune: async (before) => changed(db.delete(loginFailures).where(lt(loginFailures.at, before)).run())
	}
}
