import { eventStreamResponse } from '../../events'
import { NO_STORE } from '../../lib/http'
import type { WebDeps } from '../kit'
import { createWebGate } from '../session'

// docs/web.md "Live changes": the stream behind the notice of the configs list, a config's page and a
// team's page ("Version 5 was pushed from laptop — Reload"). The same events as GET /api/events
// (docs/api.md "Live changes"), from the same broker, for the signed-in session instead of a key.

/**
 * GET /events: what the pages' EventSource reads. Signed out it is a bare 401, as for any script's
 * request to the web application (htmx gets the same): a redirect to the sign-in page would only be
 * fetched and thrown away. EventSource gives up after a 401 or a 429 and the page stays as it is.
 */
export const eventPages = ({
	sessions,
	events,
	streamClosed
}: Pick<WebDeps, 'sessions' | 'events' | 'streamClosed'>) => {
	const gate = createWebGate(sessions)
	return {
		stream: async ({
			request,
			server
		}: {
			request: Request
			server: { timeout(request: Request, seconds: number): void } | null
		}) => {
			const web = await gate.caller(request)
			if (!web) return new Response(null, { status: 401, headers: NO_STORE })
			const caller = { userId: web.userId, email: web.email, username: web.username, sessionIdHash: web.sessionIdHash }
			// ?after=: the cursor the page was made at (layout.tsx LiveNotice); a reconnect's Last-Event-ID wins.
			const after = new URL(request.url).searchParams.get('after')
			return eventStreamResponse(events, caller, request, server, () => streamClosed(request, '/events'), after)
		}
	}
}
