import { and, asc, eq, lt, or, isNull, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { Caller, KeyRow, KeyStore } from '../types'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { aliased, hotRows } from './rows'
import { apiKeys, users } from './schema'

export function sqliteKeys(db: SqliteDb, sqlite: Database): KeyStore {
	// Every authenticated request runs this: one indexed lookup joined to the user.
	const callerFields = {
		keyId: apiKeys.id,
		userId: apiKeys.userId,
		email: users.email,
		username: users.username,
		plan: users.plan,
		lastUsedAt: apiKeys.lastUsedAt
	}
	const findCaller = hotRows<Caller>(
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
				eq(apiKeys.id, sql.placeholder('id')),
				or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql.placeholder('staleBefore')))
			)
		)
		.prepare()
	const issue = sqlite.transaction((key: KeyRow & { keyHash: string }) => {
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
		lastUsedAt: apiKeys.lastUsedAt
	}

	return {
		findCaller: async (keyHash) => findCaller.get({ keyHash }),
		touch: async (id, at, staleBefore) => void touch.run({ id, at, staleBefore }),
		issue: async (key) => issue.immediate(key),
		listForUser: async (userId): Promise<KeyRow[]> =>
			db.select(keyFields).from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(asc(apiKeys.createdAt)).all(),
		revoke: async (userId, keyId) => changed(db.delete(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId))).run()) > 0
	}
}
