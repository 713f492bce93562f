// docs/web.md, round 3 ("nothing lost in a form"): a failed form answers with a redirect to its
// page (reload and Back never send it again), which shows the message next to its field (aria-invalid,
// aria-describedby), puts the focus there (autofocus), keeps every value but passwords, and shows it once.
import { describe, expect, test } from 'bun:test'
import { setCookieOf, textOf, webApp, type Browser, type Page } from '../../support/web'

/** The opening tag of the element with this id. */
const tagOf = (html: string, id: string) => new RegExp(`<[a-z]+[^>]*\\sid="${id}"[^>]*>`).exec(html)?.[0] ?? ''

/** Follows a failed post's redirect as a browser does: to its location, with the one-time cookie it set. */
async function followed(w: ReturnType<typeof webApp>, who: Browser, failed: Page) {
	expect(failed.status).toBe(303)
	const carried = setCookieOf(failed, 'cfgsync_form')
	expect(carried).toBeTruthy()
	const location = failed.headers.get('location') as string
	const shown = await w.get(location, { cookie: `${who.cookie}; cfgsync_form=${carried}` })
	// Read once: the page clears the cookie, and the same address without it shows the form clean.
	expect(setCookieOf(shown, 'cfgsync_form')).toBe('')
	const again = await w.get(location, who)
	return { shown, again, location }
}

/** The field is marked invalid, described by its message, and focused; its message says `text`. */
function expectInvalid(html: string, id: string, text: string) {
	const tag = tagOf(html, id)
	expect(tag).toContain('aria-invalid="true"')
	expect(tag).toMatch(new RegExp(`aria-describedby="[^"]*${id}-error`))
	expect(tag).toContain('autofocus')
	expect(html).toMatch(new RegExp(`<p id="${id}-error"[^>]*>[^<]*${text}`))
}

describe('one pattern for failed forms (docs/web.md)', () => {
	test('Create team: a taken slug redirects back, says so by the Slug field, keeps both values', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		expect((await w.post('/teams', alice, { name: 'Crew' })).status).toBe(303)
		const failed = await w.post('/teams', alice, { name: 'Second crew', slug: 'crew' })
		const { shown, again, location } = await followed(w, alice, failed)
		expect(location).toBe('/teams')
		expectInvalid(shown.html, 'team-slug', 'taken')
		expect(tagOf(shown.html, 'team-name')).toContain('value="Second crew"')
		expect(tagOf(shown.html, 'team-slug')).toContain('value="crew"')
		expect(again.html).not.toContain('aria-invalid')
	})

	test('Change password: a wrong current password is said by its field; no password comes back', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		const failed = await w.post('/account/password', alice, {
			current: 'not-her-password',
			new: 'a-new-password-1',
			signOutDevices: 'yes'
		})
		const { shown } = await followed(w, alice, failed)
		expectInvalid(shown.html, 'current', '')
		expect(shown.html).not.toContain('not-her-password')
		expect(shown.html).not.toContain('a-new-password-1')
	})

	test('Add member: an unknown login is said by its field and kept', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		await w.post('/teams', alice, { name: 'Crew' })
		const failed = await w.post('/teams/crew/members', alice, { login: 'nobody-here', role: 'member' })
		const { shown } = await followed(w, alice, failed)
		expectInvalid(shown.html, 'invite-login', '')
		expect(tagOf(shown.html, 'invite-login')).toContain('value="nobody-here"')
	})

	test('Delete team: a wrong slug asks again by its field, with what was typed', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		await w.post('/teams', alice, { name: 'Crew' })
		const failed = await w.post('/teams/crew/delete', alice, { confirmed: 'yes', slug: 'crwe' })
		const { shown, location } = await followed(w, alice, failed)
		expect(location).toBe('/teams/crew/delete')
		expectInvalid(shown.html, 'confirm-slug', '')
		expect(tagOf(shown.html, 'confirm-slug')).toContain('value="crwe"')
		expect((await w.get('/teams/crew', alice)).status).toBe(200)
	})

	test('Rename: an invalid slug is said by its field; the typed name is kept', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		await w.post('/teams', alice, { name: 'Crew' })
		const failed = await w.post('/teams/crew/rename', alice, { name: 'New crew', slug: 'Not A Slug' })
		const { shown } = await followed(w, alice, failed)
		expectInvalid(shown.html, 'rename-slug', '')
		expect(tagOf(shown.html, 'rename-name')).toContain('value="New crew"')
	})
})

describe('a session that ends mid-form loses nothing (docs/web.md)', () => {
	test('Create team posted after signing out elsewhere: sign-in says why and comes back, with the typed values', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const tab = await w.signIn(alice)
		// Signed out in another tab: this tab's session is gone, its form still on screen.
		expect((await w.post('/sign-out', tab)).status).toBe(303)
		const posted = await w.post(
			'/teams',
			tab,
			// The form's hidden fields say which page it is on (layout.tsx, Csrf).
			{ name: 'Night Shift', slug: 'night', _page: '/teams' }
		)
		expect(posted.status).toBe(303)
		const location = posted.headers.get('location') ?? ''
		expect(location).toStartWith('/?next=%2Fteams')
		const carried = setCookieOf(posted, 'cfgsync_form')
		expect(carried).toBeTruthy()
		// What was typed travels sealed, never readable in the cookie.
		expect(decodeURIComponent(carried ?? '')).not.toContain('Night Shift')
		const notice = setCookieOf(posted, 'cfgsync_notice')
		const signIn = await w.get(location, undefined, { cookie: `cfgsync_form=${carried}; cfgsync_notice=${notice}` })
		expect(textOf(signIn.html)).toContain('Your session ended')
		expect(signIn.html).toContain('name="next" value="/teams"')
		const signedIn = await w.post(
			'/sign-in',
			undefined,
			{ login: 'alice', password: alice.password, next: '/teams' },
			{ headers: { cookie: `cfgsync_form=${carried}` } }
		)
		expect(signedIn.status).toBe(303)
		expect(signedIn.headers.get('location')).toBe('/teams')
		const session = setCookieOf(signedIn, 'cfgsync_session') as string
		const resealed = setCookieOf(signedIn, 'cfgsync_form') as string
		expect(resealed).toBeTruthy()
		const back = await w.get('/teams', undefined, { cookie: `cfgsync_session=${session}; cfgsync_form=${resealed}` })
		expect(back.status).toBe(200)
		expect(back.html).toContain('value="Night Shift"')
		expect(back.html).toContain('value="night"')
		// Nothing was created behind the person's back: the form waits for them to send it.
		expect((await w.call('GET', '/api/teams/night', { key: alice.key })).status).toBe(404)
	})

	test('signed out in another tab of the same browser (its cookie cleared): sign-in still says the session ended', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const tab = await w.signIn(alice)
		expect((await w.post('/sign-out', tab)).status).toBe(303)
		// Signing out cleared the session cookie for every tab: the form comes with its token and page only.
		const posted = await w.post('/teams', undefined, { name: 'Night Shift', _page: '/teams' }, { csrf: tab.csrf })
		expect(posted.status).toBe(303)
		expect(posted.headers.get('location')).toBe('/?next=%2Fteams')
		const notice = setCookieOf(posted, 'cfgsync_notice')
		expect(notice).toBeTruthy()
		const carried = setCookieOf(posted, 'cfgsync_form')
		const signIn = await w.get('/?next=%2Fteams', undefined, {
			cookie: `cfgsync_form=${carried}; cfgsync_notice=${notice}`
		})
		expect(textOf(signIn.html)).toContain('Your session ended before your form was sent')
		// A post with neither cookie nor token (no form of a signed-in page) says nothing of a session.
		const bare = await w.post('/teams', undefined, { name: 'Night Shift', _page: '/teams' })
		expect(setCookieOf(bare, 'cfgsync_notice')).toBeFalsy()
	})

	test('a password typed before the session ended is never carried', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const tab = await w.signIn(alice)
		await w.post('/sign-out', tab)
		const posted = await w.post('/account/password', tab, {
			current: alice.password,
			new: 'a new long password',
			confirm: 'a new long password',
			_page: '/account'
		})
		const carried = setCookieOf(posted, 'cfgsync_form')
		const signedIn = await w.post(
			'/sign-in',
			undefined,
			{ login: 'alice', password: alice.password, next: '/account' },
			{ headers: { cookie: `cfgsync_form=${carried}` } }
		)
		const session = setCookieOf(signedIn, 'cfgsync_session') as string
		const resealed = setCookieOf(signedIn, 'cfgsync_form')
		const back = await w.get('/account', undefined, {
			cookie: `cfgsync_session=${session}${resealed ? `; cfgsync_form=${resealed}` : ''}`
		})
		expect(back.html).not.toContain('a new long password')
		expect(back.html).not.toContain(alice.password)
	})
})
