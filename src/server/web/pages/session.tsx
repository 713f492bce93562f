import { AppError } from '../../lib/errors'
import { NO_STORE } from '../../lib/http'
import { resealedFormCookie } from '../form-cookie'
import { entryFormFailed, entryFormStateOf, FieldError, fieldState, type FormState } from '../forms'
import { field, noticeOf, page, redirect, safeNext, viewContext, type ChangeContext, type WebDeps } from '../kit'
import { Alert, Layout, Notice, PasswordField, type ViewContext } from '../layout'
import { clearedSessionCookie, createWebGate, fromOwnPages, ownOrigin, sessionCookie } from '../session'

// Signing in and out (docs/web.md). The sign-in form has no session yet, so no macro guards it.

/** The sign-in form's name in a failed form's state (forms.tsx). */
const SIGN_IN = 'sign-in'

export function SignInPage({
	ctx,
	error,
	next,
	notice,
	form
}: {
	ctx: ViewContext
	/** A refusal shown at the posted address (too many attempts, a post from another site), as the form's alert. */
	error?: string
	next?: string
	/** What just happened (signed out), in a status region. */
	notice?: string
	/** A failed sign-in, back after its redirect (forms.tsx): the login kept, the message by its field. */
	form?: FormState
}) {
	// After a failed sign-in the login is filled in again: the password is what to type next (its field says why).
	const login = fieldState(form, SIGN_IN, 'login', 'login')
	const password = fieldState(form, SIGN_IN, 'password', 'password')
	// The focus: the first invalid field; else the login while empty, the password once the login is there.
	const marked = form?.form === SIGN_IN && Object.keys(form.errors).length > 0
	const typed = (login.value ?? '') !== ''
	return (
		<Layout ctx={ctx} title="Sign in">
			<section class="narrow">
				<h1 id="sign-in-title">Sign in</h1>
				<Notice message={notice} />
				<Alert message={error} />
				<form method="post" action="/sign-in" class="stack" aria-labelledby="sign-in-title">
					{next ? <input type="hidden" name="next" value={next} /> : null}
					<label for="login">Username or email</label>
					<input
						id="login"
						name="login"
						type="text"
						autocomplete="username"
						required
						value={login.value ?? ''}
						aria-invalid={login['aria-invalid']}
						aria-describedby={login['aria-describedby']}
						autofocus={marked ? login.autofocus : !typed || undefined}
					/>
					<FieldError state={form} form={SIGN_IN} name="login" id="login" alert />
					<PasswordField
						id="password"
						name="password"
						label="Password"
						autocomplete="current-password"
						autofocus={!marked && typed}
						invalid={password}
					/>
					<FieldError state={form} form={SIGN_IN} name="password" id="password" alert />
					<button type="submit">Sign in</button>
				</form>
				<p class="muted">No account yet? Ask the server's admin for a sign-up link.</p>
			</section>
		</Layout>
	)
}

/**
 * `/` on a server with no user yet (docs/web.md, first start): whoever opens it is the one who started the
 * server, so it says where the setup address was printed and how to print a new one.
 */
export function FirstStartPage({ ctx }: { ctx: ViewContext }) {
	return (
		<Layout ctx={ctx} title="Set up this server">
			<section class="narrow">
				<h1>Set up this server</h1>
				<p>
					This server has no admin yet. When it started, it printed a <strong>setup address</strong> in the server's
					output: a line "Open this address in a browser to create the first admin", and the same address as{' '}
					<code>"setup"</code> in its JSON log line. Open that address in this browser to create the first admin
					account.
				</p>
				<p>
					No longer at hand, or older than 24 hours? Run <code>cfgsync-server setup-link</code> on the server (with the
					same <code>--data-dir</code> or <code>--database-url</code>): it prints a new one.
				</p>
			</section>
		</Layout>
	)
}

export const sessionPages = ({ sessions, signups, clock, addressOf, https }: WebDeps) => {
	const viewOf = viewContext(clock)
	const gate = createWebGate(sessions)
	return {
		/** The sign-in form; someone signed in goes on to their configs. */
		signInPage: async ({ request }: { request: Request }) => {
			const caller = await gate.caller(request)
			if (caller) return redirect('/configs')
			if (!(await signups.hasUsers())) return page(<FirstStartPage ctx={viewOf(request)} />)
			const next = safeNext(new URL(request.url).searchParams.get('next'))
			const { state, headers } = entryFormStateOf({ sessions, https }, request, SIGN_IN)
			return page(<SignInPage ctx={viewOf(request)} next={next} notice={noticeOf(request)} form={state} />, {
				headers
			})
		},

		/** Reloading the address bar after a failed sign-in or a sign-out lands on a page, not a 404. */
		back: () => redirect('/'),

		signIn: async ({ request, body }: { request: Request; body: unknown }) => {
			const login = field(body, 'login').slice(0, 320)
			const password = field(body, 'password').slice(0, 1024)
			const next = safeNext(field(body, 'next'))
			// Refusals about no field (too many attempts, another site) answer here, with their status (docs/web.md).
			const again = (error: string, init: { status: number; headers?: Record<string, string> }) =>
				page(
					<SignInPage
						ctx={viewOf(request)}
						error={error}
						next={next}
						form={{ form: SIGN_IN, values: { login }, errors: {} }}
					/>,
					init
				)
			// A failed sign-in goes back to the sign-in page by a redirect (forms.tsx), the login kept, never the password.
			const failed = (errors: Record<string, string>) =>
				entryFormFailed({ sessions, https }, request, next ? `/?next=${encodeURIComponent(next)}` : '/', {
					form: SIGN_IN,
					values: { login },
					errors
				})
			// No session yet, so no token: a sign-in posted from another site is refused by its origin alone.
			if (!fromOwnPages(request.headers, ownOrigin(request, https(request))))
				return again('Sign in from this page.', { status: 403 })
			if (login === '' || password === '')
				return failed({
					...(login === '' ? { login: 'Enter your username or email.' } : {}),
					...(password === '' ? { password: 'Enter your password.' } : {})
				})
			try {
				const signed = await sessions.signIn(
					login,
					password,
					addressOf(request),
					request.headers.get('user-agent') ?? ''
				)
				const headers = new Headers({ location: next ?? '/configs', ...NO_STORE })
				headers.append('set-cookie', sessionCookie(signed.cookie, https(request)))
				// A form whose session ended before it was sent comes back filled in on its page (form-cookie.ts).
				const caller = next === undefined ? undefined : await sessions.resolve(signed.cookie)
				const carried = caller && next ? resealedFormCookie({ sessions, https }, request, caller, next) : undefined
				if (carried !== undefined) headers.append('set-cookie', carried)
				return new Response(null, { status: 303, headers })
			} catch (error) {
				// One message whether the login exists or not, by the password field (what to type again).
				if (error instanceof AppError && error.code === 'unauthorized')
					return failed({ password: 'Wrong username, email or password.' })
				if (error instanceof AppError && error.code === 'rate_limited')
					return again(error.message, { status: error.status, headers: error.headers })
				throw error
			}
		},

		signOut: async ({ request, actor }: ChangeContext) => {
			await sessions.signOut(actor)
			return redirect('/?notice=signed-out', { 'set-cookie': clearedSessionCookie(https(request)) })
		}
	}
}
