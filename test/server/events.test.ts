import { describe, expect, test } from 'bun:test'
import { STREAMS_PER_USER } from '../../src/server/events/broker'
import { newId } from '../../src/server/lib/ids'
import type { Store } from '../../src/server/store/types'
import { createKeyIssuer } from '../../src/server/modules/auth/service'
import { openTestStore, sharedTestDatabase } from '../support/engine'
import { testApp, type TestApp, type TestUser } from '../support/helpers'
import { type Frame, readFrames } from '../support/sse'
import { until } from '../support/eventually'

/** An open GET /api/events, read frame by frame from the response body. */
async function openStream(t: TestApp, user: TestUser, lastEventId?: string) {
	const headers: Record<string, string> = { authorization: `Bearer ${user.key}` }
	if (lastEventId) headers['last-event-id'] = lastEventId
	const response = await t.app.handle(new Request('http://localhost/api/events', { headers }))
	expect(response.status).toBe(200)
	expect(response.headers.get('content-type')).toStartWith('text/event-stream')
	return readFrames(response)
}

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789'
const metricsOf = async (t: TestApp) => (await t.call('GET', '/metrics', { key: METRICS_TOKEN })).text

async function world() {
	const t = testApp({ events: { pollMs: 50, keepAliveMs: 100 }, metricsToken: METRICS_TOKEN })
	const tom = await t.user('team', 'tom')
	const ann = await t.user('pro', 'ann')
	const eve = await t.user('pro', 'eve')
	const team = (await t.call('POST', '/api/teams', { key: tom.key, body: { name: 'Crew' } })).body as { id: string }
	await t.join(tom, 'crew', ann)
	const push = async (by: TestUser, name: string, v: number, teamId?: string) => {
		const pushed = await t.call('POST', '/api/configs', { key: by.key, body: { name, data: { v }, teamId } })
		expect(pushed.status).toBeLessThan(300)
		return pushed.body as { id: string; version: number }
	}
	return { t, tom, ann, eve, team, push }
}

describe('GET /api/events', () => {
	test('a team push reaches the members, once, in the documented shape; an outsider hears nothing', async () => {
		const { tom, ann, eve, team, push, t } = await world()
		const toms = await openStream(t, tom)
		const anns = await openStream(t, ann)
		const eves = await openStream(t, eve)
		for (const stream of [toms, anns, eves]) expect(await stream.collect(100)).toEqual([])
		const config = await push(tom, 'shared', 1, team.id)
		for (const stream of [toms, anns]) {
			const frames = await stream.take(1)
			expect(frames).toHaveLength(1)
			expect(frames[0]?.event).toBe('config')
			expect(frames[0]?.id).toBeString()
			expect(frames[0]?.data).toMatchObject({
				id: config.id,
				name: 'shared',
				teamId: team.id,
				version: 1,
				deleted: false,
				by: { username: 'tom', device: 'test' }
			})
			expect((frames[0] as Frame).data).toHaveProperty('hash', expect.any(String))
		}
		expect(await eves.collect()).toEqual([])
		// tom's personal config is news to tom only.
		await push(tom, 'mine', 1)
		expect((await toms.take(1)).map((frame) => frame.event)).toEqual(['config'])
		expect(await anns.collect()).toEqual([])
		expect(await eves.collect()).toEqual([])
		for (const stream of [toms, anns, eves]) await stream.cancel()
	})

	test('a removed member stops hearing the team at once', async () => {
		const { tom, ann, team, push, t } = await world()
		const anns = await openStream(t, ann)
		await push(tom, 'shared', 1, team.id)
		expect(await anns.take(1)).toHaveLength(1)
		expect((await t.call('DELETE', `/api/teams/crew/members/${ann.id}`, { key: tom.key })).status).toBeLessThan(300)
		await push(tom, 'shared', 2, team.id)
		expect((await anns.collect()).filter((frame) => frame.event === 'config')).toEqual([])
		await anns.cancel()
	})

	test('Last-Event-ID replays what was missed, in order, without duplicates; an unknown cursor gets reset', async () => {
		const { tom, push, t } = await world()
		const first = await openStream(t, tom)
		await push(tom, 'a', 1)
		const [seen] = await first.take(1)
		await first.cancel()
		await push(tom, 'a', 2)
		await push(tom, 'b', 1)
		await push(tom, 'a', 3)
		const again = await openStream(t, tom, seen?.id)
		const replayed = await again.take(3)
		expect(replayed.map((frame) => frame.data)).toMatchObject([
			{ name: 'a', version: 2 },
			{ name: 'b', version: 1 },
			{ name: 'a', version: 3 }
		])
		const ids = replayed.map((frame) => Number(frame.id))
		expect([...ids].sort((a, b) => a - b)).toEqual(ids)
		expect(ids[0] as number).toBeGreaterThan(Number(seen?.id))
		// Live events follow the replay, none of it again.
		await push(tom, 'b', 2)
		expect((await again.take(1)).map((frame) => frame.data)).toMatchObject([{ name: 'b', version: 2 }])
		await again.cancel()

		// A cursor never issued, one that is not a number, and one older than a week: reset, then live events.
		for (const [round, cursor] of ['999999999', '01890000-0000-7000-8000-000000000000', seen?.id as string].entries()) {
			if (round === 2) t.clock.advance(8 * 24 * 3_600_000)
			const lost = await openStream(t, tom, cursor)
			const [reset] = await lost.take(1)
			expect(reset).toMatchObject({ event: 'reset', data: {} })
			expect(reset?.id).toMatch(/^[0-9]+$/)
			await push(tom, 'c', round)
			expect((await lost.take(1)).map((frame) => frame.data)).toMatchObject([{ name: 'c' }])
			await lost.cancel()
		}
	})

	test('a push made the moment the stream has answered reaches it, however slowly the stream found where it starts', async () => {
		// The feed's end read slowly (a busy database): the answer still waits for it, so nothing after it is lost.
		const store = openTestStore()
		const feedEnd = store.audit.feedEnd.bind(store.audit)
		store.audit.feedEnd = async () => {
			await Bun.sleep(300)
			return feedEnd()
		}
		const t = testApp({ store, events: { pollMs: 60_000, keepAliveMs: 60_000 } })
		const ada = await t.user('pro', 'ada')
		const stream = await openStream(t, ada)
		const pushed = await t.call('POST', '/api/configs', { key: ada.key, body: { name: 'right-away', data: { v: 1 } } })
		expect(pushed.status).toBe(201)
		expect((await stream.take(1)).map((frame) => [frame.event, (frame.data as { name: string }).name])).toEqual([
			['config', 'right-away']
		])
		await stream.cancel()
	})

	test('a revoked key gets `revoked` and its stream closes; another key of the user is untouched', async () => {
		const { tom, push, t } = await world()
		const other = (
			await t.call('POST', '/api/auth/login', { body: { login: 'tom', password: tom.password, device: 'desk' } })
		).body as { apiKey: string }
		const revokedStream = await openStream(t, tom)
		const otherStream = await openStream(t, { ...tom, key: other.apiKey })
		expect((await t.call('POST', '/api/auth/logout', { key: tom.key })).status).toBeLessThan(300)
		const frames = await revokedStream.take(1)
		expect(frames.map((frame) => [frame.event, frame.data])).toEqual([['revoked', {}]])
		expect(revokedStream.isEnded()).toBe(true)
		await push({ ...tom, key: other.apiKey }, 'after', 1)
		expect((await otherStream.take(1)).map((frame) => frame.event)).toEqual(['config'])
		await otherStream.cancel()
	})

	test('invitation and membership events reach the person they concern, and only them', async () => {
		const { tom, ann, eve, t } = await world()
		const [toms, anns, eves] = [await openStream(t, tom), await openStream(t, ann), await openStream(t, eve)]
		const invited = await t.call('POST', '/api/teams/crew/members', {
			key: tom.key,
			body: { login: 'eve', role: 'admin' }
		})
		expect(invited.status).toBe(201)
		expect((await eves.take(1)).map((frame) => [frame.event, frame.data])).toEqual([
			['invitation', { teamSlug: 'crew', teamName: 'Crew', role: 'admin' }]
		])
		expect((await t.call('POST', '/api/invitations/crew/accept', { key: eve.key })).status).toBe(200)
		expect((await eves.take(1)).map((frame) => [frame.event, frame.data])).toEqual([
			['membership', { teamSlug: 'crew', removed: false }]
		])
		expect((await t.call('DELETE', `/api/teams/crew/members/${eve.id}`, { key: tom.key })).status).toBe(204)
		expect((await eves.take(1)).map((frame) => [frame.event, frame.data])).toEqual([
			['membership', { teamSlug: 'crew', removed: true }]
		])
		expect((await t.call('DELETE', `/api/teams/crew/members/${ann.id}`, { key: ann.key })).status).toBe(204)
		expect((await anns.take(1)).map((frame) => [frame.event, frame.data])).toEqual([
			['membership', { teamSlug: 'crew', removed: true }]
		])
		// The owner who did all this hears none of it; nobody heard anything twice.
		expect(await toms.collect()).toEqual([])
		expect(await eves.collect()).toEqual([])
		// A cancelled invitation is no news by the time it is delivered: replayed after the cancel, it is left out.
		const before = await openStream(t, eve)
		await t.call('POST', '/api/teams/crew/members', { key: tom.key, body: { login: 'eve', role: 'member' } })
		const [sent] = await before.take(1)
		expect(sent?.event).toBe('invitation')
		await before.cancel()
		expect((await t.call('DELETE', `/api/teams/crew/members/${eve.id}`, { key: tom.key })).status).toBe(204)
		const replay = await openStream(t, eve, String(Number(sent?.id) - 1))
		expect(await replay.collect()).toEqual([])
		for (const stream of [toms, anns, eves, replay]) await stream.cancel()
	})

	test('a deleted team is `membership` removed for each of its members, and nothing for anyone else', async () => {
		const { tom, ann, eve, t } = await world()
		const [toms, anns, eves] = [await openStream(t, tom), await openStream(t, ann), await openStream(t, eve)]
		expect((await t.call('DELETE', '/api/teams/crew', { key: tom.key })).status).toBe(204)
		for (const stream of [toms, anns])
			expect((await stream.take(1)).map((frame) => [frame.event, frame.data])).toEqual([
				['membership', { teamSlug: 'crew', removed: true }]
			])
		expect(await eves.collect()).toEqual([])
		for (const stream of [toms, anns, eves]) await stream.cancel()
	})

	test('pushes committed at once, out of the order their ids were made, all arrive, once each, in commit order', async () => {
		const { tom, push, t } = await world()
		const stream = await openStream(t, tom)
		const pushes = await Promise.all(Array.from({ length: 30 }, (_, i) => push(tom, `c${i % 6}`, i)))
		const frames: Frame[] = []
		for (let waited = 0; frames.length < pushes.length && waited < 20; waited++)
			frames.push(...(await stream.collect(200)))
		const seen = frames.map(
			(frame) => `${(frame.data as { id: string }).id}@${(frame.data as { version: number }).version}`
		)
		expect([...seen].sort()).toEqual(pushes.map((pushed) => `${pushed.id}@${pushed.version}`).sort())
		const ids = frames.map((frame) => Number(frame.id))
		expect(ids).toEqual([...ids].sort((a, b) => a - b))
		// Per config, versions arrive in the order they were made.
		for (const name of ['c0', 'c1']) {
			const versions = frames
				.filter((frame) => (frame.data as { name: string }).name === name)
				.map((frame) => (frame.data as { version: number }).version)
			expect(versions).toEqual([...versions].sort((a, b) => a - b))
		}
		await stream.cancel()
	}, 30_000)

	test('the access log records a stream once, when it closes, with how long it was open', async () => {
		const { tom, t } = await world()
		const stream = await openStream(t, tom)
		await stream.collect(150)
		expect(t.logger.lines.filter((line) => line.includes('/api/events'))).toEqual([])
		await stream.cancel()
		await until(() => t.logger.lines.some((line) => line.includes('/api/events')))
		const lines = t.logger.lines.filter((line) => line.includes('/api/events')).map((line) => JSON.parse(line))
		expect(lines).toHaveLength(1)
		expect(lines[0]).toMatchObject({ msg: 'request', route: '/api/events', status: 200, stream: true })
		expect(lines[0].ms).toBeGreaterThanOrEqual(100)
	})

	test('keep-alive comments, 20 streams per user, and the gauge counts them', async () => {
		const { tom, eve, t } = await world()
		const streams = []
		for (let i = 0; i < STREAMS_PER_USER; i++) streams.push(await openStream(t, tom))
		const refused = await t.call('GET', '/api/events', { key: tom.key })
		expect(refused.status).toBe(429)
		// Another user has streams of their own.
		const eves = await openStream(t, eve)
		const comments = (await eves.collect(350, true)).filter((frame) => frame.comment === 'keep-alive')
		expect(comments.length).toBeGreaterThanOrEqual(2)
		const metrics = await metricsOf(t)
		expect(metrics).toContain(`cfgsync_event_streams ${STREAMS_PER_USER + 1}`)
		for (const stream of streams) await stream.cancel()
		await eves.cancel()
		const after = await metricsOf(t)
		expect(after).toContain('cfgsync_event_streams 0')
		// Streams are counted as requests but are no request latency.
		expect(after).toContain('cfgsync_http_requests_total{route="/api/events",method="GET",status="200"}')
		// The one refusal (429) is timed; the 21 streams are not.
		expect(after).toContain('cfgsync_http_request_duration_seconds_count{route="/api/events",method="GET"} 1')
	})
})

/** docs/api.md: the most events a replay reads; further back is `reset`. */
const REPLAY_MAX_EVENTS = 1_000

/** `count` events of nobody's concern in the feed (failed logins of a stranger), written straight to the store. */
async function filler(store: Store, count: number) {
	for (let i = 0; i < count; i++)
		await store.audit.record({
			id: newId(),
			at: new Date().toISOString(),
			type: 'login.failed',
			actor: { userId: null, username: 'stranger', address: '192.0.2.1' }
		})
}

describe('replays are bounded and hold up no one (docs/api.md "Live changes")', () => {
	test('a cursor more than 1,000 events back gets `reset` with an id; reconnecting with that id is not reset again', async () => {
		const { tom, push, t } = await world()
		const first = await openStream(t, tom)
		await push(tom, 'a', 1)
		const [seen] = await first.take(1)
		await first.cancel()
		await filler(t.store, REPLAY_MAX_EVENTS)
		await push(tom, 'a', 2)
		const far = await openStream(t, tom, seen?.id)
		const [reset, ...more] = await far.take(1)
		expect(more).toEqual([])
		expect(reset?.event).toBe('reset')
		expect(reset?.id).toMatch(/^[0-9]+$/)
		await far.cancel()
		// After the reset the client re-read its configs: reconnecting with the reset's id is no reset again.
		const again = await openStream(t, tom, reset?.id)
		expect(await again.collect(150)).toEqual([])
		await push(tom, 'a', 3)
		expect((await again.take(1)).map((frame) => [frame.event, (frame.data as { version: number }).version])).toEqual([
			['config', 3]
		])
		await again.cancel()
	}, 60_000)

	test('a cursor up to 1,000 events back is replayed whole', async () => {
		const { tom, push, t } = await world()
		const first = await openStream(t, tom)
		await push(tom, 'a', 1)
		const [seen] = await first.take(1)
		await first.cancel()
		await filler(t.store, REPLAY_MAX_EVENTS - 2)
		await push(tom, 'a', 2)
		const near = await openStream(t, tom, seen?.id)
		expect((await near.take(1)).map((frame) => [frame.event, (frame.data as { version: number }).version])).toEqual([
			['config', 2]
		])
		await near.cancel()
	}, 60_000)

	test("a replay that is slow to read does not hold up anyone else's live events, nor streams opening meanwhile", async () => {
		const store = openTestStore()
		const feed = store.audit.feed.bind(store.audit)
		let release: () => void = () => {}
		const held = new Promise<void>((resolve) => {
			release = resolve
		})
		let holdBefore = 0
		store.audit.feed = async (after, limit) => {
			if (after < holdBefore) await held
			return feed(after, limit)
		}
		const t = testApp({ store, events: { pollMs: 50, keepAliveMs: 60_000 } })
		const tom = await t.user('pro', 'tom')
		const ann = await t.user('pro', 'ann')
		const toms = await openStream(t, tom)
		expect((await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'a', data: { v: 1 } } })).status).toBe(
			201
		)
		const [seen] = await toms.take(1)
		await toms.cancel()
		expect((await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'a', data: { v: 2 } } })).status).toBe(
			200
		)
		// tom's replay is stuck reading the feed; ann opens a stream and pushes meanwhile.
		holdBefore = Number(seen?.id) + 1
		const replaying = await openStream(t, tom, seen?.id)
		const anns = await openStream(t, ann)
		expect((await t.call('POST', '/api/configs', { key: ann.key, body: { name: 'b', data: { v: 1 } } })).status).toBe(
			201
		)
		expect((await anns.take(1)).map((frame) => (frame.data as { name: string }).name)).toEqual(['b'])
		expect(await replaying.collect(50)).toEqual([])
		release()
		// Once read, the replay arrives, then live events, none twice.
		expect((await replaying.take(1)).map((frame) => (frame.data as { version: number }).version)).toEqual([2])
		expect((await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'a', data: { v: 3 } } })).status).toBe(
			200
		)
		expect((await replaying.take(1)).map((frame) => (frame.data as { version: number }).version)).toEqual([3])
		expect(await replaying.collect(100)).toEqual([])
		await Promise.all([replaying.cancel(), anns.cancel()])
	}, 30_000)
})

describe('a stream ends when its credential stops being valid (docs/api.md "Live changes")', () => {
	const login = (t: TestApp, user: TestUser, device: string) =>
		t.call('POST', '/api/auth/login', { body: { login: user.username, password: user.password, device } })

	test("a new login from the same device replaces the key: the old key's stream gets `revoked` and ends", async () => {
		const { tom, ann, push, t } = await world()
		const toms = await openStream(t, tom)
		const anns = await openStream(t, ann)
		// Another user's login, and tom's from another device, replace nothing of this stream's.
		expect((await login(t, ann, 'desk')).status).toBe(201)
		expect((await login(t, tom, 'desk')).status).toBe(201)
		await push(tom, 'still', 1)
		expect((await toms.take(1)).map((frame) => frame.event)).toEqual(['config'])
		const replaced = await login(t, tom, 'test')
		expect(replaced.status).toBe(201)
		expect((await t.call('GET', '/api/me', { key: tom.key })).status).toBe(401)
		expect(await toms.take(1)).toEqual([{ id: expect.stringMatching(/^[0-9]+$/), event: 'revoked', data: {} }])
		expect(toms.isEnded()).toBe(true)
		expect(anns.isEnded()).toBe(false)
		await anns.cancel()
	})

	test('a key replaced through another instance (a login there, or `key issue`) ends the stream held by this one', async () => {
		const shared = await sharedTestDatabase()
		// Only the other instance's commit signal (LISTEN/NOTIFY, PRAGMA data_version) tells this one.
		const here = testApp({ store: await shared.open(), events: { pollMs: 60_000, keepAliveMs: 60_000 } })
		const there = testApp({ store: await shared.open(), events: { pollMs: 60_000, keepAliveMs: 60_000 } })
		const tom = await here.user('pro', 'tom')
		const ann = await here.user('pro', 'ann')
		const toms = await openStream(here, tom)
		const anns = await openStream(here, ann)
		expect((await login(there, tom, 'test')).status).toBe(201)
		expect((await toms.take(1)).map((frame) => frame.event)).toEqual(['revoked'])
		expect(toms.isEnded()).toBe(true)
		// The admin command's `key issue` for ann's device, run against the other instance's store.
		const issue = createKeyIssuer({ store: there.store, clock: there.clock })
		await issue(ann.id, 'test', {
			id: newId(),
			at: new Date(there.clock.now()).toISOString(),
			type: 'key.issued',
			actor: { userId: null, username: null, via: 'admin command', address: null },
			subjectUserId: ann.id
		})
		expect((await anns.take(1)).map((frame) => frame.event)).toEqual(['revoked'])
		expect(anns.isEnded()).toBe(true)
	})
})
