import { ROUTES } from '../shared/api/routes'
import { createSseParser, MAX_EVENT_CHARS, type ServerEvent, StreamTooLarge } from './sse'

/**
 * The client end of GET /api/events (docs/client.md "cfgsync watch"): one
 * stream kept open, reconnected with Last-Event-ID after a drop, with backoff
 * (1 s doubling to 30 s, with jitter). Unlike every other request it has no
 * total time-out: only connecting and the answer's headers are bounded (by
 * CFGSYNC_TIMEOUT), and a stream that sends nothing at all, not even the
 * server's keep-alive comment (every 20 s), for a minute is taken for dead.
 */

/** How a listen ends; every other outcome is retried. */
export type ListenEnd =
	/** No live changes there: a 404 (an older server), 429 (too many streams) or not an event stream. */
	| { kind: 'unsupported'; why: string }
	/** The key was refused (401) or revoked while the stream was open (`event: revoked`). */
	| { kind: 'unauthorized' | 'revoked' }
	| { kind: 'stopped' }

export interface ListenOptions {
	base: string
	key: string
	/** How long connecting and the answer's headers may take (CFGSYNC_TIMEOUT). */
	connectTimeoutMs: number
	/** No bytes for this long: the stream is dead (default 60 s). */
	idleMs?: number
	/** The first delay before a retry, doubling to maxDelayMs (defaults 1 s and 30 s). */
	firstDelayMs?: number
	maxDelayMs?: number
	maxEventChars?: number
	/** Why a connection failed, for a person. */
	unreachable: (error: unknown) => string
	signal: AbortSignal
	/** The stream is open; `replaying` when it was asked to replay what it missed (Last-Event-ID). */
	onOpen: (replaying: boolean) => void
	/** A `config`, `reset`, `invitation`, … event (unknown names included: the caller ignores them). */
	onEvent: (event: ServerEvent) => void
	/** The stream could not be opened again: said once per outage, with why; onOpen follows when it is back. */
	onLost: (why: string) => void
}

type Attempt =
	| ListenEnd
	/** It was open, then ended (closed, broke, went silent, or sent too much): `hostile` for the last. */
	| { kind: 'ended'; lived: number; why: string; hostile: boolean }
	| { kind: 'failed'; why: string }

/** A stream that stayed open this long was healthy: the next retry starts from the first delay again. */
const HEALTHY_MS = 30_000

export async function listen(options: ListenOptions): Promise<ListenEnd> {
	const first = options.firstDelayMs ?? 1000
	const max = options.maxDelayMs ?? 30_000
	let delay = first
	let lastId: string | undefined
	let lost = false
	const wait = (ms: number) =>
		new Promise<void>((resolve) => {
			const timer = setTimeout(done, ms)
			function done() {
				clearTimeout(timer)
				options.signal.removeEventListener('abort', done)
				resolve()
			}
			options.signal.addEventListener('abort', done)
		})
	for (;;) {
		if (options.signal.aborted) return { kind: 'stopped' }
		const attempt = await once(options, lastId, {
			opened: () => {
				lost = false
				options.onOpen(lastId !== undefined)
			},
			event: (event) => {
				// A reset means the cursor is unknown there: do not send it again.
				if (event.event === 'reset') lastId = undefined
				else if (event.id !== undefined) lastId = event.id
				options.onEvent(event)
			}
		})
		if (attempt.kind !== 'ended' && attempt.kind !== 'failed') return attempt
		if (attempt.kind === 'ended' && attempt.lived >= HEALTHY_MS) delay = first
		// A stream that merely ended is tried again at once (a restarted proxy, a deploy): only a failure to
		// open it again, or a hostile answer, is news.
		if ((attempt.kind === 'failed' || attempt.hostile) && !lost) {
			lost = true
			options.onLost(attempt.why)
		}
		await wait(delay / 2 + (Math.random() * delay) / 2)
		delay = Math.min(delay * 2, max)
	}
}

async function once(
	options: ListenOptions,
	lastId: string | undefined,
	on: { opened: () => void; event: (event: ServerEvent) => void }
): Promise<Attempt> {
	const controller = new AbortController()
	const stop = () => controller.abort()
	options.signal.addEventListener('abort', stop)
	let why: string | undefined
	let timer = setTimeout(() => {
		why = `${options.base} did not answer within ${Math.round(options.connectTimeoutMs / 100) / 10} s`
		controller.abort()
	}, options.connectTimeoutMs)
	try {
		const headers: Record<string, string> = {
			accept: 'text/event-stream',
			authorization: `Bearer ${options.key}`,
			'cache-control': 'no-store'
		}
		if (lastId !== undefined) headers['last-event-id'] = lastId
		let response: Response
		try {
			response = await fetch(`${options.base}${ROUTES.events}`, {
				headers,
				redirect: 'error',
				signal: controller.signal
			})
		} catch (error) {
			if (options.signal.aborted) return { kind: 'stopped' }
			return {
				kind: 'failed',
				why: why ?? options.unreachable(error)
			}
		}
		clearTimeout(timer)
		const unsupported = (text: string): Attempt => {
			controller.abort()
			return { kind: 'unsupported', why: text }
		}
		if (response.status === 401) {
			controller.abort()
			return { kind: 'unauthorized' }
		}
		if (response.status === 404) return unsupported(`${options.base} has no live changes (GET ${ROUTES.events}: 404)`)
		if (response.status === 429)
			return unsupported(`${options.base} refused another live stream: too many are open for you (429)`)
		if (response.status !== 200) {
			controller.abort()
			return { kind: 'failed', why: `${options.base} answered the live stream with HTTP ${response.status}` }
		}
		if (!/^text\/event-stream\b/i.test(response.headers.get('content-type') ?? '') || !response.body)
			return unsupported(`${options.base} did not answer GET ${ROUTES.events} with an event stream`)

		const idleMs = options.idleMs ?? 60_000
		const openedAt = Date.now()
		const ended = (text: string, hostile = false): Attempt => {
			controller.abort()
			return { kind: 'ended', lived: Date.now() - openedAt, why: text, hostile }
		}
		const idle = () => {
			clearTimeout(timer)
			timer = setTimeout(() => {
				why = `${options.base} sent nothing on the live stream for ${idleMs / 1000} s`
				controller.abort()
			}, idleMs)
		}
		idle()
		on.opened()
		let end: Attempt | undefined
		const parser = createSseParser((event) => {
			if (end) return
			if (event.event === 'revoked') end = { kind: 'revoked' }
			else on.event(event)
		}, options.maxEventChars ?? MAX_EVENT_CHARS)
		const reader = response.body.getReader()
		const decoder = new TextDecoder()
		for (;;) {
			let chunk: Awaited<ReturnType<typeof reader.read>>
			try {
				chunk = await reader.read()
			} catch {
				if (options.signal.aborted) return { kind: 'stopped' }
				return ended(why ?? `the live connection to ${options.base} broke`)
			}
			if (chunk.done) return ended(`${options.base} closed the live stream`)
			idle()
			try {
				parser.push(decoder.decode(chunk.value, { stream: true }))
			} catch (error) {
				if (!(error instanceof StreamTooLarge)) throw error
				return ended(`${options.base} sent ${error.message} on the live stream; it was dropped`, true)
			}
			if (end) {
				controller.abort()
				return end
			}
		}
	} finally {
		clearTimeout(timer)
		options.signal.removeEventListener('abort', stop)
	}
}
