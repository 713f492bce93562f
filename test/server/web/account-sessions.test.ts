// docs/web.md Account and Devices: the web sessions listed with "Sign out" each and "Sign out everywhere else",
// devices renamed in their rows, and buttons whose accessible names say what they act on.
import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import type { TestUser } from '../../support/helpers'
import { redirectedTo, shownAfter, textOf, webApp, type Browser } from '../../support/web'

const CHROME_LINUX =
	'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36'
const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'
const SAFARI_IPHONE =
	'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'

/** Signs `user` in from a browser with this user agent and address. */
async function signInFrom(w: ReturnType<typeof webApp>, user: TestUser, userAgent: string, address: string) {
	const answer = await w.post(
		'/sign-in',
		undefined,
		{ login: user.username, password: user.password },
		{ headers: { 'user-agent': userAgent, 'x-test-address': address } }
	)
	expect(answer.status).toBe(303)
	const cookie = /cfgsync_session=([^;]+)/.exec(answer.headers.get('set-cookie') ?? '')?.[1] as string
	const page = await w.get('/account', { cookie })
	const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(page.html)?.[1] as string
	return { user, cookie, csrf } satisfies Browser
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** The app, with each request's address taken from a test header (as a trusted proxy would give it). */
const app = () => webApp({ address: (request) => request.headers.get('x-test-address') ?? '198.51.100.7' })

/** The "Sign out" forms of the Account page, by the session each names. */
const signOutForms = (html: string) =>
	[
		...html.matchAll(
			/<form method="post" action="(\/account\/sessions\/[0-9a-f]{32}\/sign-out)">[\s\S]*?Sign out<span class="visually-hidden"> ([^<]+)<\/span>/g
		)
	].map((match) => ({ action: match[1] as string, name: match[2] as string }))

describe('Account: web sessions (docs/web.md)', () => {
	test('lists each session by browser, address and last seen, this one marked and first; each other has a "Sign out" naming it', async () => {
		const w = app()
		const alice = await w.user('pro', 'alice')
		const here = await signInFrom(w, alice, CHROME_LINUX, '203.0.113.5')
		w.clock.advance(5 * 60 * 1000)
		await signInFrom(w, alice, FIREFOX_WINDOWS, '203.0.113.9')
		const account = await w.get('/account', here)
		expect(account.status).toBe(200)
		const text = textOf(account.html)
		expect(text).toContain('Web sessions')
		expect(text).toMatch(/Chrome on Linux 203\.0\.113\.5 .*This session/)
		expect(text).toContain('Firefox on Windows 203.0.113.9')
		expect(text.indexOf('Chrome on Linux')).toBeLessThan(text.indexOf('Firefox on Windows'))
		// Only the other session has a "Sign out", and its accessible name says which one it ends.
		expect(signOutForms(account.html).map((form) => form.name)).toEqual(['Firefox on Windows, 203.0.113.9'])
		expect(account.html).toContain('Sign out everywhere else')
		// Never the session's id or its stored hash, nor the raw user agent, and no inline style (the CSP).
		expect(account.html).not.toContain(here.cookie)
		expect(account.html).not.toContain('Gecko/20100101')
		expect(account.html).not.toContain('style=')
		// Alone, there is nothing else to sign out.
		const bob = await w.user('pro', 'bob')
		const alone = await w.get('/account', await signInFrom(w, bob, SAFARI_IPHONE, '198.51.100.20'))
		expect(textOf(alone.html)).toContain('Safari on iOS 198.51.100.20')
		expect(alone.html).not.toContain('Sign out everywhere else')
		expect(textOf(alone.html)).toContain('You are signed in in this browser only.')
	})

	test('"Sign out" ends that session on the server (its next page is sign-in), keeps this one, says so once and is audited', async () => {
		const w = app()
		const alice = await w.user('pro', 'alice')
		const here = await signInFrom(w, alice, CHROME_LINUX, '203.0.113.5')
		const there = await signInFrom(w, alice, FIREFOX_WINDOWS, '203.0.113.9')
		const [form] = signOutForms((await w.get('/account', here)).html)
		const answer = await w.post(form!.action, here, { _page: '/account' })
		expect(answer.status).toBe(303)
		expect(answer.headers.get('location')).toBe('/account')
		const after = await redirectedTo(w, answer, here)
		expect(textOf(after.html)).toContain('That web session was signed out')
		expect(signOutForms(after.html)).toEqual([])
		expect(textOf(after.html)).not.toContain('Firefox on Windows')
		// The other browser's next page load lands on sign-in, saying its session ended.
		const signedOut = await w.get('/configs', there)
		expect(signedOut.status).toBe(303)
		expect(signedOut.headers.get('location')).toBe('/?next=%2Fconfigs')
		expect((await w.get('/configs', here)).status).toBe(200)
		const events = await w.store.audit.list({ userId: alice.id, type: 'session.ended', limit: 5 })
		expect(events).toHaveLength(1)
		expect(events[0]).toMatchObject({
			actorDevice: 'web',
			address: '198.51.100.7',
			targetName: 'Firefox on Windows, 203.0.113.9',
			details: { reason: 'signed_out_elsewhere' }
		})
		expect(textOf((await w.get('/activity', here)).html)).toContain(
			'You signed out another web session (Firefox on Windows, 203.0.113.9)'
		)
		// Sent again (the session is gone): 404, nothing else changes.
		expect((await w.post(form!.action, here)).status).toBe(404)
	})

	test('a session that is not yours is a 404 (never a 403) and stays; without the CSRF token nothing is signed out', async () => {
		const w = app()
		const alice = await w.user('pro', 'alice')
		const bob = await w.user('pro', 'bob')
		const alices = await signInFrom(w, alice, CHROME_LINUX, '203.0.113.5')
		const bobs = await signInFrom(w, bob, CHROME_LINUX, '203.0.113.6')
		const bobsOther = await signInFrom(w, bob, FIREFOX_WINDOWS, '203.0.113.7')
		const [bobsForm] = signOutForms((await w.get('/account', bobs)).html)
		const theirs = await w.post(bobsForm!.action, alices)
		expect(theirs.status).toBe(404)
		expect(theirs.html).not.toContain('Firefox')
		expect((await w.post('/account/sessions/00000000000000000000000000000000/sign-out', alices)).status).toBe(404)
		const forged = await w.post(bobsForm!.action, bobs, {}, { csrf: null })
		expect(forged.status).toBe(403)
		expect((await w.post('/account/sessions/sign-out-others', bobs, {}, { csrf: 'f'.repeat(64) })).status).toBe(403)
		expect((await w.get('/configs', bobsOther)).status).toBe(200)
		// This very session is signed out with the header's "Sign out", not from the list: its address is refused.
		const ownRef = sha256(`session-ref:${sha256(alices.cookie)}`).slice(0, 32)
		const own = await w.post(`/account/sessions/${ownRef}/sign-out`, alices)
		expect(own.status).toBe(409)
		expect(textOf(own.html)).toContain('That is this session')
		expect((await w.get('/configs', alices)).status).toBe(200)
	})

	test('"Sign out everywhere else" ends every other session, keeps this one and every device key, needs no password', async () => {
		const w = app()
		const alice = await w.user('pro', 'alice')
		const bob = await w.user('pro', 'bob')
		const here = await signInFrom(w, alice, CHROME_LINUX, '203.0.113.5')
		const others = [
			await signInFrom(w, alice, FIREFOX_WINDOWS, '203.0.113.9'),
			await signInFrom(w, alice, SAFARI_IPHONE, '203.0.113.10')
		]
		const bobs = await signInFrom(w, bob, CHROME_LINUX, '203.0.113.6')
		expect(signOutForms((await w.get('/account', here)).html)).toHaveLength(2)
		const answer = await w.post('/account/sessions/sign-out-others', here, { _page: '/account' })
		expect(answer.status).toBe(303)
		const after = await redirectedTo(w, answer, here)
		expect(textOf(after.html)).toContain('Every other web session of yours was signed out; this one stays.')
		expect(signOutForms(after.html)).toEqual([])
		for (const other of others) expect((await w.get('/configs', other)).status).toBe(303)
		expect((await w.get('/configs', here)).status).toBe(200)
		expect((await w.get('/configs', bobs)).status).toBe(200)
		expect((await w.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
		const events = await w.store.audit.list({ userId: alice.id, type: 'session.ended', limit: 5 })
		expect(events.map((event) => event.targetName).sort()).toEqual([
			'Firefox on Windows, 203.0.113.9',
			'Safari on iOS, 203.0.113.10'
		])
	})
})

describe('Account: sessions that ended by themselves', () => {
	test('an idle session is neither listed nor signed out again: "Sign out everywhere else" records only live ones', async () => {
		const w = app()
		const alice = await w.user('pro', 'alice')
		const here = await signInFrom(w, alice, CHROME_LINUX, '203.0.113.5')
		await signInFrom(w, alice, FIREFOX_WINDOWS, '203.0.113.9')
		const DAY = 24 * 60 * 60 * 1000
		w.clock.advance(6 * DAY)
		expect((await w.get('/configs', here)).status).toBe(200)
		w.clock.advance(2 * DAY)
		await signInFrom(w, alice, SAFARI_IPHONE, '203.0.113.10')
		// Firefox has been idle 8 days: past the 7 of docs/web.md, so it is no session any more.
		expect(signOutForms((await w.get('/account', here)).html).map((form) => form.name)).toEqual([
			'Safari on iOS, 203.0.113.10'
		])
		expect((await w.post('/account/sessions/sign-out-others', here)).status).toBe(303)
		const events = await w.store.audit.list({ userId: alice.id, type: 'session.ended', limit: 5 })
		expect(events.map((event) => event.targetName)).toEqual(['Safari on iOS, 203.0.113.10'])
	})
})

describe('Devices: rename, and buttons named after their device (docs/web.md)', () => {
	/** Alice with a second key, "laptop", signed in on the web. */
	async function devices() {
		const w = app()
		const alice = await w.user('pro', 'alice')
		const login = await w.call('POST', '/api/auth/login', {
			body: { login: 'alice', password: alice.password, device: 'laptop' }
		})
		const browser = await signInFrom(w, alice, CHROME_LINUX, '203.0.113.5')
		return { w, alice, browser, laptop: login.body as { id: string; apiKey: string } }
	}

	test('each Revoke and Rename names its device; Rename saves the new name, keeps the key, says so, and is audited', async () => {
		const { w, alice, browser, laptop } = await devices()
		const page = await w.get('/devices', browser)
		for (const device of ['laptop', 'test']) {
			expect(page.html).toContain(`Revoke<span class="visually-hidden"> ${device}</span>`)
			expect(page.html).toContain(`Rename<span class="visually-hidden"> ${device}</span>`)
			expect(page.html).toContain(`New name of ${device}`)
		}
		expect(page.html).not.toContain('>Revoke</button>')
		expect(page.html).not.toContain('style=')
		const answer = await w.post(`/devices/${laptop.id}/rename`, browser, { name: 'work laptop', _page: '/devices' })
		expect(answer.status).toBe(303)
		expect(answer.headers.get('location')).toBe('/devices')
		const after = await redirectedTo(w, answer, browser)
		expect(textOf(after.html)).toContain('The device was renamed.')
		expect(after.html).toContain('Revoke<span class="visually-hidden"> work laptop</span>')
		expect(after.html).not.toContain('> laptop</span>')
		expect((await w.call('GET', '/api/me', { key: laptop.apiKey })).status).toBe(200)
		const events = await w.store.audit.list({ userId: alice.id, type: 'key.renamed', limit: 5 })
		expect(events[0]).toMatchObject({ actorDevice: 'web', targetName: 'work laptop', details: { from: 'laptop' } })
		expect(textOf((await w.get('/activity', browser)).html)).toContain(
			'You renamed the device “laptop” to “work laptop”'
		)
	})

	test('a refused name comes back by a redirect, by its own field (aria-invalid, aria-describedby, focus), the typed value kept', async () => {
		const { w, browser, laptop } = await devices()
		for (const [name, message] of [
			['', 'Name this device.'],
			['test', 'Another of your devices is named "test" already'],
			['x'.repeat(101), 'At most 100 characters.']
		] as const) {
			const failed = await w.post(`/devices/${laptop.id}/rename`, browser, { name, _page: '/devices' })
			const shown = await shownAfter(w, browser, failed)
			expect(shown.status).toBe(200)
			const field = new RegExp(`<input id="rename-${laptop.id}"[^>]*>`).exec(shown.html)?.[0] ?? ''
			expect({ name, field }).toEqual({ name, field: expect.stringContaining('aria-invalid="true"') })
			expect(field).toContain(`aria-describedby="rename-${laptop.id}-error"`)
			expect(field).toContain('autofocus')
			if (name !== '') expect(field).toContain(`value="${name}"`)
			expect(shown.html).toContain(`id="rename-${laptop.id}-error"`)
			expect(textOf(shown.html)).toContain(message)
			// Only that row's field is marked; a reload shows the form clean.
			expect(shown.html.match(/aria-invalid="true"/g)).toHaveLength(1)
			expect((await w.get('/devices', browser)).html).not.toContain('aria-invalid')
		}
		const listed = await w.call('GET', '/api/keys', { key: laptop.apiKey })
		expect((listed.body as { device: string }[]).map((key) => key.device).sort()).toEqual(['laptop', 'test'])
	})

	test("another user's device is a 404 page and keeps its name; without the CSRF token nothing is renamed", async () => {
		const { w, laptop } = await devices()
		const bob = await w.user('pro', 'bob')
		const bobs = await signInFrom(w, bob, FIREFOX_WINDOWS, '203.0.113.9')
		const theirs = await w.post(`/devices/${laptop.id}/rename`, bobs, { name: 'mine' })
		expect(theirs.status).toBe(404)
		expect(theirs.html).not.toContain('laptop')
		const forged = await w.post(`/devices/${laptop.id}/rename`, bobs, { name: 'mine' }, { csrf: null })
		expect(forged.status).toBe(403)
		const listed = await w.call('GET', '/api/keys', { key: laptop.apiKey })
		expect((listed.body as { device: string }[]).map((key) => key.device).sort()).toEqual(['laptop', 'test'])
	})

	test('Admin\'s "Revoke keys" names the user it acts on', async () => {
		const w = app()
		const root = await w.admin()
		await w.user('pro', 'max')
		const admin = await signInFrom(w, root, CHROME_LINUX, '203.0.113.5')
		const page = await w.get('/admin', admin)
		expect(page.html).toContain('Revoke keys<span class="visually-hidden"> of max</span>')
	})
})
