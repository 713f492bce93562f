import { afterEach, describe, expect, test } from 'bun:test'
import { type ListenEnd, type ListenOptions, listen } from '../../src/client/live'
import type { ServerEvent } from '../../src/client/sse'

/**
 * docs/client.md "cfgsync watch": the client end of the live stream against
 * small stand-in servers — it reconnects with Last-Event-ID, says once that
 * it lost the stream, drops a stream that sends too much or nothing at all,
 * and ends for good only on revoked, 401 and a server without the stream.
 */

const encoder = new TextEncoder()
let stops: (() => void)[] = []
afterEach(() => {
	for (const stop of stops) stop()
	stops = []
})

/** A stand-in server: `answer` gets each GET /api/events (its number from 0) and the Last-Event-ID sent. */
function standIn(answer: (n: number, lastEventId: string | null) => Response) {
	let n = 0
	const seen: (string | null)[] = []
	const server = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		idleTimeout: 0,
		fetch: (request) => {
			seen.push(request.headers.get('last-event-id'))
			return answer(n++, request.headers.get('last-event-id'))
		}
	})
	stops.push(() => server.stop(true))
	return { base: `http://127.0.0.1:${server.port}`, seen }
}

/** An event stream that writes `text` and then stays open (or closes with `close`). */
function stream(text: string, close = false): Response {
	return new Response(
		new ReadableStream<Uint8Array>({
			start: (controller) => {
				controller.enqueue(encoder.encode(text))
				if (close) controller.close()
			}
		}),
		{ headers: { 'content-type': 'text/event-stream' } }
	)
}

async function run(base: string, more: Partial<ListenOptions> & { until?: (events: ServerEvent[]) => boolean } = {}) {
	const events: ServerEvent[] = []
	const lost: string[] = []
	const opened: boolean[] = []
	const stop = new AbortController()
	const ending: Promise<ListenEnd> = listen({
		base,
		key: 'cs_test',
		connectTimeoutMs: 2000,
		firstDelayMs: 20,
		maxDelayMs: 80,
		unreachable: () => 'unreachable',
		signal: stop.signal,
		onOpen: (replaying) => opened.push(replaying),
		onEvent: (event) => {
			events.push(event)
			if (more.until?.(events)) stop.abort()
		},
		onLost: (why) => lost.push(why),
		...more
	})
	const timer = setTimeout(() => stop.abort(), 5000)
	const end = await ending
	clearTimeout(timer)
	return { end, events, lost, opened }
}

const config = (id: string) => `id: ${id}\nevent: config\ndata: {"id":"c"}\n\n`

describe('the live stream client', () => {
	test('reconnects after the stream ends, sending the last id; a quick reconnect is no news', async () => {
		const server = standIn((n) => (n < 2 ? stream(`: connected\n\n${config(`00${n}`)}`, true) : stream(config('009'))))
		const { end, events, lost, opened } = await run(server.base, { until: (e) => e.length === 3 })
		expect(end).toEqual({ kind: 'stopped' })
		expect(events.map((e) => e.id)).toEqual(['000', '001', '009'])
		expect(server.seen).toEqual([null, '000', '001'])
		expect(opened).toEqual([false, true, true])
		expect(lost).toEqual([])
	})

	test('says once that it lost the stream while the server refuses, then opens it again', async () => {
		const server = standIn((n, last) => {
			if (n === 0) return stream(config('001'), true)
			if (n < 5) return new Response('down', { status: 503 })
			return stream(`${last === '001' ? config('002') : ''}`)
		})
		const { events, lost, opened } = await run(server.base, { until: (e) => e.length === 2 })
		expect(lost).toEqual([expect.stringContaining('HTTP 503')])
		expect(events.map((e) => e.id)).toEqual(['001', '002'])
		expect(opened).toEqual([false, true])
	})

	test('a reset drops the cursor: the next connection sends none', async () => {
		const server = standIn((n) =>
			n === 0 ? stream(`${config('001')}event: reset\ndata: {}\n\n`, true) : stream(config('050'))
		)
		const { events } = await run(server.base, { until: (e) => e.length === 3 })
		expect(events.map((e) => e.event)).toEqual(['config', 'reset', 'config'])
		expect(server.seen).toEqual([null, null])
	})

	test('a line or event larger than the bound closes the stream, says so, and reconnects', async () => {
		const server = standIn((n) => (n === 0 ? stream(`data: ${'x'.repeat(5000)}`) : stream(config('002'))))
		const { events, lost } = await run(server.base, { maxEventChars: 1024, until: (e) => e.length === 1 })
		expect(lost).toEqual([expect.stringContaining('than 1 KiB on the live stream')])
		expect(events.map((e) => e.id)).toEqual(['002'])
	})

	test('a stream silent for the idle time is taken for dead and opened again', async () => {
		const server = standIn((n) => (n === 0 ? stream(config('001')) : stream(config('002'))))
		const started = Date.now()
		const { events } = await run(server.base, { idleMs: 300, until: (e) => e.length === 2 })
		expect(events.map((e) => e.id)).toEqual(['001', '002'])
		expect(Date.now() - started).toBeGreaterThanOrEqual(300)
	})

	test('the request time-out bounds connecting only: a stream with keep-alives stays open past it', async () => {
		const server = standIn(
			() =>
				new Response(
					new ReadableStream<Uint8Array>({
						start: async (controller) => {
							controller.enqueue(encoder.encode(config('001')))
							for (let i = 0; i < 7; i++) {
								await Bun.sleep(100)
								controller.enqueue(encoder.encode(': keep-alive\n\n'))
							}
							controller.enqueue(encoder.encode(config('002')))
						}
					}),
					{ headers: { 'content-type': 'text/event-stream' } }
				)
		)
		const { events } = await run(server.base, { connectTimeoutMs: 200, idleMs: 300, until: (e) => e.length === 2 })
		expect(events.map((e) => e.id)).toEqual(['001', '002'])
		expect(server.seen).toEqual([null])
	})

	test('ends for good on revoked, 401, 404, 429 and an answer that is not an event stream', async () => {
		const revoked = standIn(() => stream(`${config('001')}event: revoked\ndata: {}\n\n${config('002')}`))
		const r = await run(revoked.base)
		expect(r.end).toEqual({ kind: 'revoked' })
		expect(r.events.map((e) => e.id)).toEqual(['001'])
		for (const [status, kind] of [
			[401, 'unauthorized'],
			[404, 'unsupported'],
			[429, 'unsupported']
		] as const) {
			const server = standIn(() => Response.json({ error: 'no', code: 'x' }, { status }))
			expect((await run(server.base)).end.kind).toBe(kind)
		}
		const html = standIn(() => new Response('<html>', { headers: { 'content-type': 'text/html' } }))
		expect((await run(html.base)).end.kind).toBe('unsupported')
	})
})
