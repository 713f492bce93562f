import { Elysia } from 'elysia'
import { z } from 'zod'
import type { AuthPlugin } from '../../plugins/auth'
import { AuditEventView, AuditQuery } from '../../../shared/api/audit'
import { apiPath, ROUTES } from '../../../shared/api/routes'
import { SlugParams } from '../../../shared/api/teams'
import type { AuditService } from './service'

/**
 * A page of events and, when more remain, `Link: <…>; rel="next"` (docs/performance.md): one event past the
 * page is read to know, and the next page starts before the page's last.
 */
async function page(
	path: string,
	query: AuditQuery,
	read: (query: AuditQuery) => Promise<AuditEventView[]>,
	set: { headers: Record<string, string | number> }
) {
	const events = await read({ ...query, limit: query.limit + 1 })
	if (events.length <= query.limit) return events
	const shown = events.slice(0, query.limit)
	const next = new URLSearchParams({
		limit: String(query.limit),
		before: (shown.at(-1) as AuditEventView).id,
		...(query.type ? { type: query.type } : {})
	})
	set.headers.link = `<${path}?${next}>; rel="next"`
	return shown
}

export const auditRoutes = (audit: AuditService, gate: AuthPlugin) =>
	new Elysia({ tags: ['audit'] })
		.use(gate)
		.get(ROUTES.audit, ({ caller, query, set }) => page(ROUTES.audit, query, (q) => audit.mine(caller, q), set), {
			auth: true,
			query: AuditQuery,
			response: z.array(AuditEventView),
			detail: {
				summary: 'Your activity: what you did, and what was done to your account, newest first',
				description:
					'Pages of `limit` (default 100) with `Link: <…>; rel="next"` while more remain (`before` = the last id of the previous page); filter with `type`. Kept 365 days.'
			}
		})
		.get(
			ROUTES.teamAudit,
			({ caller, params, query, set }) =>
				page(apiPath(ROUTES.teamAudit, params), query, (q) => audit.team(caller, params.slug, q), set),
			{
				auth: true,
				params: SlugParams,
				query: AuditQuery,
				response: z.array(AuditEventView),
				detail: {
					summary: "A team's activity, newest first (owners and admins)",
					description: 'Who pushed, rolled back or deleted its configs, and every membership change.'
				}
			}
		)
