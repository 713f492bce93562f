import { toIso, type Clock } from '../../lib/clock'
import { newIdAt } from '../../lib/ids'
import type { Actor, AuditActor, AuditEvent, AuditType } from '../../store/types'

export type { Actor } from '../../store/types'

/** The server binary's admin commands act as nobody in particular, from the machine itself. */
export const ADMIN_COMMAND: AuditActor = { userId: null, username: null, via: 'admin command', address: null }

export const auditActorOf = (actor: Actor): AuditActor => ({
	userId: actor.userId,
	username: actor.username,
	keyHash: actor.keyHash,
	via: actor.keyHash === undefined ? 'web' : undefined,
	address: actor.address
})

/**
 * Builds audit events (docs/operations.md) for the store to write in the
 * transaction of the change they record. Never put config data, keys or
 * passwords in `details`: names, versions and roles only.
 */
export const createAuditEvents =
	(clock: Clock) =>
	(
		type: AuditType,
		actor: Actor | AuditActor,
		rest: Omit<AuditEvent, 'id' | 'at' | 'type' | 'actor'> = {}
	): AuditEvent => {
		const now = clock.now()
		// The id carries the event's time, so paging and retention can go by id alone.
		return { id: newIdAt(now), at: toIso(now), type, actor: 'email' in actor ? auditActorOf(actor) : actor, ...rest }
	}
