import { count } from 'drizzle-orm'
import { containsAny } from '../shared'
import type { PgDb } from './client'
import { users } from './schema'

/** How many users the Admin page's search finds (docs/web.md: "Users 51–100 of 230"), by the same condition as its pages. */
export const postgresUserCount =
	(db: PgDb) =>
	async (search?: string): Promise<number> =>
		Number(
			(
				await db
					.select({ n: count() })
					.from(users)
					.where(containsAny([users.email, users.username], search))
			)[0]?.n ?? 0
		)
