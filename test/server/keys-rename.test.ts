// docs/api.md PATCH /api/keys/:id: a device gets another name and keeps its key; the name rules are a login's.
import { describe, expect, test } from 'bun:test'
import { testApp } from '../support/helpers'

const login = async (t: ReturnType<typeof testApp>, username: string, password: string, device: string) => {
	const answer = await t.call('POST', '/api/auth/login', { body: { login: username, password, device } })
	expect(answer.status).toBe(201)
	return answer.body as { apiKey: string; id: string }
}

describe('renaming a device (PATCH /api/keys/:id)', () => {
	test('200 with the key as GET /api/keys lists it; the key keeps working, the list shows the new name, the audit log says who renamed what', async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		const laptop = await login(t, 'alice', alice.password, 'laptop')
		const renamed = await t.call('PATCH', `/api/keys/${laptop.id}`, {
			key: alice.key,
			body: { name: '  work laptop ' }
		})
		expect(renamed.status).toBe(200)
		expect(renamed.body).toEqual({
			id: laptop.id,
			device: 'work laptop',
			createdAt: expect.any(String),
			lastUsedAt: null,
			current: false,
			scope: 'read-write'
		})
		// Renaming the key a request comes with says so, as GET /api/keys does.
		const self = await t.call('PATCH', `/api/keys/${laptop.id}`, { key: laptop.apiKey, body: { name: 'work laptop' } })
		expect(self.body).toMatchObject({ device: 'work laptop', current: true })
		const listed = await t.call('GET', '/api/keys', { key: alice.key })
		expect((listed.body as { device: string }[]).map((key) => key.device).sort()).toEqual(['test', 'work laptop'])
		expect((await t.call('GET', '/api/me', { key: laptop.apiKey })).status).toBe(200)
		const events = await t.call('GET', '/api/audit?type=key.renamed', { key: alice.key })
		expect(events.body).toHaveLength(1)
		expect(events.body[0]).toMatchObject({
			type: 'key.renamed',
			actor: { username: 'alice', device: 'test' },
			target: { type: 'key', id: laptop.id, name: 'work laptop' },
			details: { from: 'laptop' }
		})
		// A login under the old name is a new device now: the renamed key stays.
		await login(t, 'alice', alice.password, 'laptop')
		expect((await t.call('GET', '/api/me', { key: laptop.apiKey })).status).toBe(200)
	})

	test("another user's key and an unknown id are 404 (never 403), and nothing changes", async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		const bob = await t.user('pro', 'bob')
		const bobs = await login(t, 'bob', bob.password, 'desktop')
		const theirs = await t.call('PATCH', `/api/keys/${bobs.id}`, { key: alice.key, body: { name: 'mine now' } })
		expect(theirs.status).toBe(404)
		expect(theirs.body.code).toBe('not_found')
		const unknown = await t.call('PATCH', '/api/keys/00000000-0000-4000-8000-000000000000', {
			key: alice.key,
			body: { name: 'x' }
		})
		expect(unknown.status).toBe(404)
		const listed = await t.call('GET', '/api/keys', { key: bob.key })
		expect((listed.body as { device: string }[]).map((key) => key.device).sort()).toEqual(['desktop', 'test'])
		expect((await t.call('GET', '/api/audit?type=key.renamed', { key: bob.key })).body).toEqual([])
	})

	test("bad names are 400 invalid_request naming the field, with a login's rules; a name another device has is 409", async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		const laptop = await login(t, 'alice', alice.password, 'laptop')
		const rename = (body: unknown) => t.call('PATCH', `/api/keys/${laptop.id}`, { key: alice.key, body })
		for (const body of [
			{},
			{ name: '' },
			{ name: '   ' },
			{ name: 7 },
			{ name: 'x'.repeat(101) },
			{ name: 'evil\u202Egnp.exe' },
			{ name: 'tab\there' }
		]) {
			const refused = await rename(body)
			expect({ body, status: refused.status, code: refused.body.code }).toEqual({
				body,
				status: 400,
				code: 'invalid_request'
			})
			expect(refused.body.details[0].path).toContain('name')
		}
		expect((await rename('not json')).status).toBe(400)
		// An id that is no key id is no key (as for DELETE): 404.
		expect((await t.call('PATCH', '/api/keys/not-an-id', { key: alice.key, body: { name: 'x' } })).status).toBe(404)
		expect((await t.call('DELETE', '/api/keys/not-an-id', { key: alice.key })).status).toBe(404)
		// At most 100 characters as a person counts them, stored composed (NFC) as a login's device is.
		expect((await rename({ name: '😀'.repeat(100) })).status).toBe(200)
		expect((await rename({ name: 'Cafe\u0301' })).body.device).toBe('Caf\u00e9')
		const taken = await rename({ name: 'test' })
		expect(taken.status).toBe(409)
		expect(taken.body.code).toBe('conflict')
		expect(taken.body.error).toContain('Another of your devices is named "test"')
		// Its own name again changes nothing and is no clash.
		expect((await rename({ name: 'Caf\u00e9' })).status).toBe(200)
		const listed = await t.call('GET', '/api/keys', { key: alice.key })
		expect((listed.body as { device: string }[]).map((key) => key.device).sort()).toEqual(['Caf\u00e9', 'test'])
	})

	test('a read-only key renames nothing (403 read_only_key)', async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		const ci = await t.call('POST', '/api/auth/login', {
			body: { login: 'alice', password: alice.password, device: 'ci', scope: 'read-only' }
		})
		const refused = await t.call('PATCH', `/api/keys/${ci.body.id}`, { key: ci.body.apiKey, body: { name: 'x' } })
		expect(refused.status).toBe(403)
		expect(refused.body.code).toBe('read_only_key')
	})
})
