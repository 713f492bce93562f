import type { Server } from 'bun'
import { AppError } from '../../lib/errors'
import { NO_STORE } from '../../lib/http'
import type { WebDeps } from '../kit'
import { createWebGate } from '../session'

// docs/web.md "Live changes": the stream behind the notice of the configs list, a config's page and a
// team's page ("Version 5 was pushed from laptop — Reload"). The same events as GET /api/events
// (docs/api.md "Live changes"), from the same broker, for the signed-in session instead of a key.

const STREAM_HEADERS = {
	'content-type': 'text/event-stream; charset=utf-8',
	'x-accel-buffering': 'no',
	...NO_STORE
}

/**
 * GET /events: what the pages' EventSource reads. Signed out it is a bare 401, as for any script's
 * request to the web application (htmx gets the same): a redirect to the sign-in page would only be
 * fetched and thrown away. EventSource gives up after a 401 or a 429 and the page stays as it is.
 */
export const eventPages = ({ sessions, events }: Pick<WebDeps, 'sessions' | 'events'>) => {
	const gate = createWebGate(sessions)
	return {
		stream: async ({ request, server }: { request: Request; server: Pick<Server<unknown>, 'timeout'> | null }) => {
			const web = await gate.caller(request)
			if (!web) return new Response(null, { status: 401, headers: NO_STORE })
			const caller = { userId: web.userId, email: web.email, username: web.username, sessionIdHash: web.sessionIdHash }
			const body = events.open(caller, request.headers.get('last-event-id'))
			if (body === 'too_many')
				throw new AppError(
					'rate_limited',
					'You have 20 event streams open here: close a page of cfgsync or a cfgsync watch first.'
				)
			// A stream stays open for as long as the page does: Bun's idle time-out must not cut it.
			server?.timeout(request, 0)
			return new Response(body, { headers: STREAM_HEADERS })
		}
	}
}
