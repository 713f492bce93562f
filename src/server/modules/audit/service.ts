import { AppError } from '../../lib/errors'
import type { AuditRow, Caller, Store } from '../../store/types'
import type { AuditEventView, AuditQuery } from '../../../shared/api/audit'

export const auditView = (row: AuditRow): AuditEventView => ({
	id: row.id,
	type: row.type,
	at: row.at,
	actor: { userId: row.actorUserId, username: row.actorUsername, device: row.actorDevice },
	address: row.address,
	teamId: row.teamId,
	subjectUserId: row.subjectUserId,
	target: row.targetType === null ? null : { type: row.targetType, id: row.targetId, name: row.targetName },
	details: row.details
})

/**
 * An event someone else did that concerns the caller (an invitation, a role change, a failed login
 * on their account): who acted and what, never the actor's client address or device.
 */
const asSubjectSees = (row: AuditRow): AuditEventView => {
	const view = auditView(row)
	return { ...view, actor: { ...view.actor, device: null }, address: null }
}

/** docs/operations.md: your own events, and a team's for its owners and admins; never anyone else's. */
export function createAuditService({ store }: { store: Store }) {
	return {
		/** Events the caller did or that concern them (a failed login on their account, an admin action), newest first. */
		async mine(caller: Caller, query: AuditQuery): Promise<AuditEventView[]> {
			return (await store.audit.list({ userId: caller.userId, ...query })).map((row) =>
				row.actorUserId === caller.userId ? auditView(row) : asSubjectSees(row)
			)
		},

		/** A team's events for its owners and admins; members get 403, others 404. */
		async team(caller: Caller, slug: string, query: AuditQuery): Promise<AuditEventView[]> {
			const found = await store.teams.findForMember(slug, caller.userId)
			if (!found) throw new AppError('not_found', 'No such team.')
			if (found.role === 'member')
				throw new AppError('forbidden', "Only a team owner or admin can read the team's activity.")
			return (await store.audit.list({ teamId: found.team.id, ...query })).map(auditView)
		}
	}
}

export type AuditService = ReturnType<typeof createAuditService>
