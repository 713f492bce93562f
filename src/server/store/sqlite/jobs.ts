import { and, eq, lt } from 'drizzle-orm'
import type { JobStore } from '../types'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { jobLeases } from './schema'

/**
 * docs/postgresql.md: every instance asks for the same schedule slot; the conditional
 * update lets exactly one of them move the lease forward, and only that one runs the job.
 */
export const sqliteJobs = (db: SqliteDb): JobStore => ({
	async claim(name, slot) {
		db.insert(jobLeases).values({ name, lastRun: 0 }).onConflictDoNothing().run()
		return (
			changed(
				db
					.update(jobLeases)
					.set({ lastRun: slot })
					.where(and(eq(jobLeases.name, name), lt(jobLeases.lastRun, slot)))
					.run()
			) > 0
		)
	}
})
