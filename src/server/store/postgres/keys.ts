import type { SQL as BunSQL } from 'bun'
import { eq, sql } from 'drizzle-orm'
import type { CallerRow } from '../types'
import { aliased } from '../shared'
import type { PgDb } from './client'
import { hotRows } from './rows'
import { apiKeys, users } from './schema'

/**
 * Every authenticated request runs this: one indexed lookup joined to the user, three columns and the
 * key's scope. Async here (a network round trip); the auth gate awaits it only on this engine. The rest
 * of the key store is ../rows/keys.ts.
 */
export function postgresFindCaller(db: PgDb, client: BunSQL) {
	const findCaller = hotRows<CallerRow>(
		client,
		db
			.select(
				aliased({ userId: apiKeys.userId, email: users.email, username: users.username, readOnly: apiKeys.readOnly })
			)
			.from(apiKeys)
			.innerJoin(users, eq(users.id, apiKeys.userId))
			.where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
	)
	return (keyHash: string): Promise<CallerRow | undefined> => findCaller.get({ keyHash })
}
