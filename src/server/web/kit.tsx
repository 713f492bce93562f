import type { Comparisons } from './comparisons'
import { Elysia, status } from 'elysia'
import htmxFile from 'htmx.org/dist/htmx.min.js' with { type: 'file' }
import { readFileSync } from 'node:fs'
import type { VNode } from 'preact'
import { render } from 'preact-render-to-string'
import type { ZodError } from 'zod'
import type { StreamClosed } from '../events'
import type { EventBroker } from '../events/broker'
import type { Clock } from '../lib/clock'
import { sha256Hex } from '../lib/crypto'
import { compressedAsset, compressedResponse, isCompressible } from '../lib/compression'
import { AppError } from '../lib/errors'
import { CONTENT_SECURITY_POLICY, htmlResponse, NO_STORE, pathOf } from '../lib/http'
import type { Actor } from '../modules/audit/event'
import type { AuditService } from '../modules/audit/service'
import type { AuthService } from '../modules/auth/service'
import type { ConfigPolicy } from '../modules/configs/policy'
import type { ConfigsService } from '../modules/configs/service'
import type { SessionsService, WebCaller } from '../modules/sessions/service'
import type { SignupService } from '../modules/signup/service'
import type { TeamsService } from '../modules/teams/service'
import type { UsersService } from '../modules/users/service'
import cssFile from './assets/app.css' with { type: 'file' }
import scriptFile from './assets/app.js' with { type: 'file' }
import { ErrorPage, ListHeading, type ListId, Sentence, type ViewContext } from './layout'
import { carriedFormCookie } from './form-cookie'
import { createWebGate, CSRF_FIELD, FLASH_COOKIE, ownOrigin, PAGE_FIELD, readCookie, SESSION_COOKIE } from './session'

// What every page handler uses (docs/web.md): the services, the responses a
// page gives (page, fragment, redirect, failure), and the gates as macros.

export interface WebDeps {
	sessions: SessionsService
	auth: AuthService
	configs: ConfigsService
	/** Who may do what with a config: the pages ask it what to offer. */
	policy: ConfigPolicy
	teams: TeamsService
	users: UsersService
	audit: AuditService
	clock: Clock
	/** The client address of a request (through trusted proxies only: docs/operations.md), for throttling and the audit log. */
	addressOf: (request: Request) => string
	/** True when the request came over HTTPS, directly or through a trusted proxy. */
	https: (request: Request) => boolean
	/** docs/web.md first start and sign-up: setup addresses and sign-up links. */
	signups: SignupService
	/** The address people use (CFGSYNC_PUBLIC_URL, else the request's Host): what sign-up links start with. */
	originOf: (request: Request) => string
	/** The event streams (docs/web.md "Live changes"): the same broker as GET /api/events. */
	events: EventBroker
	/** Writes a closed stream's access-log line (plugins/request-log.ts). */
	streamClosed: StreamClosed
	/** Comparisons of two versions, in worker threads, one per core at once (docs/web.md). */
	comparisons: Comparisons
}

/** Who acts in a change: the signed-in person and where the request came from (for the audit log). */
export type WebActor = Actor & WebCaller

/** What a page handler gets from the `page` macro. */
export interface PageContext {
	request: Request
	web: WebCaller
	view: ViewContext
}

/** What a handler gets from the `change` macro: also who acts and the form. */
export interface ChangeContext extends PageContext {
	actor: WebActor
	body: unknown
}

/** Fixed messages shown after a change (the query names one; nothing from it is echoed). */
export const NOTICES: Record<string, string> = {
	'signed-out': 'You are signed out. Sign in again below.',
	'session-ended': 'Your session ended. Sign in again to go on.',
	'session-ended-form':
		'Your session ended before your form was sent, so nothing was changed. Sign in again: the form comes back as you filled it in (passwords aside), to send it again.',
	revoked: 'The key was revoked: that device can no longer reach the server.',
	password: 'Your password was changed. Your other web sessions were signed out; your devices keep their keys.',
	'password-devices':
		'Your password was changed. Your other web sessions and every device were signed out: run `cfgsync login` on each device to sign it in again.',
	'session-signed-out': 'That web session was signed out: its browser is back at sign-in.',
	'sessions-signed-out':
		'Every other web session of yours was signed out; this one stays. Your devices keep their keys: revoke them on Devices.',
	'device-renamed': 'The device was renamed. It keeps its key: nothing changes on that machine.',
	'rolled-back': 'Rolled back: the chosen version is now the current one, as a new version.',
	'already-current': 'Nothing was rolled back: the current version already holds that version’s data.',
	created: 'The team was created.',
	joined: 'You joined the team.',
	declined: 'The invitation was declined.',
	invited: 'The invitation was sent. They join once they accept it.',
	role: 'The role was changed.',
	removed: 'Removed.',
	left: 'You left the team.',
	renamed: 'The team was renamed.',
	deleted:
		'The team was deleted. Until its purge, 30 days from now, its owners can restore it from this page with its members and configs.',
	restored: 'The team was restored, with its members and configs as they were.',
	'user-added': 'The user was added.',
	plan: 'The plan was changed.',
	'keys-revoked': 'Every key and web session of that user was revoked.',
	'password-reset': 'The password was reset. Every key and web session of that user was revoked.',
	'invitation-cancelled': 'The invitation was cancelled.',
	'user-removed': 'The user was removed.',
	'first-admin': 'You are the first admin of this server, and signed in. Invite people below with a sign-up link.',
	welcome:
		'Your account was created and you are signed in. Next, install the client on each machine and run `cfgsync login` there: each appears here as a device.',
	'link-created': 'The sign-up link was created.',
	'link-revoked': 'The sign-up link was revoked: it no longer works.'
}

/**
 * The notice a page shows once (docs/web.md: notices after a redirect come from a one-time cookie, never the
 * URL): its name, from the cookie the redirect set. The page that reads it clears it (`pageResponse`), so a
 * reload or a bookmark does not show it again. Only our own fixed sentences: an unknown name shows nothing.
 */
export const noticeOf = (request: Request) =>
	NOTICES[readCookie(request.headers.get('cookie'), NOTICE_COOKIE) ?? ''] ?? undefined

/** The cookie a notice travels in to the page a redirect leads to: a name of NOTICES, one minute, read once. */
export const NOTICE_COOKIE = 'cfgsync_notice'
const noticeCookie = (name: string, secure: boolean) =>
	`${NOTICE_COOKIE}=${name}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${name === '' ? 0 : 60}${secure ? '; Secure' : ''}`

/**
 * Handlers name the notice of their redirect as `?notice=NAME` on its address (or htmx's `hx-redirect`);
 * before the answer leaves, the name moves into the one-time cookie and out of the address. A whole page
 * answered to a request that carried the cookie clears it: that page has shown it.
 */
function oneTimeNotice(request: Request, response: Response, secure: boolean): Response {
	for (const header of ['location', 'hx-redirect']) {
		const location = response.headers.get(header)
		if (location === null || !location.startsWith('/')) continue
		const url = new URL(location, 'http://local')
		const name = url.searchParams.get('notice')
		if (name === null) continue
		url.searchParams.delete('notice')
		response.headers.set(header, url.pathname + url.search + url.hash)
		if (NOTICES[name] !== undefined) response.headers.append('set-cookie', noticeCookie(name, secure))
		return response
	}
	const carried = readCookie(request.headers.get('cookie'), NOTICE_COOKIE)
	const wholePage =
		!isHtmx(request) && response.status < 300 && (response.headers.get('content-type') ?? '').startsWith('text/html')
	if (carried !== undefined && carried !== '' && wholePage)
		response.headers.append('set-cookie', noticeCookie('', secure))
	return response
}

export const ASSET_PREFIX = '/assets'
const versioned = (file: string) => sha256Hex(readFileSync(file)).slice(0, 12)
let assetPaths: ViewContext['assets'] | undefined
/** The embedded assets' URLs: each carries its content hash, so a new build is never served from a stale cache. */
export const assets = () =>
	(assetPaths ??= {
		css: `${ASSET_PREFIX}/app.css?v=${versioned(cssFile)}`,
		script: `${ASSET_PREFIX}/app.js?v=${versioned(scriptFile)}`,
		htmx: `${ASSET_PREFIX}/htmx.min.js?v=${versioned(htmxFile)}`
	})

/** An embedded asset, compressed once per encoding (docs/web.md); its URL carries a content hash, so it may be cached for good. */
const asset = (file: string, type: string) =>
	compressedAsset(() => new Uint8Array(readFileSync(file)), {
		'content-type': type,
		'cache-control': 'public, max-age=31536000, immutable'
	})
const stylesheetOf = asset(cssFile, 'text/css;charset=utf-8')
const htmxScriptOf = asset(htmxFile, 'text/javascript;charset=utf-8')
const appScriptOf = asset(scriptFile, 'text/javascript;charset=utf-8')
export const appScript = ({ request }: { request: Request }) => appScriptOf(request)
export const stylesheet = ({ request }: { request: Request }) => stylesheetOf(request)
export const htmxScript = ({ request }: { request: Request }) => htmxScriptOf(request)

/** Pages and fragments compressed for the browser that asked (docs/web.md): a `mapResponse` hook of the web routes. */
// Declared `async` so that Elysia awaits it: a plain arrow returning a promise left that promise as the request's
// response value, and the access log and the metrics then read 200 for pages that answered 401, 404 or 410.
// Before that, a notice named on a redirect moves into its one-time cookie (oneTimeNotice).
export const pageResponse =
	(https: (request: Request) => boolean) =>
	async ({ request, responseValue }: { request: Request; responseValue: unknown }) => {
		if (!(responseValue instanceof Response)) return undefined
		const response = oneTimeNotice(request, responseValue, https(request))
		// Only text worth compressing is mapped: anything else (the /events stream) stays the handler's own
		// response, which the access log and the metrics recognise as a stream.
		return isCompressible(response.headers.get('content-type')) ? compressedResponse(request, response) : undefined
	}

/** The view context of a request: who is looking (none when signed out), now, the assets, the path. */
export const viewContext =
	(clock: Clock) =>
	(request: Request, caller?: WebCaller): ViewContext => ({
		user: caller && {
			userId: caller.userId,
			username: caller.username,
			isAdmin: caller.isAdmin,
			csrfToken: caller.csrfToken
		},
		now: clock.now(),
		assets: assets(),
		path: pathOf(request.url)
	})

type Body = Record<string, unknown> | undefined

/** A form field as text ('' when missing or not text). */
export const field = (body: unknown, name: string): string => {
	const value = (body as Body)?.[name]
	return typeof value === 'string' ? value : ''
}

/** A form field as sent: undefined when the form does not carry it. */
export const optionalField = (body: unknown, name: string): unknown => (body as Body)?.[name]

export const isHtmx = (request: Request) => request.headers.get('hx-request') === 'true'

/** Only a path of this site: never `//elsewhere` or a full URL (no open redirect). */
export const safeNext = (next: string | null | undefined): string | undefined =>
	next && /^\/(?![/\\])[^\s]*$/.test(next) && !next.startsWith('/sign-') ? next : undefined

export const redirect = (location: string, headers: Record<string, string> = {}) =>
	new Response(null, { status: 303, headers: { location, ...NO_STORE, ...headers } })

type Init = { status?: number; headers?: Record<string, string> }

/** A whole page, never cached (it carries a session or config data: docs/api.md, headers). */
export const page = (node: VNode, init: Init = {}) =>
	htmlResponse(`<!DOCTYPE html>${render(node)}`, { status: init.status, headers: { ...NO_STORE, ...init.headers } })

/** A piece of a page for htmx to swap in. */
export const fragment = (node: VNode | null, init: Init = {}) =>
	htmlResponse(node ? render(node) : '', { status: init.status, headers: { ...NO_STORE, ...init.headers } })

/**
 * A service's refusal as a page (or, for htmx, as an alert swapped into the
 * page's alert region). Anything else is a bug: the error mapper logs it.
 */
export function failure(request: Request, view: ViewContext, error: unknown): Response {
	if (!(error instanceof AppError)) throw error
	const headers = error.headers ?? {}
	if (isHtmx(request)) {
		return fragment(
			<p class="alert" role="alert">
				<Sentence text={error.message} />
			</p>,
			{ status: error.status, headers: { ...headers, 'hx-retarget': '#alerts', 'hx-reswap': 'innerHTML' } }
		)
	}
	return page(<ErrorPage ctx={view} status={error.status} message={error.message} />, { status: error.status, headers })
}

/** Runs a handler's work; a service's refusal becomes the page (or alert) that says why. */
export const attempt = (request: Request, view: ViewContext, work: () => Promise<Response>): Promise<Response> =>
	work().catch((error: unknown) => failure(request, view, error))

/**
 * The answer to a change made in place (docs/web.md, safe to use): the list again, to replace its
 * `#<list>-list` (the row to focus carries `autofocus`, which htmx focuses), the sentence that says
 * what happened swapped into the list's status region, and, when no row is left to take the focus,
 * the list's heading with `autofocus`.
 */
export function inPlace(
	list: { id: ListId; title: string; level?: 1 | 2 },
	node: VNode,
	message: string,
	focusHeading: boolean,
	init: Init = {}
) {
	return fragment(
		<>
			{node}
			<p id={`${list.id}-status`} hx-swap-oob="innerHTML">
				{message}
			</p>
			{focusHeading ? <ListHeading list={list.id} title={list.title} level={list.level} focus /> : null}
		</>,
		init
	)
}

/**
 * Which row takes the focus once `removed` is gone (docs/web.md): the first row after it in the
 * list as it was that is still there; undefined when none is (the heading takes it then).
 */
export function nextRowId(before: string[], removed: string, after: string[]): string | undefined {
	const left = new Set(after)
	return before.slice(before.indexOf(removed) + 1).find((id) => left.has(id))
}

/**
 * A one-time secret for the page a redirect leads to (docs/web.md: a temporary password is shown
 * once, after the redirect, never in a URL): sealed to this session in a short-lived cookie that
 * the next page reads and clears, so a reload shows it no more and repeats nothing.
 */
export const flashCookie = (value: string, path: string, secure: boolean) =>
	`${FLASH_COOKIE}=${value}; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=300${secure ? '; Secure' : ''}`

export const clearedFlashCookie = (path: string, secure: boolean) =>
	`${FLASH_COOKIE}=; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`

/** The flash cookie a request carries, if any. */
export const flashOf = (request: Request) => readCookie(request.headers.get('cookie'), FLASH_COOKIE)

/** After a change: the page again (POST, redirect, GET), or for htmx what it swaps in. */
export const done = (request: Request, location: string, htmx: () => Response = () => fragment(null)) =>
	isHtmx(request) ? htmx() : redirect(location)

/**
 * A form that fails its schema (the API's own, so both say the same): the
 * first problem, led by the label of the field it is about, as a 400.
 */
export function formError(error: ZodError, labels: Record<string, string>): AppError {
	const issue = error.issues[0]
	const label = labels[issue?.path.join('.') ?? '']
	const message = issue?.message ?? 'invalid'
	return new AppError('invalid_request', label === undefined ? message : `${label}: ${message}`)
}

type Set = { headers: Record<string, unknown> }

/**
 * Signed out (or the session ended): to the sign-in page, coming back here afterwards. A form posted after its
 * session ended comes back to its page, filled in again (forms.tsx, carriedFormCookie), and sign-in says why.
 */
function signedOut(deps: Pick<WebDeps, 'sessions' | 'https'>, request: Request, set: Set, body?: unknown) {
	// A session cookie that no longer opens a session: it ended, and sign-in says so (a one-time notice). So did
	// the session of a form that carries a session token but no cookie: signing out in another tab of the same
	// browser cleared the cookie for every tab, and a form with that token was on a signed-in page.
	const ended =
		readCookie(request.headers.get('cookie'), SESSION_COOKIE) !== undefined ||
		(request.method !== 'GET' && field(body, CSRF_FIELD) !== '')
	const cookies: string[] = []
	const back = (page: string | undefined, notice: string) => {
		if (ended) cookies.push(noticeCookie(notice, deps.https(request)))
		return page !== undefined && page !== '/' ? `/?next=${encodeURIComponent(page)}` : '/'
	}
	if (isHtmx(request)) {
		const from = request.headers.get('hx-current-url')
		set.headers['hx-redirect'] = back(from ? safeNext(pathOf(from)) : undefined, 'session-ended')
	} else if (request.method === 'GET') {
		set.headers.location = back(pathOf(request.url) + new URL(request.url).search, 'session-ended')
	} else {
		const page = safeNext(field(body, PAGE_FIELD))
		set.headers.location = back(page, 'session-ended-form')
		if (page !== undefined) cookies.push(carriedFormCookie(deps, request, body, page))
	}
	if (cookies.length > 0) set.headers['set-cookie'] = cookies
	Object.assign(set.headers, NO_STORE)
	return status(isHtmx(request) ? 401 : 303, '')
}

/** A macro's refusal: the error page, with the headers of every HTML page, and a 403. */
function forbidden(view: ViewContext, set: Set, message: string) {
	Object.assign(set.headers, {
		'content-type': 'text/html;charset=utf-8',
		'content-security-policy': CONTENT_SECURITY_POLICY,
		'x-frame-options': 'DENY',
		...NO_STORE
	})
	return status(403, `<!DOCTYPE html>${render(<ErrorPage ctx={view} status={403} message={message} />)}`)
}

/**
 * The gates of the web application (docs/web.md), as route options: `page`
 * (signed in), `change` (signed in, the session's CSRF token and a request
 * from our own pages) and `admin` (server admins only). Each resolves what
 * the handler needs: `web` (the caller), `view` (the view context) and, for
 * a change, `actor`.
 */
export const webKit = (deps: Pick<WebDeps, 'sessions' | 'clock' | 'addressOf' | 'https'>) => {
	const gate = createWebGate(deps.sessions)
	const viewOf = viewContext(deps.clock)
	return new Elysia({ name: 'web-kit' }).macro({
		/** A page for signed-in people: the session from the cookie, or off to sign in. */
		page: {
			resolve: async ({ request, set }) => {
				const caller = await gate.caller(request)
				if (!caller) return signedOut(deps, request, set)
				return { web: caller, view: viewOf(request, caller) }
			}
		},
		/** A change: a live session, its CSRF token, and a request from our own pages (docs/web.md, CSRF). */
		change: {
			resolve: async ({ request, set, body }) => {
				const caller = await gate.caller(request)
				if (!caller) return signedOut(deps, request, set, body)
				const view = viewOf(request, caller)
				if (
					!gate.allowsChange(request, caller, optionalField(body, CSRF_FIELD), ownOrigin(request, deps.https(request)))
				) {
					return forbidden(
						view,
						set,
						"This request did not come from this application's own pages, so nothing was changed. Reload the page and try again."
					)
				}
				const actor: WebActor = { ...caller, address: deps.addressOf(request) }
				return { web: caller, view, actor }
			}
		},
		/** Server admins only (docs/web.md: anyone else gets 403). */
		admin: {
			resolve: async ({ request, set }) => {
				const caller = await gate.caller(request)
				if (!caller) return signedOut(deps, request, set)
				if (!caller.isAdmin) return forbidden(viewOf(request, caller), set, 'The Admin area is for server admins.')
				return {}
			}
		}
	})
}

/**
 * The application's own 404 page (docs/web.md: no dead ends) for any address outside /api that matches
 * no route: the layout (with the navigation when signed in), a heading, and a link home. The errors
 * plugin answers /api with JSON and asks this for everything else.
 */
export const notFoundPage = (deps: Pick<WebDeps, 'sessions' | 'clock'>) => {
	const gate = createWebGate(deps.sessions)
	const viewOf = viewContext(deps.clock)
	return async (request: Request): Promise<Response> => {
		const caller = await gate.caller(request).catch(() => undefined)
		const view = viewOf(request, caller)
		const home = caller ? { href: '/configs', label: 'Go to Configs' } : { href: '/', label: 'Go to sign in' }
		return page(
			<ErrorPage
				ctx={view}
				status={404}
				message="There is no page at this address. Check it for a typing mistake, or start again from here:"
				back={home}
			/>,
			{ status: 404 }
		)
	}
}

/** The view context of any request, signed in or not: for pages outside the gates (/download). */
export const anyoneViewOf = (deps: Pick<WebDeps, 'sessions' | 'clock'>) => {
	const gate = createWebGate(deps.sessions)
	const viewOf = viewContext(deps.clock)
	return async (request: Request): Promise<ViewContext> =>
		viewOf(request, await gate.caller(request).catch(() => undefined))
}
