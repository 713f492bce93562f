import { AppError } from '../../lib/errors'
import { DeadLink, SignupForm, type SignupKind } from '../../modules/signup/service'
import { entryFormFailed, entryFormStateOf, FieldError, fieldOfZod, fieldState, type FormState } from '../forms'
import { field, page, redirect, viewContext, type WebDeps } from '../kit'
import { Alert, Layout, PasswordField, type ViewContext } from '../layout'
import { fromOwnPages, ownOrigin, sessionCookie } from '../session'

// docs/web.md first start and sign-up: the setup address's "Create the first admin" and a sign-up
// link's "Create your account". Nobody is signed in yet, so no macro guards them: the token in the
// address is the permission, and a post from another site is refused by its origin, as at sign-in.

const TEXT = {
	setup: {
		title: 'Create the first admin',
		intro:
			'This server has no user yet. The account you create here is its first server admin: you can then invite people from the Admin page. This address works once.',
		button: 'Create admin',
		dead: 'Setup address not usable'
	},
	join: {
		title: 'Create your account',
		intro: 'You were invited to this cfgsync server. Choose how you sign in; you are signed in as soon as it is made.',
		button: 'Create account',
		dead: 'Sign-up link not usable'
	}
} as const

export function SignupPage({
	ctx,
	kind,
	token,
	plan,
	form,
	error
}: {
	ctx: ViewContext
	kind: SignupKind
	token: string
	plan: string
	/** A failed form, back after its redirect (forms.tsx): what was typed but the password, each message by its field. */
	form?: FormState
	/** A refusal shown at the posted address (a post from another site), as the form's alert. */
	error?: string
}) {
	const text = TEXT[kind]
	const email = fieldState(form, kind, 'email', 'email')
	const username = fieldState(form, kind, 'username', 'username', 'username-hint')
	const password = fieldState(form, kind, 'password', 'password', 'password-hint')
	const marked = form?.form === kind && Object.keys(form.errors).length > 0
	return (
		<Layout ctx={ctx} title={text.title}>
			<section class="narrow">
				<h1 id="signup-title">{text.title}</h1>
				<Alert message={error} />
				<p>{text.intro}</p>
				<form method="post" action={`/${kind}/${token}`} class="stack" aria-labelledby="signup-title">
					<label for="email">Email</label>
					<input
						id="email"
						name="email"
						type="email"
						autocomplete="email"
						required
						value={email.value ?? ''}
						aria-invalid={email['aria-invalid']}
						aria-describedby={email['aria-describedby']}
						autofocus={marked ? email.autofocus : true}
					/>
					<FieldError state={form} form={kind} name="email" id="email" />
					<label for="username">Username</label>
					<input
						id="username"
						name="username"
						type="text"
						autocomplete="username"
						required
						maxlength={64}
						pattern="[A-Za-z0-9_.\-]{1,64}"
						aria-describedby={username['aria-describedby']}
						aria-invalid={username['aria-invalid']}
						autofocus={username.autofocus}
						value={username.value ?? ''}
					/>
					<FieldError state={form} form={kind} name="username" id="username" />
					<p id="username-hint" class="hint">
						Letters, digits, dots, dashes or underscores. You sign in with it or with your email.
					</p>
					<PasswordField
						id="password"
						name="password"
						label="Password"
						autocomplete="new-password"
						minlength={8}
						describedBy="password-hint"
						invalid={password}
					/>
					<FieldError state={form} form={kind} name="password" id="password" />
					<p id="password-hint" class="hint">
						At least 8 characters.{kind === 'join' && plan ? ` Your account is on the ${plan} plan.` : ''}
					</p>
					<button type="submit">{text.button}</button>
				</form>
			</section>
		</Layout>
	)
}

/**
 * A link that cannot be used: says why, and offers no form (docs/web.md). `title` replaces "… not usable" when the
 * link is fine but may not be used from here yet (too many attempts: the message says when to try again).
 */
export function DeadLinkPage({
	ctx,
	kind,
	message,
	title = TEXT[kind].dead
}: {
	ctx: ViewContext
	kind: SignupKind
	message: string
	title?: string
}) {
	return (
		<Layout ctx={ctx} title={title}>
			<section class="narrow">
				<h1>{title}</h1>
				<Alert message={message} />
				<p>
					<a href="/">Sign in</a>
				</p>
			</section>
		</Layout>
	)
}

type TokenRequest = { request: Request; params: { token: string } }

export const signupPages = ({ signups, sessions, clock, addressOf, https }: WebDeps) => {
	const viewOf = viewContext(clock)

	/**
	 * A refusal as its page: a dead link (404/410) or too many attempts (429), at the posted address with their status;
	 * a bad form (400, 409) goes back to the form by a redirect, each message by its field (`again`).
	 */
	const refusal = (request: Request, kind: SignupKind, error: unknown, again?: (error: AppError) => Response) => {
		if (error instanceof DeadLink)
			return page(<DeadLinkPage ctx={viewOf(request)} kind={kind} message={error.message} />, { status: error.status })
		if (error instanceof AppError && error.code === 'rate_limited')
			return page(
				<DeadLinkPage ctx={viewOf(request)} kind={kind} message={error.message} title="Too many attempts" />,
				{
					status: error.status,
					headers: error.headers
				}
			)
		if (error instanceof AppError && error.status < 500 && again) return again(error)
		throw error
	}

	const show =
		(kind: SignupKind) =>
		async ({ request, params }: TokenRequest) => {
			try {
				const link = await signups.check(kind, params.token)
				const { state, headers } = entryFormStateOf({ sessions, https }, request, kind)
				return page(
					<SignupPage ctx={viewOf(request)} kind={kind} token={params.token} plan={link.plan} form={state} />,
					{ headers }
				)
			} catch (error) {
				return refusal(request, kind, error)
			}
		}

	const submit =
		(kind: SignupKind) =>
		async ({ request, params, body }: TokenRequest & { body: unknown }) => {
			const form = {
				email: field(body, 'email').trim().slice(0, 320),
				username: field(body, 'username').trim().slice(0, 64),
				password: field(body, 'password').slice(0, 1024)
			}
			const values = { email: form.email, username: form.username }
			// Back to the form (forms.tsx): the message by the field it is about; the password never comes back.
			const errorsOf = (error: AppError): Record<string, string> => {
				// The service's own schema, read again to know which field its refusal was about.
				const invalid = SignupForm.safeParse(form)
				if (!invalid.success) {
					const { field: name, message } = fieldOfZod(invalid.error, 'email')
					return { [name]: message }
				}
				// Which of the two is taken is not said: a link's holder learns nothing of other accounts.
				if (error.code === 'conflict')
					return { username: `${error.message} Choose another username, or sign in if the email is yours.` }
				return { email: error.message }
			}
			const again = (error: AppError) =>
				entryFormFailed({ sessions, https }, request, `/${kind}/${params.token}`, {
					form: kind,
					values,
					errors: errorsOf(error)
				})
			// No session yet, so no CSRF token: a form posted from another site is refused by its origin alone.
			if (!fromOwnPages(request.headers, ownOrigin(request, https(request))))
				return page(
					<SignupPage
						ctx={viewOf(request)}
						kind={kind}
						token={params.token}
						plan=""
						form={{ form: kind, values, errors: {} }}
						error="Create the account from this page."
					/>,
					{ status: 403 }
				)
			try {
				const user = await signups.redeem(kind, params.token, form, addressOf(request))
				const signed = await sessions.start(user, addressOf(request), request.headers.get('user-agent') ?? '')
				return redirect(kind === 'setup' ? '/admin?notice=first-admin' : '/devices?notice=welcome', {
					'set-cookie': sessionCookie(signed.cookie, https(request))
				})
			} catch (error) {
				return refusal(request, kind, error, again)
			}
		}

	return { setupPage: show('setup'), setup: submit('setup'), joinPage: show('join'), join: submit('join') }
}
