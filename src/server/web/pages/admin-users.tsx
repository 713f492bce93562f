import { PLANS } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import type { UserActivityView } from '../../modules/users/service'
import {
	attempt,
	field,
	inPlace,
	isHtmx,
	nextRowId,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import { ConfirmPage, SavedChoice, Time, type ViewContext } from '../layout'
import {
	currentListQuery,
	hrefOf,
	type ListQuery,
	NoMatch,
	PAGE_SIZE,
	Pager,
	pagesOf,
	SearchForm,
	shownRows,
	storePageOf
} from '../lists'

// One user's row of the Admin page and the changes made in it: plan, revoke keys, remove (docs/web.md).

export const USERS = { id: 'users', title: 'Users' } as const

/** Which control of a user's row takes the focus after an in-place change. */
export type UserFocus = { id: string; on: 'plan' | 'revoke-keys' | 'action' }

export function UserRow({
	ctx,
	user,
	error,
	focus
}: {
	ctx: ViewContext
	user: UserActivityView
	error?: string
	focus?: UserFocus['on']
}) {
	const base = `/admin/users/${user.id}`
	const self = user.id === ctx.user?.userId
	return (
		<tr id={`user-${user.id}`}>
			<th scope="row" data-label="Email" class="email">
				{user.email}
			</th>
			<td data-label="Username">{user.username}</td>
			<td data-label="Plan">
				<SavedChoice
					ctx={ctx}
					action={`${base}/plan`}
					target="#users-list"
					id={`plan-${user.id}`}
					label="Plan"
					name="plan"
					choices={PLANS}
					value={user.plan}
					focus={focus === 'plan' || (focus === 'action' && self)}
				/>
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
				{self ? (
					<span class="muted">you (see Account and Devices)</span>
				) : (
					<>
						{/* Each asks first (docs/web.md): a page of its own without JavaScript, the page's dialog with it (app.js). */}
						<form method="get" action={`${base}/reset-password`}>
							<button type="submit" class="secondary small" autofocus={focus === 'action' || undefined}>
								Reset password
							</button>
						</form>
						<form
							method="get"
							action={`${base}/revoke-keys`}
							hx-post={`${base}/revoke-keys`}
							hx-target="#users-list"
							hx-swap="outerHTML"
							hx-confirm={`Revoke every key and web session of ${user.username}?`}
							data-confirm-button="Revoke keys"
						>
							<button type="submit" class="secondary small" autofocus={focus === 'revoke-keys' || undefined}>
								Revoke keys<span class="visually-hidden"> of {user.username}</span>
							</button>
						</form>
						<form
							method="get"
							action={`${base}/remove`}
							hx-post={`${base}/remove`}
							hx-target="#users-list"
							hx-swap="outerHTML"
							hx-confirm={`Remove ${user.username} with their keys and personal configs? This cannot be undone.`}
							data-confirm-button="Remove user"
						>
							<button type="submit" class="danger small">
								Remove
							</button>
						</form>
					</>
				)}
			</td>
		</tr>
	)
}

/** A page of the Admin page's users: what its search found, how many it found in all, and whether more follow. */
export interface UsersPage {
	users: UserActivityView[]
	query: ListQuery
	more: boolean
	/** Every user the search finds (all users without one). */
	total: number
}

/** The users a list query asks for, found in the database (docs/web.md, search and pages). */
export const usersPageOf = async (users: WebDeps['users'], query: ListQuery): Promise<UsersPage> => {
	const [found, total] = await Promise.all([users.listWithActivity(storePageOf(query)), users.count(query.search)])
	const { rows, more } = shownRows(found)
	return { users: rows, query, more, total }
}

/** How many pages `total` rows make (at least one: an empty list is one empty page). */
const pageCount = (total: number) => Math.max(1, Math.ceil(total / PAGE_SIZE))

/** "Users 51–100 of 230, page 2 of 5": where this page is in the whole list (docs/web.md). */
function UsersSummary({ list }: { list: UsersPage }) {
	const { users, query, total } = list
	if (users.length === 0) return null
	const first = (query.page - 1) * PAGE_SIZE + 1
	const found = query.search === '' ? '' : ` matching “${query.search}”`
	return (
		<p class="list-summary" id="users-summary">
			Users {first}–{first + users.length - 1} of {total}
			{found}, page {query.page} of {pageCount(total)}
		</p>
	)
}

/** A page number past the end: said, with the last page a link away, instead of an empty table. */
function PastTheEnd({ list }: { list: UsersPage }) {
	const { query, total } = list
	const last = pageCount(total)
	const users = `the ${total === 1 ? 'one user' : `${total} users`}`
	const found = query.search === '' ? users : `${users} matching “${query.search}”`
	return (
		<p class="empty">
			There is no page {query.page}: {found} {total === 1 ? 'fills' : 'fill'}{' '}
			{last === 1 ? 'one page' : `${last} pages`}.{' '}
			<a href={hrefOf('/admin', { q: query.search, page: last })}>Go to the last page (page {last})</a>
		</p>
	)
}

/**
 * The users' search, above the list and outside what htmx swaps: swapping a field the browser has touched would
 * copy its inline style, which the Content-Security-Policy refuses.
 */
export const UsersSearch = ({ list }: { list: UsersPage }) => (
	<SearchForm action="/admin" search={list.query.search} what="Part of an email or a username." id="users-search" />
)

/** The users table and its pages: what a change of plan, a revocation or a removal swaps in place. */
export function UsersList({ ctx, list, focus }: { ctx: ViewContext; list: UsersPage; focus?: UserFocus }) {
	const { users, query, more } = list
	const pastTheEnd = users.length === 0 && list.total > 0
	return (
		<div id="users-list">
			<UsersSummary list={list} />
			{pastTheEnd ? (
				<PastTheEnd list={list} />
			) : users.length === 0 && query.search !== '' ? (
				<NoMatch search={query.search} path="/admin" />
			) : (
				<table class="stack-on-phone compact users" aria-labelledby="users-heading">
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
							<UserRow ctx={ctx} user={user} focus={focus?.id === user.id ? focus.on : undefined} />
						))}
					</tbody>
				</table>
			)}
			{pastTheEnd ? null : <Pager {...pagesOf('/admin', query, more)} label="Pages of users" />}
		</div>
	)
}

type OnUser = { params: { id: string } }

/** What each confirmation page asks, naming the user (docs/web.md, safe to use). */
const CONFIRMATIONS = {
	'reset-password': (username: string) => ({
		title: `Reset the password of ${username}`,
		question: `Give ${username} a new one-time password? Their current password stops working, and every key and web session of theirs is revoked at once. The new password is shown to you once.`,
		button: 'Reset password'
	}),
	'revoke-keys': (username: string) => ({
		title: `Revoke the keys of ${username}`,
		question: `Revoke every key and web session of ${username}? Each of their devices needs cfgsync login again.`,
		button: 'Revoke keys'
	}),
	remove: (username: string) => ({
		title: `Remove ${username}`,
		question: `Remove ${username} with their keys and personal configs? This cannot be undone; team configs they pushed stay with their teams.`,
		button: 'Remove user'
	})
}

export const adminUserPages = ({ users }: WebDeps) => {
	/** The users again, in place (the page of them the browser shows), with what happened in the status region. */
	const list = async (request: Request, view: ChangeContext['view'], message: string, focus?: UserFocus) =>
		inPlace(
			USERS,
			<UsersList ctx={view} list={await usersPageOf(users, currentListQuery(request, '/admin'))} focus={focus} />,
			message,
			!focus
		)

	return {
		/** A confirmation page for one of the row's actions. */
		confirm:
			(action: keyof typeof CONFIRMATIONS) =>
			({ request, web, view, params }: PageContext & OnUser) =>
				attempt(request, view, async () => {
					const user = await users.findById(params.id)
					if (user.id === web.userId)
						throw new AppError(
							'conflict',
							'These are for other users: change your password on Account, and revoke your keys on Devices.'
						)
					const text = CONFIRMATIONS[action](user.username)
					return page(
						<ConfirmPage
							ctx={view}
							title={text.title}
							question={text.question}
							action={`/admin/users/${user.id}/${action}`}
							button={text.button}
							cancel="/admin"
						/>
					)
				}),

		setPlan: ({ request, view, actor, params, body }: ChangeContext & OnUser) =>
			attempt(request, view, async () => {
				const user = await users.findById(params.id)
				const changed = await users.setPlan(user.username, field(body, 'plan'), actor)
				if (!isHtmx(request)) return redirect('/admin?notice=plan')
				return list(request, view, `The plan of ${changed.username} is now ${changed.plan}.`, {
					id: user.id,
					on: 'plan'
				})
			}),

		revokeKeys: ({ request, web, view, actor, params }: ChangeContext & OnUser) =>
			attempt(request, view, async () => {
				const user = await users.findById(params.id)
				if (user.id === web.userId)
					throw new AppError('conflict', 'Revoke your own keys on the Devices page: this would also sign you out here.')
				const { revokedKeys, endedSessions } = await users.revokeKeys(user.username, actor)
				if (!isHtmx(request)) return redirect('/admin?notice=keys-revoked')
				return list(
					request,
					view,
					`Revoked ${revokedKeys} key${revokedKeys === 1 ? '' : 's'} and ended ${endedSessions} web session${endedSessions === 1 ? '' : 's'} of ${user.username}.`,
					{ id: user.id, on: 'revoke-keys' }
				)
			}),

		remove: ({ request, web, view, actor, params }: ChangeContext & OnUser) =>
			attempt(request, view, async () => {
				const user = await users.findById(params.id)
				if (user.id === web.userId)
					throw new AppError(
						'conflict',
						'You cannot remove your own account here; another admin or `cfgsync-server user remove` can.'
					)
				const query = currentListQuery(request, '/admin')
				const before = isHtmx(request) ? (await usersPageOf(users, query)).users : []
				await users.remove(user.username, actor)
				if (!isHtmx(request)) return redirect('/admin?notice=user-removed')
				const after = await usersPageOf(users, query)
				const next = nextRowId(
					before.map((row) => row.id),
					user.id,
					after.users.map((row) => row.id)
				)
				return inPlace(
					USERS,
					<UsersList ctx={view} list={after} focus={next === undefined ? undefined : { id: next, on: 'action' }} />,
					`${user.username} was removed.`,
					next === undefined
				)
			})
	}
}
