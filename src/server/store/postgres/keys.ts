import type { SQL as BunSQL } from 'bun'
import { and, asc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import type { AuditEvent, CallerRow, KeyStore, StoredKey } from '../types'
import { aliased } from '../shared'
import { writeAudit } from './audit'
import type { PgDb } from './client'
import { lockName } from './locks'
import { hotRows } from './rows'
import { apiKeys, users } from './schema'

export function postgresKeys(db: PgDb, client: BunSQL): KeyStore {
	// Every authenticated request runs this: one indexed lookup joined to the user, three columns and the key's scope.
	const callerFields = {
		userId: apiKeys.userId,
		email: users.email,
		username: users.username,
		readOnly: apiKeys.readOnly
	}
	const findCaller = hotRows<CallerRow>(
		client,
		db
			.select(aliased(callerFields))
			.from(apiKeys)
			.innerJoin(users, eq(users.id, apiKeys.userId))
			.where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
	)
	const keyFields = {
		id: apiKeys.id,
		userId: apiKeys.userId,
		device: apiKeys.device,
		createdAt: apiKeys.createdAt,
		lastUsedAt: apiKeys.lastUsedAt,
		keyHash: apiKeys.keyHash,
		readOnly: apiKeys.readOnly
	}
	// The event is written before the key goes, so it still names the key's device.
	const revoke = (where: SQL | undefined, event: AuditEvent | undefined) =>
		db.transaction(async (tx) => {
			const [key] = await tx.select({ id: apiKeys.id, device: apiKeys.device }).from(apiKeys).where(where).for('update')
			if (!key) return false
			await writeAudit(tx, event && { ...event, target: { type: 'key', id: key.id, name: key.device } })
			await tx.delete(apiKeys).where(eq(apiKeys.id, key.id))
			return true
		})

	return {
		// Async here (a network round trip); the auth gate awaits it only on this engine.
		findCaller: (keyHash) => findCaller.get({ keyHash }),
		touch: async (keyHash, at, staleBefore) =>
			void (await db
				.update(apiKeys)
				.set({ lastUsedAt: at })
				.where(and(eq(apiKeys.keyHash, keyHash), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, staleBefore))))),
		issue: (key, event) =>
			db.transaction(async (tx) => {
				// docs/api.md: one active key per (user, device); two logins of one device at once take turns.
				await lockName(tx, 'key', key.userId, key.device)
				await tx.delete(apiKeys).where(and(eq(apiKeys.userId, key.userId), eq(apiKeys.device, key.device)))
				await tx.insert(apiKeys).values(key)
				await writeAudit(tx, event)
			}),
		listForUser: async (userId): Promise<StoredKey[]> =>
			db.select(keyFields).from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(asc(apiKeys.createdAt)),
		revoke: (userId, keyId, event) => revoke(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)), event),
		revokeByHash: async (keyHash, event) => void (await revoke(eq(apiKeys.keyHash, keyHash), event))
	}
}
