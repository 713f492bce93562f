import { describe, expect, test } from 'bun:test'
import { randomUUID as newUuid } from 'node:crypto'
import { createOnRequestHandler } from 'elysia/compose'
import { testApp } from '../support/helpers'
import { until } from '../support/eventually'

const loginBody = (password = 'whatever-password') => JSON.stringify({ login: 'nobody', password, device: 'x' })

describe('malformed requests never get a 5xx (docs/api.md)', () => {
	test('bodies that are not JSON, not UTF-8 or too deep are 400 with a JSON error', async () => {
		const t = testApp()
		const raw = async (
			body: string | Uint8Array,
			headers: Record<string, string> = {}
		): Promise<{ status: number; body: any }> => {
			const response = await t.app.handle(
				new Request('http://localhost/api/auth/login', { method: 'POST', body: body as BodyInit, headers })
			)
			return { status: response.status, body: await response.json() }
		}
		const invalidUtf8 = new Uint8Array([
			...Buffer.from('{"login":"'),
			0xff,
			0xfe,
			...Buffer.from('","password":"x","device":"y"}')
		])
		expect(await raw(invalidUtf8, { 'content-type': 'application/json' })).toEqual({
			status: 400,
			body: { error: 'The request body is not valid UTF-8.', code: 'invalid_request' }
		})
		const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`
		const deepRes = await raw(`{"login":${deep},"password":"x","device":"y"}`, { 'content-type': 'application/json' })
		expect(deepRes.status).toBe(400)
		expect(deepRes.body.error).toContain('deeper than 1000 levels')
		for (const body of ['', '{', '{"a":}', 'nul', '\u0000']) {
			const res = await raw(body, { 'content-type': 'application/json' })
			expect(res.status).toBe(400)
			expect(res.body.code).toBe('invalid_request')
		}
	})

	test('a JSON body is read as JSON whatever the Content-Type says (curl -d sends form encoding)', async () => {
		const t = testApp()
		const alice = await t.user()
		for (const [i, type] of [
			'application/x-www-form-urlencoded',
			'text/plain',
			'application/octet-stream',
			'multipart/form-data; boundary=x'
		].entries()) {
			const res = await t.call('POST', '/api/configs', {
				key: alice.key,
				body: { name: `c${i}`, data: { type } },
				headers: { 'content-type': type }
			})
			expect({ type, status: res.status }).toEqual({ type, status: 201 })
		}
		const none = await t.app.handle(
			new Request('http://localhost/api/configs', {
				method: 'POST',
				body: new Blob([JSON.stringify({ name: 'd', data: {} })]),
				headers: { authorization: `Bearer ${alice.key}` }
			})
		)
		expect(none.status).toBe(201)
	})

	test('login takes only application/json (415 otherwise), so no web page can post one from a browser', async () => {
		const t = testApp()
		for (const type of [
			'application/x-www-form-urlencoded',
			'text/plain',
			'multipart/form-data; boundary=x',
			'application/jsonx'
		]) {
			const res = await t.call('POST', '/api/auth/login', { body: loginBody(), headers: { 'content-type': type } })
			expect({ type, status: res.status, code: res.body.code }).toEqual({
				type,
				status: 415,
				code: 'unsupported_media_type'
			})
		}
		const none = await t.app.handle(
			new Request('http://localhost/api/auth/login', { method: 'POST', body: new Blob([loginBody()]) })
		)
		expect(none.status).toBe(415)
		for (const type of ['application/json', 'Application/JSON; charset=utf-8']) {
			expect(
				(await t.call('POST', '/api/auth/login', { body: loginBody(), headers: { 'content-type': type } })).status
			).toBe(401)
		}
	})

	test('a declared body over the limit is 413 before anything is read: 1 MiB, and 16 KiB for login', async () => {
		const t = testApp()
		const alice = await t.user()
		for (const [path, limit, message, key] of [
			['/api/configs', 1024 * 1024, 'The request body is larger than 1 MiB.', alice.key],
			['/api/auth/login', 16 * 1024, 'The request body is larger than 16 KiB.', undefined]
		] as const) {
			let pulled = 0
			const stream = new ReadableStream({
				pull(controller) {
					pulled++
					controller.enqueue(new Uint8Array(64 * 1024))
					if (pulled > 40) controller.close()
				}
			})
			const response = await t.app.handle(
				new Request(`http://localhost${path}`, {
					method: 'POST',
					body: stream,
					headers: {
						'content-type': 'application/json',
						'content-length': String(limit + 1),
						...(key ? { authorization: `Bearer ${key}` } : {})
					}
				})
			)
			expect(response.status).toBe(413)
			expect(await response.json()).toEqual({ error: message, code: 'payload_too_large' })
			expect(pulled).toBeLessThanOrEqual(2)
		}
	})

	test('a body without Content-Length is cut off at the limit: 1 MiB, and 16 KiB for login', async () => {
		const t = testApp()
		const alice = await t.user()
		for (const [path, limit, key] of [
			['/api/configs', 1024 * 1024, alice.key],
			['/api/auth/login', 16 * 1024, undefined]
		] as const) {
			let sent = 0
			const stream = new ReadableStream({
				pull(controller) {
					sent += 4 * 1024
					controller.enqueue(new Uint8Array(4 * 1024).fill(0x20))
					if (sent >= 8 * 1024 * 1024) controller.close()
				}
			})
			const response = await t.app.handle(
				new Request(`http://localhost${path}`, {
					method: 'POST',
					body: stream,
					headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }
				})
			)
			expect(response.status).toBe(413)
			expect(((await response.json()) as { code: string }).code).toBe('payload_too_large')
			expect(sent).toBeLessThan(2 * limit + 64 * 1024)
		}
	})

	test('bodies of exactly the limit are read (the limits are inclusive)', async () => {
		const t = testApp()
		const alice = await t.user()
		const push = JSON.stringify({ name: 'big', data: { a: 1 } }).padEnd(1024 * 1024, ' ')
		expect((await t.call('POST', '/api/configs', { key: alice.key, body: push })).status).toBe(201)
		expect((await t.call('POST', '/api/auth/login', { body: loginBody().padEnd(16 * 1024, ' ') })).status).toBe(401)
	})

	test('unknown routes are 404: JSON under /api, the HTML page elsewhere (no key needed to learn that)', async () => {
		const t = testApp()
		const alice = await t.user()
		expect((await t.call('GET', '/nope')).status).toBe(404)
		expect((await t.call('GET', '/api/nope', { key: alice.key })).body).toEqual({
			error: 'No such route.',
			code: 'not_found'
		})
		expect((await t.call('GET', '/api/nope', { key: alice.key })).status).toBe(404)
		expect((await t.call('PUT', '/api/me', { key: alice.key })).status).toBeOneOf([404, 405])
	})

	test('a server reached by a short host name (http://nas/) routes by the real path', async () => {
		const t = testApp()
		const alice = await t.user()
		const at = (host: string, path: string, key?: string) =>
			t.app.handle(new Request(`http://${host}${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }))
		for (const host of ['nas', 'pi', 'x:80', 'localhost']) {
			expect({ host, status: (await at(host, '/docs')).status }).toEqual({ host, status: 200 })
			const me = await at(host, '/api/me', alice.key)
			expect({ host, status: me.status, body: await me.json() }).toEqual({
				host,
				status: 200,
				body: { email: alice.email, username: alice.username }
			})
			expect({ host, status: (await at(host, '/api/nope', alice.key)).status }).toEqual({ host, status: 404 })
		}
	})

	test('odd headers and methods are answered, never with a 5xx', async () => {
		const t = testApp()
		const alice = await t.user()
		const odd: [string, string, Record<string, string>][] = [
			['GET', '/api/me', { authorization: `Bearer ${alice.key}`, 'x-long': 'a'.repeat(60_000) }],
			['GET', '/api/me', { authorization: `Bearer  ${alice.key}` }],
			['GET', '/api/me', { authorization: `Bearer ${alice.key} trailing` }],
			['OPTIONS', '/api/me', { authorization: `Bearer ${alice.key}` }],
			['HEAD', '/healthz', {}],
			['POST', '/api/auth/login', { 'content-type': 'application/json; charset=latin1' }],
			['DELETE', '/api/keys/%00%ff', { authorization: `Bearer ${alice.key}` }],
			['GET', '/api/keys/../me', { authorization: `Bearer ${alice.key}` }]
		]
		for (const [method, path, headers] of odd) {
			const res = await t.call(method, path, { headers })
			expect({ method, path, status: res.status < 500 }).toEqual({ method, path, status: true })
		}
	})
})

describe('operations endpoints (docs/api.md)', () => {
	test('GET /healthz needs no key and reports the database', async () => {
		const t = testApp()
		const res = await t.call('GET', '/healthz')
		expect(res).toMatchObject({ status: 200, body: { status: 'ok' } })
		t.store.close()
		const down = await t.call('GET', '/healthz')
		expect(down.status).toBe(500)
		expect(down.body.code).toBe('internal')
	})

	test('GET /openapi.json documents every route from the validating schemas, with no key', async () => {
		const t = testApp()
		const res = await t.call('GET', '/openapi.json')
		expect(res.status).toBe(200)
		expect(res.body.openapi).toMatch(/^3\.1/)
		const paths = res.body.paths
		expect(Object.keys(paths)).toEqual(
			expect.arrayContaining([
				'/api/auth/login',
				'/api/auth/logout',
				'/api/keys',
				'/api/keys/{id}',
				'/api/me',
				'/healthz'
			])
		)
		const loginSchema = paths['/api/auth/login'].post.requestBody.content['application/json'].schema
		expect(loginSchema.required).toEqual(['login', 'password', 'device'])
		expect(paths['/api/auth/login'].post.security).toEqual([])
		expect(res.body.components.securitySchemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' })
		const headerNames = (operation: { parameters: { in: string; name: string }[] }) =>
			operation.parameters.filter((p) => p.in === 'header').map((p) => p.name)
		expect(headerNames(paths['/api/configs'].post)).toEqual(['if-match', 'if-none-match'])
		expect(headerNames(paths['/api/configs/latest'].get)).toEqual(['if-none-match'])
		expect(headerNames(paths['/api/configs/{id}'].get)).toEqual(['if-none-match'])
	})

	test('GET /docs is a page whose assets come from this server, not a CDN', async () => {
		const t = testApp()
		const page = await t.call('GET', '/docs')
		expect(page.status).toBe(200)
		expect(page.headers.get('content-type')).toContain('text/html')
		const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] as string)
		expect(assets.length).toBeGreaterThanOrEqual(2)
		for (const asset of assets) {
			expect(asset.startsWith('/')).toBe(true)
			const res = await t.app.handle(new Request(`http://localhost${asset}`))
			expect(res.status).toBe(200)
			expect((await res.arrayBuffer()).byteLength).toBeGreaterThan(0)
		}
		expect(assets).toContain('/docs/assets/swagger-ui-bundle.js')
		expect(page.text).not.toMatch(/https?:\/\//)
		// docs/api.md: no inline script, so the page works under its own Content-Security-Policy.
		expect(page.text).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/)
		expect(page.headers.get('content-security-policy')).toContain("script-src 'self'")
	})
})

describe('security headers (docs/api.md)', () => {
	test('every kind of response carries nosniff and Referrer-Policy; HTML adds a strict CSP and no framing; keys and config data are never cached', async () => {
		const t = testApp({ address: () => '10.77.0.1' })
		const alice = await t.user('pro', 'alice')
		const pushed = await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { a: 1 } } })
		const versionId = (await t.call('GET', `/api/configs/${pushed.body.id}/versions`, { key: alice.key })).body[0].id
		const etag = (await t.call('GET', '/api/configs/latest?name=c&tool=claude-code', { key: alice.key })).headers.get(
			'etag'
		) as string
		for (let i = 0; i < 10; i++)
			await t.call('POST', '/api/auth/login', { body: { login: 'alice', password: 'wrong-password', device: 'x' } })
		const kinds: [string, Promise<Response>, number][] = [
			['json 200', t.call('GET', '/api/me', { key: alice.key }), 200],
			[
				'login refused',
				t.call('POST', '/api/auth/login', { body: { login: 'nobody', password: 'x-password', device: 'x' } }),
				401
			],
			['latest with data', t.call('GET', '/api/configs/latest?name=c&tool=claude-code', { key: alice.key }), 200],
			['get with data', t.call('GET', `/api/configs/${pushed.body.id}`, { key: alice.key }), 200],
			['versions list', t.call('GET', `/api/configs/${pushed.body.id}/versions`, { key: alice.key }), 200],
			['one version', t.call('GET', `/api/configs/${pushed.body.id}/versions/${versionId}`, { key: alice.key }), 200],
			[
				'304',
				t.call('GET', '/api/configs/latest?name=c&tool=claude-code', {
					key: alice.key,
					headers: { 'if-none-match': etag }
				}),
				304
			],
			['not found', t.call('DELETE', `/api/keys/${newUuid()}`, { key: alice.key }), 404],
			['401', t.call('GET', '/api/me'), 401],
			['400', t.call('POST', '/api/configs', { key: alice.key, body: '{' }), 400],
			['415', t.call('POST', '/api/auth/login', { body: 'x', headers: { 'content-type': 'text/plain' } }), 415],
			[
				'429',
				t.call('POST', '/api/auth/login', { body: { login: 'alice', password: alice.password, device: 'x' } }),
				429
			],
			['unmatched 404', t.call('GET', '/nowhere'), 404],
			['healthz', t.call('GET', '/healthz'), 200],
			['openapi', t.call('GET', '/openapi.json'), 200],
			['docs page', t.call('GET', '/docs'), 200],
			['docs asset', t.call('GET', '/docs/assets/swagger-ui.css'), 200]
		].map(([name, call, status]) => [name as string, call as never, status as number])
		for (const [name, call, status] of kinds) {
			const res = (await call) as unknown as { status: number; headers: Headers }
			expect({ name, status: res.status }).toEqual({ name, status })
			expect({ name, nosniff: res.headers.get('x-content-type-options') }).toEqual({ name, nosniff: 'nosniff' })
			expect({ name, referrer: res.headers.get('referrer-policy') }).toEqual({ name, referrer: 'no-referrer' })
		}
		// A login that issues a key (201) must not be cached either.
		const fresh = testApp()
		const bob = await fresh.user('free', 'bob')
		const issued = await fresh.call('POST', '/api/auth/login', {
			body: { login: 'bob', password: bob.password, device: 'y' }
		})
		expect(issued.status).toBe(201)
		expect(issued.headers.get('x-content-type-options')).toBe('nosniff')
		expect(issued.headers.get('cache-control')).toBe('no-store')
		for (const [name, call] of kinds.slice(2, 6))
			expect({ name, cache: ((await call) as unknown as Response).headers.get('cache-control') }).toEqual({
				name,
				cache: 'no-store'
			})

		const page = await t.call('GET', '/docs')
		const csp = page.headers.get('content-security-policy') as string
		expect(csp).toContain("default-src 'self'")
		expect(csp).toContain("frame-ancestors 'none'")
		const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) as string
		expect(scriptSrc).not.toContain('unsafe-inline')
		expect(scriptSrc).not.toContain('unsafe-eval')
		expect(page.headers.get('x-frame-options')).toBe('DENY')
	})
})

describe('access log', () => {
	test('one line per request with method, route, status and ms; no key, password or body', async () => {
		const t = testApp()
		const alice = await t.user()
		const issued = await t.call('POST', '/api/auth/login', {
			body: { login: alice.username, password: alice.password, device: 'laptop' }
		})
		await t.call('GET', '/api/me', { key: alice.key })
		await t.call('GET', '/api/keys/01234567-89ab-4def-8123-456789abcdef', { key: 'cs_bad' })
		await t.call('POST', '/api/configs', { key: alice.key, body: { data: { a: 1 } } })
		const etag = (
			await t.call('GET', '/api/configs/latest?name=default&tool=claude-code', { key: alice.key })
		).headers.get('etag') as string
		await t.call('GET', '/api/configs/latest?name=default&tool=claude-code', {
			key: alice.key,
			headers: { 'if-none-match': etag }
		})
		await until(() => {
			t.logger.flush()
			return t.logger.lines.filter((line) => line.includes('"msg":"request"')).length >= 6
		})
		const lines = t.logger.lines.map((line) => JSON.parse(line))
		const requests = lines.filter((line) => line.msg === 'request')
		expect(requests).toHaveLength(6)
		expect(requests[0]).toMatchObject({ level: 'info', method: 'POST', route: '/api/auth/login', status: 201 })
		expect(requests[1]).toMatchObject({ method: 'GET', route: '/api/me', status: 200 })
		expect(requests[2]).toMatchObject({ method: 'GET', status: 401 })
		expect(requests.slice(3).map((line) => [line.route, line.status])).toEqual([
			['/api/configs', 201],
			['/api/configs/latest', 200],
			['/api/configs/latest', 304]
		])
		for (const line of requests) {
			expect(typeof line.ms).toBe('number')
			expect(typeof line.requestId).toBe('string')
		}
		const all = t.logger.lines.join('\n')
		for (const secret of [alice.key, alice.password, issued.body.apiKey]) expect(all).not.toContain(secret)
	})

	test('a key or password pasted into the path of an unknown route is redacted in the log', async () => {
		const t = testApp()
		const alice = await t.user()
		const password = 'correct-horse-battery-staple-and-more-words'
		await t.call('GET', `/${alice.key}/x`)
		await t.call('GET', `/api/keys/${alice.key}`, { key: alice.key })
		await t.call('GET', `/login/${encodeURIComponent(password)}?key=${alice.key}`)
		await t.call('GET', '/dGhpcyBpcyBhIGJhc2U2NCBzZWNyZXQgdG9rZW4=/x')
		await t.call('GET', '/nowhere/short')
		// The access line is written once the answer has gone out: wait for all five.
		await until(() => {
			t.logger.flush()
			return t.logger.lines.filter((line) => line.includes('"msg":"request"')).length >= 5
		})
		const all = t.logger.lines.join('\n')
		for (const secret of [alice.key, alice.key.slice(3), password, 'dGhpcyBpcyBhIGJhc2U2NCBzZWNyZXQgdG9rZW4'])
			expect(all).not.toContain(secret)
		const paths = t.logger.lines
			.map((line) => JSON.parse(line))
			.filter((line) => line.msg === 'request')
			.map((line) => line.path ?? line.route)
		expect(paths).toEqual(['/:redacted/x', '/api/keys/:redacted', '/login/:redacted', '/:redacted/x', '/nowhere/short'])
	})
})

describe('hot path', () => {
	test('the hooks every request runs first (key check, access-log clock) are called without an await', () => {
		// Elysia awaits a hook it takes for async (an arrow returning a call, say); that costs
		// every request several percent of its CPU, and nothing but the bench would show it.
		const { app, store } = testApp()
		const code = createOnRequestHandler(app as never)
		if (store.engine === 'postgres') {
			// PostgreSQL's key lookup is a network round trip: there the key check is awaited, by design (docs/postgresql.md).
			expect(code).toContain('await')
			return
		}
		expect(code).toContain('onRequest[1](c)')
		expect(code).not.toContain('await')
		expect(code).not.toContain('mapEarlyResponse')
	})
})
