import { describe, expect, test } from 'bun:test'
import { TOOLS } from '../../src/shared/constants'
import { testApp, type TestApp, type TestUser } from '../support/helpers'

const push = (t: TestApp, user: TestUser, body: unknown, headers?: Record<string, string>) =>
	t.call('POST', '/api/configs', { key: user.key, body, headers })
const latest = (t: TestApp, user: TestUser, query: string, headers?: Record<string, string>) =>
	t.call('GET', `/api/configs/latest?${query}`, { key: user.key, headers })
const keys = (value: object) => Object.keys(value).sort()

describe('POST /api/configs (a push, docs/api.md)', () => {
	test('a new config is 201 with id, name, tool, version 1, updatedAt; defaults are default and claude-code', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const res = await push(t, alice, { data: { theme: 'dark' } })
		expect(res.status).toBe(201)
		expect(keys(res.body)).toEqual(['id', 'name', 'tool', 'updatedAt', 'version'])
		expect(res.body).toMatchObject({
			name: 'default',
			tool: 'claude-code',
			version: 1,
			updatedAt: '2026-11-22T10:00:00.000Z'
		})
		expect(res.body.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
	})

	test('changed data is 200 with the next version, which becomes current', async () => {
		const t = testApp()
		const alice = await t.user('pro')
		const first = await push(t, alice, { name: 'work', tool: 'cursor', data: { a: 1 } })
		t.clock.advance(1000)
		const second = await push(t, alice, { name: 'work', tool: 'cursor', data: { a: 2 } })
		expect(second.status).toBe(200)
		expect(keys(second.body)).toEqual(['id', 'name', 'tool', 'updatedAt', 'version'])
		expect(second.body).toMatchObject({
			id: first.body.id,
			name: 'work',
			tool: 'cursor',
			version: 2,
			updatedAt: '2026-11-22T10:00:01.000Z'
		})
		expect((await latest(t, alice, 'name=work&tool=cursor')).body).toMatchObject({ version: 2, data: { a: 2 } })
	})

	test('unchanged data (also only reordered keys) is 200 noChange and makes no version', async () => {
		const t = testApp()
		const alice = await t.user('pro')
		const first = await push(t, alice, { data: { a: 1, nested: { x: [1, 2], y: 'z' } } })
		const again = await push(t, alice, { data: { nested: { y: 'z', x: [1, 2] }, a: 1 } })
		expect(again.status).toBe(200)
		expect(keys(again.body)).toEqual(['id', 'message', 'name', 'noChange', 'tool'])
		expect(again.body).toMatchObject({ id: first.body.id, name: 'default', tool: 'claude-code', noChange: true })
		expect(typeof again.body.message).toBe('string')
		const versions = await t.call('GET', `/api/configs/${first.body.id}/versions`, { key: alice.key })
		expect(versions.body).toHaveLength(1)
		// Array order is content: reordering an array is a change.
		expect((await push(t, alice, { data: { a: 1, nested: { x: [2, 1], y: 'z' } } })).body.version).toBe(2)
	})

	test('every tool identifier is accepted; (name, tool) pairs and users are separate configs', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const bob = await t.user('free')
		const ids = new Set<string>()
		for (const tool of TOOLS) {
			const res = await push(t, alice, { tool, data: { tool } })
			expect(res.status).toBe(201)
			ids.add(res.body.id)
		}
		ids.add((await push(t, alice, { name: 'other', data: {} })).body.id)
		ids.add((await push(t, bob, { data: { tool: 'claude-code' } })).body.id)
		expect(ids.size).toBe(TOOLS.length + 2)
	})

	test('validation: 400 invalid_request with details naming the field', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const cases: [unknown, string][] = [
			[{}, 'data'],
			[{ data: [1, 2] }, 'data'],
			[{ data: 42 }, 'data'],
			[{ data: true }, 'data'],
			[{ data: null }, 'data'],
			[{ data: {}, tool: 'emacs' }, 'tool'],
			[{ data: {}, tool: 'Cursor' }, 'tool'],
			[{ data: {}, name: '' }, 'name'],
			[{ data: {}, name: 'has space' }, 'name'],
			[{ data: {}, name: 'x'.repeat(101) }, 'name'],
			[{ data: {}, name: 'dots.no' }, 'name'],
			[{ data: {}, name: 7 }, 'name'],
			[{ data: {}, teamId: 'not-a-uuid' }, 'teamId'],
			[{ data: {}, teamId: 12 }, 'teamId']
		]
		for (const [body, path] of cases) {
			const res = await push(t, alice, body)
			expect({ body, status: res.status, code: res.body.code }).toEqual({ body, status: 400, code: 'invalid_request' })
			expect(res.body.details.map((d: { path: string }) => d.path)).toContain(path)
		}
		expect((await push(t, alice, { data: {}, name: `${'x'.repeat(98)}_-` })).status).toBe(201)
		expect((await t.call('GET', '/api/configs', { key: alice.key })).body).toHaveLength(1)
	})

	test('a string stays a string, exactly as pushed', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const text = '# CLAUDE.md\n\nUse tabs. "Quotes" \\ and ünïcödé 🎉'
		await push(t, alice, { tool: 'claude-code', name: 'memory', data: text })
		const res = await latest(t, alice, 'name=memory&tool=claude-code')
		expect(res.body.data).toBe(text)
	})

	test('data is returned as pushed: key order, unicode, __proto__ and constructor keys', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const raw = '{"data":{"z":1,"a":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}},"é":"\\u2028"}}'
		expect((await push(t, alice, raw)).status).toBe(201)
		const res = await latest(t, alice, 'name=default&tool=claude-code')
		expect(res.text).toContain(
			'"data":{"z":1,"a":{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}},"é":"\u2028"}'
		)
		expect(Object.keys(res.body.data)).toEqual(['z', 'a', 'é'])
		expect(({} as Record<string, unknown>).polluted).toBeUndefined()
		expect(Object.hasOwn(res.body.data.a, '__proto__')).toBe(true)
	})

	test('numbers that cannot be stored exactly are refused, not rounded', async () => {
		const t = testApp()
		const alice = await t.user('free')
		for (const [raw, path] of [
			['{"data":{"x":1e400}}', 'data.x'],
			['{"data":{"list":[1,-1e999]}}', 'data.list.1'],
			['{"data":{"id":9007199254740993}}', 'data.id'],
			['{"data":{"id":-9007199254740992}}', 'data.id']
		]) {
			const res = await push(t, alice, raw)
			expect(res.status).toBe(400)
			expect(res.body.details).toEqual([{ path, message: expect.any(String) }])
		}
		expect((await t.call('GET', '/api/configs', { key: alice.key })).body).toEqual([])
		expect((await push(t, alice, '{"data":{"id":9007199254740991,"f":1.5e-300}}')).status).toBe(201)
	})

	test('512 KiB of UTF-8 JSON data passes; one byte more is 413', async () => {
		const t = testApp()
		const alice = await t.user('free')
		// A string's JSON is its characters plus two quotes.
		expect((await push(t, alice, { name: 's', data: 'a'.repeat(524_286) })).status).toBe(201)
		const over = await push(t, alice, { name: 's2', data: 'a'.repeat(524_287) })
		expect(over.status).toBe(413)
		expect(over.body.code).toBe('payload_too_large')
		// Bytes, not characters: 'é' is two bytes in UTF-8. {"k":"…"} is 8 bytes around the string.
		expect((await push(t, alice, { name: 'o', data: { k: 'é'.repeat(262_140) } })).status).toBe(201)
		expect((await push(t, alice, { name: 'o2', data: { k: `${'é'.repeat(262_140)}x` } })).status).toBe(413)
		expect(
			(await t.call('GET', '/api/configs', { key: alice.key })).body.map((c: { name: string }) => c.name).sort()
		).toEqual(['o', 's'])
	})
})

describe('reads (docs/api.md)', () => {
	test('GET /api/configs lists exactly id, name, tool, version, hash, updatedAt of your personal configs', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const bob = await t.user('free')
		await push(t, alice, { name: 'a', data: { x: 1 } })
		await push(t, alice, { name: 'b', tool: 'vscode', data: 'text' })
		await push(t, bob, { name: 'c', data: {} })
		const res = await t.call('GET', '/api/configs', { key: alice.key })
		expect(res.status).toBe(200)
		expect(res.body).toHaveLength(2)
		for (const item of res.body) expect(keys(item)).toEqual(['hash', 'id', 'name', 'tool', 'updatedAt', 'version'])
		expect(res.body.map((c: { name: string }) => c.name)).toEqual(['a', 'b'])
	})

	test('GET /api/configs/latest: exactly id, name, tool, version, hash, data, updatedAt; 404 when missing; name and tool required', async () => {
		const t = testApp()
		const alice = await t.user('free')
		await push(t, alice, { name: 'work', tool: 'codex', data: { a: 1 } })
		const res = await latest(t, alice, 'name=work&tool=codex')
		expect(res.status).toBe(200)
		expect(keys(res.body)).toEqual(['data', 'hash', 'id', 'name', 'tool', 'updatedAt', 'version'])
		expect(res.body).toMatchObject({ name: 'work', tool: 'codex', version: 1, data: { a: 1 } })
		expect(res.body.hash).toMatch(/^[0-9a-f]{64}$/)
		expect((await latest(t, alice, 'name=work&tool=cursor')).status).toBe(404)
		expect((await latest(t, alice, 'name=nope&tool=codex')).body.code).toBe('not_found')
		for (const query of [
			'name=work',
			'tool=codex',
			'',
			'name=work&tool=nano',
			'name=bad%20name&tool=codex',
			'name=work&tool=codex&teamId=zzz'
		]) {
			const bad = await latest(t, alice, query)
			expect({ query, status: bad.status }).toEqual({ query, status: 400 })
		}
	})

	test('GET /api/configs/:id is the full Config; someone else’s, unknown or malformed ids are 404', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const bob = await t.user('free')
		const created = await push(t, alice, { name: 'n', tool: 'gemini-cli', data: { k: 'v' } })
		const res = await t.call('GET', `/api/configs/${created.body.id}`, { key: alice.key })
		expect(res.status).toBe(200)
		expect(keys(res.body)).toEqual([
			'createdAt',
			'currentVersionId',
			'data',
			'hash',
			'id',
			'name',
			'teamId',
			'tool',
			'updatedAt',
			'userId',
			'version'
		])
		expect(res.body).toMatchObject({
			id: created.body.id,
			userId: alice.id,
			teamId: null,
			name: 'n',
			tool: 'gemini-cli',
			version: 1,
			data: { k: 'v' }
		})
		const other = await t.call('GET', `/api/configs/${created.body.id}`, { key: bob.key })
		const unknown = await t.call('GET', '/api/configs/01890000-0000-7000-8000-000000000000', { key: bob.key })
		expect(other.status).toBe(404)
		// Someone else's config is indistinguishable from one that does not exist.
		expect(other.body).toEqual(unknown.body)
		expect((await t.call('GET', '/api/configs/not-a-uuid', { key: alice.key })).status).toBe(404)
	})

	test('DELETE /api/configs/:id: 204 with no body, the config and all its versions gone; others cannot', async () => {
		const t = testApp()
		const alice = await t.user('pro')
		const bob = await t.user('pro')
		const created = await push(t, alice, { data: { v: 1 } })
		await push(t, alice, { data: { v: 2 } })
		expect((await t.call('DELETE', `/api/configs/${created.body.id}`, { key: bob.key })).status).toBe(404)
		expect((await t.call('GET', `/api/configs/${created.body.id}`, { key: alice.key })).status).toBe(200)
		const res = await t.call('DELETE', `/api/configs/${created.body.id}`, { key: alice.key })
		expect(res.status).toBe(204)
		expect(res.text).toBe('')
		expect((await t.call('GET', `/api/configs/${created.body.id}`, { key: alice.key })).status).toBe(404)
		expect(await t.store.configs.listVersions(created.body.id)).toEqual([])
		expect((await t.call('DELETE', `/api/configs/${created.body.id}`, { key: alice.key })).status).toBe(404)
		// The name is free again: the next push starts over at version 1.
		expect((await push(t, alice, { data: { v: 3 } })).body.version).toBe(1)
	})
})

describe('version history and rollback (Pro and Team plans)', () => {
	async function withHistory(plan: 'pro' | 'team' = 'pro') {
		const t = testApp()
		const alice = await t.user(plan)
		const ids: string[] = []
		for (const v of [1, 2, 3]) {
			t.clock.advance(1000)
			ids.push((await push(t, alice, { data: { v } })).body.id)
		}
		return { t, alice, configId: ids[0] as string }
	}

	test('versions are listed highest first, exactly one current, with id, version, hash, data, createdAt, isCurrent', async () => {
		const { t, alice, configId } = await withHistory()
		const res = await t.call('GET', `/api/configs/${configId}/versions`, { key: alice.key })
		expect(res.status).toBe(200)
		expect(res.body.map((v: { version: number }) => v.version)).toEqual([3, 2, 1])
		expect(res.body.map((v: { data: unknown }) => v.data)).toEqual([{ v: 3 }, { v: 2 }, { v: 1 }])
		expect(res.body.filter((v: { isCurrent: boolean }) => v.isCurrent)).toHaveLength(1)
		expect(res.body[0].isCurrent).toBe(true)
		for (const version of res.body)
			expect(keys(version)).toEqual(['createdAt', 'data', 'hash', 'id', 'isCurrent', 'version'])
		const config = await t.call('GET', `/api/configs/${configId}`, { key: alice.key })
		expect(res.body[0].id).toBe(config.body.currentVersionId)
		expect(res.body[0].hash).toBe(config.body.hash)
	})

	test('a long history streams whole and in order; limit and before page through it', async () => {
		const t = testApp()
		const alice = await t.user('pro')
		let id = ''
		for (let v = 1; v <= 25; v++) id = (await push(t, alice, { data: { v, text: 'y'.repeat(v * 100) } })).body.id
		const all = await t.call('GET', `/api/configs/${id}/versions`, { key: alice.key })
		expect(all.status).toBe(200)
		expect(all.headers.get('content-type')).toContain('application/json')
		expect(all.body.map((v: { version: number }) => v.version)).toEqual(Array.from({ length: 25 }, (_, i) => 25 - i))
		expect(all.body.map((v: { data: { v: number } }) => v.data.v)).toEqual(Array.from({ length: 25 }, (_, i) => 25 - i))
		expect(
			all.body.filter((v: { isCurrent: boolean }) => v.isCurrent).map((v: { version: number }) => v.version)
		).toEqual([25])
		const versions = (query: string) => t.call('GET', `/api/configs/${id}/versions?${query}`, { key: alice.key })
		const numbers = async (query: string) => (await versions(query)).body.map((v: { version: number }) => v.version)
		expect(await numbers('limit=10')).toEqual([25, 24, 23, 22, 21, 20, 19, 18, 17, 16])
		expect(await numbers('limit=10&before=16')).toEqual([15, 14, 13, 12, 11, 10, 9, 8, 7, 6])
		expect(await numbers('before=3')).toEqual([2, 1])
		expect(await numbers('before=1')).toEqual([])
		for (const bad of ['limit=0', 'limit=abc', 'before=-2', 'limit=1001'])
			expect((await versions(bad)).status).toBe(400)
	})

	test('a history longer than 100 comes in pages of 100 by default, each pointing to the next with Link (docs/api.md, "Pages")', async () => {
		const t = testApp()
		const alice = await t.user('pro')
		let id = ''
		for (let v = 1; v <= 100; v++) {
			t.clock.advance(1000)
			id = (await push(t, alice, { data: { v } })).body.id
		}
		const get = (path: string) => t.call('GET', path, { key: alice.key })
		const exactly100 = await get(`/api/configs/${id}/versions`)
		expect(exactly100.body).toHaveLength(100)
		expect(exactly100.headers.get('link')).toBeNull()
		// A second apart: within CFGSYNC_QUOTA_PUSHES_PER_MINUTE (docs/operations.md).
		for (let v = 101; v <= 205; v++) {
			t.clock.advance(1000)
			expect((await push(t, alice, { data: { v } })).status).toBe(200)
		}
		const seen: number[] = []
		let path: string | undefined = `/api/configs/${id}/versions`
		let pages = 0
		while (path) {
			const page = await get(path)
			expect(page.status).toBe(200)
			seen.push(...page.body.map((v: { version: number }) => v.version))
			pages++
			const link = page.headers.get('link')
			path = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined
			if (link) expect(path).toBeDefined()
		}
		expect(pages).toBe(3)
		expect(seen).toEqual(Array.from({ length: 205 }, (_, i) => 205 - i))
		const small = await get(`/api/configs/${id}/versions?limit=5&before=6`)
		expect(small.body.map((v: { version: number }) => v.version)).toEqual([5, 4, 3, 2, 1])
		expect(small.headers.get('link')).toBeNull()
		const middle = await get(`/api/configs/${id}/versions?limit=5&before=7`)
		expect(middle.headers.get('link')).toBe(`</api/configs/${id}/versions?limit=5&before=2>; rel="next"`)
	})

	test('one version by id; a version of another config is 404', async () => {
		const { t, alice, configId } = await withHistory('team')
		const versions = (await t.call('GET', `/api/configs/${configId}/versions`, { key: alice.key })).body
		const one = await t.call('GET', `/api/configs/${configId}/versions/${versions[2].id}`, { key: alice.key })
		expect(one.status).toBe(200)
		expect(one.body).toEqual({ ...versions[2] })
		const other = (await push(t, alice, { name: 'other', data: {} })).body.id
		expect((await t.call('GET', `/api/configs/${other}/versions/${versions[2].id}`, { key: alice.key })).status).toBe(
			404
		)
		expect((await t.call('GET', `/api/configs/${configId}/versions/not-a-uuid`, { key: alice.key })).status).toBe(404)
	})

	test('rollback makes a new current version with the target data and hash; the response has exactly id, version, hash, createdAt, isCurrent', async () => {
		const { t, alice, configId } = await withHistory()
		const versions = (await t.call('GET', `/api/configs/${configId}/versions`, { key: alice.key })).body
		const target = versions[2]
		t.clock.advance(5000)
		const res = await t.call('POST', `/api/configs/${configId}/rollback`, {
			key: alice.key,
			body: { versionId: target.id }
		})
		expect(res.status).toBe(200)
		expect(keys(res.body)).toEqual(['createdAt', 'hash', 'id', 'isCurrent', 'version'])
		expect(res.body).toMatchObject({
			version: 4,
			hash: target.hash,
			isCurrent: true,
			createdAt: new Date(t.clock.now()).toISOString()
		})
		expect(res.body.id).not.toBe(target.id)
		const now = await latest(t, alice, 'name=default&tool=claude-code')
		expect(now.body).toMatchObject({ version: 4, data: { v: 1 }, hash: target.hash })
		const after = (await t.call('GET', `/api/configs/${configId}/versions`, { key: alice.key })).body
		expect(after.map((v: { version: number }) => v.version)).toEqual([4, 3, 2, 1])
		// Rolling back to the current version still makes a new version.
		const again = await t.call('POST', `/api/configs/${configId}/rollback`, {
			key: alice.key,
			body: { versionId: res.body.id }
		})
		expect(again.body.version).toBe(5)
		// Pushing the rolled-back data is then no change.
		expect((await push(t, alice, { data: { v: 1 } })).body.noChange).toBe(true)
	})

	test('rollback errors: versionId required and a UUID (400), of this config (404)', async () => {
		const { t, alice, configId } = await withHistory()
		expect((await t.call('POST', `/api/configs/${configId}/rollback`, { key: alice.key, body: {} })).status).toBe(400)
		expect(
			(await t.call('POST', `/api/configs/${configId}/rollback`, { key: alice.key, body: { versionId: 'v1' } })).status
		).toBe(400)
		const other = (await push(t, alice, { name: 'other', data: {} })).body.id
		const otherVersion = (await t.call('GET', `/api/configs/${other}/versions`, { key: alice.key })).body[0].id
		expect(
			(await t.call('POST', `/api/configs/${configId}/rollback`, { key: alice.key, body: { versionId: otherVersion } }))
				.status
		).toBe(404)
		expect((await latest(t, alice, 'name=default&tool=claude-code')).body.version).toBe(3)
	})

	test('the free plan gets 403 plan_required on all three; another user’s config is 404 first', async () => {
		const t = testApp()
		const free = await t.user('free')
		const pro = await t.user('pro')
		const mine = (await push(t, free, { data: { a: 1 } })).body.id
		const theirs = (await push(t, pro, { data: { a: 1 } })).body.id
		const versionId = (await t.call('GET', `/api/configs/${theirs}/versions`, { key: pro.key })).body[0].id
		const calls = (id: string): [string, string, unknown?][] => [
			['GET', `/api/configs/${id}/versions`],
			['GET', `/api/configs/${id}/versions/${versionId}`],
			['POST', `/api/configs/${id}/rollback`, { versionId }]
		]
		for (const [method, path, body] of calls(mine)) {
			const res = await t.call(method, path, { key: free.key, body })
			expect({ path, status: res.status, code: res.body.code, plan: res.body.plan }).toEqual({
				path,
				status: 403,
				code: 'plan_required',
				plan: 'pro'
			})
		}
		for (const [method, path, body] of calls(theirs)) {
			expect((await t.call(method, path, { key: free.key, body })).status).toBe(404)
		}
	})

	test('a plan the admin changes applies to the next request with the same key', async () => {
		const t = testApp()
		const user = await t.user('free')
		const id = (await push(t, user, { data: { a: 1 } })).body.id
		expect((await t.call('GET', `/api/configs/${id}/versions`, { key: user.key })).status).toBe(403)
		await t.store.users.setPlan(user.id, 'pro')
		expect((await t.call('GET', `/api/configs/${id}/versions`, { key: user.key })).status).toBe(200)
		expect((await t.call('POST', '/api/teams', { key: user.key, body: { name: 'Ops' } })).body.code).toBe(
			'plan_required'
		)
		await t.store.users.setPlan(user.id, 'team')
		expect((await t.call('POST', '/api/teams', { key: user.key, body: { name: 'Ops' } })).status).toBe(201)
	})
})

describe('conditional requests for sync clients (docs/api.md)', () => {
	test('reads send a strong ETag; a matching If-None-Match gets 304 with no body', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const id = (await push(t, alice, { data: { a: 1 } })).body.id
		for (const path of ['/api/configs/latest?name=default&tool=claude-code', `/api/configs/${id}`]) {
			const res = await t.call('GET', path, { key: alice.key })
			const etag = res.headers.get('etag')
			expect(etag).toBe(`"${res.body.hash}"`)
			for (const header of [etag as string, `"other", ${etag}`, `W/${etag}`, '*']) {
				const cached = await t.call('GET', path, { key: alice.key, headers: { 'if-none-match': header } })
				expect({ header, status: cached.status }).toEqual({ header, status: 304 })
				expect(cached.text).toBe('')
				expect(cached.headers.get('etag')).toBe(etag)
			}
			expect((await t.call('GET', path, { key: alice.key, headers: { 'if-none-match': '"stale"' } })).status).toBe(200)
		}
		// The ETag follows the content.
		await push(t, alice, { data: { a: 2 } })
		const moved = await latest(t, alice, 'name=default&tool=claude-code')
		expect(moved.headers.get('etag')).toBe(`"${moved.body.hash}"`)
	})

	test('If-Match: a push from a stale base is 412 with the current version and hash, and stores nothing', async () => {
		const t = testApp()
		const alice = await t.user('pro')
		const base = await push(t, alice, { data: { from: 'laptop' } })
		const baseHash = base.headers.get('etag') as string
		await push(t, alice, { data: { from: 'desktop' } })
		const stale = await push(t, alice, { data: { from: 'laptop again' } }, { 'if-match': baseHash })
		expect(stale.status).toBe(412)
		const current = await latest(t, alice, 'name=default&tool=claude-code')
		expect(stale.body).toEqual({
			error: expect.any(String),
			code: 'precondition_failed',
			currentVersion: 2,
			currentHash: current.body.hash
		})
		// Even data equal to the current data is refused when the base is stale.
		expect((await push(t, alice, { data: { from: 'desktop' } }, { 'if-match': baseHash })).status).toBe(412)
		expect((await t.call('GET', `/api/configs/${base.body.id}/versions`, { key: alice.key })).body).toHaveLength(2)
		const fresh = await push(t, alice, { data: { from: 'laptop again' } }, { 'if-match': `"${current.body.hash}"` })
		expect(fresh).toMatchObject({ status: 200, body: { version: 3 } })
	})

	test('If-Match on a config that does not exist is 412 with nulls; If-None-Match: * makes a push create-only', async () => {
		const t = testApp()
		const alice = await t.user('free')
		const missing = await push(t, alice, { data: {} }, { 'if-match': '"abc"' })
		expect(missing.status).toBe(412)
		expect(missing.body).toMatchObject({ currentVersion: null, currentHash: null })
		expect((await t.call('GET', '/api/configs', { key: alice.key })).body).toEqual([])
		expect((await push(t, alice, { data: { a: 1 } }, { 'if-none-match': '*' })).status).toBe(201)
		const exists = await push(t, alice, { data: { a: 2 } }, { 'if-none-match': '*' })
		expect(exists.status).toBe(412)
		expect(exists.body.currentVersion).toBe(1)
	})

	test('checks come in the documented order (docs/api.md): bad input 400 before a failing precondition', async () => {
		const t = testApp()
		const alice = await t.user('free')
		expect((await push(t, alice, { data: [1] }, { 'if-match': '"x"' })).status).toBe(400)
	})
})

describe('GET /api/configs in pages (docs/api.md, "Pages")', () => {
	test('100 configs by default, then a Link to the rest; every config once, by name and tool', async () => {
		const t = testApp()
		const alice = await t.user('pro')
		const names = Array.from({ length: 103 }, (_, i) => `c${String(i).padStart(3, '0')}`)
		for (const name of names) await push(t, alice, { name, data: { name } })
		await push(t, alice, { name: 'c000', tool: 'vscode', data: {} })
		const first = await t.call('GET', '/api/configs', { key: alice.key })
		expect(first.body).toHaveLength(100)
		const link = first.headers.get('link') as string
		expect(link).toBe('</api/configs?limit=100&after=c098%3Aclaude-code>; rel="next"')
		const path = /^<([^>]+)>/.exec(link)?.[1] as string
		const second = await t.call('GET', path, { key: alice.key })
		expect(second.headers.get('link')).toBeNull()
		const all = [...first.body, ...second.body].map((c: { name: string; tool: string }) => `${c.name}/${c.tool}`)
		expect(all).toEqual(['c000/claude-code', 'c000/vscode', ...names.slice(1).map((name) => `${name}/claude-code`)])
		const small = await t.call('GET', '/api/configs?limit=2&after=c000%3Aclaude-code', { key: alice.key })
		expect(small.body.map((c: { name: string; tool: string }) => `${c.name}/${c.tool}`)).toEqual([
			'c000/vscode',
			'c001/claude-code'
		])
		for (const bad of ['limit=0', 'limit=1001', 'after=nope', 'after=a%3AB'])
			expect((await t.call('GET', `/api/configs?${bad}`, { key: alice.key })).status).toBe(400)
	})

	test("a team's list keeps its teamId in the next link", async () => {
		const t = testApp()
		const alice = await t.user('team')
		const team = (await t.call('POST', '/api/teams', { key: alice.key, body: { name: 'Acme' } })).body
		for (const name of ['a', 'b', 'c']) await push(t, alice, { name, teamId: team.id, data: {} })
		const first = await t.call('GET', `/api/configs?teamId=${team.id}&limit=2`, { key: alice.key })
		expect(first.body.map((c: { name: string }) => c.name)).toEqual(['a', 'b'])
		const path = /^<([^>]+)>/.exec(first.headers.get('link') as string)?.[1] as string
		expect(path).toContain(`teamId=${team.id}`)
		const second = await t.call('GET', path, { key: alice.key })
		expect(second.body.map((c: { name: string }) => c.name)).toEqual(['c'])
	})
})
