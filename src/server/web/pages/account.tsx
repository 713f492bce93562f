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
import { Csrf, Layout, Notice, PasswordField, Time, type ViewContext } from '../layout'
import type { SessionView } from '../../modules/sessions/service'
import type { Usage } from '../../../shared/api/configs'
import { formatBytes } from '../../../shared/text'

// The Account page (docs/web.md); Activity has its own page (activity.tsx).

/** How a session is named to a person, and in its button's accessible name: "Chrome on Linux, 203.0.113.5". */
const sessionName = (session: SessionView) => `${session.browser}, ${session.address}`

/** docs/web.md Account: the user's web sessions, each other one with "Sign out", and "Sign out everywhere else". */
export function SessionsSection({ ctx, sessions }: { ctx: ViewContext; sessions: SessionView[] }) {
	const others = sessions.filter((session) => !session.current).length
	return (
		<section>
			<h2 id="sessions-heading">Web sessions</h2>
			<p class="hint">
				Each browser signed in to this web application. Signing one out takes it back to sign-in at its next page; your
				devices (the cfgsync client) keep their keys: see Devices.
			</p>
			<table class="stack-on-phone" aria-labelledby="sessions-heading">
				<thead>
					<tr>
						<th scope="col">Browser</th>
						<th scope="col">Address</th>
						<th scope="col">Signed in</th>
						<th scope="col">Last seen</th>
						<th scope="col">
							<span class="visually-hidden">Actions</span>
						</th>
					</tr>
				</thead>
				<tbody>
					{sessions.map((session) => (
						<tr>
							<th scope="row" data-label="Browser">
								{session.browser}
							</th>
							<td data-label="Address">{session.address}</td>
							<td data-label="Signed in">
								<Time iso={session.createdAt} now={ctx.now} />
							</td>
							<td data-label="Last seen">
								<Time iso={session.lastSeenAt} now={ctx.now} />
							</td>
							<td class="actions">
								{session.current ? (
									<strong>This session</strong>
								) : (
									<form method="post" action={`/account/sessions/${session.ref}/sign-out`}>
										<Csrf ctx={ctx} />
										<button type="submit" class="secondary small">
											Sign out<span class="visually-hidden"> {sessionName(session)}</span>
										</button>
									</form>
								)}
							</td>
						</tr>
					))}
				</tbody>
			</table>
			{others > 0 ? (
				<form method="post" action="/account/sessions/sign-out-others" class="inline-actions sessions-actions">
					<Csrf ctx={ctx} />
					<button type="submit" class="secondary">
						Sign out everywhere else
					</button>
				</form>
			) : (
				<p class="empty">You are signed in in this browser only.</p>
			)}
		</section>
	)
}

export function AccountPage({
	ctx,
	email,
	plan,
	usage,
	sessions,
	notice,
	form
}: {
	ctx: ViewContext
	email: string
	plan: string
	usage: Usage
	sessions: SessionView[]
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
			<SessionsSection ctx={ctx} sessions={sessions} />
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
				sessions={await deps.sessions.listSessions(web)}
				notice={noticeOf(request)}
				form={state}
			/>,
			{ headers }
		)
	},

	/** Ends another of your web sessions ("Sign out" in its row); one that is not yours, or gone, is a 404. */
	signOutSession: ({ request, view, actor, params }: ChangeContext & { params: { ref: string } }) =>
		attempt(request, view, async () => {
			await deps.sessions.signOutSession(actor, params.ref)
			return redirect('/account?notice=session-signed-out')
		}),

	/** "Sign out everywhere else": every other web session of yours ends, this one stays. */
	signOutOthers: ({ request, view, actor }: ChangeContext) =>
		attempt(request, view, async () => {
			await deps.sessions.signOutOthers(actor)
			return redirect('/account?notice=sessions-signed-out')
		}),

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
