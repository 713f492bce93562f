import { randomBytes } from 'node:crypto'
import { PLANS } from '../../../shared/constants'
import { NewUserInput } from '../../../shared/api/users'
import { AppError } from '../../lib/errors'
import { NewSignupLink } from '../../modules/signup/service'
import { z } from 'zod'
import {
	FieldError,
	fieldOfZod,
	fieldState,
	FormAlert,
	formFailed,
	formStateOf,
	refusal,
	type FormState
} from '../forms'
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
import { Csrf, Layout, ListHeading, ListStatus, Notice, Secret, type ViewContext } from '../layout'
import { INVITE_PEOPLE, InvitePeople, NewLink } from './admin-links'
import { USERS, UsersList, type UsersPage, usersPageOf, UsersSearch } from './admin-users'
import { listQueryOf } from '../lists'
import type { SignupLinkView } from '../../modules/signup/service'

// The Admin page (docs/web.md, server admins only): every user, adding one, and one-time passwords.

export function AdminPage({
	ctx,
	users,
	links,
	notice,
	oneTimePassword,
	newLink,
	form
}: {
	ctx: ViewContext
	users: UsersPage
	links: SignupLinkView[]
	notice?: string
	oneTimePassword?: { username: string; password: string }
	newLink?: { url: string; uses: number; days: number }
	/** A failed "Add user" or "Invite people", back after its redirect (forms.tsx). */
	form?: FormState
}) {
	const email = fieldState(form, ADD_USER, 'email', 'new-email')
	const username = fieldState(form, ADD_USER, 'username', 'new-username')
	const plan = fieldState(form, ADD_USER, 'plan', 'new-plan')
	const password = fieldState(form, ADD_USER, 'password', 'new-password', 'new-password-hint')
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
				<FormAlert state={form} form={ADD_USER} />
				<form method="post" action="/admin/users" class="stack" aria-labelledby="add-user">
					<Csrf ctx={ctx} />
					<label for="new-email">Email</label>
					<input
						id="new-email"
						name="email"
						type="email"
						required
						value={email.value ?? ''}
						aria-invalid={email['aria-invalid']}
						aria-describedby={email['aria-describedby']}
						autofocus={email.autofocus}
					/>
					<FieldError state={form} form={ADD_USER} name="email" id="new-email" />
					<label for="new-username">Username</label>
					<input
						id="new-username"
						name="username"
						type="text"
						required
						maxlength={64}
						value={username.value ?? ''}
						aria-invalid={username['aria-invalid']}
						aria-describedby={username['aria-describedby']}
						autofocus={username.autofocus}
					/>
					<FieldError state={form} form={ADD_USER} name="username" id="new-username" />
					<label for="new-plan">Plan</label>
					<select
						id="new-plan"
						name="plan"
						aria-invalid={plan['aria-invalid']}
						aria-describedby={plan['aria-describedby']}
						autofocus={plan.autofocus}
					>
						{PLANS.map((name) => (
							<option value={name} selected={(plan.value ?? 'team') === name}>
								{name}
							</option>
						))}
					</select>
					<FieldError state={form} form={ADD_USER} name="plan" id="new-plan" />
					<label for="new-password">Password (optional)</label>
					<input
						id="new-password"
						name="password"
						type="password"
						autocomplete="new-password"
						minlength={8}
						aria-invalid={password['aria-invalid']}
						aria-describedby={password['aria-describedby']}
						autofocus={password.autofocus}
					/>
					<FieldError state={form} form={ADD_USER} name="password" id="new-password" />
					<p id="new-password-hint" class="hint">
						Leave empty to get a one-time password to hand over.
					</p>
					<button type="submit">Add user</button>
				</form>
			</section>
			<InvitePeople ctx={ctx} links={links} form={form} />
		</Layout>
	)
}

/** The form's name in a failed form's state (forms.tsx). */
const ADD_USER = 'add-user'

const oneTimePassword = () => randomBytes(12).toString('base64url')

/** The one-time password travels to the next page sealed in a cookie of that path (kit.tsx, flashCookie). */
const FLASH_PATH = '/admin'

const OneTime = z.object({ username: z.string(), password: z.string() })
const LinkMade = z.object({ url: z.string(), uses: z.number(), days: z.number() })

export const adminPages = (deps: WebDeps) => {
	const { users, sessions, signups, https, originOf } = deps
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
				const { state, headers } = formStateOf(deps, request, web, [ADD_USER, INVITE_PEOPLE])
				const shownPage = page(
					<AdminPage
						ctx={view}
						users={await usersPageOf(users, listQueryOf(request.url))}
						links={await signups.listLinks()}
						notice={noticeOf(request)}
						oneTimePassword={shown}
						newLink={newLink}
						form={state}
					/>,
					{ headers }
				)
				// Read once: the cookie goes with this answer, so a reload no longer shows the password.
				if (sealed !== undefined) shownPage.headers.append('set-cookie', clearedFlashCookie(FLASH_PATH, https(request)))
				return shownPage
			}),

		addUser: ({ request, web, view, actor, body }: ChangeContext) =>
			attempt(request, view, async () => {
				const form = {
					email: field(body, 'email').trim(),
					username: field(body, 'username').trim(),
					plan: field(body, 'plan') || 'team'
				}
				const given = field(body, 'password')
				// Back to the form by a redirect (forms.tsx): the message by its field; the password never comes back.
				const failed = (more: Pick<FormState, 'errors' | 'general'>) =>
					formFailed(deps, request, web, '/admin', { form: ADD_USER, values: form, ...more }, ['password'])
				// The service's own schema, read here to know which field a problem is about.
				const parsed = NewUserInput.safeParse({ ...form, password: given === '' ? undefined : given })
				if (!parsed.success) {
					const { field: name, message } = fieldOfZod(parsed.error, 'email')
					return failed({ errors: { [name]: message } })
				}
				const password = given === '' ? oneTimePassword() : given
				try {
					const user = await users.add({ ...form, password }, actor)
					if (given !== '') return redirect('/admin?notice=user-added')
					return showOnce(request, web, 'user-added', { username: user.username, password })
				} catch (error) {
					if (error instanceof AppError && error.code === 'conflict') {
						// An admin may know which: the email when it is someone's, else the username.
						const holder = await users.find(form.email).catch(() => undefined)
						const about = holder !== undefined && holder.email.toLowerCase() === form.email.toLowerCase()
						return failed({
							errors: about
								? { email: 'A user with that email already exists.' }
								: { username: 'A user with that username already exists.' }
						})
					}
					return failed(refusal(error, 'email'))
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
				const input = { plan: linkForm.plan, uses: linkForm.uses || undefined, days: linkForm.days || undefined }
				const failed = (more: Pick<FormState, 'errors' | 'general'>) =>
					formFailed(deps, request, web, '/admin', { form: INVITE_PEOPLE, values: linkForm, ...more })
				// The service's own schema, read here to know which field a problem is about.
				const parsed = NewSignupLink.safeParse(input)
				if (!parsed.success) {
					const { field: name, message } = fieldOfZod(parsed.error, 'uses')
					return failed({ errors: { [name]: message } })
				}
				try {
					const { token, link } = await signups.createLink(input, actor)
					const days = Math.round(
						(Date.parse(link.expiresAt ?? link.createdAt) - Date.parse(link.createdAt)) / 86_400_000
					)
					return showOnce(request, web, 'link-created', {
						url: `${originOf(request)}/join/${token}`,
						uses: link.maxUses,
						days
					})
				} catch (error) {
					return failed(refusal(error, 'uses'))
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
