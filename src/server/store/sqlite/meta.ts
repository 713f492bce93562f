import { eq, gte, lt } from 'drizzle-orm'
import type { InstanceStore, MetaStore } from '../types'
import type { SqliteDb } from './client'
import { meta, serverInstances } from './schema'

export const sqliteMeta = (db: SqliteDb): MetaStore => ({
	get: async (key) => db.select({ value: meta.value }).from(meta).where(eq(meta.key, key)).get()?.value,
	set: async (key, value) =>
		void db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } }).run(),
	delete: async (key) => void db.delete(meta).where(eq(meta.key, key)).run()
})

export const sqliteInstances = (db: SqliteDb): InstanceStore => ({
	report: async (row) =>
		void db
			.insert(serverInstances)
			.values(row)
			.onConflictDoUpdate({ target: serverInstances.id, set: { keyId: row.keyId, seenAt: row.seenAt } })
			.run(),
	forget: async (id) => void db.delete(serverInstances).where(eq(serverInstances.id, id)).run(),
	async seenSince(since) {
		db.delete(serverInstances).where(lt(serverInstances.seenAt, since)).run()
		return db.select().from(serverInstances).where(gte(serverInstances.seenAt, since)).all()
	}
})
