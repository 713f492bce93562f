import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { join } from 'node:path'
import { openSqliteStore } from '../../../src/server/store/sqlite'
import { storedDigest } from '../../support/snapshot'
import { buildWorld, type World } from '../../support/world'
import { tempDir } from '../../support/temp'

/**
 * Hostile input: whatever arrives, the answer is never a 5xx, an error is
 * always docs/api.md's JSON body, the server keeps answering, and a rejected
 * request changes nothing stored.
 */
let inputs = 0
let rejected = 0

async function fileWorld() {
	const file = join(tempDir('hostile'), 'hostile.db')
	// SQLite: it compares the database file's bytes before and after each rejected request.
	const world = await buildWorld({ store: openSqliteStore(file) })
	return { world, file }
}

type Sent = {
	method: string
	path: string
	body?: string | Uint8Array
	headers?: Record<string, string>
	key?: string | null
}

/** Sends one request and checks the promises above; returns the response. */
async function sendAndCheck(world: World, file: string, sent: Sent) {
	const before = storedDigest(file)
	const headers = new Headers(sent.headers)
	const key = sent.key === undefined ? world.keys.tom : sent.key
	if (key && !headers.has('authorization')) headers.set('authorization', `Bearer ${key}`)
	let response: Response
	try {
		response = await world.t.app.handle(
			new Request(`http://localhost${sent.path}`, {
				method: sent.method,
				headers,
				body: sent.body as BodyInit | undefined
			})
		)
	} catch (error) {
		throw new Error(`handle threw for ${sent.method} ${sent.path}: ${error}`)
	}
	const text = await response.text()
	inputs++
	const context = `${sent.method} ${sent.path.slice(0, 120)} → ${response.status} ${text.slice(0, 200)}`
	if (response.status >= 500) throw new Error(`5xx: ${context}`)
	if (response.status >= 400) {
		rejected++
		let body: { error?: unknown; code?: unknown }
		try {
			body = JSON.parse(text)
		} catch {
			throw new Error(`error body is not JSON: ${context}`)
		}
		if (typeof body.error !== 'string' || typeof body.code !== 'string')
			throw new Error(`error body lacks error/code: ${context}`)
		if (storedDigest(file) !== before) throw new Error(`a rejected request changed stored data: ${context}`)
	}
	return { status: response.status, text }
}

const sqlish = [
	"'; DROP TABLE configs; --",
	'" OR 1=1 --',
	'1); DELETE FROM users; --',
	"x' UNION SELECT key_hash FROM api_keys --",
	'%27%20OR%20%271%27=%271',
	'../../etc/passwd',
	'\\',
	'%00'
]
const weirdText = fc.oneof(
	fc.string({ unit: 'binary' }),
	fc.string({ unit: 'grapheme' }),
	fc.constantFrom(...sqlish, '', ' ', 'null', '[]', '{}', '__proto__', 'constructor')
)
const jsonish = fc.oneof(
	fc.jsonValue(),
	fc.dictionary(weirdText, fc.jsonValue()),
	fc.constantFrom({ __proto__: { polluted: true } }, JSON.parse('{"__proto__":{"polluted":1}}'))
)
const latin1 = fc.string({
	unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c)),
	maxLength: 200
})

describe('hostile input never gets a 5xx, and rejected requests change nothing', () => {
	const RUNS = 500
	/** Thousands of requests each: minutes on a loaded machine, where the suite's 30 s would fail them for nothing. */
	const PROPERTY_TIMEOUT = 300_000

	test(
		'random JSON and raw bodies at every endpoint that takes a body',
		async () => {
			const { world, file } = await fileWorld()
			const targets = [
				'POST /api/configs',
				'POST /api/auth/login',
				`POST /api/configs/${world.C.id}/rollback`,
				'POST /api/teams',
				`PATCH /api/teams/${world.team.slug}`,
				`POST /api/teams/${world.team.slug}/members`,
				`PATCH /api/teams/${world.team.slug}/members/${world.users.max.id}`
			]
			await fc.assert(
				fc.asyncProperty(
					fc.constantFrom(...targets),
					fc.oneof(
						jsonish.map((value) => JSON.stringify(value) ?? 'null'),
						fc
							.record({ name: weirdText, tool: weirdText, data: jsonish, teamId: weirdText }, { requiredKeys: [] })
							.map((v) => JSON.stringify(v)),
						fc
							.record(
								{
									login: weirdText,
									password: weirdText,
									device: weirdText,
									role: weirdText,
									slug: weirdText,
									versionId: weirdText
								},
								{ requiredKeys: [] }
							)
							.map((v) => JSON.stringify(v)),
						weirdText,
						fc.uint8Array({ maxLength: 300 })
					),
					fc.constantFrom(
						'application/json',
						'text/plain',
						'application/x-www-form-urlencoded',
						'multipart/form-data',
						'application/json; charset=utf-16',
						''
					),
					async (target, body, contentType) => {
						const [method, path] = target.split(' ') as [string, string]
						await sendAndCheck(world, file, {
							method,
							path,
							body,
							headers: contentType ? { 'content-type': contentType } : {}
						})
					}
				),
				{ numRuns: RUNS * 4 }
			)
		},
		PROPERTY_TIMEOUT
	)

	test(
		'random path ids and slugs, SQL-shaped ones included',
		async () => {
			const { world, file } = await fileWorld()
			const templates = [
				'GET /api/configs/:x',
				'DELETE /api/configs/:x',
				'GET /api/configs/:x/versions',
				'GET /api/configs/:x/versions/:x',
				'POST /api/configs/:x/rollback',
				'GET /api/teams/:x',
				'PATCH /api/teams/:x',
				'DELETE /api/teams/:x',
				'POST /api/teams/:x/members',
				'DELETE /api/teams/:x/members/:x',
				'DELETE /api/keys/:x'
			]
			await fc.assert(
				fc.asyncProperty(fc.constantFrom(...templates), weirdText, fc.boolean(), async (template, segment, raw) => {
					const [method, pattern] = template.split(' ') as [string, string]
					// Raw segments keep what the URL parser lets through; encoded ones can carry anything.
					const piece = raw ? segment.replace(/[/?#\s]/g, '') || 'x' : encodeURIComponent(segment)
					const path = pattern.replaceAll(':x', piece)
					const res = await sendAndCheck(world, file, {
						method,
						path,
						body: method === 'GET' || method === 'DELETE' ? undefined : '{}'
					})
					expect(res.status === 400 || res.status === 404 || res.status === 409 || res.status < 300).toBe(true)
				}),
				{ numRuns: RUNS * 2 }
			)
		},
		PROPERTY_TIMEOUT
	)

	test(
		'random query strings',
		async () => {
			const { world, file } = await fileWorld()
			await fc.assert(
				fc.asyncProperty(
					fc.constantFrom('/api/configs', '/api/configs/latest', `/api/configs/${world.C.id}/versions`),
					fc.array(
						fc.tuple(
							fc.oneof(fc.constantFrom('name', 'tool', 'teamId', 'limit', 'before', '__proto__', 'name[]'), weirdText),
							weirdText
						),
						{ maxLength: 5 }
					),
					fc.boolean(),
					async (path, pairs, raw) => {
						const query = pairs
							.map(([k, v]) =>
								raw
									? `${k.replace(/[#\s]/g, '')}=${v.replace(/[#\s]/g, '')}`
									: `${encodeURIComponent(k)}=${encodeURIComponent(v)}`
							)
							.join('&')
						await sendAndCheck(world, file, { method: 'GET', path: `${path}?${query}` })
					}
				),
				{ numRuns: RUNS * 2 }
			)
		},
		PROPERTY_TIMEOUT
	)

	test(
		'random headers: authorization, conditions, content types',
		async () => {
			const { world, file } = await fileWorld()
			await fc.assert(
				fc.asyncProperty(
					fc.constantFrom(
						'authorization',
						'if-match',
						'if-none-match',
						'content-type',
						'content-length',
						'x-forwarded-for',
						'accept'
					),
					latin1,
					fc.constantFrom(
						'GET /api/configs/latest?name=c&tool=vscode',
						'POST /api/configs',
						'GET /api/me',
						'POST /api/auth/login'
					),
					async (name, value, target) => {
						const [method, path] = target.split(' ') as [string, string]
						const body =
							method === 'POST'
								? JSON.stringify({
										teamId: world.team.id,
										name: 'c',
										tool: 'vscode',
										data: { v: 9 },
										login: 'x',
										password: 'y',
										device: 'z'
									})
								: undefined
						if (name === 'content-length') return // a lying length is the HTTP server's business, tested end to end
						await sendAndCheck(world, file, {
							method,
							path: path.replace('latest?', `latest?teamId=${world.team.id}&`),
							body,
							headers: { [name]: value }
						})
					}
				),
				{ numRuns: RUNS * 2 }
			)
		},
		PROPERTY_TIMEOUT
	)

	test('named hostile cases: SQL-shaped names, invalid UTF-8, 10,000-deep JSON, 1e400, prototype keys', async () => {
		const { world, file } = await fileWorld()
		for (const name of sqlish) {
			await sendAndCheck(world, file, {
				method: 'POST',
				path: '/api/configs',
				body: JSON.stringify({ name, data: {} })
			})
			await sendAndCheck(world, file, { method: 'POST', path: '/api/teams', body: JSON.stringify({ name }) })
			await sendAndCheck(world, file, {
				method: 'POST',
				path: '/api/auth/login',
				body: JSON.stringify({ login: name, password: name, device: name }),
				key: null
			})
			await sendAndCheck(world, file, { method: 'GET', path: `/api/teams/${encodeURIComponent(name)}` })
		}
		const invalidUtf8 = new Uint8Array([
			0x7b, 0x22, 0x64, 0x61, 0x74, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0x22, 0x7d
		])
		expect((await sendAndCheck(world, file, { method: 'POST', path: '/api/configs', body: invalidUtf8 })).status).toBe(
			400
		)
		const deep = `{"data":${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}}`
		expect((await sendAndCheck(world, file, { method: 'POST', path: '/api/configs', body: deep })).status).toBe(400)
		const deepArray = `{"data":{"a":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`
		expect((await sendAndCheck(world, file, { method: 'POST', path: '/api/configs', body: deepArray })).status).toBe(
			400
		)
		expect(
			(await sendAndCheck(world, file, { method: 'POST', path: '/api/configs', body: '{"data":{"n":1e400}}' })).status
		).toBe(400)
		expect(
			(
				await sendAndCheck(world, file, {
					method: 'POST',
					path: '/api/configs',
					body: '{"data":{"n":-1e400,"m":[1e309]}}'
				})
			).status
		).toBe(400)

		const proto =
			'{"name":"proto","data":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"toString":"x"}}'
		expect((await sendAndCheck(world, file, { method: 'POST', path: '/api/configs', body: proto })).status).toBe(201)
		const back = await sendAndCheck(world, file, {
			method: 'GET',
			path: '/api/configs/latest?name=proto&tool=claude-code'
		})
		expect(back.text).toContain(
			'"data":{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"toString":"x"}'
		)
		expect(({} as Record<string, unknown>).polluted).toBeUndefined()
		expect(Object.prototype.toString.call([])).toBe('[object Array]')

		// The tables are all still there and the server still answers.
		expect((await sendAndCheck(world, file, { method: 'GET', path: '/api/configs' })).status).toBe(200)
		expect((await world.t.call('GET', '/healthz')).status).toBe(200)
		expect((await world.t.call('GET', '/api/me', { key: world.keys.alice })).status).toBe(200)
	})
})

afterAll(() => {
	console.log(`[reliability] hostile input: ${inputs} requests, ${rejected} rejected, 0 answered with a 5xx`)
})
