import type { Database } from 'bun:sqlite'
import { eq, sql } from 'drizzle-orm'
import type { CallerRow } from '../types'
import { aliased } from '../shared'
import type { SqliteDb } from './client'
import { rememberedRows } from './remembered'
import { hotRows } from './rows'
import { apiKeys, users } from './schema'

/**
 * Every authenticated request runs this: one indexed lookup joined to the user, three columns and the
 * key's scope, answered synchronously (the rest of the key store is ../rows/keys.ts), and remembered
 * while nothing is committed (remembered.ts): a revoked key, a removed user or a changed scope is seen
 * by the next request. A key is remembered by its hash only.
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
	const remembered = rememberedRows<CallerRow>(sqlite, { rows: 10_000 })
	return Object.assign(
		(keyHash: string): CallerRow | undefined => remembered(keyHash, () => findCaller.get({ keyHash })),
		{
			/** Writes that touch no key and no user (a push) leave the remembered callers as they are. */
			unaffectedBy: remembered.unaffectedBy
		}
	)
}
