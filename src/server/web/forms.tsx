import type { ZodError } from 'zod'
import { AppError } from '../lib/errors'
import type { WebCaller } from '../modules/sessions/service'
import { redirect, type WebDeps } from './kit'
import { ANY_FORM, ENTRY, ENTRY_FORM_COOKIE, FORM_COOKIE, formCookie as cookie, MAX_VALUE } from './form-cookie'
import { Sentence } from './layout'
import { readCookie } from './session'

// One pattern for every form that fails (docs/web.md, round 3: nothing lost in a form). The post answers
// with a redirect (post/redirect/get, so reload and Back never send it again) to the form's page, carrying
// what was typed (never a password) and the message of each field in a one-time cookie sealed to the
// session. That page shows each message next to its field (aria-invalid, aria-describedby), puts the focus
// in the first invalid field (autofocus), and clears the cookie: a reload shows the form clean. The forms of
// the pages nobody is signed in on yet (sign-in, setup, join) do the same with a cookie of their own (entry*).

/** A failed form as its page shows it again. */
export interface FormState {
	/** Which form on the page (a page may hold several). */
	form: string
	/** What was typed, by field name; passwords are never kept. */
	values: Record<string, string>
	/** Each invalid field's message, the first one first (it takes the focus). */
	errors: Record<string, string>
	/** A refusal about no one field (too many attempts, say). */
	general?: string
}

/** The field a schema's first problem is about, and its message (without the label: it sits by the field). */
export function fieldOfZod(error: ZodError, fallback: string): { field: string; message: string } {
	const issue = error.issues[0]
	const name = issue?.path[0]
	return { field: typeof name === 'string' ? name : fallback, message: issue?.message ?? 'This value is not valid.' }
}

type FormDeps = Pick<WebDeps, 'sessions' | 'https'>

/**
 * After a failed post: back to `location` (a 303), with what was typed and why it failed. `passwords`
 * names the fields that are never kept. A service's refusal past 499 is not the form's fault: rethrown.
 */
export function formFailed(
	deps: FormDeps,
	request: Request,
	web: Pick<WebCaller, 'sessionIdHash'>,
	location: string,
	state: FormState,
	passwords: string[] = [],
	name: string = FORM_COOKIE
): Response {
	const values: Record<string, string> = {}
	for (const [name, value] of Object.entries(state.values))
		if (!passwords.includes(name)) values[name] = value.slice(0, MAX_VALUE)
	const errors: Record<string, string> = {}
	for (const [name, message] of Object.entries(state.errors)) errors[name] = message.slice(0, MAX_VALUE)
	const sealed = deps.sessions.sealFlash(
		web,
		JSON.stringify({ ...state, values, errors, general: state.general?.slice(0, MAX_VALUE), at: location })
	)
	return redirect(location, { 'set-cookie': cookie(sealed, deps.https(request), 300, name) })
}

/**
 * `formFailed` for a form of a page nobody is signed in on (sign-in, setup, join): sealed to no session, in a
 * cookie of its own (form-cookie.ts, ENTRY_FORM_COOKIE), so that a form carried through sign-in is kept.
 */
export const entryFormFailed = (
	deps: FormDeps,
	request: Request,
	location: string,
	state: FormState,
	passwords: string[] = []
): Response => formFailed(deps, request, ENTRY, location, state, passwords, ENTRY_FORM_COOKIE)

/**
 * A refusal as a field's message (`field`), or, when `field` is undefined, as the form's own. What is
 * about no field of the form (not found; not allowed, when no field is named) stays its own error page.
 */
export function refusal(error: unknown, field: string | undefined): Pick<FormState, 'errors' | 'general'> {
	if (!(error instanceof AppError) || error.status >= 500 || error.status === 404) throw error
	if (error.status === 403 && field === undefined) throw error
	return field === undefined ? { errors: {}, general: error.message } : { errors: { [field]: error.message } }
}

/**
 * The failed `form` this request's cookie carries for this page, if any, and the header that clears it
 * (so a reload shows the form clean). Another form's, another page's or another session's is left alone.
 */
export function formStateOf(
	deps: FormDeps,
	request: Request,
	web: Pick<WebCaller, 'sessionIdHash'>,
	form: string | string[],
	name: string = FORM_COOKIE
): { state?: FormState; headers: Record<string, string> } {
	const sealed = readCookie(request.headers.get('cookie'), name)
	if (sealed === undefined || sealed === '') return { headers: {} }
	const opened = deps.sessions.openFlash(web, sealed)
	if (opened === undefined) return { headers: {} }
	try {
		const state = JSON.parse(opened) as FormState & { at?: string }
		const forms = Array.isArray(form) ? form : [form]
		if (typeof state.at !== 'string') return { headers: {} }
		const url = new URL(request.url)
		// The address as a browser asks for it (a `'` in a query comes back as %27, say).
		const at = new URL(state.at, url.origin)
		if (
			!(forms.includes(state.form) || state.form === ANY_FORM) ||
			at.pathname + at.search !== url.pathname + url.search
		)
			return { headers: {} }
		return { state, headers: { 'set-cookie': cookie('', deps.https(request), 0, name) } }
	} catch {
		return { headers: {} }
	}
}

/** `formStateOf` for a form of a page nobody is signed in on (entryFormFailed). */
export const entryFormStateOf = (deps: FormDeps, request: Request, form: string | string[]) =>
	formStateOf(deps, request, ENTRY, form, ENTRY_FORM_COOKIE)

/**
 * What a field carries in a failed form: its value again (unless a password), aria-invalid, the ids of its
 * message (and hint) in aria-describedby, and autofocus when it is the first invalid field.
 */
export function fieldState(state: FormState | undefined, form: string, name: string, id: string, hint?: string) {
	const mine = state?.form === form || state?.form === ANY_FORM ? state : undefined
	const message = mine?.errors[name]
	const first = mine !== undefined && Object.keys(mine.errors)[0] === name
	const describedBy = [message !== undefined ? `${id}-error` : undefined, hint].filter(Boolean).join(' ')
	return {
		value: mine?.values[name],
		'aria-invalid': message !== undefined ? ('true' as const) : undefined,
		'aria-describedby': describedBy === '' ? undefined : describedBy,
		autofocus: first || undefined
	}
}

/** A field's message, next to it (its id is what aria-describedby names). */
export function FieldError({
	state,
	form,
	name,
	id,
	alert
}: {
	state?: FormState
	form: string
	name: string
	id: string
	/** role="alert" as well (sign-in's refusal, which docs/web.md has as an alert). */
	alert?: boolean
}) {
	const message = state?.form === form ? state.errors[name] : undefined
	return message === undefined ? null : (
		<p id={`${id}-error`} class="alert inline field-error" role={alert ? 'alert' : undefined}>
			<Sentence text={message} />
		</p>
	)
}

/** The form's own message (about no one field), with role="alert". */
export const FormAlert = ({ state, form }: { state?: FormState; form: string }) =>
	state?.form === form && state.general ? (
		<p class="alert" role="alert">
			<Sentence text={state.general} />
		</p>
	) : null
