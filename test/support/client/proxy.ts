import type { Server } from '../harness'

export interface Recorded {
	at: number
	method: string
	path: string
	/** The request's If-None-Match and Last-Event-ID, if any. */
	ifNoneMatch: string | null
	lastEventId: string | null
}

/**
 * A recording proxy in front of a server, for the client's end-to-end tests:
 * it forwards every request (streams included, never timing out an idle one)
 * and records what the client asked, so a test can count requests; with
 * `noEvents` it answers 404 to GET /api/events, as a server without live
 * changes does. A `Server`-shaped handle, so machine() can talk through it.
 */
export function recordingProxy(upstream: Server, options: { noEvents?: boolean } = {}) {
	const requests: Recorded[] = []
	const proxy = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		idleTimeout: 0,
		async fetch(request) {
			const url = new URL(request.url)
			requests.push({
				at: Date.now(),
				method: request.method,
				path: url.pathname,
				ifNoneMatch: request.headers.get('if-none-match'),
				lastEventId: request.headers.get('last-event-id')
			})
			if (options.noEvents && url.pathname === '/api/events')
				return Response.json({ error: 'Not found.', code: 'not_found' }, { status: 404 })
			const headers = new Headers(request.headers)
			headers.delete('host')
			const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer()
			const answer = await fetch(`${upstream.url}${url.pathname}${url.search}`, {
				method: request.method,
				headers,
				body,
				redirect: 'manual',
				decompress: false,
				signal: request.signal
			})
			const out = new Headers(answer.headers)
			out.delete('content-length')
			out.delete('transfer-encoding')
			return new Response(answer.body, { status: answer.status, headers: out })
		}
	})
	const url = `http://127.0.0.1:${proxy.port}`
	return {
		requests,
		/** The proxy as a server a machine can be pointed at. */
		server: { ...upstream, url } as Server,
		stop: () => proxy.stop(true)
	}
}
