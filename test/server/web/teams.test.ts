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
		expect(chosen.headers.get('location')).toBe('/teams/plat')
		expect((await w.call('GET', '/api/teams/plat', { key: alice.key })).body).toMatchObject({
			name: 'Platform Team',
			userRole: 'owner'
		})
		const made = await w.post('/teams', a, { name: 'Ünïcode Crew', slug: '' })
		expect(made.headers.get('location')).toBe('/teams/unicode-crew')
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
	test('shows its members 100 at a time (docs/web.md), with links between the pages; every member is reachable', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Big', slug: 'big' } })
		const joined = []
		for (let i = 0; i < 101; i++) {
			const user = await w.user('pro', `member${String(i).padStart(3, '0')}`)
			await w.join(alice, 'big', user)
			joined.push(user)
		}
		const a = await w.signIn(alice)
		const first = await w.get('/teams/big', a)
		expect(first.status).toBe(200)
		// 102 in all: alice and member000–member098 here, the rest a link away.
		expect(first.html).toContain('member098')
		expect(first.html).not.toContain('member099')
		expect(first.html).toContain('You are the only owner')
		const more = /<a href="(\/teams\/big\?after=[^"#]+)(?:#[^"]*)?"[^>]*>More members<\/a>/.exec(first.html)
		expect(more).not.toBeNull()
		const second = await w.get((more?.[1] ?? '').replaceAll('&amp;', '&'), a)
		expect(second.status).toBe(200)
		expect(second.html).toContain('member099')
		expect(second.html).toContain('member100')
		expect(second.html).not.toContain('member098')
		expect(second.html).not.toContain('More members')
		expect(second.html).toContain('First members')
		// A member past the first page: asked about by name, and changed in place on the page they are on.
		const last = joined[100] as (typeof joined)[number]
		const asked = await w.get(`/teams/big/members/${last.id}/remove`, a)
		expect(asked.status).toBe(200)
		expect(asked.html).toContain('Remove member100 from Big')
		const changed = await w.post(
			`/teams/big/members/${last.id}/role`,
			a,
			{ role: 'admin' },
			{
				headers: {
					'hx-request': 'true',
					'hx-current-url': `http://localhost${(more?.[1] ?? '').replaceAll('&amp;', '&')}`
				}
			}
		)
		expect(changed.status).toBe(200)
		expect(changed.html).toContain('member100 is now an admin')
		expect(changed.html).toContain('member099')
		// With a second owner on the second page, alice is no longer the only one.
		await w.post(`/teams/big/members/${last.id}/role`, a, { role: 'owner' })
		expect((await w.get('/teams/big', a)).html).not.toContain('You are the only owner')
		expect((await w.get('/teams/big/leave', a)).status).toBe(200)
		// A cursor that is no cursor is the first page.
		expect((await w.get('/teams/big?after=nonsense', a)).html).toContain('member000')
	})
})
