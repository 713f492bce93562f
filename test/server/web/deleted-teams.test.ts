// Deleted teams on the web (docs/web.md): listed to their owners with the purge date and "Restore" until the purge,
// and a re-created name says which deleted team holds the slug. Both engines.
import { describe, expect, test } from 'bun:test'
import { redirectedTo, setCookieOf, shownAfter, webApp } from '../../support/web'

const DAY = 24 * 60 * 60 * 1000

async function deletedCrew() {
	const w = webApp()
	const alice = await w.user('team', 'alice')
	const ann = await w.user('team', 'ann')
	await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })
	await w.join(alice, 'crew', ann, 'admin')
	const a = await w.signIn(alice)
	const deletedAt = w.clock.now()
	const deleted = await w.post('/teams/crew/delete', a, { slug: 'crew' })
	expect(deleted.status).toBe(303)
	return { w, alice, ann, a, deletedAt, deleted }
}

describe('deleted teams on the Teams page', () => {
	test('deleting says it can be restored until the purge; its owner sees "Deleted — purged on DATE" and "Restore"', async () => {
		const { w, a, deletedAt, deleted } = await deletedCrew()
		const purgeDay = new Date(deletedAt + 30 * DAY).toISOString().slice(0, 10)
		const teams = await redirectedTo(w, deleted, a)
		expect(teams.status).toBe(200)
		expect(teams.html).toContain('restore it')
		expect(teams.html).toContain('30 days')
		expect(teams.html).toContain('Deleted teams')
		expect(teams.html).toContain(
			`Deleted — purged on <time datetime="${new Date(deletedAt + 30 * DAY).toISOString()}">${purgeDay}</time>`
		)
		expect(teams.html).toContain('action="/teams/crew/restore"')
		expect(teams.html).toContain('Restore<span class="visually-hidden"> Crew</span>')
	})

	test('"Restore" brings it back to its page, members and all; an admin of it sees no deleted team and may not restore', async () => {
		const { w, ann, a } = await deletedCrew()
		const b = await w.signIn(ann)
		expect((await w.get('/teams', b)).html).not.toContain('Deleted teams')
		const refused = await w.post('/teams/crew/restore', b)
		expect(refused.status).toBe(404)
		const restored = await w.post('/teams/crew/restore', a)
		expect(restored.status).toBe(303)
		expect(restored.headers.get('location')).toBe('/teams/crew')
		expect(setCookieOf(restored, 'cfgsync_notice')).toBe('restored')
		const page = await redirectedTo(w, restored, a)
		expect(page.status).toBe(200)
		expect(page.html).toContain('The team was restored')
		expect(page.html).toContain('ann')
		expect((await w.get('/teams', a)).html).not.toContain('Deleted teams')
		const activity = await w.get('/activity', a)
		expect(activity.html).toContain('You restored the deleted team <a href="/teams/crew">Crew</a>')
	})

	test('past its purge date it is no longer offered', async () => {
		const { w, alice, deletedAt } = await deletedCrew()
		w.clock.set(deletedAt + 30 * DAY + 1000)
		// A session lasts 30 days at most: signed in again.
		const a = await w.signIn(alice)
		expect((await w.get('/teams', a)).html).not.toContain('Deleted teams')
		expect((await w.post('/teams/crew/restore', a)).status).toBe(404)
	})

	test('"Create team" with its name says the slug belongs to their deleted team, by the field', async () => {
		const { w, a, deletedAt } = await deletedCrew()
		const purgeDay = new Date(deletedAt + 30 * DAY).toISOString().slice(0, 10)
		const failed = await w.post('/teams', a, { name: 'Crew', slug: '' })
		const shown = await shownAfter(w, a, failed)
		expect(shown.html).toContain('id="team-name-error"')
		expect(shown.html).toContain(`held by your deleted team Crew until ${purgeDay}`)
		expect(shown.html).toContain('you can restore it from your Teams page')
	})
})
