import { and, count, desc, eq, gt, lt, type SQL } from 'drizzle-orm'
import type { LoginFailureStore } from '../types'
import { writeAudit } from './audit'
import type { PgDb, PgTx } from './client'
import { lockName } from './locks'
import { loginFailures } from './schema'

/**
 * In the database, so every instance counts the same failures (docs/postgresql.md).
 * A reservation locks its login and its address (always in that order, so two
 * cannot deadlock): attempts on either are counted one after the other.
 */
export function postgresLoginFailures(db: PgDb): LoginFailureStore {
	/** The time of the n-th most recent failure in the window: it exists exactly when the count has reached n. */
	const nth = async (tx: PgTx, scope: SQL | undefined, since: number, n: number) =>
		(
			await tx
				.select({ at: loginFailures.at })
				.from(loginFailures)
				.where(and(scope, gt(loginFailures.at, since)))
				.orderBy(desc(loginFailures.at))
				.limit(1)
				.offset(n - 1)
		)[0]?.at

	return {
		reserve: (attempt) =>
			db.transaction(async (tx) => {
				await lockName(tx, 'login', attempt.loginKey)
				await lockName(tx, 'address', attempt.address)
				const { limits, since } = attempt
				const login = eq(loginFailures.loginKey, attempt.loginKey)
				const address = eq(loginFailures.address, attempt.address)
				// One after another: a transaction's queries share one connection (no Promise.all inside).
				const tipped: number[] = []
				for (const [scope, limit] of [
					[and(login, address), limits.perLoginAddress],
					[address, limits.perAddress]
				] as const) {
					const at = await nth(tx, scope, since, limit)
					if (at !== undefined) tipped.push(at)
				}
				if (tipped.length > 0) return { ok: false as const, tippedAt: Math.max(...tipped) }
				// A login's failures from all addresses in the window: a range of the (login_key, at) index.
				const [counted] = await tx
					.select({ n: count() })
					.from(loginFailures)
					.where(and(login, gt(loginFailures.at, since)))
				await tx.insert(loginFailures).values({ loginKey: attempt.loginKey, address: attempt.address, at: attempt.at })
				return { ok: true as const, loginFailures: counted?.n ?? 0 }
			}),
		clearLoginAt: async (key, from) =>
			void (await db
				.delete(loginFailures)
				.where(and(eq(loginFailures.loginKey, key), eq(loginFailures.address, from)))),
		clearLogin: (key, event) =>
			db.transaction(async (tx) => {
				const cleared = (
					await tx.delete(loginFailures).where(eq(loginFailures.loginKey, key)).returning({ id: loginFailures.id })
				).length
				await writeAudit(tx, event && { ...event, details: { ...event.details, cleared } })
				return cleared
			}),
		prune: async (before) =>
			(await db.delete(loginFailures).where(lt(loginFailures.at, before)).returning({ id: loginFailures.id })).length
	}
}
