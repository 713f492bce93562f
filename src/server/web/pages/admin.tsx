import { randomBytes } from 'node:crypto'
import { PLANS } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import { z } from 'zod'
import {
	attempt,
	clearedFlashCookie,
	field,
	flashCookie,
	flashOf,
	noticeOf,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import { Alert, Csrf, Layout, ListHeading, ListStatus, Notice, Secret, type ViewContext } from '../layout'
import { InvitePeople, NewLink } from './admin-links'
import { USERS, UsersList, type UsersPage, usersPageOf, UsersSearch } from './admin-users'
import { listQueryOf } from '../lists'
import type { SignupLinkView } from '../../modules/signup/service'

// The Admin page (docs/web.md, server admins only): every user, adding one, and one-time passwords.

export function AdminPage({
	ctx,
	users,
	links,
	error,
	notice,
	oneTimePassword,
	newLink,
	form = {},
	linkForm = {}
}: {
	ctx: ViewContext
	users: UsersPage
	links: SignupLinkView[]
	error?: string
	notice?: string
	oneTimePassword?: { username: string; password: string }
	newLink?: { url: string; uses: number; days: number }
	form?: { email?: string; username?: string; plan?: string }
	linkForm?: { plan?: string; uses?: string; days?: string }
}) {
	return (
		<Layout ctx={ctx} title="Admin">
			<h1>Admin</h1>
			{/* On a phone the users list is many screens long: what lies below it is a link away from the top. */}
			<nav class="page-links" aria-label="On this page">
				<a href="#invite-people">Invite people</a>
				<a href="#add-user">Add user</a>
				<a href="/admin/activity">Server activity</a>
			</nav>
			<Notice message={notice} />
			<Alert message={error} />
			{oneTimePassword ? (
				<section class="card one-time" aria-labelledby="otp-title">
					<h2 id="otp-title">New password for {oneTimePassword.username}</h2>
					<p>
						Give it to them over a channel you trust; it is shown only this once. Every key and web session of theirs
						has ended.
					</p>
					<Secret
						id="otp-secret"
						label={`New password for ${oneTimePassword.username}`}
						value={oneTimePassword.password}
					/>
				</section>
			) : null}
			{newLink ? <NewLink {...newLink} /> : null}
			<section>
				<ListHeading list={USERS.id} title={USERS.title} />
				<ListStatus list={USERS.id} />
				<UsersSearch list={users} />
				<UsersList ctx={ctx} list={users} />
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
			<InvitePeople ctx={ctx} links={links} form={linkForm} />
		</Layout>
	)
}

const oneTimePassword = () => randomBytes(12).toString('base64url')

/** The one-time password travels to the next page sealed in a cookie of that path (kit.tsx, flashCookie). */
const FLASH_PATH = '/admin'

const OneTime = z.object({ username: z.string(), password: z.string() })
const LinkMade = z.object({ url: z.string(), uses: z.number(), days: z.number() })

export const adminPages = ({ users, sessions, signups, https, originOf }: WebDeps) => {
	/** After the change, to the Admin page, which shows the password or link once (post/redirect/get: a reload repeats nothing). */
	const showOnce = (
		request: Request,
		web: ChangeContext['web'],
		notice: string,
		shown: z.infer<typeof OneTime> | z.infer<typeof LinkMade>
	) =>
		redirect(`/admin?notice=${notice}`, {
			'set-cookie': flashCookie(sessions.sealFlash(web, JSON.stringify(shown)), FLASH_PATH, https(request))
		})

	return {
		show: ({ request, web, view }: PageContext) =>
			attempt(request, view, async () => {
				const sealed = flashOf(request)
				const opened = sealed === undefined ? undefined : sessions.openFlash(web, sealed)
				let shown: z.infer<typeof OneTime> | undefined
				let newLink: z.infer<typeof LinkMade> | undefined
				try {
					const value = opened === undefined ? undefined : JSON.parse(opened)
					shown = OneTime.safeParse(value).data
					newLink = LinkMade.safeParse(value).data
				} catch {
					shown = undefined
				}
				return page(
					<AdminPage
						ctx={view}
						users={await usersPageOf(users, listQueryOf(request.url))}
						links={await signups.listLinks()}
						notice={noticeOf(request)}
						oneTimePassword={shown}
						newLink={newLink}
					/>,
					// Read once: the cookie goes with this answer, so a reload no longer shows the password.
					sealed === undefined ? {} : { headers: { 'set-cookie': clearedFlashCookie(FLASH_PATH, https(request)) } }
				)
			}),

		addUser: ({ request, web, view, actor, body }: ChangeContext) =>
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
					return showOnce(request, web, 'user-added', { username: user.username, password })
				} catch (error) {
					if (!(error instanceof AppError) || error.status >= 500) throw error
					return page(
						<AdminPage
							ctx={view}
							users={await usersPageOf(users, listQueryOf(request.url))}
							links={await signups.listLinks()}
							error={error.message}
							form={form}
						/>,
						{ status: error.status }
					)
				}
			}),

		/** "Invite people": a sign-up link, shown once on the page the redirect leads to (docs/web.md). */
		addLink: ({ request, web, view, actor, body }: ChangeContext) =>
			attempt(request, view, async () => {
				const linkForm = {
					plan: field(body, 'plan'),
					uses: field(body, 'uses').trim(),
					days: field(body, 'days').trim()
				}
				try {
					const { token, link } = await signups.createLink(
						{ plan: linkForm.plan, uses: linkForm.uses || undefined, days: linkForm.days || undefined },
						actor
					)
					const days = Math.round(
						(Date.parse(link.expiresAt ?? link.createdAt) - Date.parse(link.createdAt)) / 86_400_000
					)
					return showOnce(request, web, 'link-created', {
						url: `${originOf(request)}/join/${token}`,
						uses: link.maxUses,
						days
					})
				} catch (error) {
					if (!(error instanceof AppError) || error.status >= 500) throw error
					return page(
						<AdminPage
							ctx={view}
							users={await usersPageOf(users, listQueryOf(request.url))}
							links={await signups.listLinks()}
							error={error.message}
							linkForm={linkForm}
						/>,
						{ status: error.status }
					)
				}
			}),

		/** docs/web.md: an admin's reset always revokes the user's keys and ends their web sessions. */
		resetPassword: ({ request, web, view, actor, params }: ChangeContext & { params: { id: string } }) =>
			attempt(request, view, async () => {
				const user = await users.findById(params.id)
				if (user.id === web.userId) throw new AppError('conflict', 'Change your own password on the Account page.')
				const password = oneTimePassword()
				await users.setPassword(user.username, password, { revokeKeys: true }, actor)
				return showOnce(request, web, 'password-reset', { username: user.username, password })
			})
	}
}
