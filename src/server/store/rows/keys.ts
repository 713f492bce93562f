import { and, asc, eq, isNull, lt, or, sql, type SQL } from 'drizzle-orm'
import type { AuditEvent, KeyStore, StoredKey } from '../types'
import { audit, type Executor, lock, row, rows, type Work, write } from './executor'

/**
 * API keys. `findCaller`, every request's lookup, is each engine's own (synchronous on SQLite, see
 * `KeyStore`): `../sqlite/keys.ts`, `../postgres/keys.ts`.
 */
export function keyStore(ex: Executor, findCaller: KeyStore['findCaller']): KeyStore {
	const { apiKeys } = ex.tables
	const keyFields = {
		id: apiKeys.id,
		userId: apiKeys.userId,
		device: apiKeys.device,
		createdAt: apiKeys.createdAt,
		lastUsedAt: apiKeys.lastUsedAt,
		keyHash: apiKeys.keyHash,
		readOnly: apiKeys.readOnly
	}
	const touch = ex.prepare((db) =>
		db
			.update(apiKeys)
			.set({ lastUsedAt: sql`${sql.placeholder('at')}` })
			.where(
				and(
					eq(apiKeys.keyHash, sql.placeholder('keyHash')),
					or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, sql.placeholder('staleBefore')))
				)
			)
	)
	// The event is written before the key goes, so it still names the key's device.
	const revoke = (where: SQL | undefined, event: AuditEvent | undefined) =>
		ex.transaction(function* (db): Work<boolean> {
			const key = yield* row(db.select({ id: apiKeys.id, device: apiKeys.device }).from(apiKeys).where(where), 'update')
			if (!key) return false
			yield* audit(event && { ...event, target: { type: 'key', id: key.id, name: key.device } })
			yield* write(db.delete(apiKeys).where(eq(apiKeys.id, key.id)))
			return true
		})

	return {
		findCaller,
		touch: (keyHash, at, staleBefore) => ex.execute(() => write(touch, { keyHash, at, staleBefore })),
		issue: (key, event) =>
			ex.transaction(function* (db) {
				// docs/api.md: one active key per (user, device); two logins of one device at once take turns.
				yield* lock('key', key.userId, key.device)
				yield* write(db.delete(apiKeys).where(and(eq(apiKeys.userId, key.userId), eq(apiKeys.device, key.device))))
				yield* write(db.insert(apiKeys).values(key))
				yield* audit(event)
			}),
		listForUser: (userId): Promise<StoredKey[]> =>
			ex.execute((db) =>
				rows(db.select(keyFields).from(apiKeys).where(eq(apiKeys.userId, userId)).orderBy(asc(apiKeys.createdAt)))
			),
		revoke: (userId, keyId, event) => revoke(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)), event),
		revokeByHash: async (keyHash, event) => void (await revoke(eq(apiKeys.keyHash, keyHash), event)),
		async rename(userId, keyId, device, event) {
			try {
				return await ex.transaction(function* (db): Work<StoredKey | 'taken' | undefined> {
					const mine = and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId))
					const key = yield* row(db.select(keyFields).from(apiKeys).where(mine), 'update')
					if (!key) return undefined
					if (key.device === device) return key
					// Taken in turn with a login under the new name (issue), so the two never make one name twice.
					yield* lock('key', userId, device)
					const other = yield* row(
						db
							.select({ id: apiKeys.id })
							.from(apiKeys)
							.where(and(eq(apiKeys.userId, userId), eq(apiKeys.device, device)))
					)
					if (other) return 'taken'
					yield* write(db.update(apiKeys).set({ device }).where(mine))
					yield* audit(
						event && {
							...event,
							target: { type: 'key', id: key.id, name: device },
							details: { ...event.details, from: key.device }
						}
					)
					return { ...key, device }
				})
			} catch (error) {
				// A unique index that refused it all the same (the same name written at the same moment).
				if (ex.isUniqueViolation(error)) return 'taken'
				throw error
			}
		}
	}
}
