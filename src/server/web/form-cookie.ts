import type { WebCaller } from '../modules/sessions/service'
import { readCookie } from './session'

// The one-time cookie that carries a form's typed values to the page that shows it again (forms.tsx): after a
// failed post, and through a sign-in when the session ended before the form was sent. Apart from forms.tsx so
// that the page gates (kit.tsx) can carry a form without importing the pages' form helpers.

/** The cookie that carries a form to its page: sealed to the session, HttpOnly, five minutes. */
export const FORM_COOKIE = 'cfgsync_form'
/** What is kept of each typed value: enough for any field of ours, and the sealed cookie stays small. */
export const MAX_VALUE = 500
/** The form name of values carried through a sign-in: whichever form of the page has fields of those names. */
export const ANY_FORM = '*'

/**
 * The cookie of a failed form on a page nobody is signed in on (sign-in, setup, join): apart from FORM_COOKIE, so a
 * failed sign-in keeps the form a session that ended carried to it, which signing in then brings back.
 */
export const ENTRY_FORM_COOKIE = 'cfgsync_entry_form'
/** What an entry form's state is sealed to: no session exists yet on those pages. */
export const ENTRY = { sessionIdHash: 'entry-form' } as const

export const formCookie = (value: string, secure: boolean, maxAge: number, name: string = FORM_COOKIE) =>
	`${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure ? '; Secure' : ''}`

interface FormDeps {
	sessions: {
		sealFlash(caller: Pick<WebCaller, 'sessionIdHash'>, value: string): string
		openFlash(caller: Pick<WebCaller, 'sessionIdHash'>, sealed: string | undefined): string | undefined
	}
	https: (request: Request) => boolean
}

/** What a form's values are sealed to while nobody is signed in: a session that ended before its form was sent. */
const SIGNED_OUT = { sessionIdHash: 'signed-out' }
/** Fields that hold a password anywhere in the application: never carried. */
const PASSWORD_FIELDS = /password|^current$|^new$|^confirm$/i

/**
 * A form posted after its session ended (signed out in another tab, idle too long): what was typed (never a
 * password, never the hidden fields) sealed in the one-time cookie for `page`, the page the form is on, so that
 * signing in again there brings it back filled in (docs/web.md, "nothing lost in a form"). Nothing is sent.
 */
export function carriedFormCookie(deps: FormDeps, request: Request, body: unknown, page: string): string {
	const values: Record<string, string> = {}
	const fields = typeof body === 'object' && body !== null ? Object.entries(body) : []
	let size = 0
	for (const [name, value] of fields) {
		if (typeof value !== 'string' || name.startsWith('_') || PASSWORD_FIELDS.test(name)) continue
		const kept = value.slice(0, MAX_VALUE)
		// A sealed cookie over 4 KiB is dropped by browsers (and refused by openFlash): what fits is kept.
		size += name.length + kept.length
		if (size > 2_000) break
		values[name.slice(0, 100)] = kept
	}
	const state = { form: ANY_FORM, values, errors: {}, at: page }
	return formCookie(deps.sessions.sealFlash(SIGNED_OUT, JSON.stringify(state)), deps.https(request), 600)
}

/**
 * After signing in: the form carried by `carriedFormCookie`, sealed again to the new session when it is for
 * `next` (the page signing in goes on to), or undefined (none, another page's, or not ours).
 */
export function resealedFormCookie(
	deps: FormDeps,
	request: Request,
	web: Pick<WebCaller, 'sessionIdHash'>,
	next: string
): string | undefined {
	const sealed = readCookie(request.headers.get('cookie'), FORM_COOKIE)
	const opened = sealed ? deps.sessions.openFlash(SIGNED_OUT, sealed) : undefined
	if (opened === undefined) return undefined
	try {
		if ((JSON.parse(opened) as { at?: string }).at !== next) return undefined
	} catch {
		return undefined
	}
	return formCookie(deps.sessions.sealFlash(web, opened), deps.https(request), 300)
}
