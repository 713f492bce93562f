import { AppError } from '../../lib/errors'
import { FieldError, FormAlert, fieldState, formFailed, formStateOf, refusal, type FormState } from '../forms'
import {
	attempt,
	field,
	noticeOf,
	optionalField,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import { Csrf, Layout, Notice, PasswordField, type ViewContext } from '../layout'
import type { Usage } from '../../../shared/api/configs'
import { formatBytes } from '../../../shared/text'

// The Account page (docs/web.md); Activity has its own page (activity.tsx).

export function AccountPage({
	ctx,
	email,
	plan,
	usage,
	notice,
	form
}: {
	ctx: ViewContext
	email: string
	plan: string
	usage: Usage
	notice?: string
	/** A failed "Change password", back after its redirect (forms.tsx): messages only, never a password. */
	form?: FormState
}) {
	const stored = (bytes: Usage['bytes']) =>
		bytes.limit > 0
			? `${formatBytes(bytes.used)} of ${formatBytes(bytes.limit)}`
			: `${formatBytes(bytes.used)} (no limit)`
	return (
		<Layout ctx={ctx} title="Account">
			<h1>Account</h1>
			<Notice message={notice} />
			<dl class="facts">
				<dt>Username</dt>
				<dd>{ctx.user?.username}</dd>
				<dt>Email</dt>
				<dd>{email}</dd>
				<dt>Plan</dt>
				<dd>{plan}</dd>
				{/* Quotas (docs/operations.md): what is used, every version of every config counted. */}
				<dt>Storage</dt>
				<dd>{stored(usage.bytes)}</dd>
				{usage.teams.map((team) => (
					<>
						<dt>Storage of {team.name}</dt>
						<dd>{stored(team.bytes)}</dd>
					</>
				))}
				<dt>Pushes</dt>
				<dd>{usage.pushesPerMinute > 0 ? `at most ${usage.pushesPerMinute} pushes a minute` : 'no limit'}</dd>
			</dl>
			<p>
				<a href="/activity">Your activity</a>: sign-ins, keys, pushes and team changes, with the device and address each
				came from.
			</p>
			<section class="narrow">
				<h2 id="change-password">Change password</h2>
				<FormAlert state={form} form={CHANGE_PASSWORD} />
				<form method="post" action="/account/password" class="stack" aria-labelledby="change-password">
					<Csrf ctx={ctx} />
					<PasswordField
						id="current"
						name="current"
						label="Current password"
						toggle="Show current password"
						autocomplete="current-password"
						invalid={fieldState(form, CHANGE_PASSWORD, 'current', 'current')}
					/>
					<FieldError state={form} form={CHANGE_PASSWORD} name="current" id="current" />
					<PasswordField
						id="new"
						name="new"
						label="New password"
						toggle="Show new password"
						autocomplete="new-password"
						minlength={8}
						describedBy="new-hint"
						invalid={fieldState(form, CHANGE_PASSWORD, 'new', 'new', 'new-hint')}
					/>
					<FieldError state={form} form={CHANGE_PASSWORD} name="new" id="new" />
					<p id="new-hint" class="hint">
						At least 8 characters. Your other web sessions are signed out; this one stays.
					</p>
					<div class="check">
						<input
							id="sign-out-devices"
							name="signOutDevices"
							type="checkbox"
							value="yes"
							checked={form?.form === CHANGE_PASSWORD ? form.values.signOutDevices === 'yes' : true}
							aria-describedby="devices-hint"
						/>
						<label for="sign-out-devices">Sign out my devices</label>
					</div>
					<p id="devices-hint" class="hint">
						Revokes the key of every device: after a password that may have leaked, nothing signed in with the old one
						keeps working. Each device then needs <code>cfgsync login</code> again.
					</p>
					<button type="submit">Change password</button>
				</form>
			</section>
		</Layout>
	)
}

const CHANGE_PASSWORD = 'change-password'

export const accountPages = (deps: WebDeps) => ({
	show: async ({ request, web, view }: PageContext) => {
		const { state, headers } = formStateOf(deps, request, web, CHANGE_PASSWORD)
		return page(
			<AccountPage
				ctx={view}
				email={web.email}
				plan={web.plan}
				usage={await deps.configs.usage(web)}
				notice={noticeOf(request)}
				form={state}
			/>,
			{ headers }
		)
	},

	changePassword: ({ request, web, view, actor, body }: ChangeContext) =>
		attempt(request, view, async () => {
			// An unchecked box is not sent at all: only a present field signs the devices out.
			const signOutDevices = optionalField(body, 'signOutDevices') !== undefined
			const again = (more: Pick<FormState, 'errors' | 'general'>) =>
				formFailed(deps, request, web, '/account', {
					form: CHANGE_PASSWORD,
					values: { signOutDevices: signOutDevices ? 'yes' : 'no' },
					...more
				})
			const next = field(body, 'new')
			// The form asks once (a confirmation field is optional); a client that sends one gets it checked.
			const confirm = optionalField(body, 'confirm')
			if (typeof confirm === 'string' && confirm !== next)
				return again({ errors: { new: 'The new password and its confirmation differ.' } })
			try {
				await deps.sessions.changePassword(actor, field(body, 'current'), next, { signOutDevices })
			} catch (error) {
				// Which field it is about: the current password when it was wrong, else the new one.
				const about =
					error instanceof AppError && error.code === 'forbidden'
						? 'current'
						: error instanceof AppError && error.code === 'invalid_request'
							? 'new'
							: undefined
				return again(refusal(error, about))
			}
			return redirect(`/account?notice=${signOutDevices ? 'password-devices' : 'password'}`)
		})
})
