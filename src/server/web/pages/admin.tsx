import { randomBytes } from 'node:crypto'
import { PLANS } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import type { UserActivityView } from '../../modules/users/service'
import {
	attempt,
	field,
	NOTICES,
	noticeOf,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import { Alert, Csrf, Layout, Notice, type ViewContext } from '../layout'
import { UserRow } from './admin-users'

// The Admin page (docs/web.md, server admins only): every user, adding one, and one-time passwords.

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
					<p>Give it to them over a channel you trust; it is shown only this once. Their web sessions have ended.</p>
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
					<input
						id="new-password"
						name="password"
						type="password"
						autocomplete="new-password"
						minlength={8}
						aria-describedby="new-password-hint"
					/>
					<p id="new-password-hint" class="hint">
						Leave empty to get a one-time password to hand over.
					</p>
					<button type="submit">Add user</button>
				</form>
			</section>
		</Layout>
	)
}

const oneTimePassword = () => randomBytes(12).toString('base64url')

export const adminPages = ({ users }: WebDeps) => ({
	show: ({ request, view }: PageContext) =>
		attempt(request, view, async () =>
			page(<AdminPage ctx={view} users={await users.listWithActivity()} notice={noticeOf(request)} />)
		),

	addUser: ({ request, view, actor, body }: ChangeContext) =>
		attempt(request, view, async () => {
			const form = {
				email: field(body, 'email').trim(),
				username: field(body, 'username').trim(),
				plan: field(body, 'plan') || 'team'
			}
			const given = field(body, 'password')
			const password = given === '' ? oneTimePassword() : given
			try {
				const user = await users.add({ ...form, password }, actor)
				if (given !== '') return redirect('/admin?notice=user-added')
				return page(
					<AdminPage
						ctx={view}
						users={await users.listWithActivity()}
						notice={NOTICES['user-added']}
						oneTimePassword={{ username: user.username, password }}
					/>
				)
			} catch (error) {
				if (!(error instanceof AppError) || error.status >= 500) throw error
				return page(<AdminPage ctx={view} users={await users.listWithActivity()} error={error.message} form={form} />, {
					status: error.status
				})
			}
		}),

	resetPassword: ({ request, web, view, actor, params }: ChangeContext & { params: { id: string } }) =>
		attempt(request, view, async () => {
			const user = await users.findById(params.id)
			if (user.id === web.userId) throw new AppError('conflict', 'Change your own password on the Account page.')
			const password = oneTimePassword()
			await users.setPassword(user.username, password, {}, actor)
			return page(
				<AdminPage
					ctx={view}
					users={await users.listWithActivity()}
					oneTimePassword={{ username: user.username, password }}
				/>
			)
		})
})
