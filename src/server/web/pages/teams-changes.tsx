import { AddMemberBody, PatchTeamBody, SetRoleBody } from '../../../shared/api/teams'
import { AppError } from '../../lib/errors'
import {
	attempt,
	done,
	field,
	formError,
	fragment,
	isHtmx,
	page,
	redirect,
	type ChangeContext,
	type PageContext,
	type WebDeps
} from '../kit'
import { ConfirmPage } from '../layout'
import { MemberRow, TeamPage, teamPages } from './teams-detail'

// The forms of a team's page (docs/web.md): invite, change a role, remove, leave, rename, delete.

type OnTeam = { params: { slug: string } }
type OnMember = { params: { slug: string; userId: string } }

export const teamChangePages = (deps: WebDeps) => {
	const { teams } = deps
	const { teamPageData } = teamPages(deps)

	return {
		invite: ({ request, web, view, actor, params, body }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				try {
					const parsed = AddMemberBody.safeParse({
						login: field(body, 'login'),
						role: field(body, 'role') || undefined
					})
					if (!parsed.success) throw formError(parsed.error, { login: 'Username or email', role: 'Role' })
					await teams.invite(actor, params.slug, parsed.data)
					return redirect(`/teams/${params.slug}?notice=invited`)
				} catch (error) {
					if (!(error instanceof AppError) || error.status >= 500) throw error
					// The refusal is shown on the team's page; a team that is gone (or not the caller's) fails that page's own load with its 404.
					return page(<TeamPage ctx={view} team={await teamPageData(web, params.slug)} inviteError={error.message} />, {
						status: error.status
					})
				}
			}),

		setRole: ({ request, web, view, actor, params, body }: ChangeContext & OnMember) =>
			attempt(request, view, async () => {
				const row = async (error?: string, statusCode = 200) => {
					const team = await teamPageData(web, params.slug)
					const member = team.members.find((candidate) => candidate.userId === params.userId)
					if (!member) return fragment(null, { status: statusCode })
					return fragment(<MemberRow ctx={view} team={team} member={member} error={error} />, { status: statusCode })
				}
				try {
					const parsed = SetRoleBody.safeParse({ role: field(body, 'role') })
					if (!parsed.success) throw new AppError('invalid_request', 'Roles are owner, admin and member.')
					await teams.setRole(actor, params.slug, params.userId, parsed.data.role)
				} catch (error) {
					if (isHtmx(request) && error instanceof AppError && error.status < 500 && error.status !== 404)
						return row(error.message, error.status)
					throw error
				}
				return isHtmx(request) ? row() : redirect(`/teams/${params.slug}?notice=role`)
			}),

		removeMember: ({ request, web, view, actor, params }: ChangeContext & OnMember) =>
			attempt(request, view, async () => {
				await teams.removeMember(actor, params.slug, params.userId)
				if (params.userId === web.userId)
					return isHtmx(request)
						? fragment(null, { headers: { 'hx-redirect': '/teams?notice=left' } })
						: redirect('/teams?notice=left')
				return done(request, `/teams/${params.slug}?notice=removed`)
			}),

		leave: ({ request, web, view, actor, params }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				await teams.removeMember(actor, params.slug, web.userId)
				return redirect('/teams?notice=left')
			}),

		rename: ({ request, web, view, actor, params, body }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				try {
					const team = await teams.get(web, params.slug)
					const name = field(body, 'name')
					const slug = field(body, 'slug').trim()
					const parsed = PatchTeamBody.safeParse({
						name: name.trim() === team.name ? undefined : name,
						slug: slug === '' || slug === team.slug ? undefined : slug
					})
					if (!parsed.success) throw formError(parsed.error, { name: 'Name', slug: 'Slug' })
					const updated = await teams.update(actor, params.slug, parsed.data)
					return redirect(`/teams/${updated.slug}?notice=renamed`)
				} catch (error) {
					if (!(error instanceof AppError) || error.status >= 500 || error.status === 404) throw error
					return page(<TeamPage ctx={view} team={await teamPageData(web, params.slug)} error={error.message} />, {
						status: error.status
					})
				}
			}),

		/** Asks first, naming the team (docs/decisions.md: a confirmation that works without JavaScript). */
		deletePage: ({ request, web, view, params }: PageContext & OnTeam) =>
			attempt(request, view, async () => {
				const team = await teams.get(web, params.slug)
				if (team.userRole !== 'owner') throw new AppError('forbidden', 'Only a team owner can delete the team.')
				return page(
					<ConfirmPage
						ctx={view}
						title={`Delete ${team.name}`}
						question={`Delete the team ${team.name} (${team.slug})? It and its configs disappear for every member at once and are removed for good after 30 days.`}
						action={`/teams/${team.slug}/delete`}
						button="Delete team"
						cancel={`/teams/${team.slug}`}
					/>
				)
			}),

		remove: ({ request, view, actor, params }: ChangeContext & OnTeam) =>
			attempt(request, view, async () => {
				await teams.remove(actor, params.slug)
				return redirect('/teams?notice=deleted')
			})
	}
}
