import { Elysia } from 'elysia'
import { AppError } from '../lib/errors'
import type { AuthPlugin } from '../plugins/auth'
import type { Caller } from '../store/types'
import type { EventBroker } from './broker'
import { ROUTES } from '../../shared/api/routes'

/** Called once when a stream ends, for its access-log line (plugins/request-log.ts `streamClosed`). */
export type StreamClosed = (request: Request, route: string) => void

/**
 * An open stream for this caller as a response (docs/api.md "Live changes"), shared by GET /api/events and the
 * web application's stream; a caller past the per-user limit gets 429.
 */
export async function eventStreamResponse(
	broker: EventBroker,
	caller: Caller,
	request: Request,
	server: { timeout(request: Request, seconds: number): void } | null,
	onClose: () => void,
	/** Where to start when the client sends no Last-Event-ID (the web page's cursor from when it was made). */
	from: string | null = null
): Promise<Response> {
	const body = await broker.open(caller, request.headers.get('last-event-id') ?? from, onClose)
	if (body === 'too_many')
		throw new AppError('rate_limited', 'You have 20 event streams open here: close one (stop a cfgsync watch) first.')
	// A stream stays open for as long as the client listens: Bun's idle time-out must not cut it.
	server?.timeout(request, 0)
	return new Response(body, {
		headers: {
			'content-type': 'text/event-stream; charset=utf-8',
			'cache-control': 'no-store',
			'x-accel-buffering': 'no'
		}
	})
}

/** docs/api.md "Live changes": GET /api/events, a text/event-stream of the caller's changes. */
export const eventsRoutes = (broker: EventBroker, gate: AuthPlugin, closed: StreamClosed = () => {}) =>
	new Elysia({ tags: ['events'] })
		.use(gate)
		.get(
			ROUTES.events,
			({ caller, request, server }) =>
				eventStreamResponse(broker, caller, request, server, () => closed(request, ROUTES.events)),
			{
				auth: true,
				detail: {
					summary: 'Live changes: a server-sent event stream of config, invitation, membership and revoked events',
					description:
						'Send Last-Event-ID to replay what a dropped stream missed (24 hours at least); an unknown or too old one gets `reset`. 20 streams per user (429 past that).'
				}
			}
		)
