import { and, asc, inArray, eq, gt, isNotNull, lt, max, sql } from 'drizzle-orm'
import { uuidv7Floor } from '../../lib/ids'
import type { AuditEvent, AuditStore, FeedRow } from '../types'
import type { SQL as BunSQL } from 'bun'
import type { PgDb, PgTx } from './client'
import { statement } from './rows'
import { apiKeys, auditEvents } from './schema'

/**
 * Writes audit events (docs/operations.md) in the transaction of the change they
 * record, as ../sqlite/audit.ts does. A key is named by its hash; the event
 * records that key's device name as it is now, and its id.
 */
export async function writeAudit(tx: PgTx, event: AuditEvent | undefined): Promise<void> {
	if (event === undefined) return
	const device = event.actor.keyHash
		? sql`COALESCE((SELECT ${apiKeys.device} FROM ${apiKeys} WHERE ${apiKeys.keyHash} = ${event.actor.keyHash}), ${event.actor.via ?? null})`
		: (event.actor.via ?? null)
	const keyId = event.actor.keyHash
		? sql`(SELECT ${apiKeys.id} FROM ${apiKeys} WHERE ${apiKeys.keyHash} = ${event.actor.keyHash})`
		: null
	await tx.insert(auditEvents).values({
		id: event.id,
		at: event.at,
		type: event.type,
		actorUserId: event.actor.userId,
		actorUsername: event.actor.username,
		actorDevice: device,
		actorKeyId: keyId,
		address: event.actor.address,
		teamId: event.teamId ?? null,
		subjectUserId: event.subjectUserId ?? null,
		targetType: event.target?.type ?? null,
		targetId: event.target?.id ?? null,
		targetName: event.target?.name ?? null,
		details: JSON.stringify(event.details ?? {})
	})
}

/**
 * The same write as `writeAudit`, as one statement built once, for transactions
 * run on Bun.SQL directly (the push path: see configs.ts).
 */
export function auditStatement(db: PgDb) {
	const p = (name: string) => sql.placeholder(name)
	const insert = statement(
		db.insert(auditEvents).values({
			id: p('id'),
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
	)
	return async (tx: BunSQL, event: AuditEvent | undefined): Promise<void> => {
		if (event === undefined) return
		await insert(tx, {
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

/** The feed and its numbering; the log's pages are ../rows/audit-log.ts (`list`). */
export function postgresAudit(db: PgDb, list: AuditStore['list']): AuditStore {
	return {
		record: (event) => writeAudit(db, event),
		list,
		// Numbers are given at commit by a trigger, in commit order (drizzle-postgres/0003_audit_feed_seq.sql).
		feed: async (after, limit) =>
			(
				await db
					.select()
					.from(auditEvents)
					.where(and(isNotNull(auditEvents.seq), gt(auditEvents.seq, after)))
					.orderBy(asc(auditEvents.seq))
					.limit(limit)
			).map((row) => ({ ...row, seq: Number(row.seq), details: JSON.parse(row.details) }) as FeedRow),
		feedEnd: async () => Number((await db.select({ end: max(auditEvents.seq) }).from(auditEvents))[0]?.end ?? 0),
		feedAt: async (seq) =>
			(await db.select({ at: auditEvents.at }).from(auditEvents).where(eq(auditEvents.seq, seq)))[0]?.at,
		// Ids are UUIDv7, ordered by time: the primary key finds the old events.
		prune: async (before, limit) => {
			const old = lt(auditEvents.id, uuidv7Floor(Date.parse(before)))
			const batch =
				limit === undefined
					? old
					: inArray(
							auditEvents.id,
							db.select({ id: auditEvents.id }).from(auditEvents).where(old).orderBy(asc(auditEvents.id)).limit(limit)
						)
			return (await db.delete(auditEvents).where(batch).returning({ id: auditEvents.id })).length
		}
	}
}
