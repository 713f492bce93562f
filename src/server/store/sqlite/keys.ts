import type { Database } from 'bun:sqlite'
import { eq, sql } from 'drizzle-orm'
import type { CallerRow } from '../types'
import { aliased } from '../shared'
import type { SqliteDb } from './client'
import { hotRows } from './rows'
import { apiKeys, users } from './schema'

/**
 * Every authenticated request runs this: one indexed lookup joined to the user, three columns and the
 * key's scope, answered synchronously (the rest of the key store is ../rows/keys.ts).
 */
export function sqliteFindCaller(db: SqliteDb, sqlite: Database) {
	const findCaller = hotRows<CallerRow>(
		sqlite,
		db
			.select(
				aliased({ userId: apiKeys.userId, email: users.email, username: users.username, readOnly: apiKeys.readOnly })
			)
			.from(apiKeys)
			.innerJoin(users, eq(users.id, apiKeys.userId))
			.where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
	)
	return (keyHash: string): CallerRow | undefined => findCaller.get({ keyHash })
}
