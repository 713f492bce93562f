import { and, asc, eq, lt, or, isNull, sql, type SQL } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { AuditEvent, CallerRow, KeyStore, StoredKey } from '../types'
import type { AuditWriter } from './audit'
import type { SqliteDb } from './client'
import { hotRows } from './rows'
import { aliased } from '../shared'
import { apiKeys, users } from './schema'

export function sqliteKeys(db: SqliteDb, sqlite: Database, audit: AuditWriter): KeyStore {
	// Every authenticated request runs this: one indexed lookup joined to the user, three columns and the key's scope.
	const callerFields = {
		userId: apiKeys.userId,
		email: users.email,
		username: users.username,
		readOnly: apiKeys.readOnly
	}
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
	const issue = sqlite.transaction((key: StoredKey, event: AuditEvent | undefined) => {
		// docs/api.md: one active key per (user, device); logging in again replaces it.
		db.delete(apiKeys)
			.where(and(eq(apiKeys.userId, key.userId), eq(apiKeys.device, key.device)))
			.run()
		db.insert(apiKeys).values(key).run()
		audit(event)
	})
	// The event is written before the key goes, so it still names the key's device.
	const revokeTx = sqlite.transaction((where: SQL | undefined, event: AuditEvent | undefined) => {
		const key = db.select({ id: apiKeys.id, device: apiKeys.device }).from(apiKeys).where(where).get()
		if (!key) return false
		audit(event && { ...event, target: { type: 'key', id: key.id, name: key.device } })
		db.delete(apiKeys).where(eq(apiKeys.id, key.id)).run()
		return true
	})
	const keyFields = {
		id: apiKeys.id,
		userId: apiKeys.userId,
		device: apiKeys.device,
		createdAt: apiKeys.createdAt,
		lastUsedAt: apiKeys.lastUsedAt,
		keyHash: apiKeys.keyHash,
		readOnly: apiKeys.readOnly
	}

	return {
		findCaller: (keyHash) => findCaller.get({ keyHash }),
		touch: async (keyHash, at, staleBefore) => void touch.run({ keyHash, at, staleBefore }),
		issue: async (key, event) => issue.immediate(key, event),
		listForUser: async (userId): Promise<StoredKey[]> =>
			db.select(keyFields).from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(asc(apiKeys.createdAt)).all(),
		revoke: async (userId, keyId, event) =>
			revokeTx.immediate(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)), event),
		revokeByHash: async (keyHash, event) => void revokeTx.immediate(eq(apiKeys.keyHash, keyHash), event)
	}
}
