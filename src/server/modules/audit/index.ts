import { Elysia } from 'elysia'
import { z } from 'zod'
import type { AuthPlugin } from '../../plugins/auth'
import { AuditEventView, AuditQuery } from '../../../shared/api/audit'
import { SlugParams } from '../../../shared/api/teams'
import type { AuditService } from './service'

export const auditRoutes = (audit: AuditService, gate: AuthPlugin) =>
	new Elysia({ tags: ['audit'] })
		.use(gate)
		.get('/api/audit', ({ caller, query }) => audit.mine(caller, query), {
			auth: true,
			query: AuditQuery,
			response: z.array(AuditEventView),
			detail: {
				summary: 'Your activity: what you did, and what was done to your account, newest first',
				description:
					'Page with `limit` and `before` (the last id of the previous page); filter with `type`. Kept 365 days.'
			}
		})
		.get('/api/teams/:slug/audit', ({ caller, params, query }) => audit.team(caller, params.slug, query), {
			auth: true,
			params: SlugParams,
			query: AuditQuery,
			response: z.array(AuditEventView),
			detail: {
				summary: "A team's activity, newest first (owners and admins)",
				description: 'Who pushed, rolled back or deleted its configs, and every membership change.'
			}
		})
