import { AppError } from '../../lib/errors'
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
import { Alert, Csrf, Layout, Notice, PasswordField, type ViewContext } from '../layout'
import type { Usage } from '../../../shared/api/configs'
import { formatBytes } from '../../../shared/text'

// The Account page (docs/web.md); Activity has its own page (activity.tsx).

export function AccountPage({
	ctx,
	email,
	plan,
	usage,
	error,
	notice
}: {
	ctx: ViewContext
	email: string
	plan: string
	usage: Usage
	error?: string
	notice?: string
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
				{/* CONTRACT §5 quotas: what is used, every version of every config counted. */}
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
				<Alert message={error} />
				<form method="post" action="/account/password" class="stack" aria-labelledby="change-password">
					<Csrf ctx={ctx} />
					<PasswordField
						id="current"
						name="current"
						label="Current password"
						toggle="Show current password"
						autocomplete="current-password"
					/>
					<PasswordField
						id="new"
						name="new"
						label="New password"
						toggle="Show new password"
						autocomplete="new-password"
						minlength={8}
						describedBy="new-hint"
					/>
					<p id="new-hint" class="hint">
						At least 8 characters. Your other web sessions are signed out; this one stays.
					</p>
					<div class="check">
						<input
							id="sign-out-devices"
							name="signOutDevices"
							type="checkbox"
							value="yes"
							checked
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

export const accountPages = ({ sessions, configs }: WebDeps) => ({
	show: async ({ request, web, view }: PageContext) =>
		page(
			<AccountPage
				ctx={view}
				email={web.email}
				plan={web.plan}
				usage={await configs.usage(web)}
				notice={noticeOf(request)}
			/>
		),

	changePassword: ({ request, web, view, actor, body }: ChangeContext) =>
		attempt(request, view, async () => {
			const usage = await configs.usage(web)
			const again = (error: string, statusCode: number, headers?: Record<string, string>) =>
				page(<AccountPage ctx={view} email={web.email} plan={web.plan} usage={usage} error={error} />, {
					status: statusCode,
					headers
				})
			const next = field(body, 'new')
			// The form asks once (a confirmation field is optional); a client that sends one gets it checked.
			const confirm = optionalField(body, 'confirm')
			if (typeof confirm === 'string' && confirm !== next)
				return again('The new password and its confirmation differ.', 400)
			// An unchecked box is not sent at all: only a present field signs the devices out.
			const signOutDevices = optionalField(body, 'signOutDevices') !== undefined
			try {
				await sessions.changePassword(actor, field(body, 'current'), next, { signOutDevices })
			} catch (error) {
				if (error instanceof AppError && error.status < 500) return again(error.message, error.status, error.headers)
				throw error
			}
			return redirect(`/account?notice=${signOutDevices ? 'password-devices' : 'password'}`)
		})
})
