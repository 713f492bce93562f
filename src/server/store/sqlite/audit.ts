import { asc, inArray, eq, gt, lt, sql } from 'drizzle-orm'
import { uuidv7Floor } from '../../lib/ids'
import type { AuditEvent, AuditStore, FeedRow } from '../types'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { apiKeys, auditEvents, meta } from './schema'
import type { WalCheckpoints } from './wal-checkpoints'

/**
 * Writes audit events (docs/operations.md). Store methods call it inside their own
 * transaction, so an event exists exactly when its change committed. A key is
 * named by its hash; the event records that key's device name as it is now, and its id.
 */
/**
 * The last number the feed gave out: the newest event's, or (every event
 * pruned) the one a prune recorded in `meta`, so numbering never starts again
 * under a client that holds an old cursor.
 */
const FEED_END_KEY = 'audit_feed_end'
const feedEndSql = sql`MAX(COALESCE((SELECT MAX(${auditEvents.seq}) FROM ${auditEvents}), 0), COALESCE((SELECT CAST(${meta.value} AS INTEGER) FROM ${meta} WHERE ${meta.key} = ${FEED_END_KEY}), 0))`

const feedEnd = (db: Pick<SqliteDb, 'all'>): number =>
	Number(db.all<{ last: number }>(sql`SELECT ${feedEndSql} AS last`)[0]?.last ?? 0)

export function auditWriter(db: SqliteDb) {
	const p = (name: string) => sql.placeholder(name)
	const insert = db
		.insert(auditEvents)
		.values({
			id: p('id'),
			// Inside the write lock, so numbers follow commit order (docs/api.md "Live changes").
			seq: sql`(${feedEndSql}) + 1`,
			at: p('at'),
			type: p('type'),
			actorUserId: p('actorUserId'),
			actorUsername: p('actorUsername'),
			actorDevice: sql`COALESCE((SELECT ${apiKeys.device} FROM ${apiKeys} WHERE ${apiKeys.keyHash} = ${p('keyHash')}), ${p('via')})`,
			actorKeyId: sql`(SELECT ${apiKeys.id} FROM ${apiKeys} WHERE ${apiKeys.keyHash} = ${p('keyHash')})`,
			address: p('address'),
			teamId: p('teamId'),
			subjectUserId: p('subjectUserId'),
			targetType: p('targetType'),
			targetId: p('targetId'),
			targetName: p('targetName'),
			details: p('details')
		})
		.prepare()
	return (event: AuditEvent | undefined): void => {
		if (event === undefined) return
		insert.run({
			id: event.id,
			at: event.at,
			type: event.type,
			actorUserId: event.actor.userId,
			actorUsername: event.actor.username,
			keyHash: event.actor.keyHash ?? null,
			via: event.actor.via ?? null,
			address: event.actor.address,
			teamId: event.teamId ?? null,
			subjectUserId: event.subjectUserId ?? null,
			targetType: event.target?.type ?? null,
			targetId: event.target?.id ?? null,
			targetName: event.target?.name ?? null,
			details: JSON.stringify(event.details ?? {})
		})
	}
}

export type AuditWriter = ReturnType<typeof auditWriter>

/** The feed and its numbering; the log's pages are ../rows/audit-log.ts (`list`). */
export function sqliteAudit(
	db: SqliteDb,
	write: AuditWriter,
	list: AuditStore['list'],
	checkpoints: WalCheckpoints
): AuditStore {
	/** Old events, at most `limit` of the oldest, in one transaction that keeps the feed's last number. */
	function prune(before: string, limit: number | undefined) {
		return db.transaction((tx) => {
			const end = feedEnd(tx)
			tx.insert(meta)
				.values({ key: FEED_END_KEY, value: String(end) })
				.onConflictDoUpdate({ target: meta.key, set: { value: String(end) } })
				.run()
			const old = lt(auditEvents.id, uuidv7Floor(Date.parse(before)))
			const batch =
				limit === undefined
					? old
					: inArray(
							auditEvents.id,
							tx.select({ id: auditEvents.id }).from(auditEvents).where(old).orderBy(asc(auditEvents.id)).limit(limit)
						)
			return changed(tx.delete(auditEvents).where(batch).run())
		})
	}
	return {
		record: async (event) => write(event),
		list,
		feed: async (after, limit) =>
			db
				.select()
				.from(auditEvents)
				.where(gt(auditEvents.seq, after))
				.orderBy(asc(auditEvents.seq))
				.limit(limit)
				.all()
				.map((row) => ({ ...row, details: JSON.parse(row.details) }) as FeedRow),
		feedEnd: async () => feedEnd(db),
		feedAt: async (seq) =>
			db.select({ at: auditEvents.at }).from(auditEvents).where(eq(auditEvents.seq, seq)).get()?.at,
		// Ids are UUIDv7, ordered by time: the primary key finds the old events, no index on `at` is kept up.
		// A prune's step is background work: its checkpoint runs off the server's thread (wal-checkpoints.ts).
		prune: async (before, limit) => checkpoints.afterStep(() => prune(before, limit))
	}
}
