import { AddMemberBody, PatchTeamBody, SetRoleBody } from '../../../shared/api/teams'
import { AppError } from '../../lib/errors'
import { FieldError, fieldOfZod, fieldState, formFailed, formStateOf, refusal, type FormState } from '../forms'
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
import { ConfirmPage, Layout, type ViewContext } from '../layout'
import {
	ADD_MEMBER,
	INVITATIONS,
	InvitationsList,
	membersAfterOf,
	mayCancel,
	MEMBERS,
	MembersList,
	RENAME,
	rowHasControl,
	teamPages,
	type TeamPageData
} from './teams-detail'

const DELETE_TEAM = 'delete-team'

// The forms of a team's page (docs/web.md): invite, change a role, remove, cancel an invitation, leave, rename, delete.
// Each destructive one asks first on a page of its own (or, with JavaScript, in the page's own dialog: app.js) naming its target.

type OnTeam = { params: { slug: string } }

/** Why the team's only owner cannot leave, and what to do instead (never a dead end). */
function SoleOwnerPage({ ctx, team }: { ctx: ViewContext; team: { name: string; slug: string } }) {
	return (
		<Layout ctx={ctx} title={`You cannot leave ${team.name} yet`}>
			<h1>You cannot leave {team.name} yet</h1>
			<p role="alert" class="alert">
				You are the only owner of {team.name}, and a team always keeps an owner.
			</p>
			<p>
				To leave, first make another member an owner with the Role of their row on the team's page, then leave. If
				nobody needs the team any more, delete it instead.
			</p>
			<p class="inline-actions">
				<a href={`/teams/${team.slug}#members-heading`} class="button secondary">
					Back to {team.name}
				</a>
				<a href={`/teams/${team.slug}/delete`}>Delete the team</a>
			</p>
		</Layout>
	)
}
type OnMember = { params: { slug: string; userId: string } }

export const teamChangePages = (deps: WebDeps) => {
	const { teams } = deps
	const { teamPageData } = teamPages(deps)

	/** A removal done in place: the list it was in again, focus on the next row that has a control, or on the heading. */
	function removedInPlace(
		view: PageContext['view'],
		before: TeamPageData,
		after: TeamPageData,
		userId: string
	): Response {
		const invitation = before.invitations?.find((candidate) => candidate.userId === userId)
		if (invitation) {
			const left = after.invitations ?? []
			const focus = nextRowId(
				(before.invitations ?? []).filter((row) => mayCancel(before.userRole, row)).map((row) => row.userId),
				userId,
				left.filter((row) => mayCancel(after.userRole, row)).map((row) => row.userId)
			)
			return inPlace(
				INVITATIONS,
				<InvitationsList team={after} invitations={left} focus={focus} now={view.now} />,
				`The invitation of ${invitation.username} was cancelled.`,
				focus === undefined
			)
		}
		const member = before.members.find((candidate) => candidate.userId === userId)
		const next = nextRowId(
			before.members.filter((row) => rowHasControl(before, row)).map((row) => row.userId),
			userId,
			after.members.filter((row) => rowHasControl(after, row)).map((row) => row.userId)
		)
		return inPlace(
			MEMBERS,
			<MembersList ctx={view} team={after} focus={next === undefined ? undefined : { id: next, on: 'action' }} />,
			`${member?.username ?? 'The member'} was removed from ${after.name}.`,
			next === undefined
		)
	}

	return {
		invite: ({ request, web, view, actor, params, body }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				const values = { login: field(body, 'login'), role: field(body, 'role') }
				const failed = (more: Pick<FormState, 'errors' | 'general'>) =>
					formFailed(deps, request, web, `/teams/${params.slug}`, { form: ADD_MEMBER, values, ...more })
				const parsed = AddMemberBody.safeParse({ login: values.login, role: values.role || undefined })
				if (!parsed.success) {
					const { field: name, message } = fieldOfZod(parsed.error, 'login')
					return failed({ errors: { [name === 'role' ? 'login' : name]: message } })
				}
				try {
					await teams.invite(actor, params.slug, parsed.data)
					return redirect(`/teams/${params.slug}?notice=invited`)
				} catch (error) {
					// A team that is gone (or not the caller's) is its own 404 page; anything else is about the login typed.
					if (error instanceof AppError && error.code === 'not_found') {
						if (!/user/i.test(error.message)) throw error
						return failed({ errors: { login: error.message } })
					}
					return failed(refusal(error, error instanceof AppError && error.status === 403 ? undefined : 'login'))
				}
			}),

		setRole: ({ request, web, view, actor, params, body }: ChangeContext & OnMember) =>
			attempt(request, view, async () => {
				// In place: the members again, focus back on this row's Save, and what happened said in the status region.
				const list = async (message: string, error?: string, statusCode = 200) => {
					const team = await teamPageData(web, params.slug, membersAfterOf(request))
					return inPlace(
						MEMBERS,
						<MembersList
							ctx={view}
							team={team}
							focus={{ id: params.userId, on: 'save' }}
							error={error === undefined ? undefined : { userId: params.userId, message: error }}
						/>,
						message,
						!team.members.some((member) => member.userId === params.userId),
						{ status: statusCode }
					)
				}
				let role: SetRoleBody['role']
				try {
					const parsed = SetRoleBody.safeParse({ role: field(body, 'role') })
					if (!parsed.success) throw new AppError('invalid_request', 'Roles are owner, admin and member.')
					role = parsed.data.role
					await teams.setRole(actor, params.slug, params.userId, role)
				} catch (error) {
					if (isHtmx(request) && error instanceof AppError && error.status < 500 && error.status !== 404)
						return list(`The role was not changed: ${error.message}`, error.message, error.status)
					throw error
				}
				if (!isHtmx(request)) return redirect(`/teams/${params.slug}?notice=role`)
				const member = await teams.member(web, params.slug, params.userId)
				return list(
					member ? `${member.username} is now ${role === 'member' ? 'a' : 'an'} ${role}.` : 'The role was changed.'
				)
			}),

		/** Asks first, naming the member or the invitation (docs/web.md, safe to use); removing yourself is leaving. */
		removePage: ({ request, web, view, params }: PageContext & OnMember) =>
			attempt(request, view, async () => {
				if (params.userId === web.userId) return redirect(`/teams/${params.slug}/leave`)
				const team = await teamPageData(web, params.slug)
				const invitation = team.invitations?.find((candidate) => candidate.userId === params.userId)
				const member =
					team.members.find((candidate) => candidate.userId === params.userId) ??
					(await teams.member(web, params.slug, params.userId))
				if (!invitation && !member)
					throw new AppError(
						'not_found',
						`No such member or invitation in ${team.name}. Open the team's page to see who is in it.`
					)
				// Asked only of those who may do it (the API's rule); anyone else learns why here, not after confirming.
				if (
					invitation
						? !mayCancel(team.userRole, invitation) || team.userRole === 'member'
						: !rowHasControl(team, member!) || team.userRole === 'member'
				)
					throw new AppError('forbidden', 'Owners remove anyone; admins remove members and cancel their invitations.')
				const action = `/teams/${team.slug}/members/${params.userId}/remove`
				return page(
					invitation ? (
						<ConfirmPage
							ctx={view}
							title={`Cancel the invitation of ${invitation.username}`}
							question={`Cancel the invitation of ${invitation.username} to ${team.name}? They can no longer accept it; you can invite them again.`}
							action={action}
							button="Cancel invitation"
							cancel={`/teams/${team.slug}`}
						/>
					) : (
						<ConfirmPage
							ctx={view}
							title={`Remove ${member?.username} from ${team.name}`}
							question={`Remove ${member?.username} (${member?.role}) from ${team.name}? They lose access to the team's configs at once.`}
							action={action}
							button="Remove"
							cancel={`/teams/${team.slug}`}
						/>
					)
				)
			}),

		removeMember: ({ request, web, view, actor, params }: ChangeContext & OnMember) =>
			attempt(request, view, async () => {
				const self = params.userId === web.userId
				const before = self ? undefined : await teamPageData(web, params.slug, membersAfterOf(request))
				await teams.removeMember(actor, params.slug, params.userId)
				if (!before)
					return isHtmx(request)
						? new Response(null, { headers: { 'hx-redirect': '/teams?notice=left', 'cache-control': 'no-store' } })
						: redirect('/teams?notice=left')
				if (isHtmx(request))
					return removedInPlace(
						view,
						before,
						await teamPageData(web, params.slug, membersAfterOf(request)),
						params.userId
					)
				const wasInvitation = before.invitations?.some((invitation) => invitation.userId === params.userId)
				return redirect(`/teams/${params.slug}?notice=${wasInvitation ? 'invitation-cancelled' : 'removed'}`)
			}),

		/**
		 * Asks first, naming the team (docs/web.md, safe to use). The team's only owner is not asked: the API would
		 * refuse (a team keeps an owner), so the page says why and what to do instead.
		 */
		leavePage: ({ request, web, view, params }: PageContext & OnTeam) =>
			attempt(request, view, async () => {
				const team = await teams.get(web, params.slug)
				const owners = await teams.ownerIds(web, params.slug)
				if (owners.length === 1 && owners[0] === web.userId)
					return page(<SoleOwnerPage ctx={view} team={team} />, { status: 409 })
				return page(
					<ConfirmPage
						ctx={view}
						title={`Leave ${team.name}`}
						question={`Leave the team ${team.name} (${team.slug})? You lose access to its configs; only an invitation brings you back.`}
						action={`/teams/${team.slug}/leave`}
						button="Leave"
						cancel={`/teams/${team.slug}`}
					/>
				)
			}),

		leave: ({ request, web, view, actor, params }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				try {
					await teams.removeMember(actor, params.slug, web.userId)
				} catch (error) {
					// The last owner (someone else stepped down meanwhile): the same explanation as the page above.
					if (!(error instanceof AppError) || error.code !== 'conflict') throw error
					return page(<SoleOwnerPage ctx={view} team={await teams.get(web, params.slug)} />, { status: 409 })
				}
				return redirect('/teams?notice=left')
			}),

		rename: ({ request, web, view, actor, params, body }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				const team = await teams.get(web, params.slug)
				const name = field(body, 'name')
				const slug = field(body, 'slug').trim()
				const failed = (more: Pick<FormState, 'errors' | 'general'>) =>
					formFailed(deps, request, web, `/teams/${team.slug}`, { form: RENAME, values: { name, slug }, ...more })
				const parsed = PatchTeamBody.safeParse({
					name: name.trim() === team.name ? undefined : name,
					slug: slug === '' || slug === team.slug ? undefined : slug
				})
				if (!parsed.success) {
					const { field: about, message } = fieldOfZod(parsed.error, 'name')
					return failed({ errors: { [about]: message } })
				}
				try {
					const updated = await teams.update(actor, params.slug, parsed.data)
					return redirect(`/teams/${updated.slug}?notice=renamed`)
				} catch (error) {
					if (error instanceof AppError && error.status === 404) throw error
					const about = error instanceof AppError && error.code === 'conflict' ? 'slug' : undefined
					return failed(refusal(error, error instanceof AppError && error.status === 400 ? 'name' : about))
				}
			}),

		deletePage: ({ request, web, view, params }: PageContext & OnTeam) =>
			attempt(request, view, async () => {
				const { state, headers } = formStateOf(deps, request, web, DELETE_TEAM)
				return page(await deleteConfirmation(web, view, params.slug, state), { headers })
			}),

		/** Deletes only when the team's slug was typed (docs/web.md, safe to use); otherwise asks again, saying why. */
		remove: ({ request, web, view, actor, params, body }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				const typed = field(body, 'slug').trim()
				const team = await teams.get(web, params.slug)
				if (team.userRole === 'owner' && typed !== team.slug) {
					const message =
						typed === ''
							? `Type the team's slug, ${team.slug}, to confirm.`
							: `"${typed}" is not this team's slug: type ${team.slug} to confirm.`
					return formFailed(deps, request, web, `/teams/${team.slug}/delete`, {
						form: DELETE_TEAM,
						values: { slug: typed },
						errors: { slug: message }
					})
				}
				await teams.remove(actor, params.slug)
				return redirect('/teams?notice=deleted')
			})
	}

	/** The deletion's confirmation, naming the team and asking for its slug to be typed. */
	async function deleteConfirmation(
		web: PageContext['web'],
		view: PageContext['view'],
		slug: string,
		form?: FormState
	) {
		const team = await teams.get(web, slug)
		const typed = fieldState(form, DELETE_TEAM, 'slug', 'confirm-slug')
		if (team.userRole !== 'owner') throw new AppError('forbidden', 'Only a team owner can delete the team.')
		return (
			<ConfirmPage
				ctx={view}
				title={`Delete ${team.name}`}
				question={`Delete the team ${team.name} (${team.slug})? It and its configs disappear for every member at once and are removed for good after 30 days; until then you can restore it from the Teams page.`}
				action={`/teams/${team.slug}/delete`}
				button="Delete team"
				cancel={`/teams/${team.slug}`}
			>
				<label for="confirm-slug">Type the team's slug, {team.slug}, to confirm</label>
				<input id="confirm-slug" name="slug" type="text" required autocomplete="off" spellcheck={false} {...typed} />
				<FieldError state={form} form={DELETE_TEAM} name="slug" id="confirm-slug" />
			</ConfirmPage>
		)
	}
}
