import { PLANS } from '../../../shared/constants'
import type { AuditEventView } from '../../../shared/api/audit'
import type { UserActivityView } from '../../modules/users/service'
import { Alert, Csrf, Layout, Notice, Time, type ViewContext } from './layout'

export function UserRow({ ctx, user, error }: { ctx: ViewContext; user: UserActivityView; error?: string }) {
	const base = `/admin/users/${user.id}`
	return (
		<tr id={`user-${user.id}`}>
			<td data-label="Email">{user.email}</td>
			<th scope="row" data-label="Username">
				{user.username}
			</th>
			<td data-label="Plan">
				<form method="post" action={`${base}/plan`} hx-post={`${base}/plan`} hx-trigger="change" hx-target="closest tr" hx-swap="outerHTML" class="role-form">
					<Csrf ctx={ctx} />
					<label for={`plan-${user.id}`} class="visually-hidden">
						Plan
					</label>
					<select id={`plan-${user.id}`} name="plan">
						{PLANS.map((plan) => (
							<option value={plan} selected={user.plan === plan}>
								{plan}
							</option>
						))}
					</select>
					<button type="submit" class="secondary small">
						Save
					</button>
				</form>
				{error ? (
					<span class="alert inline" role="alert">
						{error}
					</span>
				) : null}
			</td>
			<td data-label="Admin">{user.isAdmin ? 'yes' : 'no'}</td>
			<td data-label="Keys" class="num">
				{user.keyCount}
			</td>
			<td data-label="Last seen">
				<Time iso={user.lastSeenAt} now={ctx.now} />
			</td>
			<td class="actions">
				{user.id === ctx.user?.userId ? (
					<span class="muted">you (see Account and Devices)</span>
				) : (
					<>
						<form method="post" action={`${base}/reset-password`}>
							<Csrf ctx={ctx} />
							<button type="submit" class="secondary">
								Reset password
							</button>
						</form>
						<form method="post" action={`${base}/revoke-keys`} hx-post={`${base}/revoke-keys`} hx-target="closest tr" hx-swap="outerHTML" hx-confirm={`Revoke every key and web session of ${user.username}?`}>
							<Csrf ctx={ctx} />
							<button type="submit" class="secondary">
								Revoke keys
							</button>
						</form>
						<form
							method="post"
							action={`${base}/remove`}
							hx-post={`${base}/remove`}
							hx-target="closest tr"
							hx-swap="delete"
							hx-confirm={`Remove ${user.username} with their keys and personal configs? This cannot be undone.`}
						>
							<Csrf ctx={ctx} />
							<button type="submit" class="danger">
								Remove
							</button>
						</form>
					</>
				)}
			</td>
		</tr>
	)
}

export function AdminPage({
	ctx,
	users,
	error,
	notice,
	oneTimePassword,
	form = {}
}: {
	ctx: ViewContext
	users: UserActivityView[]
	error?: string
	notice?: string
	oneTimePassword?: { username: string; password: string }
	form?: { email?: string; username?: string; plan?: string }
}) {
	return (
		<Layout ctx={ctx} title="Admin">
			<h1>Admin</h1>
			<Notice message={notice} />
			<Alert message={error} />
			{oneTimePassword ? (
				<section class="card one-time" aria-labelledby="otp-title">
					<h2 id="otp-title">New password for {oneTimePassword.username}</h2>
					<p>
						Give it to them over a channel you trust; it is shown only this once. Their web sessions have ended.
					</p>
					<p>
						<code class="secret">{oneTimePassword.password}</code>
					</p>
				</section>
			) : null}
			<section>
				<h2>Users</h2>
				<table class="stack-on-phone">
					<thead>
						<tr>
							<th scope="col">Email</th>
							<th scope="col">Username</th>
							<th scope="col">Plan</th>
							<th scope="col">Admin</th>
							<th scope="col">Keys</th>
							<th scope="col">Last seen</th>
							<th scope="col">
								<span class="visually-hidden">Actions</span>
							</th>
						</tr>
					</thead>
					<tbody>
						{users.map((user) => (
							<UserRow ctx={ctx} user={user} />
						))}
					</tbody>
				</table>
			</section>
			<section class="narrow">
				<h2 id="add-user">Add user</h2>
				<form method="post" action="/admin/users" class="stack" aria-labelledby="add-user">
					<Csrf ctx={ctx} />
					<label for="new-email">Email</label>
					<input id="new-email" name="email" type="email" required value={form.email ?? ''} />
					<label for="new-username">Username</label>
					<input id="new-username" name="username" type="text" required maxlength={64} value={form.username ?? ''} />
					<label for="new-plan">Plan</label>
					<select id="new-plan" name="plan">
						{PLANS.map((plan) => (
							<option value={plan} selected={(form.plan ?? 'team') === plan}>
								{plan}
							</option>
						))}
					</select>
					<label for="new-password">Password (optional)</label>
					<input id="new-password" name="password" type="password" autocomplete="new-password" minlength={8} aria-describedby="new-password-hint" />
					<p id="new-password-hint" class="hint">
						Leave empty to get a one-time password to hand over.
					</p>
					<button type="submit">Add user</button>
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
	'backup.written': 'Backup written',
	'backup.restored': 'Backup restored',
	'master_key.rotated': 'Master key rotated'
}

const detailsText = (details: AuditEventView['details']): string =>
	Object.entries(details)
		.map(([key, value]) => `${key}: ${value === null ? '—' : String(value)}`)
		.join(', ')

export function ActivityPage({ ctx, title, events, back, older }: { ctx: ViewContext; title: string; events: AuditEventView[]; back?: { href: string; label: string }; older?: string }) {
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
									{Object.keys(event.details).length > 0 ? <span class="muted details"> ({detailsText(event.details)})</span> : null}
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
