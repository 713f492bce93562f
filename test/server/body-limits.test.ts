import { describe, expect, test } from 'bun:test'
import { BODY_MAX_BYTES, LOGIN_BODY_MAX_BYTES } from '../../src/shared/constants'
import { testApp } from '../support/helpers'
import { SAME_ORIGIN, webApp } from '../support/web'

/**
 * docs/api.md in process: every route counts a body as it arrives and
 * refuses it past its limit (1 MiB; 16 KiB for login and sign-in), with or
 * without Content-Length, before any parsing, session or CSRF check; a
 * malformed Host is a 400. The compiled binary is tested in
 * test/server/e2e/hostile-requests.e2e.test.ts.
 */
const CHUNK = 64 * 1024

/** A body sent without Content-Length (as chunked transfer does) that counts how much of it the server pulled. */
function countingBody(total: number) {
	let pulled = 0
	const stream = new ReadableStream<Uint8Array>({
		pull(controller) {
			if (pulled >= total) return controller.close()
			const size = Math.min(CHUNK, total - pulled)
			pulled += size
			controller.enqueue(new Uint8Array(size).fill(0x61))
		}
	})
	return { stream, pulled: () => pulled }
}

const post = (path: string, body: BodyInit | null, headers: Record<string, string> = {}) =>
	new Request(`http://localhost${path}`, { method: 'POST', headers, body })

async function answer(response: Response) {
	const text = await response.text()
	let json: { code?: string } | undefined
	try {
		json = JSON.parse(text)
	} catch {
		json = undefined
	}
	return { status: response.status, code: json?.code }
}

describe('request bodies are counted against their limit (docs/api.md)', () => {
	test('each kind of route refuses a body without Content-Length past its limit with a JSON 413, having read no more than the limit', async () => {
		const t = testApp()
		const alice = await t.user('team', 'alice')
		const cases: { name: string; path: string; headers: Record<string, string>; limit: number }[] = [
			{
				name: 'API route',
				path: '/api/configs',
				headers: { authorization: `Bearer ${alice.key}`, 'content-type': 'application/json' },
				limit: BODY_MAX_BYTES
			},
			{
				name: 'API login',
				path: '/api/auth/login',
				headers: { 'content-type': 'application/json' },
				limit: LOGIN_BODY_MAX_BYTES
			},
			{
				name: 'web sign-in',
				path: '/sign-in',
				headers: { 'content-type': 'application/x-www-form-urlencoded', ...SAME_ORIGIN },
				limit: LOGIN_BODY_MAX_BYTES
			},
			{
				name: 'web form, no session',
				path: '/teams',
				headers: { 'content-type': 'application/x-www-form-urlencoded', ...SAME_ORIGIN },
				limit: BODY_MAX_BYTES
			},
			{
				name: 'web form, multipart',
				path: '/account/password',
				headers: { 'content-type': 'multipart/form-data; boundary=x', ...SAME_ORIGIN },
				limit: BODY_MAX_BYTES
			}
		]
		for (const kind of cases) {
			const body = countingBody(4 * BODY_MAX_BYTES)
			const result = await answer(await t.app.handle(post(kind.path, body.stream, kind.headers)))
			expect({ kind: kind.name, ...result }).toEqual({ kind: kind.name, status: 413, code: 'payload_too_large' })
			expect(body.pulled()).toBeLessThanOrEqual(kind.limit + 2 * CHUNK)
		}
	})

	test('a declared Content-Length over the limit is refused before a byte is read, on every kind of path', async () => {
		const t = testApp()
		const alice = await t.user('team', 'alice')
		const over = (limit: number) => String(limit + 1)
		const cases: { path: string; headers: Record<string, string> }[] = [
			{
				path: '/api/configs',
				headers: { authorization: `Bearer ${alice.key}`, 'content-length': over(BODY_MAX_BYTES) }
			},
			{
				path: '/api/auth/login',
				headers: { 'content-type': 'application/json', 'content-length': over(LOGIN_BODY_MAX_BYTES) }
			},
			{ path: '/sign-in', headers: { 'content-length': over(LOGIN_BODY_MAX_BYTES) } },
			{ path: '/sign-in/', headers: { 'content-length': over(LOGIN_BODY_MAX_BYTES) } },
			{ path: '/teams', headers: { 'content-length': over(BODY_MAX_BYTES) } },
			{ path: '/no/such/route', headers: { 'content-length': over(BODY_MAX_BYTES) } }
		]
		for (const kind of cases) {
			const body = countingBody(4 * BODY_MAX_BYTES)
			const result = await answer(await t.app.handle(post(kind.path, body.stream, kind.headers)))
			expect({ path: kind.path, ...result }).toEqual({ path: kind.path, status: 413, code: 'payload_too_large' })
			expect(body.pulled()).toBeLessThanOrEqual(2 * CHUNK)
		}
	})

	test('the web form limit comes before the session and CSRF checks: a signed-in person with no token still gets 413 for a huge form', async () => {
		const web = webApp()
		const alice = await web.user('team', 'alice')
		const browser = await web.signIn(alice)
		const body = countingBody(4 * BODY_MAX_BYTES)
		const response = await web.app.handle(
			post('/teams', body.stream, {
				'content-type': 'application/x-www-form-urlencoded',
				cookie: `cfgsync_session=${browser.cookie}`
			})
		)
		expect(await answer(response)).toEqual({ status: 413, code: 'payload_too_large' })
		expect(body.pulled()).toBeLessThanOrEqual(BODY_MAX_BYTES + 2 * CHUNK)
	})

	test('forms within the limit still work, sent with or without Content-Length (sign-in and a team created through the form)', async () => {
		const web = webApp()
		const alice = await web.user('team', 'alice')
		const form = new URLSearchParams({ login: alice.username, password: alice.password }).toString()
		const signedIn = await web.app.handle(
			post('/sign-in', new Blob([form]).stream(), {
				'content-type': 'application/x-www-form-urlencoded',
				...SAME_ORIGIN
			})
		)
		expect(signedIn.status).toBe(303)
		const cookie = /cfgsync_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1]
		expect(cookie).toBeDefined()
		const browser = await web.signIn(alice)
		const created = await web.post('/teams', browser, { name: 'Platform' })
		expect(created.status).toBe(303)
		expect(
			(await web.call('GET', '/api/teams', { key: alice.key })).body.map((team: { slug: string }) => team.slug)
		).toContain('platform')
	})

	test('no route of the app reads more than its limit of a body sent without Content-Length, and none answers 5xx', async () => {
		const web = webApp()
		const routes = web.app.routes.filter((route) => !['GET', 'HEAD', 'OPTIONS'].includes(route.method))
		expect(routes.length).toBeGreaterThan(25)
		const seen: string[] = []
		for (const route of routes) {
			// A fresh person for each route: some (sign-out, logout) end the session or key they are sent with.
			const person = await web.user('team')
			const browser = await web.signIn(person)
			const path = route.path.replace(/:[A-Za-z]+/g, crypto.randomUUID())
			const body = countingBody(4 * BODY_MAX_BYTES)
			const response = await web.app.handle(
				new Request(`http://localhost${path}`, {
					method: route.method,
					headers: {
						authorization: `Bearer ${person.key}`,
						cookie: `cfgsync_session=${browser.cookie}`,
						'x-csrf-token': browser.csrf,
						'content-type': 'application/json',
						...SAME_ORIGIN
					},
					body: body.stream
				})
			)
			await response.arrayBuffer()
			seen.push(`${route.method} ${route.path} ${response.status} read ${body.pulled()}`)
			const limit =
				route.path === '/api/auth/login' || route.path === '/sign-in' ? LOGIN_BODY_MAX_BYTES : BODY_MAX_BYTES
			expect({
				route: `${route.method} ${route.path}`,
				overLimit: body.pulled() > limit + 2 * CHUNK,
				serverError: response.status >= 500
			}).toEqual({
				route: `${route.method} ${route.path}`,
				overLimit: false,
				serverError: false
			})
		}
	})
})

describe('malformed Host (docs/api.md)', () => {
	// Bun hands a request whose Host is no host over with the bare path as its URL; these requests are what it makes.
	const withBareUrl = (path: string, init: RequestInit = {}) => {
		const request = new Request(`http://localhost${path}`, init)
		Object.defineProperty(request, 'url', { value: path })
		return request
	}

	test('is a JSON 400 on pages, the API (before the key check), downloads, health and unknown paths, and nothing is logged as unhandled', async () => {
		const t = testApp()
		for (const path of ['/', '/admin', '/download', '/api/teams/', '/api/configs/latest?name=x', '/healthz', '/nope']) {
			const response = await t.app.handle(withBareUrl(path))
			expect({ path, status: response.status, body: await response.json() }).toEqual({
				path,
				status: 400,
				body: { error: expect.any(String), code: 'invalid_request' }
			})
		}
		const form = await t.app.handle(
			withBareUrl('/sign-in', {
				method: 'POST',
				body: 'login=a&password=b',
				headers: { 'content-type': 'application/x-www-form-urlencoded' }
			})
		)
		expect(form.status).toBe(400)
		await Bun.sleep(5)
		expect(t.logger.lines.join('\n')).not.toContain('unhandled')
	})
})
