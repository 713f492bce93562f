import { PLANS } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import type { UserActivityView } from '../../modules/users/service'
import { attempt, done, field, fragment, isHtmx, redirect, type ChangeContext, type WebDeps } from '../kit'
import { Csrf, Time, type ViewContext } from '../layout'

// One user's row of the Admin page and the changes made in it: plan, revoke keys, remove (docs/web.md).

export function UserRow({ ctx, user, error }: { ctx: ViewContext; user: UserActivityView; error?: string }) {
	const base = `/admin/users/${user.id}`
	return (
		<tr id={`user-${user.id}`}>
			<td data-label="Email">{user.email}</td>
			<th scope="row" data-label="Username">
				{user.username}
			</th>
			<td data-label="Plan">
				<form
					method="post"
					action={`${base}/plan`}
					hx-post={`${base}/plan`}
					hx-trigger="change"
					hx-target="closest tr"
					hx-swap="outerHTML"
					class="role-form"
				>
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
						<form
							method="post"
							action={`${base}/revoke-keys`}
							hx-post={`${base}/revoke-keys`}
							hx-target="closest tr"
							hx-swap="outerHTML"
							hx-confirm={`Revoke every key and web session of ${user.username}?`}
						>
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

type OnUser = { params: { id: string } }

export const adminUserPages = ({ users }: WebDeps) => ({
	setPlan: ({ request, view, actor, params, body }: ChangeContext & OnUser) =>
		attempt(request, view, async () => {
			const user = await users.findById(params.id)
			await users.setPlan(user.username, field(body, 'plan'), actor)
			if (!isHtmx(request)) return redirect('/admin?notice=plan')
			return fragment(<UserRow ctx={view} user={await users.activityOf(params.id)} />)
		}),

	revokeKeys: ({ request, web, view, actor, params }: ChangeContext & OnUser) =>
		attempt(request, view, async () => {
			const user = await users.findById(params.id)
			if (user.id === web.userId)
				throw new AppError('conflict', 'Revoke your own keys on the Devices page: this would also sign you out here.')
			await users.revokeKeys(user.username, actor)
			if (!isHtmx(request)) return redirect('/admin?notice=keys-revoked')
			return fragment(<UserRow ctx={view} user={await users.activityOf(params.id)} />)
		}),

	remove: ({ request, web, view, actor, params }: ChangeContext & OnUser) =>
		attempt(request, view, async () => {
			const user = await users.findById(params.id)
			if (user.id === web.userId)
				throw new AppError(
					'conflict',
					'You cannot remove your own account here; another admin or `cfgsync-server user remove` can.'
				)
			await users.remove(user.username, actor)
			return done(request, '/admin?notice=user-removed')
		})
})
