import { Elysia } from 'elysia'
import { pathOf } from '../lib/http'
import type { Logger } from '../lib/log'

/**
 * One access-log line per request: method, route pattern, status, ms, request
 * id (STYLE §10). Never headers, query strings or bodies. The id is also sent
 * back as X-Request-Id so a user can quote it.
 */
export function requestLogPlugin(logger: Logger) {
	const started = new WeakMap<Request, { at: number; id: string }>()
	return new Elysia({ name: 'request-log' })
		.onRequest(({ request, set }) => {
			const id = crypto.randomUUID()
			started.set(request, { at: performance.now(), id })
			set.headers['x-request-id'] = id
		})
		.onAfterResponse({ as: 'global' }, ({ request, route, set }) => {
			const start = started.get(request)
			logger.info('request', {
				method: request.method,
				// Unmatched requests have no route pattern; their path (without query) is logged instead.
				route: route || undefined,
				path: route ? undefined : pathOf(request.url),
				status: typeof set.status === 'number' ? set.status : 200,
				ms: start ? Math.round((performance.now() - start.at) * 100) / 100 : undefined,
				requestId: start?.id
			})
		})
}
