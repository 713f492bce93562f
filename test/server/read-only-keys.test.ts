import { describe, expect, test } from 'bun:test'
import { textOf, webApp } from '../support/web'

/**
 * docs/api.md "keys with a scope": a read-only key reads and streams but never writes; every write answers
 * 403 read_only_key. What a CI job should hold: a leaked one cannot change anything.
 */
describe('read-only keys (docs/client.md, "Read-only keys for CI")', () => {
	async function world() {
		const t = webApp()
		const alice = await t.user('team', 'alice')
		const team = (await t.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).body
		const pushed = await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'p', data: { v: 1 } } })
		await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'p', data: { v: 2 } } })
		const versions = (await t.call('GET', `/api/configs/${pushed.body.id}/versions`, { key: alice.key })).body
		const login = await t.call('POST', '/api/auth/login', {
			body: { login: 'alice', password: alice.password, device: 'ci', scope: 'read-only' }
		})
		return { t, alice, team, configId: pushed.body.id as string, oldVersionId: versions[1].id as string, login }
	}

	test('login with scope read-only gives a key that says so, in the answer and among the devices', async () => {
		const { t, alice, login } = await world()
		expect(login.status).toBe(201)
		expect(login.body).toMatchObject({ device: 'ci' })
		const keys = (await t.call('GET', '/api/keys', { key: alice.key })).body as { device: string; scope: string }[]
		expect(keys.map((key) => [key.device, key.scope]).sort()).toEqual([
			['ci', 'read-only'],
			['test', 'read-write']
		])
		// Without a scope a login gives a key that reads and writes, as before.
		const full = await t.call('POST', '/api/auth/login', {
			body: { login: 'alice', password: alice.password, device: 'laptop' }
		})
		const scopes = (await t.call('GET', '/api/keys', { key: full.body.apiKey })).body.map(
			(key: { device: string; scope: string }) => `${key.device} ${key.scope}`
		)
		expect(scopes).toContain('laptop read-write')
		const bad = await t.call('POST', '/api/auth/login', {
			body: { login: 'alice', password: alice.password, device: 'x', scope: 'admin' }
		})
		expect(bad.status).toBe(400)
		expect(bad.body.details[0].path).toBe('scope')
	})

	test('reads and the event stream work; every write answers 403 read_only_key and changes nothing', async () => {
		const { t, team, configId, oldVersionId, login } = await world()
		const key = login.body.apiKey as string
		for (const path of [
			'/api/me',
			'/api/configs',
			'/api/configs/latest?name=p&tool=claude-code',
			`/api/configs/${configId}`,
			`/api/configs/${configId}/versions`,
			`/api/configs/${configId}/versions/${oldVersionId}`,
			'/api/teams',
			`/api/teams/${team.slug}`,
			'/api/keys',
			'/api/invitations',
			'/api/audit'
		]) {
			const res = await t.call('GET', path, { key })
			expect({ path, status: res.status }).toEqual({ path, status: 200 })
		}
		const stream = await t.app.handle(
			new Request('http://localhost/api/events', { headers: { authorization: `Bearer ${key}` } })
		)
		expect(stream.status).toBe(200)
		expect(stream.headers.get('content-type')).toContain('text/event-stream')
		await stream.body?.cancel()

		const writes: [string, string, unknown?][] = [
			['POST', '/api/configs', { name: 'p', data: { v: 3 } }],
			['POST', '/api/configs', { name: 'new', data: { v: 1 } }],
			['POST', `/api/configs/${configId}/rollback`, { versionId: oldVersionId }],
			['DELETE', `/api/configs/${configId}`],
			['POST', '/api/teams', { name: 'Other' }],
			['PATCH', `/api/teams/${team.slug}`, { name: 'Renamed' }],
			['POST', `/api/teams/${team.slug}/members`, { login: 'nobody-here', role: 'member' }],
			['DELETE', `/api/teams/${team.slug}`],
			['POST', `/api/invitations/${team.slug}/accept`],
			['DELETE', `/api/invitations/${team.slug}`],
			['DELETE', `/api/keys/${login.body.id}`]
		]
		for (const [method, path, body] of writes) {
			const res = await t.call(method, path, { key, body })
			expect({ method, path, status: res.status, code: res.body?.code }).toEqual({
				method,
				path,
				status: 403,
				code: 'read_only_key'
			})
			// The refusal says what to do next.
			expect(res.body.error).toMatch(/read-only/)
			expect(res.body.error).toMatch(/cfgsync login/)
		}
		const after = await t.call('GET', `/api/configs/${configId}`, { key })
		expect(after.body.version).toBe(2)
		expect((await t.call('GET', '/api/teams', { key })).body.map((x: { name: string }) => x.name)).toEqual(['Crew'])
		// Signing itself out only takes away its own access: allowed.
		expect((await t.call('POST', '/api/auth/logout', { key })).status).toBe(204)
		expect((await t.call('GET', '/api/me', { key })).status).toBe(401)
	})

	test('the web Devices page shows each key’s scope', async () => {
		const { t, alice } = await world()
		const browser = await t.signIn(alice)
		const page = await t.get('/devices', browser)
		expect(page.status).toBe(200)
		const rows = [...page.html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((row) => textOf(row[1] ?? ''))
		expect(rows.find((row) => row.includes('ci'))).toMatch(/read-only/i)
		expect(rows.find((row) => row.includes('test'))).toMatch(/read and write/i)
	})
})
