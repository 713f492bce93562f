import { describe, expect, test } from 'bun:test'
import { webApp } from '../support/web'

/**
 * docs/api.md: names shown to other people refuse Unicode format characters (a right-to-left override makes
 * "gpj.exe" read as "exe.jpg"; a zero-width space makes two names look the same) and are stored in NFC,
 * with a 400 that names the field.
 */
const FORMAT_CHARACTERS = ['\u202e', '\u200b', '\u200d', '\u2066', '\ufeff', '\u00ad']
const DECOMPOSED = 'Cafe\u0301' // "Café" as e + combining acute accent
const COMPOSED = 'Caf\u00e9'

describe('names refuse format characters and are stored in NFC', () => {
	test('team names: create and rename through the API', async () => {
		const t = webApp()
		const owner = await t.user('team', 'owner')
		for (const hidden of FORMAT_CHARACTERS) {
			const name = `Pay${hidden}roll`
			const created = await t.call('POST', '/api/teams', { key: owner.key, body: { name } })
			expect({ name, status: created.status, code: created.body.code }).toEqual({
				name,
				status: 400,
				code: 'invalid_request'
			})
			expect(created.body.details.map((detail: { path: string }) => detail.path)).toEqual(['name'])
		}
		const created = await t.call('POST', '/api/teams', { key: owner.key, body: { name: DECOMPOSED } })
		expect(created.status).toBe(201)
		expect(created.body.name).toBe(COMPOSED)
		expect((await t.call('GET', `/api/teams/${created.body.slug}`, { key: owner.key })).body.name).toBe(COMPOSED)
		const renamed = await t.call('PATCH', `/api/teams/${created.body.slug}`, {
			key: owner.key,
			body: { name: 'Admins\u202e' }
		})
		expect(renamed.status).toBe(400)
		expect(renamed.body.details[0].path).toBe('name')
		const decomposedAgain = await t.call('PATCH', `/api/teams/${created.body.slug}`, {
			key: owner.key,
			body: { name: `Le ${DECOMPOSED}` }
		})
		expect(decomposedAgain.body.name).toBe(`Le ${COMPOSED}`)
	})

	test('device names at login', async () => {
		const t = webApp()
		const alice = await t.user('team', 'alice')
		for (const hidden of FORMAT_CHARACTERS) {
			const res = await t.call('POST', '/api/auth/login', {
				body: { login: alice.username, password: alice.password, device: `lap${hidden}top` }
			})
			expect({ hidden, status: res.status }).toEqual({ hidden, status: 400 })
			expect(res.body.details.map((detail: { path: string }) => detail.path)).toEqual(['device'])
		}
		const res = await t.call('POST', '/api/auth/login', {
			body: { login: alice.username, password: alice.password, device: DECOMPOSED }
		})
		expect(res.status).toBe(201)
		expect(res.body.device).toBe(COMPOSED)
		const keys = await t.call('GET', '/api/keys', { key: res.body.apiKey })
		expect(keys.body.map((key: { device: string }) => key.device)).toContain(COMPOSED)
	})

	test('the web form "Create team" shows the refusal next to its field and creates nothing', async () => {
		const t = webApp()
		const owner = await t.user('team', 'owner')
		const browser = await t.signIn(owner)
		const page = await t.post('/teams', browser, { name: 'Pay\u202eroll' })
		// A failed post redirects to the form (post/redirect/get) or shows it at once; either way no team exists.
		expect(page.status).not.toBe(500)
		expect((await t.call('GET', '/api/teams', { key: owner.key })).body).toEqual([])
	})
})
