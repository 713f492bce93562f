// docs/web.md "Live changes": the web application's own event stream (GET /events, for a signed-in
// session) and the pages that listen to it. Same events as GET /api/events, chosen the same way.
import { describe, expect, test } from 'bun:test'
import { STREAMS_PER_USER } from '../../../src/server/events/broker'
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../../../src/shared/constants'
import { readFrames } from '../../support/sse'
import { ORIGIN, push, webApp, type Browser } from '../../support/web'
import { until } from '../../support/eventually'

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789'

async function world() {
	const w = webApp({ events: { pollMs: 50, keepAliveMs: 100 }, metricsToken: METRICS_TOKEN })
	const tom = await w.user('team', 'tom')
	const ann = await w.user('pro', 'ann')
	const eve = await w.user('pro', 'eve')
	const team = (await w.call('POST', '/api/teams', { key: tom.key, body: { name: 'Crew' } })).body as { id: string }
	await w.join(tom, 'crew', ann)
	/** GET /events as the browser's EventSource asks for it. */
	const stream = (who?: Browser, headers: Record<string, string> = {}) =>
		w.app.handle(
			new Request(`${ORIGIN}/events`, {
				headers: {
					accept: 'text/event-stream',
					...(who ? { cookie: `cfgsync_session=${who.cookie}` } : {}),
					...headers
				}
			})
		)
	const open = async (who: Browser) => {
		const response = await stream(who)
		expect(response.status).toBe(200)
		expect(response.headers.get('content-type')).toStartWith('text/event-stream')
		expect(response.headers.get('cache-control')).toBe('no-store')
		return readFrames(response)
	}
	return { w, tom, ann, eve, team, stream, open }
}

describe("GET /events, the web pages' event stream", () => {
	test('signed out, or with an API key instead of a session, it is refused with a 401 and no stream', async () => {
		const { stream, tom } = await world()
		for (const response of [
			await stream(),
			await stream(undefined, { authorization: `Bearer ${tom.key}` }),
			await stream({ cookie: 'not-a-session' } as Browser)
		]) {
			expect(response.status).toBe(401)
			expect(response.headers.get('content-type') ?? '').not.toContain('text/event-stream')
		}
	})

	test('a push through the API by the same user reaches their page as a `config` event', async () => {
		const { w, tom, open } = await world()
		const toms = await open(await w.signIn(tom))
		expect(await toms.collect(100)).toEqual([])
		const id = await push(w, tom, { v: 1 }, { name: 'work' })
		const [frame, ...more] = await toms.collect()
		expect(more).toEqual([])
		expect(frame?.event).toBe('config')
		expect(frame?.id).toBeString()
		expect(frame?.data).toMatchObject({
			id,
			name: 'work',
			teamId: null,
			version: 1,
			deleted: false,
			by: { username: 'tom', device: 'test' }
		})
		await toms.cancel()
	})

	test("a teammate's page hears of a team config; a non-member's hears nothing", async () => {
		const { w, tom, ann, eve, team, open } = await world()
		const anns = await open(await w.signIn(ann))
		const eves = await open(await w.signIn(eve))
		const id = await push(w, tom, { v: 1 }, { name: 'shared', teamId: team.id })
		expect((await anns.collect()).map((frame) => frame.data)).toMatchObject([
			{ id, teamId: team.id, version: 1, by: { username: 'tom' } }
		])
		expect(await eves.collect()).toEqual([])
		// tom's personal config is nobody else's news.
		await push(w, tom, { v: 1 }, { name: 'mine' })
		expect(await anns.collect()).toEqual([])
		await anns.cancel()
		await eves.cancel()
	})

	test("signing out ends the page's stream (`revoked`, then closed); the access log records it once, when it closes", async () => {
		const { w, tom, open } = await world()
		const browser = await w.signIn(tom)
		const toms = await open(browser)
		await toms.collect(150)
		expect(w.logger.lines.filter((line) => line.includes('"/events"'))).toEqual([])
		expect((await w.post('/sign-out', browser)).status).toBe(303)
		expect(await toms.collect(1500)).toEqual([{ id: expect.any(String), event: 'revoked', data: {} }])
		expect(toms.isEnded()).toBe(true)
		// The line is written as the stream closes, after the response: on a loaded machine that takes a moment.
		const logged = () => w.logger.lines.filter((line) => line.includes('"/events"')).map((line) => JSON.parse(line))
		await until(() => logged().length >= 1)
		const lines = logged()
		expect(lines).toHaveLength(1)
		expect(lines[0]).toMatchObject({ msg: 'request', route: '/events', status: 200, stream: true })
		expect(lines[0].ms).toBeGreaterThanOrEqual(100)
	})

	test("an idle session's stream ends when the session expires, with no request to notice it", async () => {
		const { w, tom, open } = await world()
		const toms = await open(await w.signIn(tom))
		expect(await toms.collect(150)).toEqual([])
		w.clock.advance(SESSION_IDLE_MS + 1_000)
		expect(await toms.take(1)).toEqual([{ id: expect.stringMatching(/^[0-9]+$/), event: 'revoked', data: {} }])
		expect(toms.isEnded()).toBe(true)
	})

	test('a session in use keeps its stream through idle deadlines; at the absolute expiry the stream ends', async () => {
		const { w, tom, open } = await world()
		const browser = await w.signIn(tom)
		const toms = await open(browser)
		const step = SESSION_IDLE_MS - 24 * 3_600_000
		let passed = 0
		while (passed + step < SESSION_MAX_MS) {
			w.clock.advance(step)
			passed += step
			// A page read now and then keeps the session (and so its stream) from going idle.
			expect((await w.get('/account', browser)).status).toBe(200)
			expect(await toms.collect(150)).toEqual([])
			expect(toms.isEnded()).toBe(false)
		}
		w.clock.advance(SESSION_MAX_MS - passed + 1_000)
		expect((await toms.take(1)).map((frame) => frame.event)).toEqual(['revoked'])
		expect(toms.isEnded()).toBe(true)
	})

	test(`${STREAMS_PER_USER} streams per user: one more is a 429; the streams are no request latency`, async () => {
		const { w, tom, stream, open } = await world()
		const browser = await w.signIn(tom)
		const streams = []
		for (let i = 0; i < STREAMS_PER_USER; i++) streams.push(await open(browser))
		expect((await w.call('GET', '/metrics', { key: METRICS_TOKEN })).text).toContain(
			`cfgsync_event_streams ${STREAMS_PER_USER}`
		)
		const refused = await stream(browser)
		expect(refused.status).toBe(429)
		await streams.pop()?.cancel()
		// The server hears the stream close a moment later; then there is room for one more.
		await until(async () =>
			(await w.call('GET', '/metrics', { key: METRICS_TOKEN })).text.includes(
				`cfgsync_event_streams ${STREAMS_PER_USER - 1}`
			)
		)
		streams.push(await open(browser))
		for (const made of streams) await made.cancel()
		// Every stream counted as a request, none timed: the one timed is the 429, an ordinary answer.
		const counted = `cfgsync_http_requests_total{route="/events",method="GET",status="200"} ${STREAMS_PER_USER + 1}`
		let metrics = ''
		await until(async () => {
			metrics = (await w.call('GET', '/metrics', { key: METRICS_TOKEN })).text
			return metrics.includes(counted)
		})
		expect(metrics).toContain(counted)
		expect(metrics).toContain('cfgsync_http_request_duration_seconds_count{route="/events",method="GET"} 1')
	})
})

describe('the pages that show a notice when what they show changes', () => {
	/** The `data-live` hook of a page: what its notice listens for, or undefined for none. */
	const hookOf = (html: string) => /<[^>]*\bdata-live="([^"]*)"[^>]*>/.exec(html)?.[1]

	test("a change made while the page was on its way is announced: the page's stream starts where its data was read", async () => {
		const { w, tom, team } = await world()
		const browser = await w.signIn(tom)
		const id = await push(w, tom, { v: 1 }, { name: 'work' })
		for (const path of ['/configs', `/configs/${id}`, '/teams/crew']) {
			const from = /data-live-from="([0-9]+)"/.exec((await w.get(path, browser)).html)?.[1]
			expect(from).toBeString()
			// Pushed after the page was made, before its EventSource connected.
			const version = await push(w, tom, { v: path }, { name: 'work' })
			await push(w, tom, { v: path }, { name: 'shared', teamId: team.id })
			const response = await w.app.handle(
				new Request(`${ORIGIN}/events?after=${from}`, {
					headers: { accept: 'text/event-stream', cookie: `cfgsync_session=${browser.cookie}` }
				})
			)
			const frames = readFrames(response)
			const seen = (await frames.collect()).map((frame) => (frame.data as { name: string }).name)
			expect(seen).toEqual(['work', 'shared'])
			expect(version).toBe(id)
			await frames.cancel()
		}
	})

	test('the configs list, a config and a team carry the hook, naming what they show; other pages do not', async () => {
		const { w, tom, team } = await world()
		const browser = await w.signIn(tom)
		const id = await push(w, tom, { v: 1 }, { name: 'work' })
		expect(hookOf((await w.get('/configs', browser)).html)).toBe('configs')
		expect(hookOf((await w.get(`/configs/${id}`, browser)).html)).toBe(`config:${id}`)
		expect(hookOf((await w.get('/teams/crew', browser)).html)).toBe(`team:${team.id}`)
		// The region is a status region, there and empty from the start, so what app.js writes is announced.
		expect((await w.get(`/configs/${id}`, browser)).html).toMatch(
			/<div[^>]*(role="status"[^>]*data-live=|data-live="[^"]*"[^>]*role="status")[^>]*><\/div>/
		)
		for (const path of ['/devices', '/teams', '/account', '/activity']) {
			const page = await w.get(path, browser)
			expect(page.status).toBe(200)
			expect(hookOf(page.html)).toBeUndefined()
		}
	})
})
