import { and, asc, eq, lt, or, isNull, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { CallerRow, KeyStore, StoredKey } from '../types'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { aliased, hotRows } from './rows'
import { apiKeys, users } from './schema'

export function sqliteKeys(db: SqliteDb, sqlite: Database): KeyStore {
	// Every authenticated request runs this: one indexed lookup joined to the user, three columns.
	const callerFields = { userId: apiKeys.userId, email: users.email, username: users.username }
	const findCaller = hotRows<CallerRow>(
		sqlite,
		db
			.select(aliased(callerFields))
			.from(apiKeys)
			.innerJoin(users, eq(users.id, apiKeys.userId))
			.where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
	)
	const touch = db
		.update(apiKeys)
		.set({ lastUsedAt: sql`${sql.placeholder('at')}` })
		.where(
			and(
				eq(apiKeys.keyHash, sql.placeholder('keyHash')),
				or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql.placeholder('staleBefore')))
			)
		)
		.prepare()
	const issue = sqlite.transaction((key: StoredKey) => {
		// CONTRACT §3: one active key per (user, device); logging in again replaces it.
		db.delete(apiKeys)
			.where(and(eq(apiKeys.userId, key.userId), eq(apiKeys.device, key.device)))
			.run()
		db.insert(apiKeys).values(key).run()
	})
	const keyFields = {
		id: apiKeys.id,
		userId: apiKeys.userId,
		device: apiKeys.device,
		createdAt: apiKeys.createdAt,
		lastUsedAt: apiKeys.lastUsedAt,
		keyHash: apiKeys.keyHash
	}

	return {
		findCaller: (keyHash) => findCaller.get({ keyHash }),
		touch: async (keyHash, at, staleBefore) => void touch.run({ keyHash, at, staleBefore }),
		issue: async (key) => issue.immediate(key),
		listForUser: async (userId): Promise<StoredKey[]> =>
			db.select(keyFields).from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(asc(apiKeys.createdAt)).all(),
		revoke: async (userId, keyId) => changed(db.delete(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId))).run()) > 0,
		revokeByHash: async (keyHash) => void db.delete(apiKeys).where(eq(apiKeys.keyHash, keyHash)).run(),
		revokeAllForUser: async (userId) => changed(db.delete(apiKeys).where(eq(apiKeys.userId, userId)).run())
	}
}
