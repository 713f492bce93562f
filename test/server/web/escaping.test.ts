// docs/web.md: config data is always inert text; so are team names, device names and
// everything else people type. A <script> in any of them reaches the page as text.
import { describe, expect, test } from 'bun:test'
import { push, setCookieOf, shownAfter, textOf, webApp } from '../../support/web'

const SCRIPT = '<script>alert(1)</script>'
const ATTRIBUTE = '"><img src=x onerror=alert(1)>'

/** No live markup from the data: the raw strings never appear, their escaped text does. */
function expectInert(html: string) {
	expect(html).not.toContain(SCRIPT)
	expect(html).not.toContain('<img src=x')
	expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/)
}

describe('escaping (docs/web.md: config data is inert text)', () => {
	test('config data, file paths, team names and device names with markup stay text on every page that shows them', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const bob = await w.user('team', 'bob')
		// A device name with markup (devices are named by whoever logs in).
		const login = await w.call('POST', '/api/auth/login', {
			body: { login: 'alice', password: alice.password, device: `${SCRIPT}${ATTRIBUTE}` }
		})
		expect(login.status).toBe(201)
		const team = await w.call('POST', '/api/teams', { key: alice.key, body: { name: `${SCRIPT} crew` } })
		expect(team.status).toBe(201)
		await w.call('POST', `/api/teams/${team.body.slug}/members`, {
			key: alice.key,
			body: { login: 'bob', role: 'member' }
		})
		const files = {
			files: { [`${SCRIPT}.md`]: `${SCRIPT}\n${ATTRIBUTE}\n`, 'settings.json': '{"a": "</pre><script>x</script>"}' }
		}
		const id = await push(w, alice, files, { name: 'tricky' })
		await push(w, alice, { files: { [`${SCRIPT}.md`]: `${SCRIPT}\nchanged ${ATTRIBUTE}\n` } }, { name: 'tricky' })
		const plain = await push(w, alice, `${SCRIPT} a string config`, { name: 'plain' })
		const object = await push(w, alice, { key: SCRIPT, [ATTRIBUTE]: [SCRIPT] }, { name: 'object' })
		const teamConfig = await push(w, alice, { note: SCRIPT }, { name: 'team-one', teamId: team.body.id })
		const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as { id: string }[]

		const a = await w.signIn(alice)
		const b = await w.signIn(bob)
		const shown: [string, typeof a][] = [
			['/configs', a],
			[`/configs/${id}`, a],
			[`/configs/${id}/compare?from=${versions[1]!.id}&to=${versions[0]!.id}`, a],
			[`/configs/${id}/compare?from=${versions[1]!.id}&to=${versions[0]!.id}&view=split`, a],
			[`/configs/${plain}`, a],
			[`/configs/${object}`, a],
			[`/configs/${teamConfig}`, a],
			['/devices', a],
			['/teams', a],
			[`/teams/${team.body.slug}`, a],
			[`/teams/${team.body.slug}/activity`, a],
			['/activity', a],
			['/teams', b]
		]
		for (const [path, who] of shown) {
			const page = await w.get(path, who)
			expect({ path, status: page.status }).toEqual({ path, status: 200 })
			expectInert(page.html)
		}
		// …and a person reads exactly what was stored.
		expect(textOf((await w.get(`/configs/${id}`, a)).html)).toContain(`${SCRIPT} changed ${ATTRIBUTE}`)
		expect(textOf((await w.get('/devices', a)).html)).toContain(`${SCRIPT}${ATTRIBUTE}`)
		expect(textOf((await w.get('/teams', b)).html)).toContain(`${SCRIPT} crew`)
		expect(textOf((await w.get(`/configs/${plain}`, a)).html)).toContain(`${SCRIPT} a string config`)
	})

	test('what a person typed into a form comes back as text when the form is shown again', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const a = await w.signIn(alice)
		const refused = await w.post('/sign-in', undefined, { login: `${SCRIPT}${ATTRIBUTE}`, password: 'wrong password' })
		expect(refused.status).toBe(303)
		const failed = await w.get('/', undefined, {
			cookie: `cfgsync_entry_form=${setCookieOf(refused, 'cfgsync_entry_form')}`
		})
		expectInert(failed.html)
		expect(failed.html).toContain('role="alert"')
		const team = await shownAfter(w, a, await w.post('/teams', a, { name: 'x', slug: `${ATTRIBUTE}` }))
		expect(team.html).toContain('id="team-slug-error"')
		expectInert(team.html)
		const invite = await w.post('/teams', a, { name: 'Crew' })
		expect(invite.status).toBe(303)
		const unknown = await shownAfter(w, a, await w.post('/teams/crew/members', a, { login: SCRIPT, role: 'member' }))
		expect(unknown.html).toContain('id="invite-login-error"')
		expectInert(unknown.html)
	})
})
