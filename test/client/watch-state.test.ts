import { describe, expect, test } from 'bun:test'
import {
	initialWatch,
	restFor,
	resting,
	transition,
	type WatchEvent,
	type WatchState
} from '../../src/client/commands/watch-state'
import type { Target } from '../../src/client/target'

/** Watch's state machine as a value: each event in, the next state and what to do out. No clock, no server. */

const target = (tool: 'gemini-cli' | 'codex', teamId?: string): Target => ({
	tool,
	name: 'default',
	teamId,
	key: `${tool}${teamId ?? ''}`,
	label: `${tool}/default`,
	args: '',
	latest: { name: 'default', tool, teamId }
})

/** Events applied in order: the last state and every effect. */
function run(state: WatchState, ...events: WatchEvent[]) {
	const effects = []
	for (const event of events) {
		const next = transition(state, event)
		state = next.state
		effects.push(...next.effects)
	}
	return { state, effects }
}

const live = () => initialWatch([target('gemini-cli'), target('codex', 't1')], { poll: false, interval: 30_000 })

describe('watch: the server going and coming back', () => {
	test('down is said once however many requests fail, back once when it answers', () => {
		const down = run(
			live(),
			{ kind: 'unreachable', index: 0, message: 'no answer', code: 'unreachable' },
			{ kind: 'unreachable', index: 1, message: 'still none', code: 'unreachable' }
		)
		expect(down.state.down).toBe('no answer')
		expect(down.effects).toEqual([
			{ kind: 'say-down', config: target('gemini-cli'), message: 'no answer', code: 'unreachable' }
		])
		const back = run(down.state, { kind: 'reachable' }, { kind: 'reachable' })
		expect(back.state.down).toBeUndefined()
		expect(back.effects).toEqual([{ kind: 'say-back' }])
	})

	test('the stream reopening after an outage checks every config; a first open does not', () => {
		const first = run(live(), { kind: 'opened', replaying: false })
		expect(first.state.configs.some((c) => c.check)).toBe(false)
		expect(first.effects).toEqual([{ kind: 'wake' }])
		const again = run(first.state, { kind: 'opened', replaying: true })
		expect(again.state.configs.some((c) => c.check)).toBe(false)
		const unreplayed = run(again.state, { kind: 'opened', replaying: false })
		expect(unreplayed.state.configs.every((c) => c.check)).toBe(true)
		const afterOutage = run(
			first.state,
			{ kind: 'unreachable', message: 'lost', code: 'unreachable' },
			{ kind: 'opened', replaying: true }
		)
		expect(afterOutage.state.configs.every((c) => c.check)).toBe(true)
		expect(afterOutage.effects.map((e) => e.kind)).toEqual(['say-down', 'say-back', 'wake'])
	})

	test('a poll that answers after an outage syncs, changed or not', () => {
		const down = run(live(), { kind: 'unreachable', message: 'lost' })
		expect(run(down.state, { kind: 'polled', index: 1, changed: false }).effects).toEqual([
			{ kind: 'say-back' },
			{ kind: 'sync', index: 1 }
		])
		expect(run(live(), { kind: 'polled', index: 1, changed: false }).effects).toEqual([])
		expect(run(live(), { kind: 'polled', index: 1, changed: true }).effects).toEqual([{ kind: 'sync', index: 1 }])
	})
})

describe('watch: how the stream ends', () => {
	test('revoked or refused stops; no live changes there turns to polling, due at once', () => {
		const revoked = run(live(), { kind: 'ended', end: { kind: 'revoked' } }, { kind: 'settle', now: 5 })
		expect(revoked.effects).toEqual([{ kind: 'wake' }, { kind: 'stop', end: { kind: 'revoked' } }])
		const scheduled = run(live(), { kind: 'scheduled', index: 0, now: 0 }, { kind: 'scheduled', index: 1, now: 0 })
		const unsupported = run(
			scheduled.state,
			{ kind: 'ended', end: { kind: 'unsupported', why: 'no live changes' } },
			{ kind: 'settle', now: 5 }
		)
		expect(unsupported.state.mode).toBe('poll')
		expect(unsupported.state.ended).toBeUndefined()
		expect(unsupported.state.configs.map((c) => c.nextPoll)).toEqual([5, 5])
		expect(unsupported.effects).toContainEqual({ kind: 'say-polling', why: 'no live changes' })
		// Settled once: a second settle does nothing.
		expect(run(unsupported.state, { kind: 'settle', now: 6 }).effects).toEqual([])
	})
})

describe("watch: a config's turn", () => {
	test('an edit is sent once it has settled (the same fingerprint twice), not while the server is down', () => {
		const local = { fingerprint: 'f1', dirty: true }
		const once = run(live(), { kind: 'turn', index: 0, now: 1000, local })
		expect(once.effects).toEqual([])
		expect(once.state.configs[0]?.seen).toBe('f1')
		expect(run(once.state, { kind: 'turn', index: 0, now: 2000, local }).effects).toEqual([{ kind: 'sync', index: 0 }])
		const down = run(once.state, { kind: 'unreachable', message: 'lost' })
		expect(run(down.state, { kind: 'turn', index: 0, now: 2000, local }).effects).not.toContainEqual({
			kind: 'sync',
			index: 0
		})
	})

	test('an event of this config with a hash not synced here pulls it; its own push does not', () => {
		const event = (hash: string) => ({
			kind: 'event' as const,
			event: 'config',
			data: JSON.stringify({ tool: 'codex', name: 'default', teamId: 't1', hash })
		})
		const heard = run(live(), event('h2'))
		expect(heard.effects).toEqual([{ kind: 'wake' }])
		expect(heard.state.configs.map((c) => c.heard)).toEqual([undefined, 'h2'])
		expect(resting(heard.state)).toBe(false)
		const pulled = run(heard.state, { kind: 'turn', index: 1, now: 0, syncedHash: 'h1' })
		expect(pulled.effects).toEqual([{ kind: 'sync', index: 1 }])
		expect(pulled.state.configs[1]?.heard).toBeUndefined()
		const own = run(heard.state, { kind: 'turn', index: 1, now: 0, syncedHash: 'h2' })
		expect(own.effects).toEqual([])
		// Unparseable data is ignored without waking the loop; a reset checks every config.
		expect(run(live(), { kind: 'event', event: 'config', data: '{' }).effects).toEqual([])
		const reset = run(live(), { kind: 'event', event: 'reset', data: '' })
		expect(reset.state.configs.every((c) => c.check)).toBe(true)
	})

	test('polls when checked, or when polling and due; a gone config is left alone', () => {
		const checked = run(live(), { kind: 'event', event: 'reset', data: '' }, { kind: 'turn', index: 0, now: 10 })
		expect(checked.effects.at(-1)).toEqual({ kind: 'poll', index: 0 })
		expect(checked.state.configs[0]).toMatchObject({ check: false, nextPoll: 30_010 })
		const polling = initialWatch([target('codex')], { poll: true, interval: 30_000 })
		const scheduled = run(polling, { kind: 'scheduled', index: 0, now: 0 })
		expect(run(scheduled.state, { kind: 'turn', index: 0, now: 29_999 }).effects).toEqual([])
		expect(run(scheduled.state, { kind: 'turn', index: 0, now: 30_000 }).effects).toEqual([{ kind: 'poll', index: 0 }])
		const gone = run(scheduled.state, { kind: 'gone', index: 0 }, { kind: 'turn', index: 0, now: 60_000 })
		expect(gone.effects).toEqual([])
	})

	test('the files here are looked at once a tick; the loop rests until then', () => {
		const started = run(live(), { kind: 'started', now: 10_000 })
		expect(resting(started.state)).toBe(true)
		expect(restFor(started.state, 10_400)).toBe(600)
		expect(run(started.state, { kind: 'tick', now: 10_900 }).effects).toEqual([])
		const looked = run(started.state, { kind: 'tick', now: 10_960 })
		expect(looked.effects).toEqual([{ kind: 'look' }])
		expect(looked.state.lastLocal).toBe(10_960)
	})

	test('a cycle keeps what the server has and what is stuck; a failed one keeps the old etag when none was read', () => {
		const stuck = new Map([['a.md', 'h']])
		const synced = run(live(), { kind: 'synced', index: 0, etag: 'e1', local: [], stuck, stuckAt: 't1' })
		expect(synced.state.configs[0]).toMatchObject({ etag: 'e1', stuck, stuckAt: 't1' })
		const failed = run(synced.state, { kind: 'stuck', index: 0, stuck: new Map(), stuckAt: 't2' })
		expect(failed.state.configs[0]).toMatchObject({ etag: 'e1', stuckAt: 't2' })
	})
})

describe('watch: leaving a team', () => {
	const watching = () =>
		initialWatch([target('gemini-cli'), { ...target('codex', 't1'), team: 'crew' }], { poll: false, interval: 30_000 })

	test('removed from the team (or it was deleted): its config is said to be no longer watched, once, and left alone', () => {
		const removed = { kind: 'event', event: 'membership', data: '{"teamSlug":"crew","removed":true}' } as const
		const { state, effects } = run(watching(), removed, removed)
		expect(effects.filter((e) => e.kind === 'say-left')).toEqual([
			{ kind: 'say-left', config: expect.objectContaining({ teamId: 't1' }), slug: 'crew' }
		])
		expect(state.configs.map((c) => c.gone ?? false)).toEqual([false, true])
		// Its turns do nothing from now on: no sync, no poll.
		expect(
			run(state, { kind: 'turn', index: 1, now: 99_999, local: { fingerprint: 'x', dirty: true } }).effects
		).toEqual([])
	})

	test('joining a team, or another team left, changes nothing watched', () => {
		const joined = { kind: 'event', event: 'membership', data: '{"teamSlug":"crew","removed":false}' } as const
		const other = { kind: 'event', event: 'membership', data: '{"teamSlug":"other","removed":true}' } as const
		const { state, effects } = run(watching(), joined, other)
		expect(effects.some((e) => e.kind === 'say-left')).toBe(false)
		expect(state.configs.every((c) => !c.gone)).toBe(true)
	})
})
