// "Create team" with its optional "Slug" (docs/web.md), checked by the API's own schema.
import { describe, expect, test } from 'bun:test'
import { shownAfter, webApp } from '../../support/web'

describe('creating a team on the web', () => {
	test('with a slug of your own, or one made from the name; a taken or reserved slug is said by the field, with the form kept', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const a = await w.signIn(alice)
		const chosen = await w.post('/teams', a, { name: 'Platform Team', slug: 'plat' })
		expect(chosen.status).toBe(303)
		expect(chosen.headers.get('location')).toBe('/teams/plat?notice=created')
		expect((await w.call('GET', '/api/teams/plat', { key: alice.key })).body).toMatchObject({
			name: 'Platform Team',
			userRole: 'owner'
		})
		const made = await w.post('/teams', a, { name: 'Ünïcode Crew', slug: '' })
		expect(made.headers.get('location')).toBe('/teams/unicode-crew?notice=created')
		const taken = await w.post('/teams', a, { name: 'Another', slug: 'plat' })
		const shown = await shownAfter(w, a, taken)
		expect(shown.html).toContain('class="alert inline field-error"')
		expect(shown.html).toContain('value="Another"')
		expect(shown.html).toContain('value="plat"')
		for (const slug of ['Not A Slug', '-x', 'a'.repeat(51)]) {
			const bad = await w.post('/teams', a, { name: 'Bad', slug })
			expect((await shownAfter(w, a, bad)).html).toContain('id="team-slug-error"')
		}
		expect((await shownAfter(w, a, await w.post('/teams', a, { name: '   ' }))).html).toContain('id="team-name-error"')
	})

	test('the plan rule holds on the web too: only the Team plan creates teams', async () => {
		const w = webApp()
		const pro = await w.user('pro', 'pat')
		const refused = await w.post('/teams', await w.signIn(pro), { name: 'Nope', slug: 'nope' })
		expect(refused.status).toBe(403)
		expect((await w.call('GET', '/api/teams/nope', { key: pro.key })).status).toBe(404)
	})
})

describe("a large team's page", () => {
	test('lists all 102 members though the API answers a team with its first 100 (CONTRACT §16)', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Big', slug: 'big' } })
		for (let i = 0; i < 101; i++) await w.join(alice, 'big', await w.user('pro', `member${String(i).padStart(3, '0')}`))
		const shown = await w.get('/teams/big', await w.signIn(alice))
		expect(shown.status).toBe(200)
		expect(shown.html).toContain('member000')
		expect(shown.html).toContain('member100')
	})
})
