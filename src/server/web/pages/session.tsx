import { AppError } from '../../lib/errors'
import { NO_STORE } from '../../lib/http'
import { resealedFormCookie } from '../form-cookie'
import { field, noticeOf, page, redirect, safeNext, viewContext, type ChangeContext, type WebDeps } from '../kit'
import { Alert, Layout, Notice, PasswordField, type ViewContext } from '../layout'
import { clearedSessionCookie, createWebGate, fromOwnPages, ownOrigin, sessionCookie } from '../session'

// Signing in and out (docs/web.md). The sign-in form has no session yet, so no macro guards it.

export function SignInPage({
	ctx,
	login,
	error,
	next,
	notice
}: {
	ctx: ViewContext
	login?: string
	error?: string
	next?: string
	/** What just happened (signed out), in a status region. */
	notice?: string
}) {
	// After a failed sign-in the login is filled in again: the password is what to type next.
	const retry = error !== undefined && (login ?? '') !== ''
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
						value={login ?? ''}
						autofocus={!retry || undefined}
					/>
					<PasswordField
						id="password"
						name="password"
						label="Password"
						autocomplete="current-password"
						autofocus={retry}
					/>
					<button type="submit">Sign in</button>
				</form>
				<p class="muted">No account yet? Ask the server's admin for a sign-up link.</p>
			</section>
		</Layout>
	)
}

export const sessionPages = ({ sessions, clock, addressOf, https }: WebDeps) => {
	const viewOf = viewContext(clock)
	const gate = createWebGate(sessions)
	return {
		/** The sign-in form; someone signed in goes on to their configs. */
		signInPage: async ({ request }: { request: Request }) => {
			const caller = await gate.caller(request)
			if (caller) return redirect('/configs')
			const next = safeNext(new URL(request.url).searchParams.get('next'))
			return page(<SignInPage ctx={viewOf(request)} next={next} notice={noticeOf(request)} />)
		},

		/** Reloading the address bar after a failed sign-in or a sign-out lands on a page, not a 404. */
		back: () => redirect('/'),

		signIn: async ({ request, body }: { request: Request; body: unknown }) => {
			const login = field(body, 'login').slice(0, 320)
			const password = field(body, 'password').slice(0, 1024)
			const next = safeNext(field(body, 'next'))
			const again = (error: string, init: { status: number; headers?: Record<string, string> }) =>
				page(<SignInPage ctx={viewOf(request)} login={login} error={error} next={next} />, init)
			// No session yet, so no token: a sign-in posted from another site is refused by its origin alone.
			if (!fromOwnPages(request.headers, ownOrigin(request, https(request))))
				return again('Sign in from this page.', { status: 403 })
			if (login === '' || password === '')
				return again('Enter your username or email and your password.', { status: 400 })
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
				if (error instanceof AppError && (error.code === 'unauthorized' || error.code === 'rate_limited')) {
					return again(error.code === 'unauthorized' ? 'Wrong username, email or password.' : error.message, {
						status: error.status,
						headers: error.headers
					})
				}
				throw error
			}
		},

		signOut: async ({ request, actor }: ChangeContext) => {
			await sessions.signOut(actor)
			return redirect('/?notice=signed-out', { 'set-cookie': clearedSessionCookie(https(request)) })
		}
	}
}
