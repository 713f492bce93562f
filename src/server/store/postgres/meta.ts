import { and, eq, gte, lt } from 'drizzle-orm'
import type { InstanceStore, JobStore, MetaStore } from '../types'
import type { PgDb } from './client'
import { jobLeases, meta, serverInstances } from './schema'

export const postgresMeta = (db: PgDb): MetaStore => ({
	get: async (key) => (await db.select({ value: meta.value }).from(meta).where(eq(meta.key, key)))[0]?.value,
	set: async (key, value) =>
		void (await db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } })),
	delete: async (key) => void (await db.delete(meta).where(eq(meta.key, key)))
})

export const postgresInstances = (db: PgDb): InstanceStore => ({
	report: async (row) =>
		void (await db
			.insert(serverInstances)
			.values(row)
			.onConflictDoUpdate({ target: serverInstances.id, set: { keyId: row.keyId, seenAt: row.seenAt } })),
	forget: async (id) => void (await db.delete(serverInstances).where(eq(serverInstances.id, id))),
	async seenSince(since) {
		await db.delete(serverInstances).where(lt(serverInstances.seenAt, since))
		return db.select().from(serverInstances).where(gte(serverInstances.seenAt, since))
	}
})

/**
 * docs/postgresql.md: every instance asks for the same schedule slot; the conditional
 * update lets exactly one move the lease forward (a second waits on the row
 * lock, then finds the condition false), and only that one runs the job.
 */
export const postgresJobs = (db: PgDb): JobStore => ({
	async claim(name, slot) {
		await db.insert(jobLeases).values({ name, lastRun: 0 }).onConflictDoNothing()
		const moved = await db
			.update(jobLeases)
			.set({ lastRun: slot })
			.where(and(eq(jobLeases.name, name), lt(jobLeases.lastRun, slot)))
			.returning({ name: jobLeases.name })
		return moved.length > 0
	}
})
