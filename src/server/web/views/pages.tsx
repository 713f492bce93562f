import type { KeyView } from '../../../shared/api/auth'
import { Alert, Csrf, Layout, Notice, Time, type ViewContext } from './layout'

export function SignInPage({ ctx, login, error, next }: { ctx: ViewContext; login?: string; error?: string; next?: string }) {
	return (
		<Layout ctx={ctx} title="Sign in">
			<section class="narrow">
				<h1>Sign in</h1>
				<Alert message={error} />
				<form method="post" action="/sign-in" class="stack">
					{next ? <input type="hidden" name="next" value={next} /> : null}
					<label for="login">Username or email</label>
					<input id="login" name="login" type="text" autocomplete="username" required value={login ?? ''} autofocus />
					<label for="password">Password</label>
					<input id="password" name="password" type="password" autocomplete="current-password" required />
					<button type="submit">Sign in</button>
				</form>
				<p class="muted">
					No account yet? The server's administrator creates accounts (<code>cfgsync-server user add</code>).
				</p>
			</section>
		</Layout>
	)
}

export function DevicesPage({ ctx, keys, notice }: { ctx: ViewContext; keys: KeyView[]; notice?: string }) {
	return (
		<Layout ctx={ctx} title="Devices">
			<h1>Devices</h1>
			<Notice message={notice} />
			<p class="lead">Each device that signed in with the cfgsync client has one key. Revoke a key you no longer use, or that was on a lost machine: the API refuses it at once.</p>
			{keys.length === 0 ? (
				<p class="empty">No device has a key. Run <code>cfgsync login</code> on a machine to add one.</p>
			) : (
				<table class="stack-on-phone">
					<thead>
						<tr>
							<th scope="col">Device</th>
							<th scope="col">Created</th>
							<th scope="col">Last used</th>
							<th scope="col">
								<span class="visually-hidden">Actions</span>
							</th>
						</tr>
					</thead>
					<tbody>
						{keys.map((key) => (
							<tr id={`key-${key.id}`}>
								<th scope="row" data-label="Device">
									{key.device}
								</th>
								<td data-label="Created">
									<Time iso={key.createdAt} now={ctx.now} />
								</td>
								<td data-label="Last used">
									<Time iso={key.lastUsedAt} now={ctx.now} />
								</td>
								<td class="actions">
									<form
										method="post"
										action={`/devices/${key.id}/revoke`}
										hx-post={`/devices/${key.id}/revoke`}
										hx-target="closest tr"
										hx-swap="delete"
										hx-confirm={`Revoke the key of "${key.device}"? That device is signed out at once.`}
									>
										<Csrf ctx={ctx} />
										<button type="submit" class="danger">
											Revoke
										</button>
									</form>
								</td>
							</tr>
						))}
					</tbody>
				</table>
			)}
		</Layout>
	)
}

export function AccountPage({ ctx, email, plan, error, notice }: { ctx: ViewContext; email: string; plan: string; error?: string; notice?: string }) {
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
				<a href="/activity">Your activity</a>: sign-ins, keys, pushes and team changes, with the device and address each came from.
			</p>
			<section class="narrow">
				<h2 id="change-password">Change password</h2>
				<Alert message={error} />
				<form method="post" action="/account/password" class="stack" aria-labelledby="change-password">
					<Csrf ctx={ctx} />
					<label for="current">Current password</label>
					<input id="current" name="current" type="password" autocomplete="current-password" required />
					<label for="new">New password</label>
					<input id="new" name="new" type="password" autocomplete="new-password" minlength={8} required aria-describedby="new-hint" />
					<p id="new-hint" class="hint">
						At least 8 characters. Your other web sessions are signed out; this one and your devices' keys stay.
					</p>
					<button type="submit">Change password</button>
				</form>
			</section>
		</Layout>
	)
}

export function ErrorPage({ ctx, status, message }: { ctx: ViewContext; status: number; message: string }) {
	const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status === 429 ? 'Too many attempts' : 'Something went wrong'
	return (
		<Layout ctx={ctx} title={title}>
			<h1>{title}</h1>
			<Alert message={message} />
			<p>
				<a href={ctx.user ? '/configs' : '/'}>Back to the start</a>
			</p>
		</Layout>
	)
}

/** A confirmation step that works without JavaScript (roll back, delete a team). */
export function ConfirmPage({
	ctx,
	title,
	question,
	action,
	button,
	cancel,
	fields = {}
}: {
	ctx: ViewContext
	title: string
	question: string
	action: string
	button: string
	cancel: string
	fields?: Record<string, string>
}) {
	return (
		<Layout ctx={ctx} title={title}>
			<h1>{title}</h1>
			<p>{question}</p>
			<form method="post" action={action} class="inline-actions">
				<Csrf ctx={ctx} />
				<input type="hidden" name="confirmed" value="yes" />
				{Object.entries(fields).map(([name, value]) => (
					<input type="hidden" name={name} value={value} />
				))}
				<button type="submit" class="danger">
					{button}
				</button>
				<a href={cancel} class="button secondary">
					Cancel
				</a>
			</form>
		</Layout>
	)
}
