import { z } from 'zod'

/** Every kind of event the audit log records (CONTRACT §10). */
export const AUDIT_TYPES = [
	'login.succeeded',
	'login.failed',
	'key.issued',
	'session.started',
	'session.ended',
	'key.revoked',
	'keys.revoked',
	'password.changed',
	'config.pushed',
	'config.rolled_back',
	'config.deleted',
	'team.created',
	'team.renamed',
	'team.deleted',
	'invitation.sent',
	'invitation.changed',
	'invitation.accepted',
	'invitation.declined',
	'invitation.cancelled',
	'member.role_changed',
	'member.removed',
	'member.left',
	'user.created',
	'user.plan_changed',
	'user.admin_changed',
	'user.password_reset',
	'user.unlocked',
	'user.removed',
	'backup.written',
	'backup.restored',
	'master_key.rotated'
] as const
export type AuditType = (typeof AUDIT_TYPES)[number]


export const AuditQuery = z.object({
	limit: z.coerce.number().int().min(1).max(200).default(50).describe('at most this many events (default 50)'),
	before: z.guid('Must be an event id.').optional().describe('only events older than this one (the last id of the previous page)'),
	type: z.enum(AUDIT_TYPES, { error: `Must be one of ${AUDIT_TYPES.join(', ')}.` }).optional().describe('only events of this type')
})
export type AuditQuery = z.infer<typeof AuditQuery>

export const AuditEventView = z.object({
	id: z.uuid(),
	type: z.enum(AUDIT_TYPES),
	at: z.iso.datetime(),
	actor: z
		.object({
			userId: z.uuid().nullable(),
			username: z.string().nullable(),
			device: z.string().nullable().describe('the device name of the key used, "web" for the web application, "admin command" for the server binary')
		})
		.describe('who did it'),
	address: z.string().nullable().describe('the client address it came from'),
	teamId: z.uuid().nullable(),
	subjectUserId: z.uuid().nullable().describe('the user it concerns, when not the actor'),
	target: z.object({ type: z.string(), id: z.string().nullable(), name: z.string().nullable() }).nullable(),
	details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).describe('versions, roles, names: never config data, keys or passwords')
})
export type AuditEventView = z.infer<typeof AuditEventView>
