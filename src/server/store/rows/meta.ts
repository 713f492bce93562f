import { and, eq, gte, lt } from 'drizzle-orm'
import type { InstanceStore, JobStore, MetaStore } from '../types'
import { changes, type Executor, row, rows, write } from './executor'

export function metaStore(ex: Executor): MetaStore {
	const { meta } = ex.tables
	return {
		get: async (key) =>
			(await ex.execute((db) => row(db.select({ value: meta.value }).from(meta).where(eq(meta.key, key)))))?.value,
		set: (key, value) =>
			ex.execute((db) =>
				write(db.insert(meta).values({ key, value }).onConflictDoUpdate({ target: meta.key, set: { value } }))
			),
		delete: (key) => ex.execute((db) => write(db.delete(meta).where(eq(meta.key, key))))
	}
}

/** Running servers' heartbeats (docs/operations.md). */
export function instanceStore(ex: Executor): InstanceStore {
	const { serverInstances } = ex.tables
	return {
		report: (instance) =>
			ex.execute((db) =>
				write(
					db
						.insert(serverInstances)
						.values(instance)
						.onConflictDoUpdate({
							target: serverInstances.id,
							set: { keyId: instance.keyId, seenAt: instance.seenAt }
						})
				)
			),
		forget: (id) => ex.execute((db) => write(db.delete(serverInstances).where(eq(serverInstances.id, id)))),
		seenSince: (since) =>
			ex.execute(function* (db) {
				yield* write(db.delete(serverInstances).where(lt(serverInstances.seenAt, since)))
				return yield* rows(db.select().from(serverInstances).where(gte(serverInstances.seenAt, since)))
			})
	}
}

/**
 * docs/postgresql.md: every instance asks for the same schedule slot; the conditional update lets exactly
 * one of them move the lease forward (on PostgreSQL a second waits on the row lock, then finds the
 * condition false), and only that one runs the job.
 */
export function jobStore(ex: Executor): JobStore {
	const { jobLeases } = ex.tables
	return {
		claim: (name, slot) =>
			ex.execute(function* (db) {
				yield* write(db.insert(jobLeases).values({ name, lastRun: 0 }).onConflictDoNothing())
				const moved = yield* changes(
					db
						.update(jobLeases)
						.set({ lastRun: slot })
						.where(and(eq(jobLeases.name, name), lt(jobLeases.lastRun, slot)))
				)
				return moved > 0
			})
	}
}
