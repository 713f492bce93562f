import type { ListenEnd } from '../live'
import type { LocalEntry } from '../sync/local-keys'
import type { Target } from '../target'

/**
 * What `cfgsync watch` knows, as a value, and how each thing that happens
 * changes it (`transition`): the live stream opening, dropping and ending,
 * its events, the once-a-second look at the files here, a poll's answer, a
 * cycle's end. The command (watch.ts) does the reading, syncing and printing
 * the effects ask for; nothing here touches a file, the server or the clock.
 */

/** One config watched. */
export interface WatchedConfig {
	t: Target
	/** The server's hash after the last cycle (sent as If-None-Match). */
	etag?: string
	/** The local files' fingerprint at the last check: an edit has settled when it is the same one check later. */
	seen?: string
	/** Files a cycle had to leave (a conflict, a refusal), by the hash of their content then: not retried until they change. */
	stuck: Map<string, string>
	/** When the state was written as the stuck files were noted: a command run meanwhile (resolve) frees them. */
	stuckAt?: string
	/** The config's keys and files that stay on this machine, as the last cycle read them (with the server's list). */
	local?: LocalEntry[]
	nextPoll: number
	/**
	 * The hash the last live event of this config names (`deleted` once deleted): judged by the loop, after
	 * any cycle under way, so this machine's own push (whose event may come before the push is noted) is
	 * not pulled back.
	 */
	heard?: string
	/** Look at the server (If-None-Match) now: after a reset, or after the live stream was down. */
	check?: boolean
	/** No longer on the server: not watched any more. */
	gone?: boolean
}

export interface WatchState {
	/** Live changes from the server, or a poll every `interval`. */
	mode: 'live' | 'poll'
	/** Milliseconds between polls. */
	interval: number
	/** Milliseconds between looks at the files here. */
	tick: number
	/** Why the server cannot be reached, while it cannot (said once, and once more when it answers again). */
	down?: string
	/** When the files here were last looked at. */
	lastLocal: number
	/** How the live stream ended, until the loop acts on it. */
	ended?: ListenEnd
	/** How many times the live stream opened. */
	opens: number
	configs: WatchedConfig[]
}

export type WatchEvent =
	/** The live stream opened (`replaying`: from a cursor, so nothing was missed). */
	| { kind: 'opened'; replaying: boolean }
	/** An event of the live stream. */
	| { kind: 'event'; event: string; data: string }
	/** The live stream ended for good. */
	| { kind: 'ended'; end: ListenEnd }
	/** The loop acts on how the stream ended (at most once). */
	| { kind: 'settle'; now: number }
	/** A request failed for want of the server (`index`: while handling that config). */
	| { kind: 'unreachable'; index?: number; message: string; code?: string }
	/** The server answered. */
	| { kind: 'reachable' }
	/** The first cycles are done: the loop starts. */
	| { kind: 'started'; now: number }
	/** A config's first cycle is done: its next poll is an interval away. */
	| { kind: 'scheduled'; index: number; now: number }
	/** The loop woke: is it time to look at the files here? */
	| { kind: 'tick'; now: number }
	/**
	 * One config's turn in the loop: what the files here look like (when looked at), and the hash its
	 * state holds (read only when an event named a hash).
	 */
	| { kind: 'turn'; index: number; now: number; local?: { fingerprint: string; dirty: boolean }; syncedHash?: string }
	/** A poll's answer: whether the server's version changed since `etag`. */
	| { kind: 'polled'; index: number; changed: boolean }
	/** A cycle synced the config. */
	| { kind: 'synced'; index: number; etag?: string; local: LocalEntry[]; stuck: Map<string, string>; stuckAt?: string }
	/** A cycle failed: its files wait for a change (`etag`: the server's hash now, when it could be read). */
	| { kind: 'stuck'; index: number; etag?: string; stuck: Map<string, string>; stuckAt?: string }
	/** The config is no longer on the server. */
	| { kind: 'gone'; index: number }

export type WatchEffect =
	/** Say once that the server cannot be reached. */
	| { kind: 'say-down'; config?: Target; message: string; code?: string }
	/** Say that the server answers again. */
	| { kind: 'say-back' }
	/** Wake the loop from its sleep. */
	| { kind: 'wake' }
	/** Stop: the key was revoked or refused. */
	| { kind: 'stop'; end: { kind: 'revoked' | 'unauthorized' } }
	/** No live changes there: poll from now on. */
	| { kind: 'say-polling'; why: string }
	/** Look at the files here now. */
	| { kind: 'look' }
	/** Ask the server whether the config changed (If-None-Match). */
	| { kind: 'poll'; index: number }
	/** Run a sync cycle of the config. */
	| { kind: 'sync'; index: number }
	/** Say that a team config is no longer watched: this user left the team, was removed, or it was deleted. */
	| { kind: 'say-left'; config: Target; slug: string }

export interface Transition {
	state: WatchState
	effects: WatchEffect[]
}

/** A looked-at edit has settled when it is unchanged for this long less a little slack for timers. */
const SLACK_MS = 50

export function initialWatch(targets: Target[], options: { poll: boolean; interval: number }): WatchState {
	return {
		mode: options.poll ? 'poll' : 'live',
		interval: options.interval,
		tick: Math.min(1000, options.interval),
		lastLocal: 0,
		opens: 0,
		configs: targets.map((t) => ({ t, nextPoll: 0, stuck: new Map() }))
	}
}

/** Whether the loop may sleep until the next look at the files here: nothing heard, nothing to check. */
export const resting = (state: WatchState): boolean =>
	!state.ended && !state.configs.some((c) => c.heard !== undefined || c.check)

/** How long that sleep is. */
export const restFor = (state: WatchState, now: number): number => Math.max(0, state.lastLocal + state.tick - now)

const withConfig = (state: WatchState, index: number, change: Partial<WatchedConfig>): WatchState => ({
	...state,
	configs: state.configs.map((c, i) => (i === index ? { ...c, ...change } : c))
})

const checkAll = (state: WatchState): WatchState => ({
	...state,
	configs: state.configs.map((c) => ({ ...c, check: true }))
})

/** The server answers: back after being down (said once), or nothing new. */
function answered(state: WatchState): { state: WatchState; back: boolean } {
	if (state.down === undefined) return { state, back: false }
	return { state: { ...state, down: undefined }, back: true }
}

/** The live stream's event: a reset checks every config; a config's names the hash the server has now. */
function heard(state: WatchState, event: string, text: string): Transition {
	const reset = event === 'reset' ? checkAll(state) : state
	if (event === 'membership') return left(reset, text)
	if (event !== 'config') return { state: reset, effects: [{ kind: 'wake' }] }
	let data: { id?: unknown; name?: unknown; tool?: unknown; teamId?: unknown; hash?: unknown; deleted?: unknown }
	try {
		data = JSON.parse(text)
	} catch {
		return { state: reset, effects: [] }
	}
	if (typeof data !== 'object' || data === null) return { state: reset, effects: [] }
	const news = data.deleted !== true && typeof data.hash === 'string' ? data.hash : 'deleted'
	const configs = reset.configs.map((c) =>
		data.tool !== c.t.tool || data.name !== c.t.name || (data.teamId ?? undefined) !== c.t.teamId
			? c
			: { ...c, heard: news }
	)
	return { state: { ...reset, configs }, effects: [{ kind: 'wake' }] }
}

/**
 * A `membership` event: out of a team (removed, left, or the team deleted), its configs are watched no more, each
 * said once; their files here stay as they are. Joining one changes nothing watched.
 */
function left(state: WatchState, text: string): Transition {
	let data: { teamSlug?: unknown; removed?: unknown }
	try {
		data = JSON.parse(text)
	} catch {
		return { state, effects: [] }
	}
	if (typeof data !== 'object' || data === null || data.removed !== true) return { state, effects: [] }
	const effects: WatchEffect[] = []
	const configs = state.configs.map((c) => {
		if (c.gone || c.t.teamId === undefined || c.t.team !== data.teamSlug) return c
		effects.push({ kind: 'say-left', config: c.t, slug: data.teamSlug as string })
		return { ...c, gone: true, heard: undefined, check: false }
	})
	return { state: { ...state, configs }, effects }
}

/** The live stream opened: back after an outage, or reopened without a cursor to replay from: look at every config. */
function opened(state: WatchState, replaying: boolean): Transition {
	const up = answered({ ...state, opens: state.opens + 1 })
	const next = up.back || (up.state.opens > 1 && !replaying) ? checkAll(up.state) : up.state
	return { state: next, effects: [...(up.back ? [{ kind: 'say-back' } as const] : []), { kind: 'wake' }] }
}

/** The server cannot be reached: said once, until it answers again. */
function unreachable(state: WatchState, event: Extract<WatchEvent, { kind: 'unreachable' }>): Transition {
	if (state.down !== undefined) return { state, effects: [] }
	const config = event.index === undefined ? undefined : state.configs[event.index]?.t
	return {
		state: { ...state, down: event.message },
		effects: [{ kind: 'say-down', config, message: event.message, code: event.code }]
	}
}

/** A poll's answer; back after being down, what changed here meanwhile is sent now. */
function polled(state: WatchState, index: number, changed: boolean): Transition {
	const up = answered(state)
	const effects: WatchEffect[] = up.back ? [{ kind: 'say-back' }] : []
	if (changed || up.back) effects.push({ kind: 'sync', index })
	return { state: up.state, effects }
}

/** What the stream's end means: stop (exit 4), or poll from now on. */
function settle(state: WatchState, now: number): Transition {
	const end = state.ended
	const rest = { ...state, ended: undefined }
	if (end === undefined) return { state: rest, effects: [] }
	if (end.kind === 'revoked' || end.kind === 'unauthorized') return { state: rest, effects: [{ kind: 'stop', end }] }
	if (end.kind !== 'unsupported') return { state: rest, effects: [] }
	const configs = rest.configs.map((c) => ({ ...c, nextPoll: Math.min(c.nextPoll, now) }))
	return { state: { ...rest, mode: 'poll', configs }, effects: [{ kind: 'say-polling', why: end.why }] }
}

/**
 * One config's turn: an edit here that has settled (unchanged since the last
 * look) is sent while the server answers; a hash heard that this machine has
 * not synced is pulled; otherwise the server is polled when due.
 */
function turn(state: WatchState, event: Extract<WatchEvent, { kind: 'turn' }>): Transition {
	const c = state.configs[event.index]
	if (c === undefined || c.gone) return { state, effects: [] }
	const change: Partial<WatchedConfig> = {}
	let due = false
	if (event.local) {
		change.seen = event.local.fingerprint
		// While the server is down, edits here wait until it answers again rather than a try every second.
		due = event.local.fingerprint === c.seen && event.local.dirty && state.down === undefined
	}
	if (c.heard !== undefined) {
		// A version this machine has synced (its own push, say) needs no pull.
		if (![c.etag, event.syncedHash].includes(c.heard)) {
			change.check = false
			due = true
		}
		change.heard = undefined
	}
	// A request that failed while the stream stayed open is tried again each interval: otherwise edits here
	// would wait for the next event.
	const polling = state.mode === 'poll' || state.down !== undefined
	const check = change.check ?? c.check
	let effect: WatchEffect | undefined = due ? { kind: 'sync', index: event.index } : undefined
	if (!due && (check || (polling && event.now >= c.nextPoll))) {
		change.check = false
		change.nextPoll = event.now + state.interval
		effect = { kind: 'poll', index: event.index }
	}
	return { state: withConfig(state, event.index, change), effects: effect ? [effect] : [] }
}

/** How one thing that happens changes what watch knows, and what it is to do about it. */
export function transition(state: WatchState, event: WatchEvent): Transition {
	switch (event.kind) {
		case 'opened':
			return opened(state, event.replaying)
		case 'event':
			return heard(state, event.event, event.data)
		case 'ended':
			return { state: { ...state, ended: event.end }, effects: [{ kind: 'wake' }] }
		case 'settle':
			return settle(state, event.now)
		case 'unreachable':
			return unreachable(state, event)
		case 'reachable': {
			const up = answered(state)
			return { state: up.state, effects: up.back ? [{ kind: 'say-back' }] : [] }
		}
		case 'started':
			return { state: { ...state, lastLocal: event.now }, effects: [] }
		case 'scheduled':
			return { state: withConfig(state, event.index, { nextPoll: event.now + state.interval }), effects: [] }
		case 'tick': {
			if (event.now < state.lastLocal + state.tick - SLACK_MS) return { state, effects: [] }
			return { state: { ...state, lastLocal: event.now }, effects: [{ kind: 'look' }] }
		}
		case 'turn':
			return turn(state, event)
		case 'polled':
			return polled(state, event.index, event.changed)
		case 'synced':
			return {
				state: withConfig(state, event.index, {
					etag: event.etag,
					local: event.local,
					stuck: event.stuck,
					stuckAt: event.stuckAt
				}),
				effects: []
			}
		case 'stuck':
			return {
				state: withConfig(state, event.index, {
					...(event.etag === undefined ? {} : { etag: event.etag }),
					stuck: event.stuck,
					stuckAt: event.stuckAt
				}),
				effects: []
			}
		case 'gone':
			return { state: withConfig(state, event.index, { gone: true }), effects: [] }
	}
}
