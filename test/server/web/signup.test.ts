// docs/web.md first start and sign-up: the setup address, sign-up links made from the Admin page,
// and the accounts made through them, on the test engine (SQLite, or PostgreSQL with CFGSYNC_TEST_ENGINE=postgres).
import { describe, expect, test } from 'bun:test'
import { createApp } from '../../../src/server/app'
import { manualClock } from '../../../src/server/lib/clock'
import { createSealer, generateMasterKey } from '../../../src/server/lib/crypto'
import { silentLogger } from '../../../src/server/lib/log'
import { createSignupService } from '../../../src/server/modules/signup/service'
import { sharedTestDatabase } from '../../support/engine'
import { fastPasswords } from '../../support/helpers'
import {
	ORIGIN,
	setCookieOf,
	textOf,
	webApp,
	withCookie,
	redirectedTo,
	type Browser,
	type Page,
	type WebApp
} from '../../support/web'

const DAY = 86_400_000

/** The signup service over the test app's own store and clock (what `serve` and `invite create` use). */
const signupsOf = (w: WebApp) =>
	createSignupService({ store: w.store, clock: w.clock, passwords: fastPasswords, sealer: w.sealer })

const person = (name: string) => ({ email: `${name}@example.test`, username: name, password: `${name}-password-1` })

/** The path of a link printed with the test origin. */
const pathOf = (url: string) => url.slice(ORIGIN.length)

/** A page that says a link cannot be used: no form, the reason in an alert. */
function expectDead(page: Page, status: 404 | 410, reason: RegExp) {
	expect(page.status).toBe(status)
	expect(page.headers.get('content-type')).toContain('text/html')
	expect(page.html).not.toContain('<form method="post" action="/join')
	expect(page.html).not.toContain('<form method="post" action="/setup')
	expect(page.html).not.toContain('name="password"')
	expect(textOf(page.html)).toMatch(reason)
	expect(page.html).toContain('role="alert"')
}

/**
 * A refused form of setup or join, followed as a browser does (docs/web.md: a failed form comes back by a redirect to
 * its page): a 303 to the address it was posted to, and that page with the one-time form cookie it set.
 */
async function formAgain(w: WebApp, refused: Page, path: string): Promise<Page> {
	expect(refused.status).toBe(303)
	expect(refused.headers.get('location')).toBe(path)
	expect(setCookieOf(refused, 'cfgsync_session')).toBeUndefined()
	return w.get(path, undefined, { cookie: `cfgsync_entry_form=${setCookieOf(refused, 'cfgsync_entry_form')}` })
}

/** Signs in the session a sign-up answer set, as the browser would carry it on. */
const sessionOf = (page: Page) => {
	const cookie = setCookieOf(page, 'cfgsync_session')
	expect(cookie).toBeTruthy()
	return { cookie: cookie as string }
}

/** An admin makes a sign-up link on the Admin page; the link is read from the page the redirect leads to. */
async function makeLink(w: WebApp, admin: Browser, fields: Record<string, string> = {}): Promise<string> {
	const made = await w.post('/admin/links', admin, { plan: 'team', uses: '1', days: '7', ...fields })
	expect(made.status).toBe(303)
	expect(made.headers.get('location')).toBe('/admin')
	// The link travels sealed in the flash cookie, never in the URL.
	expect(made.headers.get('location')).not.toContain('join')
	const flash = setCookieOf(made, 'cfgsync_flash') as string
	const shown = await w.get('/admin', undefined, withCookie(admin, 'cfgsync_flash', flash))
	const url = /<code class="secret">(http:\/\/localhost\/join\/[A-Za-z0-9_-]{43})<\/code>/.exec(shown.html)?.[1]
	expect(url).toBeDefined()
	// Shown once: the page clears the cookie, and the page without it shows no link.
	expect(setCookieOf(shown, 'cfgsync_flash')).toBe('')
	expect((await w.get('/admin', admin)).html).not.toContain(url as string)
	return pathOf(url as string)
}

async function adminWorld() {
	const w = webApp()
	const root = await w.signIn(await w.admin('root'))
	return { w, root }
}

describe('the setup address (docs/web.md, first start)', () => {
	test('a first start makes a setup address; its page is the form "Create the first admin"', async () => {
		const w = webApp()
		const token = await signupsOf(w).openSetup('team')
		expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
		const form = await w.get(`/setup/${token}`)
		expect(form.status).toBe(200)
		const text = textOf(form.html)
		expect(text).toContain('Create the first admin')
		for (const label of ['Email', 'Username', 'Password'])
			expect(form.html).toMatch(new RegExp(`<label for="[a-z]+">${label}</label>`))
		expect(form.html).toContain('<button type="submit">Create admin</button>')
		expect(form.headers.get('cache-control')).toContain('no-store')
	})

	test('without the token, or with a wrong one, /setup is a 404 page and no form', async () => {
		const w = webApp()
		await signupsOf(w).openSetup('team')
		expect((await w.get('/setup')).status).toBe(404)
		expect((await w.get('/setup/')).status).toBe(404)
		expectDead(await w.get(`/setup/${'A'.repeat(43)}`), 404, /no setup address here/)
		expectDead(await w.get('/setup/not-a-token'), 404, /no setup address here/)
		const posted = await w.post(`/setup/${'A'.repeat(43)}`, undefined, person('eve'))
		expectDead(posted, 404, /no setup address here/)
		expect(await w.store.users.findByLogin('eve')).toBeUndefined()
	})

	test('creating the first admin signs them in as a server admin; the address is then dead (410), single-use', async () => {
		const w = webApp()
		const token = (await signupsOf(w).openSetup('pro')) as string
		const made = await w.post(`/setup/${token}`, undefined, person('ada'))
		expect(made.status).toBe(303)
		expect(made.headers.get('location')).toBe('/admin')
		const admin = await redirectedTo(w, made)
		expect(admin.status).toBe(200)
		expect(textOf(admin.html)).toContain('You are the first admin of this server')
		expect(textOf(admin.html)).toContain('Invite people')
		const ada = await w.store.users.findByLogin('ada')
		expect(ada).toMatchObject({ isAdmin: true, plan: 'pro', email: 'ada@example.test' })
		// Signs in with the password chosen, like anyone.
		const signedIn = await w.post('/sign-in', undefined, {
			login: 'ada@example.test',
			password: person('ada').password
		})
		expect(signedIn.headers.get('location')).toBe('/configs')

		expectDead(await w.get(`/setup/${token}`), 410, /has an admin already/)
		expectDead(await w.post(`/setup/${token}`, undefined, person('eve')), 410, /has an admin already/)
		expect(await w.store.users.findByLogin('eve')).toBeUndefined()
		expect((await w.store.users.list()).length).toBe(1)
	})

	test('every setup address dies once any admin exists, however the admin was made', async () => {
		const w = webApp()
		const signups = signupsOf(w)
		const first = (await signups.openSetup('team')) as string
		// `setup-link` made another meanwhile (it ends the first; test/server/operations/setup-address.test.ts).
		const second = (await signups.openSetup('team', { fresh: true })) as string
		expect((await w.get(`/setup/${first}`)).status).toBe(410)
		expect((await w.get(`/setup/${second}`)).status).toBe(200)
		expect((await w.post(`/setup/${second}`, undefined, person('ada'))).status).toBe(303)
		expectDead(await w.get(`/setup/${first}`), 410, /has an admin already/)
		expectDead(await w.get(`/setup/${second}`), 410, /has an admin already/)

		const other = webApp()
		const token = (await signupsOf(other).openSetup('team')) as string
		await other.admin('root') // `user add --admin`, say
		expectDead(await other.get(`/setup/${token}`), 410, /has an admin already/)
		expectDead(await other.post(`/setup/${token}`, undefined, person('eve')), 410, /has an admin already/)
	})

	test('no setup address when any user exists (a start that is not the first)', async () => {
		const w = webApp()
		await w.user('team', 'alice')
		expect(await signupsOf(w).openSetup('team')).toBeUndefined()
	})

	test('two first admins at once, through one address or two: exactly one admin', async () => {
		for (const tokens of [1, 2]) {
			const w = webApp()
			const signups = signupsOf(w)
			const made = [(await signups.openSetup('team')) as string]
			if (tokens === 2) made.push((await signups.openSetup('team')) as string)
			const answers = await Promise.all(
				['p1', 'p2', 'p3', 'p4', 'p5', 'p6'].map((name, i) =>
					w.post(`/setup/${made[i % made.length]}`, undefined, person(name))
				)
			)
			const statuses = answers.map((answer) => answer.status).sort()
			expect({ tokens, statuses }).toEqual({ tokens, statuses: [303, 410, 410, 410, 410, 410] })
			const users = await w.store.users.list()
			expect({ tokens, users: users.length, admins: users.filter((user) => user.isAdmin).length }).toEqual({
				tokens,
				users: 1,
				admins: 1
			})
		}
	})

	test('a form with a bad field shows the form again with the reason, and the address still works', async () => {
		const w = webApp()
		const token = (await signupsOf(w).openSetup('team')) as string
		const path = `/setup/${token}`
		const short = await formAgain(w, await w.post(path, undefined, { ...person('ada'), password: 'short' }), path)
		expect(textOf(short.html)).toContain('Passwords are at least 8 characters.')
		expect(short.html).toContain('id="password-error"')
		expect(short.html).toContain('value="ada@example.test"')
		expect(short.html).not.toContain('short"')
		const badName = await formAgain(w, await w.post(path, undefined, { ...person('ada'), username: 'a b' }), path)
		expect(badName.html).toContain('id="username-error"')
		expect((await w.post(`/setup/${token}`, undefined, person('ada'))).status).toBe(303)
	})
})

describe('sign-up links (docs/web.md, "Invite people")', () => {
	test('the Admin page has "Invite people" with plan, uses (1) and expiry (7 days)', async () => {
		const { w, root } = await adminWorld()
		const admin = await w.get('/admin', root)
		const html = admin.html
		expect(html).toContain('<h2 id="invite-people">Invite people</h2>')
		expect(html).toMatch(/<label for="link-plan">Plan<\/label>/)
		expect(html).toMatch(/<label for="link-uses">How many uses<\/label>/)
		expect(html).toMatch(/id="link-uses"[^>]*value="1"/)
		expect(html).toMatch(/<label for="link-days">Expires after \(days\)<\/label>/)
		expect(html).toMatch(/id="link-days"[^>]*value="7"/)
		expect(textOf(html)).toContain('No sign-up link yet.')
	})

	test('a link opens "Create your account", makes an account on its plan, and signs the person in', async () => {
		const { w, root } = await adminWorld()
		const path = await makeLink(w, root, { plan: 'pro' })
		const form = await w.get(path)
		expect(form.status).toBe(200)
		expect(textOf(form.html)).toContain('Create your account')
		for (const label of ['Email', 'Username', 'Password'])
			expect(form.html).toMatch(new RegExp(`<label for="[a-z]+">${label}</label>`))
		expect(form.html).toContain('<button type="submit">Create account</button>')
		expect(textOf(form.html)).toContain('pro plan')

		const made = await w.post(path, undefined, person('zoe'))
		expect(made.status).toBe(303)
		expect(made.headers.get('location')).toBe('/devices')
		const devices = await redirectedTo(w, made)
		expect(devices.status).toBe(200)
		expect(textOf(devices.html)).toContain('Your account was created and you are signed in')
		expect(await w.store.users.findByLogin('zoe')).toMatchObject({ plan: 'pro', isAdmin: false })
		// Not an admin: the Admin page is refused.
		expect((await w.get('/admin', sessionOf(made))).status).toBe(403)
	})

	test('uses are counted: a link for 2 makes two accounts, then it is used up (410, no form)', async () => {
		const { w, root } = await adminWorld()
		const path = await makeLink(w, root, { uses: '2' })
		expect((await w.post(path, undefined, person('p1'))).status).toBe(303)
		expect(textOf((await w.get('/admin', root)).html)).toContain('1 of 2')
		expect((await w.post(path, undefined, person('p2'))).status).toBe(303)
		expectDead(await w.get(path), 410, /has been used up/)
		expectDead(await w.post(path, undefined, person('p3')), 410, /has been used up/)
		expect(await w.store.users.findByLogin('p3')).toBeUndefined()
		expect(textOf((await w.get('/admin', root)).html)).toContain('2 of 2')
	})

	test('a link expires after its days (410, no form)', async () => {
		const { w, root } = await adminWorld()
		const path = await makeLink(w, root, { days: '3' })
		w.clock.advance(3 * DAY - 1)
		expect((await w.get(path)).status).toBe(200)
		w.clock.advance(1)
		expectDead(await w.get(path), 410, /has expired/)
		expectDead(await w.post(path, undefined, person('late')), 410, /has expired/)
		expect(await w.store.users.findByLogin('late')).toBeUndefined()
	})

	test('the admin lists links and revokes one (asked first, naming it); a revoked link is a 410 page', async () => {
		const { w, root } = await adminWorld()
		const path = await makeLink(w, root, { plan: 'free', uses: '5' })
		const hint = path.slice('/join/'.length, '/join/'.length + 6)
		const admin = await w.get('/admin', root)
		const row = /<tr id="link-([0-9a-f-]{36})">([\s\S]*?)<\/tr>/.exec(admin.html)
		expect(row).not.toBeNull()
		const [, id, cells] = row as RegExpExecArray
		expect(textOf(cells as string)).toContain(`/join/${hint}…`)
		expect(textOf(cells as string)).toContain('free')
		expect(textOf(cells as string)).toContain('0 of 5')
		expect(textOf(cells as string)).toContain('root')
		expect(textOf(cells as string)).toContain('active')
		expect(textOf(cells as string)).toContain('in 7 days')
		// The stored hint is all of the token the page shows.
		expect(admin.html).not.toContain(path)

		const confirm = await w.get(`/admin/links/${id}/revoke`, root)
		expect(confirm.status).toBe(200)
		expect(textOf(confirm.html)).toContain(`Revoke the sign-up link /join/${hint}…`)
		expect(await w.get(path)).toMatchObject({ status: 200 })
		const revoked = await w.post(`/admin/links/${id}/revoke`, root, { confirmed: 'yes' })
		expect(revoked.status).toBe(303)
		expect(revoked.headers.get('location')).toBe('/admin')
		expectDead(await w.get(path), 410, /was revoked/)
		expectDead(await w.post(path, undefined, person('late')), 410, /was revoked/)
		expect(textOf((await w.get('/admin', root)).html)).toContain('revoked')
		// Revoking again: nothing left to revoke.
		expect((await w.post(`/admin/links/${id}/revoke`, root, { confirmed: 'yes' })).status).toBe(404)
	})

	test('an unknown link is a 404 page that says so, never a form', async () => {
		const { w } = await adminWorld()
		expectDead(await w.get(`/join/${'x'.repeat(43)}`), 404, /does not exist/)
		expectDead(await w.get('/join/short'), 404, /does not exist/)
		expectDead(await w.post(`/join/${'x'.repeat(43)}`, undefined, person('eve')), 404, /does not exist/)
		expect((await w.get('/join')).status).toBe(404)
		expect(await w.store.users.findByLogin('eve')).toBeUndefined()
	})

	test('a setup address is no sign-up link, and a sign-up link no setup address', async () => {
		const w = webApp()
		const setup = (await signupsOf(w).openSetup('team')) as string
		expectDead(await w.get(`/join/${setup}`), 404, /does not exist/)
		const { token } = await signupsOf(w).createLink({ plan: 'team' })
		expectDead(await w.get(`/setup/${token}`), 404, /no setup address here/)
	})

	test('two people using a one-use link at once: exactly one account', async () => {
		const { w, root } = await adminWorld()
		const path = await makeLink(w, root)
		const names = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6']
		const answers = await Promise.all(names.map((name) => w.post(path, undefined, person(name))))
		expect(answers.map((answer) => answer.status).sort()).toEqual([303, 410, 410, 410, 410, 410])
		const made = (await Promise.all(names.map((name) => w.store.users.findByLogin(name)))).filter(Boolean)
		expect(made.length).toBe(1)
	})

	test('a taken email or username shows the form again (by a redirect) and uses nothing of the link', async () => {
		const { w, root } = await adminWorld()
		const path = await makeLink(w, root)
		const taken = await formAgain(
			w,
			await w.post(path, undefined, { ...person('ROOT'), email: 'someone@example.test' }),
			path
		)
		expect(textOf(taken.html)).toContain('already exists')
		expect(taken.html).toContain('<button type="submit">Create account</button>')
		expect(textOf((await w.get('/admin', root)).html)).toContain('0 of 1')
		expect((await w.post(path, undefined, person('fresh'))).status).toBe(303)
	})

	test('the Admin page refuses a bad number of uses or days, and keeps the form', async () => {
		const { w, root } = await adminWorld()
		for (const [fields, message] of [
			[{ uses: '0' }, 'at least one account'],
			[{ uses: '1.5' }, 'whole number of uses'],
			[{ days: '0' }, 'at least one day'],
			[{ days: '400' }, 'at most 365 days'],
			[{ plan: 'gold' }, 'Plans are free, pro, team']
		] as const) {
			// Back to Admin by a redirect (docs/web.md), the message by its field.
			const refused = await w.post('/admin/links', root, { plan: 'team', uses: '1', days: '7', ...fields })
			expect({ fields, status: refused.status }).toEqual({ fields, status: 303 })
			const shown = await w.get(
				'/admin',
				undefined,
				withCookie(root, 'cfgsync_form', setCookieOf(refused, 'cfgsync_form') as string)
			)
			expect(textOf(shown.html)).toContain(message)
		}
		expect(await w.store.signups.listJoin(10)).toEqual([])
	})

	test('`invite create` defaults: one account, 7 days, the default plan given', async () => {
		const w = webApp()
		const { link } = await signupsOf(w).createLink({ plan: 'team' })
		expect(link).toMatchObject({ kind: 'join', plan: 'team', maxUses: 1, uses: 0, createdBy: null })
		expect(Date.parse(link.expiresAt as string) - Date.parse(link.createdAt)).toBe(7 * DAY)
		// Only the token's hash and its first characters are stored.
		const stored = (await w.store.signups.listJoin(1))[0]
		expect(stored?.tokenHash).toMatch(/^[0-9a-f]{64}$/)
		expect(stored?.hint).toHaveLength(6)
	})
})

describe('no open sign-up (docs/web.md)', () => {
	test('no address makes an account without a link', async () => {
		const w = webApp()
		const before = (await w.store.users.list()).length
		for (const path of [
			'/join',
			'/join/',
			'/setup',
			'/sign-up',
			'/signup',
			'/register',
			'/users',
			'/api/users',
			'/api/auth/register'
		]) {
			// Any /api path without a key is a 401 before its route is looked at (docs/api.md, order of checks).
			const expected = path.startsWith('/api/') ? 401 : 404
			expect({ path, status: (await w.post(path, undefined, person('eve'))).status }).toEqual({
				path,
				status: expected
			})
			expect({ path, status: (await w.get(path)).status }).toEqual({ path, status: expected })
		}
		expect((await w.store.users.list()).length).toBe(before)
		// The sign-in page says how accounts are made (once a user exists: before, `/` says how to make the first admin).
		expect(textOf((await w.get('/')).html)).toContain('cfgsync-server setup-link')
		await w.user('team', 'someone')
		expect(textOf((await w.get('/')).html)).toContain('sign-up link')
	})
})

describe('setup and sign-up are guarded like sign-in (docs/web.md)', () => {
	test('a form posted from another site makes no account, and uses nothing of the link', async () => {
		const { w, root } = await adminWorld()
		const path = await makeLink(w, root)
		for (const headers of [
			{ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
			{ origin: 'https://evil.example', 'sec-fetch-site': '' },
			{ origin: 'null', 'sec-fetch-site': 'cross-site' }
		]) {
			const forged = await w.post(path, undefined, person('eve'), { headers })
			expect(forged.status).toBe(403)
			expect(forged.headers.get('set-cookie')).toBeNull()
		}
		expect(await w.store.users.findByLogin('eve')).toBeUndefined()
		expect(textOf((await w.get('/admin', root)).html)).toContain('0 of 1')

		const fresh = webApp()
		const token = (await signupsOf(fresh).openSetup('team')) as string
		const forged = await fresh.post(`/setup/${token}`, undefined, person('eve'), {
			headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }
		})
		expect(forged.status).toBe(403)
		expect((await fresh.store.users.list()).length).toBe(0)
		expect((await fresh.get(`/setup/${token}`)).status).toBe(200)
	})

	test('opening links never counts: 40 unknown links viewed from one address, as 40 <img> tags on any site would, lock nobody out', async () => {
		const address = '203.0.113.9'
		const w = webApp({ address: () => address })
		const root = await w.admin('root')
		const admin = await w.signIn(root)
		const path = await makeLink(w, admin)
		w.logger.flush()
		const before = w.logger.lines.length
		for (let i = 0; i < 40; i++) {
			const kind = i % 2 === 0 ? 'join' : 'setup'
			expect((await w.get(`/${kind}/${String(i).padStart(43, 'x')}`)).status).toBe(404)
		}
		// Everyone behind that address still signs in, and the good link still opens and works.
		expect(
			(await w.post('/sign-in', undefined, { login: 'root', password: 'password-root' })).headers.get('location')
		).toBe('/configs')
		expect((await w.get(path)).status).toBe(200)
		expect((await w.post(path, undefined, person('zoe'))).status).toBe(303)
		// Nor does a view write the security log line a fail2ban jail bans on.
		w.logger.flush()
		expect(w.logger.lines.slice(before).filter((line) => line.includes('"sign-up refused"'))).toEqual([])
	})

	test('wrong posts to /join and /setup have a budget of their own: 30 per address (429 with Retry-After), apart from sign-in', async () => {
		let address = '203.0.113.9'
		const w = webApp({ address: () => address })
		const root = await w.signIn(await w.admin('root'))
		const path = await makeLink(w, root)
		// 30 failed sign-ins from that address spend the sign-in budget only.
		for (let i = 0; i < 30; i++)
			expect(
				(await w.post('/sign-in', undefined, { login: `nobody${i}`, password: 'wrong-password' })).headers.get(
					'location'
				)
			).toBe('/')
		expect((await w.post('/sign-in', undefined, { login: 'root', password: 'password-root' })).status).toBe(429)
		// 30 wrong posts on unknown links from there: past them, 429, even for the right link.
		address = '203.0.113.10'
		for (let i = 0; i < 30; i++) {
			const kind = i % 2 === 0 ? 'join' : 'setup'
			expect((await w.post(`/${kind}/${String(i).padStart(43, 'x')}`, undefined, person(`p${i}`))).status).toBe(404)
		}
		const limited = await w.post(`/join/${'y'.repeat(43)}`, undefined, person('late'))
		expect(limited.status).toBe(429)
		expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
		expect(textOf(limited.html)).toContain('Too many failed attempts')
		expect(textOf(/<h1[^>]*>([\s\S]*?)<\/h1>/.exec(limited.html)?.[1] ?? '')).toBe('Too many attempts')
		const refused = await w.post(path, undefined, person('zoe'))
		expect(refused.status).toBe(429)
		expect(await w.store.users.findByLogin('zoe')).toBeUndefined()
		// A budget of its own: that address still signs in, and still opens links.
		expect(
			(await w.post('/sign-in', undefined, { login: 'root', password: 'password-root' })).headers.get('location')
		).toBe('/configs')
		expect((await w.get(path)).status).toBe(200)
		// Other addresses are not affected; and the window passes.
		address = '198.51.100.20'
		expect((await w.post(path, undefined, person('zoe'))).status).toBe(303)
		address = '203.0.113.10'
		w.clock.advance(15 * 60 * 1000 + 1)
		expectDead(await w.post(`/join/${'y'.repeat(43)}`, undefined, person('late')), 404, /does not exist/)
	})

	test('10 failed posts on one link from one address lock that link there (probing usernames)', async () => {
		const w = webApp()
		const root = await w.signIn(await w.admin('root'))
		const path = await makeLink(w, root)
		for (let i = 0; i < 10; i++)
			expect((await w.post(path, undefined, { ...person(`n${i}`), username: 'root' })).headers.get('location')).toBe(
				path
			)
		const limited = await w.post(path, undefined, person('fresh'))
		expect(limited.status).toBe(429)
		expect(await w.store.users.findByLogin('fresh')).toBeUndefined()
		// The link is good: the page says what is wrong (too many attempts) and when to try again, not that it is dead.
		const minutes = Math.ceil(Number(limited.headers.get('retry-after')) / 60)
		expect(minutes).toBeGreaterThan(0)
		expect(textOf(/<title>([^<]*)<\/title>/.exec(limited.html)?.[1] ?? '')).toBe('Too many attempts · cfgsync')
		expect(textOf(/<h1[^>]*>([\s\S]*?)<\/h1>/.exec(limited.html)?.[1] ?? '')).toBe('Too many attempts')
		expect(textOf(limited.html)).toContain(`Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`)
		expect(textOf(limited.html)).not.toContain('not usable')
		expect(limited.html).not.toContain('name="password"')
	})

	test('bodies over 16 KiB are refused before they are read (413)', async () => {
		const w = webApp()
		const token = (await signupsOf(w).openSetup('team')) as string
		for (const path of [`/setup/${token}`, `/join/${'x'.repeat(43)}`]) {
			const big = await w.post(path, undefined, { ...person('big'), filler: 'x'.repeat(17 * 1024) })
			expect({ path, status: big.status }).toEqual({ path, status: 413 })
		}
		expect((await w.store.users.list()).length).toBe(0)
	})
})

describe('the audit log records setup and sign-up (docs/operations.md)', () => {
	test('links made and revoked, accounts made through them, refused uses', async () => {
		const w = webApp()
		const setup = (await signupsOf(w).openSetup('team')) as string
		const first = await w.post(`/setup/${setup}`, undefined, person('ada'))
		const ada = { cookie: sessionOf(first).cookie }
		const adaUser = await w.store.users.findByLogin('ada')
		const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec((await w.get('/account', ada)).html)?.[1] as string
		const admin: Browser = {
			user: { ...person('ada'), id: adaUser?.id as string, key: '', plan: 'team' },
			cookie: ada.cookie,
			csrf
		}
		const path = await makeLink(w, admin, { plan: 'pro' })
		expect((await w.post(path, undefined, person('zoe'))).status).toBe(303)
		// Only a use is refused and audited; a view of the used-up link is not (docs/operations.md).
		await w.get(path)
		await w.post(path, undefined, person('late'))
		const id = (await w.store.signups.listJoin(1))[0]?.id as string
		expect((await w.post(`/admin/links/${id}/revoke`, admin, { confirmed: 'yes' })).status).toBe(303)

		const events = (await w.store.audit.list({ limit: 100 })).reverse()
		const summary = events.map((event) => ({
			type: event.type,
			actor: event.actorUsername,
			via: event.actorDevice,
			target: event.targetName,
			through: event.details.through ?? null
		}))
		const hint = path.slice('/join/'.length, '/join/'.length + 6)
		expect(summary).toEqual([
			{ type: 'signup_link.created', actor: null, via: 'server', target: setup.slice(0, 6), through: null },
			{ type: 'user.created', actor: 'ada', via: 'web', target: 'ada', through: 'setup address' },
			{ type: 'session.started', actor: 'ada', via: 'web', target: null, through: null },
			{ type: 'signup_link.created', actor: 'ada', via: 'web', target: hint, through: null },
			{ type: 'user.created', actor: 'zoe', via: 'web', target: 'zoe', through: 'sign-up link' },
			{ type: 'session.started', actor: 'zoe', via: 'web', target: null, through: null },
			{ type: 'signup.refused', actor: null, via: 'web', target: null, through: null },
			{ type: 'signup_link.revoked', actor: 'ada', via: 'web', target: null, through: null }
		])
		const refused = events.find((event) => event.type === 'signup.refused')
		expect(refused?.details).toEqual({ page: 'join', reason: 'used_up' })
		expect(refused?.address).toBe('198.51.100.7')
		const zoe = events.find((event) => event.type === 'user.created' && event.targetName === 'zoe')
		expect(zoe?.details).toEqual({ plan: 'pro', admin: false, through: 'sign-up link', link: hint })
		// No token and no password in the log: only hashes' first characters.
		const text = JSON.stringify(events)
		expect(text).not.toContain(setup)
		expect(text).not.toContain(path.slice('/join/'.length))
		expect(text).not.toContain('zoe-password-1')
		// The log line for the refused use names the address and reason, not the token.
		w.logger.flush()
		expect(w.logger.lines.some((line) => line.includes('"sign-up refused"') && line.includes('used_up'))).toBe(true)
		expect(w.logger.lines.join('\n')).not.toContain(path.slice('/join/'.length))
	})
})

describe('several instances on one database (docs/postgresql.md)', () => {
	/** Three servers on one database, as behind a load balancer, each with its own store. */
	async function instances() {
		const shared = await sharedTestDatabase()
		const sealer = createSealer(generateMasterKey())
		const clock = manualClock()
		const stores = [await shared.open(), await shared.open(), await shared.open()]
		const apps = stores.map((store) =>
			createApp({ store, sealer, clock, logger: silentLogger, passwords: fastPasswords })
		)
		const post = (app: (typeof apps)[number], path: string, fields: Record<string, string>) =>
			app.handle(
				new Request(`${ORIGIN}${path}`, {
					method: 'POST',
					headers: { 'content-type': 'application/x-www-form-urlencoded' },
					body: new URLSearchParams(fields).toString()
				})
			)
		return { stores, apps, clock, post, sealer }
	}

	test('the instances print one setup address; used through all at once it makes one admin, then dies', async () => {
		const { stores, apps, clock, post, sealer } = await instances()
		const tokens = await Promise.all(
			stores.map(
				async (store) =>
					(await createSignupService({ store, clock, passwords: fastPasswords, sealer }).openSetup('team')) as string
			)
		)
		expect(new Set(tokens).size).toBe(1)
		const answers = await Promise.all(
			apps.flatMap((app, i) => [
				post(app, `/setup/${tokens[i]}`, person(`a${i}`)),
				post(app, `/setup/${tokens[(i + 1) % 3]}`, person(`b${i}`))
			])
		)
		expect(answers.map((answer) => answer.status).sort()).toEqual([303, 410, 410, 410, 410, 410])
		const users = await stores[0]?.users.list()
		expect(users?.length).toBe(1)
		expect(users?.[0]?.isAdmin).toBe(true)
		for (const [i, app] of apps.entries())
			for (const token of new Set(tokens))
				expect({ instance: i, status: (await app.handle(new Request(`${ORIGIN}/setup/${token}`))).status }).toEqual({
					instance: i,
					status: 410
				})
	})

	test('a one-use link used through every instance at once makes one account', async () => {
		const { stores, apps, clock, post } = await instances()
		const { token } = await createSignupService({
			store: stores[0] as (typeof stores)[number],
			clock,
			passwords: fastPasswords
		}).createLink({ plan: 'pro' })
		const answers = await Promise.all(
			apps.flatMap((app, i) => [
				post(app, `/join/${token}`, person(`c${i}`)),
				post(app, `/join/${token}`, person(`d${i}`))
			])
		)
		expect(answers.map((answer) => answer.status).sort()).toEqual([303, 410, 410, 410, 410, 410])
		expect((await stores[1]?.users.list())?.length).toBe(1)
		expect((await stores[2]?.signups.listJoin(1))?.[0]).toMatchObject({ uses: 1, maxUses: 1 })
	})
})
