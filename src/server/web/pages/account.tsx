import type { AuditEventView } from '../../../shared/api/audit'
import { AppError } from '../../lib/errors'
import {
	attempt,
	beforeOf,
	field,
	noticeOf,
	optionalField,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import { Alert, Csrf, Layout, Notice, PasswordField, Time, type ViewContext } from '../layout'

// The Account page and "Your activity" (docs/web.md); the activity list serves a team's activity too.

export function AccountPage({
	ctx,
	email,
	plan,
	error,
	notice
}: {
	ctx: ViewContext
	email: string
	plan: string
	error?: string
	notice?: string
}) {
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

const EVENT_TEXT: Record<string, string> = {
	'login.succeeded': 'Logged in from a device',
	'login.failed': 'Failed login',
	'key.issued': 'Key issued',
	'session.started': 'Signed in on the web',
	'session.ended': 'Signed out on the web',
	'key.revoked': 'Key revoked',
	'keys.revoked': 'All keys revoked',
	'password.changed': 'Password changed',
	'config.pushed': 'Config pushed',
	'config.rolled_back': 'Config rolled back',
	'config.deleted': 'Config deleted',
	'team.created': 'Team created',
	'team.renamed': 'Team renamed',
	'team.deleted': 'Team deleted',
	'invitation.sent': 'Invitation sent',
	'invitation.changed': 'Invitation changed',
	'invitation.accepted': 'Invitation accepted',
	'invitation.declined': 'Invitation declined',
	'invitation.cancelled': 'Invitation cancelled',
	'member.role_changed': 'Member role changed',
	'member.removed': 'Member removed',
	'member.left': 'Member left',
	'user.created': 'User created',
	'user.plan_changed': 'Plan changed',
	'user.admin_changed': 'Admin flag changed',
	'user.password_reset': 'Password reset by an admin',
	'user.unlocked': 'Failed logins cleared',
	'user.removed': 'User removed',
	'signup_link.created': 'Sign-up link created',
	'signup_link.revoked': 'Sign-up link revoked',
	'signup.refused': 'Sign-up link refused',
	'backup.written': 'Backup written',
	'backup.restored': 'Backup restored',
	'master_key.rotated': 'Master key rotated'
}

const detailsText = (details: AuditEventView['details']): string =>
	Object.entries(details)
		.map(([key, value]) => `${key}: ${value === null ? '—' : String(value)}`)
		.join(', ')

export function ActivityPage({
	ctx,
	title,
	events,
	back,
	older
}: {
	ctx: ViewContext
	title: string
	events: AuditEventView[]
	back?: { href: string; label: string }
	older?: string
}) {
	return (
		<Layout ctx={ctx} title={title}>
			{back ? (
				<p class="crumbs">
					<a href={back.href}>{back.label}</a>
				</p>
			) : null}
			<h1>{title}</h1>
			{events.length === 0 ? (
				<p class="empty">Nothing recorded yet.</p>
			) : (
				<table class="stack-on-phone">
					<thead>
						<tr>
							<th scope="col">When</th>
							<th scope="col">What</th>
							<th scope="col">Who</th>
							<th scope="col">From</th>
							<th scope="col">About</th>
						</tr>
					</thead>
					<tbody>
						{events.map((event) => (
							<tr>
								<td data-label="When">
									<Time iso={event.at} now={ctx.now} />
								</td>
								<th scope="row" data-label="What">
									{EVENT_TEXT[event.type] ?? event.type}
									{Object.keys(event.details).length > 0 ? (
										<span class="muted details"> ({detailsText(event.details)})</span>
									) : null}
								</th>
								<td data-label="Who">
									{event.actor.username ?? <span class="muted">—</span>}
									{event.actor.device ? <span class="muted"> via {event.actor.device}</span> : null}
								</td>
								<td data-label="From">{event.address ?? <span class="muted">—</span>}</td>
								<td data-label="About">{event.target?.name ?? <span class="muted">—</span>}</td>
							</tr>
						))}
					</tbody>
				</table>
			)}
			{older ? (
				<p>
					<a href={older}>Older events</a>
				</p>
			) : null}
		</Layout>
	)
}

export const accountPages = ({ sessions, audit }: WebDeps) => ({
	show: ({ request, web, view }: PageContext) =>
		page(<AccountPage ctx={view} email={web.email} plan={web.plan} notice={noticeOf(request)} />),

	changePassword: ({ request, web, view, actor, body }: ChangeContext) =>
		attempt(request, view, async () => {
			const again = (error: string, statusCode: number, headers?: Record<string, string>) =>
				page(<AccountPage ctx={view} email={web.email} plan={web.plan} error={error} />, {
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
		}),

	activity: ({ request, web, view }: PageContext) =>
		attempt(request, view, async () => {
			const events = await audit.mine(web, { limit: 50, before: beforeOf(request) })
			const last = events.length === 50 ? events[events.length - 1]?.id : undefined
			return page(
				<ActivityPage
					ctx={view}
					title="Your activity"
					events={events}
					back={{ href: '/account', label: 'Account' }}
					older={last ? `/activity?before=${last}` : undefined}
				/>
			)
		})
})
