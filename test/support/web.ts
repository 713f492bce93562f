import { expect } from 'bun:test'
import { testApp, type TestApp, type TestUser } from './helpers'

/** The response of one web request: status, headers and the HTML text. */
export interface Page {
	status: number
	headers: Headers
	html: string
}

/** A person signed in to the web application: their cookie and CSRF token. */
export interface Browser {
	user: TestUser
	cookie: string
	csrf: string
}

export const ORIGIN = 'http://localhost'

/** Headers a browser sends on a form post from our own pages (Chromium: Origin null with no-referrer). */
export const SAME_ORIGIN = { origin: 'null', 'sec-fetch-site': 'same-origin' }

export function webApp(options: Parameters<typeof testApp>[0] = {}) {
	const t = testApp({ address: () => '198.51.100.7', ...options })

	async function get(
		path: string,
		who?: Browser | { cookie: string },
		headers: Record<string, string> = {}
	): Promise<Page> {
		const response = await t.app.handle(
			new Request(`${ORIGIN}${path}`, {
				headers: { ...(who ? { cookie: `cfgsync_session=${who.cookie}` } : {}), ...headers }
			})
		)
		return { status: response.status, headers: response.headers, html: await response.text() }
	}

	/** A form post as a browser sends it: urlencoded, same-origin labels, the session's token unless told otherwise. */
	async function post(
		path: string,
		who: Browser | undefined,
		fields: Record<string, string> = {},
		options: { csrf?: string | null; headers?: Record<string, string> } = {}
	): Promise<Page> {
		const form = new URLSearchParams(fields)
		const token = options.csrf === undefined ? who?.csrf : options.csrf
		if (token !== null && token !== undefined) form.set('_csrf', token)
		const body = form.toString()
		const headers: Record<string, string> = {
			'content-type': 'application/x-www-form-urlencoded',
			'content-length': String(Buffer.byteLength(body)),
			...SAME_ORIGIN,
			...(who ? { cookie: `cfgsync_session=${who.cookie}` } : {}),
			...options.headers
		}
		// A header given as '' is not sent at all (a client that does not label its requests).
		for (const [name, value] of Object.entries(headers)) if (value === '') delete headers[name]
		const response = await t.app.handle(new Request(`${ORIGIN}${path}`, { method: 'POST', headers, body }))
		return { status: response.status, headers: response.headers, html: await response.text() }
	}

	/** Signs `user` in through the sign-in form and reads the CSRF token from the next page. */
	async function signIn(user: TestUser): Promise<Browser> {
		const response = await post('/sign-in', undefined, { login: user.username, password: user.password })
		expect(response.status).toBe(303)
		const cookie = /cfgsync_session=([^;]+)/.exec(response.headers.get('set-cookie') ?? '')?.[1]
		expect(cookie).toBeDefined()
		const page = await get('/account', { cookie: cookie as string })
		const csrf = /name="_csrf" value="([0-9a-f]{64})"/.exec(page.html)?.[1]
		expect(csrf).toBeDefined()
		return { user, cookie: cookie as string, csrf: csrf as string }
	}

	/** A user who is a server admin. */
	async function admin(name = 'root'): Promise<TestUser> {
		const user = await t.user('team', name)
		const row = await t.store.users.findById(user.id)
		await t.store.users.setAdmin(user.id, true)
		expect(row).toBeDefined()
		return user
	}

	return { ...t, get, post, signIn, admin }
}

export type WebApp = ReturnType<typeof webApp> & TestApp

/** Pushes a config through the API and returns its id. */
export async function push(
	t: TestApp,
	user: TestUser,
	data: unknown,
	options: { name?: string; tool?: string; teamId?: string } = {}
) {
	const response = await t.call('POST', '/api/configs', { key: user.key, body: { data, ...options } })
	expect(response.status).toBeLessThan(300)
	return response.body.id as string
}

/** The value a response sets for a cookie ('' when it clears it), or undefined when it sets none. */
export const setCookieOf = (page: Page, name: string): string | undefined =>
	new RegExp(`(?:^|[;,]\\s*)${name}=([^;]*)`).exec(page.headers.get('set-cookie') ?? '')?.[1]

/** Request headers for `who` carrying one more cookie besides the session (a flash, say). */
export const withCookie = (who: Browser, name: string, value: string) => ({
	cookie: `cfgsync_session=${who.cookie}; ${name}=${value}`
})

/** Text of the page with tags removed and entities decoded, for "what a person reads" checks. */
export const textOf = (html: string): string =>
	html
		.replace(/<script[\s\S]*?<\/script>/g, '')
		.replace(/<[^>]+>/g, ' ')
		.replace(/&lt;/g, '<')
		.replace(/&gt;/g, '>')
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&amp;/g, '&')
		.replace(/\s+/g, ' ')

/**
 * A failed form's answer followed as a browser does (docs/web.md: the page after a failed post is reached by a
 * redirect): it must be a 303 carrying the one-time form cookie; this is the page it leads to, with that cookie.
 */
export async function shownAfter(w: WebApp | ReturnType<typeof webApp>, who: Browser, failed: Page): Promise<Page> {
	expect(failed.status).toBe(303)
	const carried = setCookieOf(failed, 'cfgsync_form')
	expect(carried).toBeTruthy()
	return w.get(failed.headers.get('location') as string, { cookie: `${who.cookie}; cfgsync_form=${carried}` })
}

/**
 * A redirect followed as a browser does: to its location, with the session (the one it set, else `who`'s) and the
 * one-time cookies it set (the notice, a flash), so the page shows what the redirect meant it to (docs/web.md).
 */
export async function redirectedTo(
	w: { get: ReturnType<typeof webApp>['get'] },
	answer: Page,
	who?: { cookie: string }
): Promise<Page> {
	expect(answer.status).toBe(303)
	const cookies: string[] = []
	const session = setCookieOf(answer, 'cfgsync_session') || who?.cookie
	if (session) cookies.push(`cfgsync_session=${session}`)
	for (const name of ['cfgsync_notice', 'cfgsync_flash']) {
		const value = setCookieOf(answer, name)
		if (value) cookies.push(`${name}=${value}`)
	}
	return w.get(answer.headers.get('location') as string, undefined, { cookie: cookies.join('; ') })
}
