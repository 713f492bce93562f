import { Elysia } from 'elysia'
import { AppError } from '../lib/errors'
import type { AuthPlugin } from '../plugins/auth'
import type { EventBroker } from './broker'

/** docs/api.md "Live changes": GET /api/events, a text/event-stream of the caller's changes. */
export const eventsRoutes = (broker: EventBroker, gate: AuthPlugin) =>
	new Elysia({ tags: ['events'] }).use(gate).get(
		'/api/events',
		({ caller, request, server }) => {
			const body = broker.open(caller, request.headers.get('last-event-id'))
			if (body === 'too_many')
				throw new AppError(
					'rate_limited',
					'You have 20 event streams open here: close one (stop a cfgsync watch) first.'
				)
			// A stream stays open for as long as the client listens: Bun's idle time-out must not cut it.
			server?.timeout(request, 0)
			return new Response(body, {
				headers: {
					'content-type': 'text/event-stream; charset=utf-8',
					'cache-control': 'no-store',
					'x-accel-buffering': 'no'
				}
			})
		},
		{
			auth: true,
			detail: {
				summary: 'Live changes: a server-sent event stream of config, invitation, membership and revoked events',
				description:
					'Send Last-Event-ID to replay what a dropped stream missed (24 hours at least); an unknown or too old one gets `reset`. 20 streams per user (429 past that).'
			}
		}
	)
