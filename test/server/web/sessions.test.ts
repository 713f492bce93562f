// docs/web.md sessions through the web application: the cookie, sign-in and its
// failures, expiry, sign-out on the server, and a password change ending other sessions.
import { describe, expect, test } from 'bun:test'
import { parseTrustedProxies } from '../../../src/server/lib/client-address'
import { redirectedTo, setCookieOf, shownAfter, textOf, webApp, withCookie } from '../../support/web'

const DAY = 24 * 60 * 60 * 1000

describe('web sessions (docs/web.md)', () => {
	test('sign-in sets an HttpOnly, SameSite, Path=/ cookie (Secure only over HTTPS) and signs in; a session is not a key', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const response = await w.post('/sign-in', undefined, { login: 'ALICE@example.test', password: alice.password })
		expect(response.status).toBe(303)
		expect(response.headers.get('location')).toBe('/configs')
		expect(response.headers.get('cache-control')).toBe('no-store')
		const cookie = response.headers.get('set-cookie') ?? ''
		expect(cookie).toMatch(/^cfgsync_session=[A-Za-z0-9_-]{43}; /)
		expect(cookie).toContain('HttpOnly')
		expect(cookie).toContain('SameSite=Lax')
		expect(cookie).toContain('Path=/')
		expect(cookie).not.toContain('Secure')
		const value = /cfgsync_session=([^;]+)/.exec(cookie)?.[1] as string
		expect((await w.get('/configs', { cookie: value })).status).toBe(200)
		// /api stays bearer-only, and the session is not among the devices.
		expect((await w.call('GET', '/api/me', { headers: { cookie: `cfgsync_session=${value}` } })).status).toBe(401)
		expect(((await w.call('GET', '/api/keys', { key: alice.key })).body as unknown[]).length).toBe(1)
	})

	test('the cookie is Secure when the request came over HTTPS through a trusted proxy — not when anyone else says so', async () => {
		const direct = webApp()
		const alice = await direct.user('pro', 'alice')
		const sent = async (app: typeof direct, url: string, headers: Record<string, string> = {}) => {
			const body = new URLSearchParams({ login: 'alice', password: alice.password }).toString()
			const response = await app.app.handle(
				new Request(url, {
					method: 'POST',
					body,
					headers: {
						'content-type': 'application/x-www-form-urlencoded',
						'sec-fetch-site': 'same-origin',
						origin: 'null',
						...headers
					}
				})
			)
			return response.headers.get('set-cookie') ?? ''
		}
		// The server speaks plain HTTP itself (it has no TLS option): HTTPS reaches it through a proxy.
		expect(await sent(direct, 'http://localhost/sign-in')).toContain('cfgsync_session=')
		expect(await sent(direct, 'http://localhost/sign-in', { 'x-forwarded-proto': 'https' })).not.toContain('Secure')
		const proxied = webApp({ address: () => '10.0.0.2', trustedProxies: parseTrustedProxies('10.0.0.0/8') })
		await proxied.store.users.create({ ...(await direct.store.users.findById(alice.id))! })
		expect(
			await sent(proxied, 'http://localhost/sign-in', {
				'x-forwarded-proto': 'https',
				'x-forwarded-for': '203.0.113.9'
			})
		).toContain('; Secure')
		expect(await sent(proxied, 'http://localhost/sign-in', { 'x-forwarded-for': '203.0.113.9' })).not.toContain(
			'Secure'
		)
		// The audit log records the client behind the proxy, and "web".
		const events = await proxied.store.audit.list({ userId: alice.id, type: 'session.started', limit: 5 })
		expect(events[0]).toMatchObject({ address: '203.0.113.9', actorDevice: 'web' })
	})

	test('a failed sign-in comes back by a redirect with role="alert", sets no session and signs nobody in; failures count with the API login toward 429', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		// Back to sign-in by a redirect (docs/web.md), with the failed form's one-time cookie and no session.
		const wrong = await w.post('/sign-in', undefined, { login: 'alice', password: 'not the password' })
		expect(wrong.status).toBe(303)
		expect(wrong.headers.get('location')).toBe('/')
		expect(setCookieOf(wrong, 'cfgsync_session')).toBeUndefined()
		const shown = await w.get('/', undefined, {
			cookie: `cfgsync_entry_form=${setCookieOf(wrong, 'cfgsync_entry_form')}`
		})
		expect(shown.html).toContain('role="alert"')
		expect(shown.html).toContain('Wrong username, email or password.')
		expect(shown.html).toContain('value="alice"')
		const unknown = await w.post('/sign-in', undefined, { login: 'nobody', password: 'not the password' })
		const unknownShown = await w.get('/', undefined, {
			cookie: `cfgsync_entry_form=${setCookieOf(unknown, 'cfgsync_entry_form')}`
		})
		expect(unknownShown.html).toContain('Wrong username, email or password.')
		for (let i = 0; i < 4; i++) await w.post('/sign-in', undefined, { login: 'alice', password: 'not the password' })
		for (let i = 0; i < 5; i++)
			await w.call('POST', '/api/auth/login', { body: { login: 'alice', password: 'not the password', device: 'x' } })
		const limited = await w.post('/sign-in', undefined, { login: 'alice', password: alice.password })
		expect(limited.status).toBe(429)
		expect(limited.headers.get('retry-after')).toMatch(/^\d+$/)
		expect(limited.html).toContain('role="alert"')
		expect(limited.headers.get('set-cookie')).toBeNull()
		expect(
			(await w.store.audit.list({ userId: alice.id, type: 'login.failed', limit: 50 })).some(
				(event) => event.details.via === 'web'
			)
		).toBe(true)
	})

	test('a session ends after 7 idle days and 30 days after sign-in; then pages send you to sign in', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const idle = await w.signIn(alice)
		const busy = await w.signIn(alice)
		for (let day = 0; day < 6; day++) {
			w.clock.advance(DAY)
			expect((await w.get('/configs', busy)).status).toBe(200)
		}
		w.clock.advance(DAY + 60_000)
		expect((await w.get('/configs', idle)).status).toBe(303)
		// Sign-in says why; the form's values come back on its page (forms.test.ts).
		const late = await w.post('/teams', idle, { name: 'Late' })
		expect(late.headers.get('location')).toBe('/')
		expect(setCookieOf(late, 'cfgsync_notice')).toBe('session-ended-form')
		expect((await w.get('/configs', busy)).status).toBe(200)
		for (let day = 8; day < 30; day += 5) {
			w.clock.advance(5 * DAY)
			await w.get('/configs', busy)
		}
		w.clock.advance(2 * DAY)
		const expired = await w.get('/devices', busy)
		expect(expired.status).toBe(303)
		expect(expired.headers.get('location')).toBe('/?next=%2Fdevices')
		expect(setCookieOf(expired, 'cfgsync_notice')).toBe('session-ended')
	})

	test('signing out deletes the session on the server: the old cookie is refused afterwards', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const a = await w.signIn(alice)
		const out = await w.post('/sign-out', a)
		expect(out.status).toBe(303)
		// The sign-in page it leads to says so, in a status region.
		expect(out.headers.get('location')).toBe('/')
		const after = await redirectedTo(w, out)
		expect(after.html).toMatch(/<p class="notice" role="status">You are signed out\./)
		expect(out.headers.get('set-cookie')).toContain('Max-Age=0')
		expect((await w.get('/configs', a)).status).toBe(303)
		expect((await w.store.audit.list({ userId: alice.id, type: 'session.ended', limit: 5 })).length).toBe(1)
	})

	test('changing the password keeps this session, ends the others, keeps the API keys; a wrong current password or a mismatch changes nothing', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const here = await w.signIn(alice)
		const there = await w.signIn(alice)
		const wrong = await w.post('/account/password', here, {
			current: 'not it at all',
			new: 'a brand new password',
			confirm: 'a brand new password'
		})
		expect(textOf((await shownAfter(w, here, wrong)).html)).toContain('The current password is wrong.')
		const mismatch = await w.post('/account/password', here, {
			current: alice.password,
			new: 'a brand new password',
			confirm: 'a different password'
		})
		expect((await shownAfter(w, here, mismatch)).html).toContain('id="new-error"')
		const short = await w.post('/account/password', here, { current: alice.password, new: 'short', confirm: 'short' })
		expect((await shownAfter(w, here, short)).html).toContain('id="new-error"')
		expect((await w.get('/configs', there)).status).toBe(200)
		const changed = await w.post('/account/password', here, {
			current: alice.password,
			new: 'a brand new password',
			confirm: 'a brand new password'
		})
		expect(changed.status).toBe(303)
		expect(changed.headers.get('location')).toBe('/account')
		expect((await redirectedTo(w, changed, here)).html).toContain('Your password was changed')
		expect((await w.get('/configs', there)).status).toBe(303)
		expect((await w.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
		// Signed in goes on to Configs; refused goes back to sign-in (docs/web.md: a failed form comes back by a redirect).
		const signIn = (password: string) => w.post('/sign-in', undefined, { login: 'alice', password })
		expect((await signIn('a brand new password')).headers.get('location')).toBe('/configs')
		expect((await signIn(alice.password)).headers.get('location')).toBe('/')
	})

	test("an admin's password reset asks first, then shows a one-time password once after a redirect (never in a URL), and ends that user's keys and sessions", async () => {
		const w = webApp()
		const root = await w.admin('root')
		const bob = await w.user('pro', 'bob')
		const r = await w.signIn(root)
		const b = await w.signIn(bob)
		// The button opens a confirmation naming the user; nothing changes on the way.
		const asked = await w.get(`/admin/users/${bob.id}/reset-password`, r)
		expect(asked.status).toBe(200)
		expect(textOf(asked.html)).toContain('Give bob a new one-time password?')
		expect((await w.get('/configs', b)).status).toBe(200)
		const reset = await w.post(`/admin/users/${bob.id}/reset-password`, r, { confirmed: 'yes' })
		expect(reset.status).toBe(303)
		const location = reset.headers.get('location') as string
		expect(location).toBe('/admin')
		const flash = setCookieOf(reset, 'cfgsync_flash') as string
		expect(flash.length).toBeGreaterThan(20)
		expect(reset.headers.get('set-cookie')).toContain('HttpOnly')
		// The page the redirect leads to shows it once, and clears the cookie that carried it.
		const shownPage = await w.get(location, r, withCookie(r, 'cfgsync_flash', flash))
		const shown = /<code class="secret">([A-Za-z0-9_-]{16})<\/code>/.exec(shownPage.html)?.[1] as string
		expect(shown).toBeDefined()
		expect(location).not.toContain(shown)
		expect(setCookieOf(shownPage, 'cfgsync_flash')).toBe('')
		// A reload (the cookie gone) shows no password and resets nothing again.
		const reload = await w.get(location, r)
		expect(reload.html).not.toContain('class="secret"')
		expect((await w.store.audit.list({ userId: bob.id, type: 'user.password_reset', limit: 5 })).length).toBe(1)
		// The sealed value opens for the admin's session only.
		const other = await w.signIn(root)
		expect((await w.get(location, other, withCookie(other, 'cfgsync_flash', flash))).html).not.toContain(
			'class="secret"'
		)
		// Every session and key of bob ended with the reset; the new password signs in.
		expect((await w.get('/configs', b)).status).toBe(303)
		expect((await w.call('GET', '/api/me', { key: bob.key })).status).toBe(401)
		expect((await w.post('/sign-in', undefined, { login: 'bob', password: shown })).headers.get('location')).toBe(
			'/configs'
		)
		const b2 = await w.signIn({ ...bob, password: shown })
		const revoked = await w.post(`/admin/users/${bob.id}/revoke-keys`, r, {}, { headers: { 'hx-request': 'true' } })
		expect(revoked.status).toBe(200)
		expect(revoked.html).toStartWith('<div id="users-list">')
		expect((await w.get('/configs', b2)).status).toBe(303)
		// Audit: the web admin is named as the actor, and the keys revoked are counted.
		const events = await w.store.audit.list({ userId: bob.id, type: 'user.password_reset', limit: 5 })
		expect(events[0]).toMatchObject({ actorUsername: 'root', actorDevice: 'web' })
		expect(events[0]?.details).toMatchObject({ revokedKeys: 1 })
		// An admin cannot lock themselves out from here.
		expect((await w.post(`/admin/users/${root.id}/remove`, r)).status).toBe(409)
	})

	test('an admin adds a user without a password: a one-time password is shown, and it signs in', async () => {
		const w = webApp()
		const root = await w.admin('root')
		const r = await w.signIn(root)
		const added = await w.post('/admin/users', r, {
			email: 'new@example.test',
			username: 'newbie',
			plan: 'pro',
			password: ''
		})
		// Post/redirect/get: the password is on the page the redirect leads to, once.
		expect(added.status).toBe(303)
		expect(added.headers.get('location')).toBe('/admin')
		const next = await w.get('/admin', r, withCookie(r, 'cfgsync_flash', setCookieOf(added, 'cfgsync_flash') as string))
		const shown = /<code class="secret">([A-Za-z0-9_-]{16})<\/code>/.exec(next.html)?.[1] as string
		expect((await w.post('/sign-in', undefined, { login: 'newbie', password: shown })).headers.get('location')).toBe(
			'/configs'
		)
		const again = await w.post('/admin/users', r, {
			email: 'NEW@example.test',
			username: 'other',
			plan: 'pro',
			password: 'long enough pw'
		})
		// A failed form comes back by a redirect, its message by the field (docs/web.md).
		expect((await shownAfter(w, r, again)).html).toContain('id="new-email-error"')
	})
})
