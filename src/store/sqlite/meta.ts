import { eq } from 'drizzle-orm'
import type { MetaStore } from '../types'
import type { SqliteDb } from './client'
import { meta } from './schema'

export const sqliteMeta = (db: SqliteDb): MetaStore => ({
	get: async (key) => db.select({ value: meta.value }).from(meta).where(eq(meta.key, key)).get()?.value,
	set: async (key, value) =>
		void db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } }).run()
})
