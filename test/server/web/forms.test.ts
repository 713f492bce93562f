// docs/web.md, round 3 ("nothing lost in a form"): a failed form answers with a redirect to its
// page (reload and Back never send it again), which shows the message next to its field (aria-invalid,
// aria-describedby), puts the focus there (autofocus), keeps every value but passwords, and shows it once.
import { describe, expect, test } from 'bun:test'
import { push, setCookieOf, textOf, webApp, type Browser, type Page } from '../../support/web'

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

/**
 * A failed form of a page nobody is signed in on (sign-in, setup, join), followed as a browser does: a 303 to the
 * form's page carrying the one-time `cfgsync_entry_form` cookie, and no session; that page with the cookie, then
 * the same address without it (a reload: the form clean).
 */
async function followedSignedOut(w: ReturnType<typeof webApp>, failed: Page) {
	expect(failed.status).toBe(303)
	expect(setCookieOf(failed, 'cfgsync_session')).toBeUndefined()
	const carried = setCookieOf(failed, 'cfgsync_entry_form')
	expect(carried).toBeTruthy()
	const location = failed.headers.get('location') as string
	const shown = await w.get(location, undefined, { cookie: `cfgsync_entry_form=${carried}` })
	expect(shown.status).toBe(200)
	expect(setCookieOf(shown, 'cfgsync_entry_form')).toBe('')
	const again = await w.get(location)
	return { shown, again, location, carried: carried as string }
}

/** A setup address for a server with no user yet, as `serve` prints it. */
async function setupToken(w: ReturnType<typeof webApp>) {
	const { createSignupService } = await import('../../../src/server/modules/signup/service')
	const { fastPasswords } = await import('../../support/helpers')
	return (await createSignupService({
		store: w.store,
		clock: w.clock,
		passwords: fastPasswords,
		sealer: w.sealer
	}).openSetup('team')) as string
}

describe('the forms of sign-in, setup and join on the same pattern (docs/web.md)', () => {
	test('sign-in: a wrong password redirects back; the message by the password field, with role="alert"; the login kept', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const failed = await w.post('/sign-in', undefined, { login: 'alice', password: 'not her password' })
		const { shown, again, location } = await followedSignedOut(w, failed)
		expect(location).toBe('/')
		expectInvalid(shown.html, 'password', 'Wrong username, email or password.')
		expect(shown.html).toMatch(/<p id="password-error"[^>]*role="alert"/)
		expect(tagOf(shown.html, 'login')).toContain('value="alice"')
		expect(tagOf(shown.html, 'login')).not.toContain('autofocus')
		expect(shown.html).not.toContain('not her password')
		expect(again.html).not.toContain('aria-invalid')
		expect(tagOf(again.html, 'login')).toContain('autofocus')
		// The right password still signs in afterwards.
		const signed = await w.post('/sign-in', undefined, { login: 'alice', password: alice.password })
		expect(signed.headers.get('location')).toBe('/configs')
		expect(setCookieOf(signed, 'cfgsync_session')).toBeTruthy()
	})

	test('sign-in: an unknown login gets the same answer as a wrong password, and keeps `next`', async () => {
		const w = webApp()
		await w.user('team', 'alice')
		const strip = (html: string) => html.replace(/value="[^"]*"/g, '').replace(/cfgsync_[a-z_]+=[^;"]*/g, '')
		const known = await followedSignedOut(
			w,
			await w.post('/sign-in', undefined, { login: 'alice', password: 'wrong password', next: '/teams' })
		)
		const unknown = await followedSignedOut(
			w,
			await w.post('/sign-in', undefined, { login: 'nobody', password: 'wrong password', next: '/teams' })
		)
		expect(known.location).toBe('/?next=%2Fteams')
		expect(unknown.location).toBe(known.location)
		expect(strip(unknown.shown.html)).toBe(strip(known.shown.html))
		expect(known.shown.html).toContain('name="next" value="/teams"')
	})

	test("sign-in: a `next` whose query a browser asks for encoded (a ') still finds its failed form", async () => {
		const w = webApp()
		await w.user('team', 'alice')
		const failed = await w.post('/sign-in', undefined, { login: 'alice', password: 'wrong', next: "/configs?q=it's" })
		const { shown } = await followedSignedOut(w, failed)
		expectInvalid(shown.html, 'password', 'Wrong username')
	})

	test('sign-in: an empty field is said by that field', async () => {
		const w = webApp()
		await w.user('team', 'alice')
		const { shown } = await followedSignedOut(w, await w.post('/sign-in', undefined, { login: '', password: 'x' }))
		expectInvalid(shown.html, 'login', 'Enter your username or email')
		expect(tagOf(shown.html, 'password')).not.toContain('aria-invalid')
	})

	test('sign-in: a failed attempt leaves a form carried through sign-in alone; the right password brings it back', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const tab = await w.signIn(alice)
		await w.post('/sign-out', tab)
		const posted = await w.post('/teams', tab, { name: 'Night Shift', _page: '/teams' })
		const carried = setCookieOf(posted, 'cfgsync_form') as string
		expect(carried).toBeTruthy()
		const failed = await w.post(
			'/sign-in',
			undefined,
			{ login: 'alice', password: 'typo', next: '/teams' },
			{ headers: { cookie: `cfgsync_form=${carried}` } }
		)
		expect(failed.status).toBe(303)
		expect(setCookieOf(failed, 'cfgsync_form')).toBeUndefined()
		const signed = await w.post(
			'/sign-in',
			undefined,
			{ login: 'alice', password: alice.password, next: '/teams' },
			{ headers: { cookie: `cfgsync_form=${carried}` } }
		)
		const session = setCookieOf(signed, 'cfgsync_session') as string
		const back = await w.get('/teams', undefined, {
			cookie: `cfgsync_session=${session}; cfgsync_form=${setCookieOf(signed, 'cfgsync_form')}`
		})
		expect(back.html).toContain('value="Night Shift"')
	})

	test("sign-in: too many attempts is still a 429 with Retry-After, the form's own alert", async () => {
		const w = webApp()
		await w.user('team', 'alice')
		for (let i = 0; i < 10; i++) await w.post('/sign-in', undefined, { login: 'alice', password: 'wrong password' })
		const limited = await w.post('/sign-in', undefined, { login: 'alice', password: 'wrong password' })
		expect(limited.status).toBe(429)
		expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
		expect(limited.html).toContain('role="alert"')
		expect(tagOf(limited.html, 'login')).toContain('value="alice"')
	})

	test('setup: a short password redirects back to the address, said by its field; email and username kept', async () => {
		const w = webApp()
		const token = await setupToken(w)
		const failed = await w.post(`/setup/${token}`, undefined, {
			email: 'ada@example.test',
			username: 'ada',
			password: 'short'
		})
		const { shown, again, location } = await followedSignedOut(w, failed)
		expect(location).toBe(`/setup/${token}`)
		expectInvalid(shown.html, 'password', 'at least 8 characters')
		expect(tagOf(shown.html, 'password')).toMatch(/aria-describedby="password-error password-hint"/)
		expect(tagOf(shown.html, 'email')).toContain('value="ada@example.test"')
		expect(tagOf(shown.html, 'email')).not.toContain('autofocus')
		expect(tagOf(shown.html, 'username')).toContain('value="ada"')
		expect(shown.html).not.toContain('"short"')
		expect(again.html).not.toContain('aria-invalid')
		// Nothing was made, and the address still works.
		expect(await w.store.users.findByLogin('ada')).toBeUndefined()
		expect(
			(
				await w.post(`/setup/${token}`, undefined, {
					email: 'ada@example.test',
					username: 'ada',
					password: 'long enough'
				})
			).headers.get('location')
		).toBe('/admin')
	})

	test('setup: a bad username is said by the username field', async () => {
		const w = webApp()
		const token = await setupToken(w)
		const failed = await w.post(`/setup/${token}`, undefined, {
			email: 'ada@example.test',
			username: 'a b',
			password: 'long enough'
		})
		const { shown } = await followedSignedOut(w, failed)
		expectInvalid(shown.html, 'username', 'Usernames are')
		expect(tagOf(shown.html, 'username')).toContain('value="a b"')
	})

	test('join: a taken name is said by the username field without telling which is taken; a dead link is still its page', async () => {
		const w = webApp()
		const root = await w.signIn(await w.admin('root'))
		const { createSignupService } = await import('../../../src/server/modules/signup/service')
		const { fastPasswords } = await import('../../support/helpers')
		const { token } = await createSignupService({
			store: w.store,
			clock: w.clock,
			passwords: fastPasswords
		}).createLink({
			plan: 'pro',
			uses: 1
		})
		const failed = await w.post(`/join/${token}`, undefined, {
			email: 'someone@example.test',
			username: root.user.username,
			password: 'long enough'
		})
		const { shown, location } = await followedSignedOut(w, failed)
		expect(location).toBe(`/join/${token}`)
		expectInvalid(shown.html, 'username', 'email or username already exists')
		expect(tagOf(shown.html, 'email')).toContain('value="someone@example.test"')
		// A link that died is its own page at the posted address (docs/web.md), not a form.
		const dead = await w.post(`/join/${'x'.repeat(43)}`, undefined, {
			email: 'someone@example.test',
			username: 'someone',
			password: 'long enough'
		})
		expect(dead.status).toBe(404)
	})
})

describe('Admin "Add user" and "Invite people" on the same pattern (docs/web.md)', () => {
	test('Add user: a taken email redirects to Admin, said by the Email field; username and plan kept, never the password', async () => {
		const w = webApp()
		const root = await w.signIn(await w.admin('root'))
		await w.user('team', 'alice')
		const failed = await w.post('/admin/users', root, {
			email: 'ALICE@example.test',
			username: 'alice2',
			plan: 'pro',
			password: 'a secret long password'
		})
		const { shown, again, location } = await followed(w, root, failed)
		expect(location).toBe('/admin')
		expectInvalid(shown.html, 'new-email', 'email already exists')
		expect(tagOf(shown.html, 'new-email')).toContain('value="ALICE@example.test"')
		expect(tagOf(shown.html, 'new-username')).toContain('value="alice2"')
		expect(shown.html).toMatch(/<option value="pro" selected/)
		expect(shown.html).not.toContain('a secret long password')
		expect(again.html).not.toContain('aria-invalid')
	})

	test('Add user: a taken username, a bad username and a short password are each said by their field', async () => {
		const w = webApp()
		const root = await w.signIn(await w.admin('root'))
		await w.user('team', 'alice')
		const cases = [
			[{ username: 'alice' }, 'new-username', 'username already exists'],
			[{ username: 'a b' }, 'new-username', 'Usernames are'],
			[{ password: 'short' }, 'new-password', 'at least 8 characters'],
			[{ email: 'not-an-email' }, 'new-email', 'valid email']
		] as const
		for (const [fields, id, text] of cases) {
			const failed = await w.post('/admin/users', root, {
				email: 'new@example.test',
				username: 'newbie',
				plan: 'team',
				password: '',
				...fields
			})
			const { shown } = await followed(w, root, failed)
			expectInvalid(shown.html, id, text)
		}
		expect(await w.store.users.findByLogin('newbie')).toBeUndefined()
	})

	test('Invite people: a bad number of uses or days, or plan, is said by its field and kept', async () => {
		const w = webApp()
		const root = await w.signIn(await w.admin('root'))
		const cases = [
			[{ uses: '0' }, 'link-uses', 'at least one account', 'value="0"'],
			[{ days: '400' }, 'link-days', 'at most 365 days', 'value="400"'],
			[{ plan: 'gold' }, 'link-plan', 'Plans are free, pro, team', undefined]
		] as const
		for (const [fields, id, text, kept] of cases) {
			const failed = await w.post('/admin/links', root, { plan: 'team', uses: '1', days: '7', ...fields })
			const { shown } = await followed(w, root, failed)
			expectInvalid(shown.html, id, text)
			if (kept) expect(tagOf(shown.html, id)).toContain(kept)
		}
		expect(await w.store.signups.listJoin(10)).toEqual([])
	})
})

describe('a roll back already done is not asked again (docs/web.md)', () => {
	/** alice's config with versions 1 and 2, signed in on the web. */
	async function twoVersions() {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const id = await push(w, alice, { files: { 'a.json': '{"v":1}\n' } }, { name: 'main' })
		await push(w, alice, { files: { 'a.json': '{"v":2}\n' } }, { name: 'main' })
		const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as {
			id: string
			version: number
		}[]
		const v1 = versions.find((version) => version.version === 1)?.id as string
		return { w, alice, id, v1, browser: await w.signIn(alice) }
	}
	const versionCount = async (w: ReturnType<typeof webApp>, key: string, id: string) =>
		((await w.call('GET', `/api/configs/${id}/versions`, { key })).body as unknown[]).length

	test('Back to the confirmation after rolling back: it says the version is already current, links the config, offers no Roll back', async () => {
		const { w, alice, id, v1, browser } = await twoVersions()
		const asked = await w.get(`/configs/${id}/rollback?version=${v1}`, browser)
		expect(asked.html).toContain(`<form method="post" action="/configs/${id}/rollback"`)
		expect((await w.post(`/configs/${id}/rollback`, browser, { version: v1, confirmed: 'yes' })).status).toBe(303)
		expect(await versionCount(w, alice.key, id)).toBe(3)
		// What Back (or the same address again) shows now.
		const revisited = await w.get(`/configs/${id}/rollback?version=${v1}`, browser)
		expect(revisited.status).toBe(200)
		const text = textOf(revisited.html)
		expect(text).toContain('Version 1 is already current: version 3, the current version of Claude Code · main')
		expect(revisited.html).not.toContain(`action="/configs/${id}/rollback"`)
		expect(revisited.html).toContain(`href="/configs/${id}"`)
	})

	test('the same roll back posted again (a second tab, a page kept by the browser) adds no version', async () => {
		const { w, alice, id, v1, browser } = await twoVersions()
		await w.post(`/configs/${id}/rollback`, browser, { version: v1, confirmed: 'yes' })
		const again = await w.post(`/configs/${id}/rollback`, browser, { version: v1, confirmed: 'yes' })
		expect(again.status).toBe(303)
		expect(again.headers.get('location')).toBe(`/configs/${id}`)
		expect(setCookieOf(again, 'cfgsync_notice')).toBe('already-current')
		expect(await versionCount(w, alice.key, id)).toBe(3)
	})
})
