import { z } from 'zod'
import { AUDIT_TYPES } from './audit-types'

export { AUDIT_TYPES, type AuditType } from './audit-types'

export const AuditQuery = z.object({
	limit: z.coerce
		.number()
		.int()
		.min(1)
		.max(1000)
		.default(100)
		.describe('at most this many events (default 100); when more remain the answer carries `Link: <…>; rel="next"`'),
	before: z
		.guid('Must be an event id.')
		.optional()
		.describe('only events older than this one (the last id of the previous page)'),
	type: z
		.enum(AUDIT_TYPES, { error: `Must be one of ${AUDIT_TYPES.join(', ')}.` })
		.optional()
		.describe('only events of this type')
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
			device: z
				.string()
				.nullable()
				.describe(
					'the device name of the key used, "web" for the web application, "admin command" for the server binary'
				),
			keyId: z
				.uuid()
				.nullable()
				.describe(
					"the id of the key used (as GET /api/keys lists it), null without one: unlike a device's name, never taken over by another key"
				)
		})
		.describe('who did it'),
	address: z.string().nullable().describe('the client address it came from'),
	teamId: z.uuid().nullable(),
	subjectUserId: z.uuid().nullable().describe('the user it concerns, when not the actor'),
	target: z.object({ type: z.string(), id: z.string().nullable(), name: z.string().nullable() }).nullable(),
	details: z
		.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
		.describe('versions, roles, names: never config data, keys or passwords')
})
export type AuditEventView = z.infer<typeof AuditEventView>
