import type { AuditRow, Caller, Store } from '../store/types'

/** docs/api.md "Live changes": a user may hold this many streams on one instance. */
export const STREAMS_PER_USER = 20
const FEED_PAGE = 100
const encoder = new TextEncoder()

export interface EventBrokerOptions {
	/** How often open streams get a keep-alive comment (docs/api.md: at least every 25 s). */
	keepAliveMs?: number
	/** How often the feed is read while streams are open, besides `changed()`. */
	pollMs?: number
}

interface Stream {
	caller: Caller
	/** The last feed id this stream has been given or passed over: nothing at or before it is sent again. */
	cursor: string
	controller: ReadableStreamDefaultController<Uint8Array>
	closed: boolean
}

// Events after which some key may no longer be valid: each stream's key is looked up again.
const REVOKING = new Set(['key.revoked', 'keys.revoked', 'user.removed', 'password.changed', 'user.password_reset'])
const CONFIG_EVENTS = new Set(['config.pushed', 'config.rolled_back', 'config.deleted'])

/**
 * The event streams of this process (docs/api.md "Live changes"). The audit log is the feed: every change
 * is recorded there in its own transaction with a time-ordered id, which is also the stream's cursor. One
 * reader walks the feed after its cursor whenever `changed()` is called (after a write here, or later by a
 * signal from another instance) and on a timer while streams are open, and hands each event to each stream
 * whose caller may see it now: authorisation is decided at delivery, never when the event was written.
 */
export function createEventBroker(store: Store, options: EventBrokerOptions = {}) {
	const keepAliveMs = options.keepAliveMs ?? 20_000
	const pollMs = options.pollMs ?? 1_000
	const streams = new Set<Stream>()
	let cursor: string | undefined
	// Every feed read and replay runs one after another, so a stream joining mid-read neither misses nor repeats.
	let queue: Promise<unknown> = Promise.resolve()
	let poll: ReturnType<typeof setInterval> | undefined
	let keepAlive: ReturnType<typeof setInterval> | undefined

	const serial = <T>(work: () => Promise<T>): Promise<T> => {
		const run = queue.then(work, work)
		queue = run.catch(() => undefined)
		return run
	}

	async function newest(): Promise<string> {
		const [row] = await store.audit.list({ limit: 1 })
		return row?.id ?? '00000000-0000-0000-0000-000000000000'
	}

	/** The feed after `after`, oldest first, a page at a time. */
	async function* feed(after: string): AsyncGenerator<AuditRow> {
		let from = after
		for (;;) {
			const page = (await store.audit.list({ after: from, limit: FEED_PAGE })).reverse()
			for (const row of page) yield row
			if (page.length < FEED_PAGE) return
			from = (page[page.length - 1] as AuditRow).id
		}
	}

	function send(stream: Stream, text: string): void {
		if (stream.closed) return
		try {
			stream.controller.enqueue(encoder.encode(text))
		} catch {
			drop(stream)
		}
	}

	function drop(stream: Stream): void {
		if (stream.closed) return
		stream.closed = true
		streams.delete(stream)
		try {
			stream.controller.close()
		} catch {
			// already closed by the reader going away
		}
		if (streams.size === 0) stopTimers()
	}

	function stopTimers(): void {
		if (poll) clearInterval(poll)
		if (keepAlive) clearInterval(keepAlive)
		poll = keepAlive = undefined
	}

	function startTimers(): void {
		if (poll) return
		poll = setInterval(() => void changed(), pollMs)
		keepAlive = setInterval(() => {
			for (const stream of streams) send(stream, ': keep-alive\n\n')
		}, keepAliveMs)
	}

	/** What this event means to this stream now: an SSE frame, 'revoked', or nothing. */
	async function frameFor(stream: Stream, row: AuditRow): Promise<string | 'revoked' | undefined> {
		const keyHash = stream.caller.keyHash
		if (REVOKING.has(row.type) && keyHash !== undefined && (await store.keys.findCaller(keyHash)) === undefined)
			return 'revoked'
		if (!CONFIG_EVENTS.has(row.type) || row.targetId === null) return undefined
		const userId = stream.caller.userId
		const config = row.type === 'config.deleted' ? undefined : await store.configs.findMetaById(row.targetId)
		if (row.type !== 'config.deleted' && config === undefined) return undefined
		const teamId = config ? config.teamId : row.teamId
		if (teamId === null) {
			const owner = config ? config.userId : row.actorUserId
			if (owner !== userId) return undefined
		} else if ((await store.teams.roleIn(teamId, userId)) === undefined) return undefined
		const slash = (row.targetName ?? '').indexOf('/')
		const data = {
			id: row.targetId,
			name: config?.name ?? (row.targetName ?? '').slice(slash + 1),
			tool: config?.tool ?? (row.targetName ?? '').slice(0, Math.max(slash, 0)),
			teamId,
			version: typeof row.details.version === 'number' ? row.details.version : (config?.version ?? null),
			hash: config?.hash ?? null,
			deleted: row.type === 'config.deleted',
			by: { username: row.actorUsername, device: row.actorDevice }
		}
		return `id: ${row.id}\nevent: config\ndata: ${JSON.stringify(data)}\n\n`
	}

	async function deliver(stream: Stream, row: AuditRow): Promise<void> {
		if (stream.closed || row.id <= stream.cursor) return
		stream.cursor = row.id
		const frame = await frameFor(stream, row)
		if (frame === 'revoked') {
			send(stream, `id: ${row.id}\nevent: revoked\ndata: {}\n\n`)
			drop(stream)
		} else if (frame !== undefined) send(stream, frame)
	}

	/** Something may have been written: hand every event after the cursor to the open streams. */
	function changed(): Promise<void> {
		if (streams.size === 0) return Promise.resolve()
		return serial(async () => {
			cursor ??= await newest()
			for await (const row of feed(cursor)) {
				for (const stream of [...streams]) await deliver(stream, row)
				cursor = row.id
			}
		})
	}

	return {
		/** How many streams are open (the cfgsync_event_streams gauge). */
		get size() {
			return streams.size
		},
		changed,
		/**
		 * A stream for this caller, replaying what came after `lastEventId` (docs/api.md), or 'too_many' past
		 * STREAMS_PER_USER.
		 */
		open(caller: Caller, lastEventId: string | null): ReadableStream<Uint8Array> | 'too_many' {
			let count = 0
			for (const stream of streams) if (stream.caller.userId === caller.userId) count++
			if (count >= STREAMS_PER_USER) return 'too_many'
			let stream: Stream | undefined
			return new ReadableStream<Uint8Array>({
				start: (controller) => {
					const opened: Stream = { caller, cursor: '', controller, closed: false }
					stream = opened
					// Counted at once, so the 21st stream opened in the same moment is refused too.
					streams.add(opened)
					startTimers()
					send(opened, ': connected\n\n')
					void serial(async () => {
						cursor ??= await newest()
						const known = lastEventId !== null && (await store.audit.has(lastEventId))
						if (lastEventId !== null && !known) send(opened, 'event: reset\ndata: {}\n\n')
						if (!known) {
							// Live from now on: what was written before the stream opened is not news to it.
							opened.cursor = await newest()
							return
						}
						opened.cursor = lastEventId as string
						// Up to the end of the feed; the broker's next read skips what this one gave.
						for await (const row of feed(lastEventId as string)) await deliver(opened, row)
					}).catch(() => drop(opened))
				},
				cancel: () => {
					if (stream) drop(stream)
				}
			})
		},
		/** Ends every stream (shutdown). */
		close(): void {
			for (const stream of [...streams]) drop(stream)
			stopTimers()
		}
	}
}

export type EventBroker = ReturnType<typeof createEventBroker>
