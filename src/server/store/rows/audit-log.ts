import { and, asc, desc, eq, gt, lt, type SQL } from 'drizzle-orm'
import { containsAny, userAuditPage } from '../shared'
import type { AuditRow, AuditStore } from '../types'
import { type Executor, rows } from './executor'

/**
 * The audit log's pages (docs/operations.md), read alike on both engines. Writing events and the live
 * feed's numbering differ by engine and stay in each engine's audit.ts.
 */
export function auditList(ex: Executor): AuditStore['list'] {
	const { auditEvents } = ex.tables
	return async (query) => {
		/** The page's rows where `who` holds (all of them when undefined), in the page's order. */
		const scan = (who: SQL | undefined) => {
			const scope: (SQL | undefined)[] = [who]
			if (query.teamId !== undefined) scope.push(eq(auditEvents.teamId, query.teamId))
			if (query.type !== undefined) scope.push(eq(auditEvents.type, query.type))
			if (query.targetId !== undefined) scope.push(eq(auditEvents.targetId, query.targetId))
			if (query.before !== undefined) scope.push(lt(auditEvents.id, query.before))
			if (query.after !== undefined) scope.push(gt(auditEvents.id, query.after))
			scope.push(
				containsAny(
					[
						auditEvents.type,
						auditEvents.actorUsername,
						auditEvents.actorDevice,
						auditEvents.address,
						auditEvents.targetName
					],
					query.search
				)
			)
			return ex.execute((db) =>
				rows(
					db
						.select()
						.from(auditEvents)
						.where(and(...scope))
						.orderBy(query.after === undefined ? desc(auditEvents.id) : asc(auditEvents.id))
						.limit(query.limit)
				)
			)
		}
		const { userId } = query
		const found =
			userId === undefined
				? await scan(undefined)
				: await userAuditPage(
						(side) => scan(eq(side === 'actor' ? auditEvents.actorUserId : auditEvents.subjectUserId, userId)),
						query.limit,
						query.after !== undefined
					)
		// `after` reads the newer events oldest first (the nearest ones), then turns them newest first like any page.
		if (query.after !== undefined) found.reverse()
		return found.map((row) => ({ ...row, details: JSON.parse(row.details) }) as AuditRow)
	}
}
