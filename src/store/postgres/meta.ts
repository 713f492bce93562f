import { and, eq, lt } from 'drizzle-orm'
import type { JobStore, MetaStore } from '../types'
import type { PgDb } from './client'
import { jobLeases, meta } from './schema'

export const postgresMeta = (db: PgDb): MetaStore => ({
	get: async (key) => (await db.select({ value: meta.value }).from(meta).where(eq(meta.key, key)))[0]?.value,
	set: async (key, value) => void (await db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } }))
})

/**
 * CONTRACT §9: every instance asks for the same schedule slot; the conditional
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
