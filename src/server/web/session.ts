import type { TrustedProxies } from '../lib/client-address'
import { SESSION_MAX_MS } from '../../shared/constants'
import type { SessionsService, WebCaller } from '../modules/sessions/service'

/** The cookie that carries the session id (docs/web.md, sessions); only the id's SHA-256 is stored. */
export const SESSION_COOKIE = 'cfgsync_session'
/** A one-time secret for the page after a redirect (kit.tsx, flashCookie): sealed to the session. */
export const FLASH_COOKIE = 'cfgsync_flash'
/** Where a form carries the per-session CSRF token, and where an htmx request does. */
export const CSRF_FIELD = '_csrf'
/** The page a form is on (layout.tsx, Csrf), for coming back to it after signing in again. */
export const PAGE_FIELD = '_page'
export const CSRF_HEADER = 'x-csrf-token'

/** One cookie's value from a Cookie header, or undefined. */
export function readCookie(header: string | null, name: string): string | undefined {
	if (header === null) return undefined
	for (const part of header.split(';')) {
		const eq = part.indexOf('=')
		if (eq === -1) continue
		if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
	}
	return undefined
}

/**
 * The session cookie (docs/web.md): HttpOnly, SameSite, Path=/, Secure when the request came over
 * HTTPS. Lax rather than Strict, so that following a link to the application
 * from mail or chat opens it signed in; every change also needs the token and
 * a same-origin request, and a GET changes nothing.
 */
export function sessionCookie(value: string, secure: boolean): string {
	return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.floor(SESSION_MAX_MS / 1000)}${secure ? '; Secure' : ''}`
}

export const clearedSessionCookie = (secure: boolean): string =>
	`${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`

/**
 * True when the request reached us over HTTPS: directly, or through a trusted
 * proxy that says so in X-Forwarded-Proto (anyone else could write that header).
 */
export function viaHttps(request: Request, peer: string, trusted: TrustedProxies): boolean {
	if (request.url.startsWith('https:')) return true
	if (trusted.empty || !trusted.has(peer)) return false
	const proto = request.headers.get('x-forwarded-proto')
	return proto !== null && proto.split(',')[0]?.trim().toLowerCase() === 'https'
}

/** scheme://host[:port] as the browser sees this server. */
export function ownOrigin(request: Request, https: boolean): string {
	const host = request.headers.get('host') ?? new URL(request.url).host
	return `${https ? 'https' : 'http'}://${host}`
}

/**
 * The request comes from this application's own pages (docs/web.md, CSRF).
 * Browsers label every POST with Sec-Fetch-Site and Origin; with
 * `Referrer-Policy: no-referrer` Chromium sends `Origin: null` on our own form
 * posts, so Sec-Fetch-Site: same-origin is accepted then. A foreign Origin or
 * a cross-site label is refused whatever else the request carries. A request
 * with neither header is no browser's: the session's token decides alone.
 */
export function fromOwnPages(headers: Headers, origin: string): boolean {
	const site = headers.get('sec-fetch-site')
	const from = headers.get('origin')
	if (site !== null && site !== 'same-origin') return false
	if (from !== null && from !== 'null' && from !== origin) return false
	if (from === 'null' && site !== 'same-origin') return false
	return true
}

/** The web application's gate: the session a request's cookie names, and the CSRF check for changes. */
export function createWebGate(sessions: SessionsService) {
	return {
		/** The signed-in person, or undefined (no cookie, unknown, expired). */
		caller: (request: Request): Promise<WebCaller | undefined> =>
			sessions.resolve(readCookie(request.headers.get('cookie'), SESSION_COOKIE)),

		/** The per-session token from the header or the form, and a same-origin request. */
		allowsChange(request: Request, caller: WebCaller, formToken: unknown, origin: string): boolean {
			const token = request.headers.get(CSRF_HEADER) ?? (typeof formToken === 'string' ? formToken : null)
			return sessions.checkCsrf(caller, token) && fromOwnPages(request.headers, origin)
		}
	}
}
