import { SESSION_IDLE_MS } from '../../shared/constants'
import type { AuditType } from '../../shared/api/audit-types'
import type { AuditRow, Caller, FeedRow, Store } from '../store/types'
import { watchFeed } from '../store/change-signal'

/** docs/api.md "Live changes": a user may hold this many streams on one instance. */
export const STREAMS_PER_USER = 20
/** A cursor older than this gets `reset` rather than a replay (docs/api.md: at least 24 hours are replayed). */
export const REPLAY_MAX_MS = 7 * 24 * 3_600_000
/** Unread bytes a stream may pile up before it is closed as too slow (its client reconnects with Last-Event-ID). */
const UNREAD_MAX = 1024 * 1024
/**
 * docs/api.md "Live changes": the most feed events a replay reads. A cursor further back than this gets
 * `reset`: the client re-reads its configs, which costs less than reading a week of everybody's events.
 */
export const REPLAY_MAX_EVENTS = 1_000
/** How many events a replay hands on before it lets the event loop answer others (requests, live events). */
const REPLAY_SLICE = 10
const FEED_PAGE = 200
const CURSOR = /^[0-9]{1,15}$/
const encoder = new TextEncoder()

export interface EventBrokerOptions {
	/** How often open streams get a keep-alive comment (docs/api.md: at least every 25 s). */
	keepAliveMs?: number
	/** How often the feed is read while streams are open, in case a signal was lost (besides `changed()` and the signals). */
	pollMs?: number
	/** The current time (tests move it). */
	now?: () => number
}

interface Stream {
	caller: Caller
	/** The last feed number this stream has been given or passed over: nothing at or before it is sent again. */
	cursor: number
	controller: ReadableStreamDefaultController<Uint8Array>
	closed: boolean
	/** Replaying what it missed, outside the live queue: live reads pass it over until the replay hands it back. */
	replaying: boolean
	/**
	 * When its credential must be looked at again, on the broker's clock: a web session's idle or absolute
	 * expiry (a key has none: it ends by an event).
	 */
	checkAt: number
	checking: boolean
	onClose?: () => void
}

// Events after which a key or a session may no longer be valid: each stream's is looked up again.
const REVOKING: ReadonlySet<AuditType> = new Set<AuditType>([
	'key.revoked',
	'keys.revoked',
	'user.removed',
	'password.changed',
	'user.password_reset',
	'session.ended',
	// A new key for a device replaces (revokes) its previous one: a login, or the admin's `key issue`.
	'login.succeeded',
	'key.issued'
])
/** Revoking events that concern only the user they name: other users' streams are no lookup (logins are frequent). */
const REPLACING: ReadonlySet<AuditType> = new Set<AuditType>(['login.succeeded', 'key.issued'])
/** How often streams whose credential has a deadline (a web session's idle or absolute expiry) are looked at. */
const EXPIRY_CHECK_MS = 250
const CONFIG_EVENTS: ReadonlySet<AuditType> = new Set<AuditType>([
	'config.pushed',
	'config.rolled_back',
	'config.deleted'
])
const MEMBERSHIP_EVENTS: ReadonlySet<AuditType> = new Set<AuditType>([
	'invitation.accepted',
	'member.removed',
	'member.left'
])

const frame = (seq: number, event: string, data: unknown) =>
	`id: ${seq}\nevent: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/**
 * The lookups one feed row needs, made once for every stream it is offered to: with 1,000 streams open, a
 * push costs one config lookup and one role lookup per member, not a thousand of each.
 */
function rowLookups(
	store: Store,
	row: AuditRow,
	now: () => number,
	/** Shared by every row of one replay, which answers "who may read this now" once per config and team. */
	memo = new Map<string, Promise<unknown>>()
) {
	const once = <T>(key: string, load: () => Promise<T>): Promise<T> => {
		let value = memo.get(key) as Promise<T> | undefined
		if (value === undefined) {
			value = load()
			memo.set(key, value)
		}
		return value
	}
	const nowIso = () => new Date(now()).toISOString()
	return {
		config: () => once(`config:${row.targetId}`, () => store.configs.findMetaById(row.targetId as string)),
		team: () => once(`team:${row.teamId}`, () => store.teams.findById(row.teamId as string)),
		/** Everyone with a membership row in the event's team, a deleted team included. */
		members: () =>
			once(
				`members:${row.teamId}`,
				async () => new Set((await store.teams.members(row.teamId as string)).map((m) => m.userId))
			),
		role: (teamId: string, userId: string) =>
			once(`role:${teamId}:${userId}`, () => store.teams.roleIn(teamId, userId)),
		invitation: (userId: string) =>
			once(`invitation:${row.id}:${userId}`, () => store.teams.findInvitation(row.teamId as string, userId, nowIso())),
		/** Whether the key or web session a stream was opened with still lets it in. */
		valid: (caller: Caller) =>
			once(`valid:${caller.keyHash ?? ''}:${caller.sessionIdHash ?? ''}`, async () => {
				if (caller.keyHash !== undefined) return (await store.keys.findCaller(caller.keyHash)) !== undefined
				if (caller.sessionIdHash !== undefined)
					return (await sessionDeadline(store, caller.sessionIdHash, now)) !== undefined
				return true
			})
	}
}

type Lookups = ReturnType<typeof rowLookups>

/**
 * When this web session ends unless it is used meanwhile (the earlier of its idle and its absolute expiry), or
 * undefined when it has already ended (signed out, expired, its user removed).
 */
async function sessionDeadline(store: Store, idHash: string, now: () => number): Promise<number | undefined> {
	const at = now()
	const found = await store.sessions.find(
		idHash,
		new Date(at).toISOString(),
		new Date(at - SESSION_IDLE_MS).toISOString()
	)
	if (found === undefined) return undefined
	return Math.min(Date.parse(found.session.expiresAt), Date.parse(found.session.lastSeenAt) + SESSION_IDLE_MS)
}

/**
 * The event streams of this process (docs/api.md "Live changes"). The audit log is the feed: every change is
 * recorded there in its own transaction and numbered in commit order, and that number is the stream's cursor.
 * The feed is read after the streams' cursors whenever `changed()` is called (after a write here), when another
 * process signals a commit (store/change-signal.ts), and on a timer while streams are open; each event goes to each
 * stream whose caller may see it now: authorisation is decided at delivery, never when the event was written.
 */
export function createEventBroker(store: Store, options: EventBrokerOptions = {}) {
	const keepAliveMs = options.keepAliveMs ?? 20_000
	const pollMs = options.pollMs ?? 5_000
	const now = options.now ?? Date.now
	const streams = new Set<Stream>()
	// Every feed read and replay runs one after another, so a stream joining mid-read neither misses nor repeats.
	let queue: Promise<unknown> = Promise.resolve()
	let reading = false
	let again = false
	let poll: ReturnType<typeof setInterval> | undefined
	let keepAlive: ReturnType<typeof setInterval> | undefined
	let expiry: ReturnType<typeof setInterval> | undefined
	let stopSignals: (() => void) | undefined

	const serial = <T>(work: () => Promise<T>): Promise<T> => {
		const run = queue.then(work, work)
		queue = run.catch(() => undefined)
		return run
	}

	/** The feed after `after`, oldest first, a page at a time. */
	async function* feed(after: number): AsyncGenerator<FeedRow> {
		let from = after
		for (;;) {
			const page = await store.audit.feed(from, FEED_PAGE)
			for (const row of page) yield row
			if (page.length < FEED_PAGE) return
			from = (page[page.length - 1] as FeedRow).seq
		}
	}

	function send(stream: Stream, text: string): void {
		if (stream.closed) return
		try {
			stream.controller.enqueue(encoder.encode(text))
			// A client that stopped reading is not buffered for without end (PocketBase drops the slow too).
			if ((stream.controller.desiredSize ?? 0) < -UNREAD_MAX) drop(stream)
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
		stream.onClose?.()
		if (streams.size === 0) stopTimers()
	}

	function stopTimers(): void {
		if (poll) clearInterval(poll)
		if (keepAlive) clearInterval(keepAlive)
		if (expiry) clearInterval(expiry)
		stopSignals?.()
		poll = keepAlive = expiry = stopSignals = undefined
	}

	function startTimers(): void {
		if (poll) return
		poll = setInterval(() => void changed(), pollMs)
		keepAlive = setInterval(() => {
			for (const stream of streams) send(stream, ': keep-alive\n\n')
		}, keepAliveMs)
		stopSignals = watchFeed(store.changeSignal, () => void changed())
		expiry = setInterval(checkExpiries, EXPIRY_CHECK_MS)
	}

	/** Ends the stream as its credential did: `revoked`, with the stream's cursor as its id, then closed. */
	function revoke(stream: Stream): void {
		send(stream, frame(stream.cursor, 'revoked', {}))
		drop(stream)
	}

	/**
	 * docs/api.md "Live changes": a stream ends within a second when its credential ends with no event to tell
	 * (a web session's idle or absolute expiry). Only streams past their deadline are looked up, each once.
	 */
	function checkExpiries(): void {
		const at = now()
		for (const stream of streams) {
			const due = stream.checkAt <= at && Number.isFinite(stream.cursor) && !stream.checking
			if (!due || stream.caller.sessionIdHash === undefined) continue
			stream.checking = true
			sessionDeadline(store, stream.caller.sessionIdHash, now)
				.then((deadline) => {
					if (deadline === undefined) revoke(stream)
					else stream.checkAt = deadline
				})
				.catch(() => {
					// The database did not answer: looked at again on the next round.
				})
				.finally(() => {
					stream.checking = false
				})
		}
	}

	/** What this event means to this stream now: an SSE frame, 'revoked', or nothing. */
	async function frameFor(stream: Stream, row: FeedRow, lookups: Lookups): Promise<string | 'revoked' | undefined> {
		const { caller } = stream
		const userId = caller.userId
		if (REVOKING.has(row.type)) {
			if (REPLACING.has(row.type) && row.actorUserId !== userId && row.subjectUserId !== userId) return undefined
			return (await lookups.valid(caller)) ? undefined : 'revoked'
		}
		if (CONFIG_EVENTS.has(row.type) && row.targetId !== null) return configFrame(row, userId, lookups)
		if (row.type === 'invitation.sent' && row.subjectUserId === userId && row.teamId !== null) {
			// Only while it is still open: a cancelled or answered invitation is not news.
			const invitation = await lookups.invitation(userId)
			return invitation
				? frame(row.seq, 'invitation', {
						teamSlug: invitation.teamSlug,
						teamName: invitation.teamName,
						role: invitation.role
					})
				: undefined
		}
		if ((row.type === 'team.deleted' || row.type === 'team.restored') && row.teamId !== null) {
			// A deleted team's members are removed from it, all at once; a restored one's are back in it.
			if (!(await lookups.members()).has(userId)) return undefined
			const team = await lookups.team()
			return team
				? frame(row.seq, 'membership', { teamSlug: team.slug, removed: row.type === 'team.deleted' })
				: undefined
		}
		if (MEMBERSHIP_EVENTS.has(row.type) && row.teamId !== null) {
			const who = row.type === 'invitation.accepted' ? row.actorUserId : row.subjectUserId
			if (who !== userId) return undefined
			const team = await lookups.team()
			return team
				? frame(row.seq, 'membership', { teamSlug: team.slug, removed: row.type !== 'invitation.accepted' })
				: undefined
		}
		return undefined
	}

	async function configFrame(row: FeedRow, userId: string, lookups: Lookups): Promise<string | undefined> {
		// A personal config is pushed, rolled back and deleted by its owner alone: another user's is no lookup.
		if (row.teamId === null && row.actorUserId !== null && row.actorUserId !== userId) return undefined
		const deleted = row.type === 'config.deleted'
		const config = deleted ? undefined : await lookups.config()
		if (!deleted && config === undefined) return undefined
		const teamId = config ? config.teamId : row.teamId
		if (teamId === null) {
			const owner = config ? config.userId : row.actorUserId
			if (owner !== userId) return undefined
		} else if ((await lookups.role(teamId, userId)) === undefined) return undefined
		const slash = (row.targetName ?? '').indexOf('/')
		return frame(row.seq, 'config', {
			id: row.targetId,
			name: config?.name ?? (row.targetName ?? '').slice(slash + 1),
			tool: config?.tool ?? (row.targetName ?? '').slice(0, Math.max(slash, 0)),
			teamId,
			version: typeof row.details.version === 'number' ? row.details.version : (config?.version ?? null),
			hash: config?.hash ?? null,
			deleted,
			by: { username: row.actorUsername, device: row.actorDevice }
		})
	}

	async function deliver(stream: Stream, row: FeedRow, lookups: Lookups): Promise<void> {
		if (stream.closed || row.seq <= stream.cursor) return
		stream.cursor = row.seq
		const text = await frameFor(stream, row, lookups)
		if (text === 'revoked') revoke(stream)
		else if (text !== undefined) send(stream, text)
	}

	async function readFeed(): Promise<void> {
		if (streams.size === 0) return
		let from = Number.POSITIVE_INFINITY
		for (const stream of streams) if (!stream.replaying) from = Math.min(from, stream.cursor)
		if (from === Number.POSITIVE_INFINITY) return
		for await (const row of feed(from)) {
			const lookups = rowLookups(store, row, now)
			for (const stream of [...streams]) if (!stream.replaying) await deliver(stream, row, lookups)
			if (streams.size === 0) return
		}
	}

	/**
	 * Something may have been written: hand every event after the streams' cursors to them. Calls that come
	 * while a read runs are folded into one more read after it.
	 */
	function changed(): Promise<void> {
		if (streams.size === 0) return Promise.resolve()
		if (reading) {
			again = true
			return queue.then(() => undefined)
		}
		reading = true
		return serial(async () => {
			try {
				do {
					again = false
					await readFeed()
				} while (again)
			} finally {
				reading = false
			}
		})
	}

	/**
	 * Where a stream with this Last-Event-ID starts: its number, or undefined (never issued, pruned, too old, or
	 * more than REPLAY_MAX_EVENTS back). The end of the feed is always a good start, however old its last event:
	 * nothing came after it, so nothing was missed (the id a `reset` carries).
	 */
	async function resumeFrom(lastEventId: string | null, end: number): Promise<number | undefined> {
		if (lastEventId === null || !CURSOR.test(lastEventId)) return undefined
		const seq = Number(lastEventId)
		if (seq === end) return seq
		// Feed numbers may skip (a rolled-back write on PostgreSQL): counting by them never reads more than the bound.
		if (seq > end || end - seq > REPLAY_MAX_EVENTS) return undefined
		const at = await store.audit.feedAt(seq)
		if (at === undefined || now() - Date.parse(at) > REPLAY_MAX_MS) return undefined
		return seq
	}

	/** Lets the event loop answer everything else that waits (requests, live events) before going on. */
	const yieldToOthers = () => new Promise<void>((resolve) => setImmediate(resolve))

	/**
	 * docs/api.md "Live changes": what the stream missed, up to `end` (the feed's end when it opened, at most
	 * REPLAY_MAX_EVENTS on), read outside the live queue a page at a time and yielding every few events, so a
	 * replay holds up no other stream and no request. Then, inside the queue (where no live read runs), the
	 * stream is handed to the live reads, which go on from its cursor: nothing is skipped or sent twice.
	 */
	async function replay(stream: Stream, end: number): Promise<void> {
		const memo = new Map<string, Promise<unknown>>()
		let handed = 0
		for (let from = stream.cursor; from < end && !stream.closed; ) {
			const page = await store.audit.feed(from, Math.min(FEED_PAGE, REPLAY_MAX_EVENTS))
			if (page.length === 0) break
			for (const row of page) {
				if (row.seq > end || stream.closed) break
				await deliver(stream, row, rowLookups(store, row, now, memo))
				if (++handed % REPLAY_SLICE === 0) await yieldToOthers()
			}
			from = (page[page.length - 1] as FeedRow).seq
			await yieldToOthers()
		}
		await serial(async () => {
			stream.replaying = false
		})
		// What came after `end` while it replayed: the next live read gives it.
		void changed()
	}

	return {
		/** How many streams are open (the cfgsync_event_streams gauge). */
		get size() {
			return streams.size
		},
		changed,
		/**
		 * Where a page's stream starts (docs/web.md "Live changes"): read before the page's data, so a change
		 * committed while the page is on its way is still announced when its stream opens.
		 */
		cursor: async (): Promise<string> => String(await store.audit.feedEnd()),
		/**
		 * A stream for this caller (an API key's or a web session's), replaying what came after `lastEventId`
		 * (docs/api.md), or 'too_many' past STREAMS_PER_USER. It resolves once the stream knows where it starts,
		 * so whatever is written after the caller has the answer reaches it. `onClose` runs once when it ends,
		 * for any reason.
		 */
		async open(
			caller: Caller,
			lastEventId: string | null,
			onClose?: () => void
		): Promise<ReadableStream<Uint8Array> | 'too_many'> {
			let count = 0
			for (const stream of streams) if (stream.caller.userId === caller.userId) count++
			if (count >= STREAMS_PER_USER) return 'too_many'
			let stream: Stream | undefined
			const body = new ReadableStream<Uint8Array>(
				{
					start: (controller) => {
						// Not counted in the feed's reads until it knows where it starts.
						const opened: Stream = {
							caller,
							cursor: Number.POSITIVE_INFINITY,
							controller,
							closed: false,
							replaying: false,
							// A session's deadline is read on the first round of checks.
							checkAt: caller.sessionIdHash === undefined ? Number.POSITIVE_INFINITY : 0,
							checking: false,
							onClose
						}
						stream = opened
						// Counted at once, so the 21st stream opened in the same moment is refused too.
						streams.add(opened)
						startTimers()
						send(opened, ': connected\n\n')
					},
					cancel: () => {
						if (stream) drop(stream)
					}
				},
				{ highWaterMark: 0, size: (chunk) => chunk?.byteLength ?? 0 }
			)
			const opened = stream as Stream
			try {
				await serial(async () => {
					const end = await store.audit.feedEnd()
					const resume = await resumeFrom(lastEventId, end)
					if (resume === undefined) {
						// Live from the end on; the reset's id is that end, so a reconnect after it is no reset again.
						opened.cursor = end
						if (lastEventId !== null) send(opened, frame(end, 'reset', {}))
						return
					}
					opened.cursor = resume
					if (resume === end) return
					// Replayed outside the queue, after this answer is on its way; live reads pass it over until then.
					opened.replaying = true
					void replay(opened, end).catch(() => drop(opened))
				})
			} catch {
				drop(opened)
			}
			return body
		},
		/** Ends every stream (shutdown). */
		close(): void {
			for (const stream of [...streams]) drop(stream)
			stopTimers()
		}
	}
}

export type EventBroker = ReturnType<typeof createEventBroker>
