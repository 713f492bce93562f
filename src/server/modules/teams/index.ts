import { Elysia } from 'elysia'
import { z } from 'zod'
import type { AuthPlugin } from '../../plugins/auth'
import { jsonBody } from '../../plugins/json-body'
import { apiPath, ROUTES } from '../../../shared/api/routes'
import {
	AddMemberBody,
	CreateTeamBody,
	Invitation,
	InvitationParams,
	MemberParams,
	MembersQuery,
	PatchTeamBody,
	RoleChanged,
	SetRoleBody,
	SlugParams,
	TeamCreated,
	TeamDetail,
	TeamListItem,
	TeamMember
} from '../../../shared/api/teams'
import type { TeamsService } from './service'

export const teamsRoutes = (teams: TeamsService, gate: AuthPlugin) =>
	new Elysia({ tags: ['teams'] })
		.use(gate)
		.get(ROUTES.teams, ({ caller }) => teams.list(caller), {
			auth: true,
			response: z.array(TeamListItem),
			detail: { summary: 'Your teams, with your role in each' }
		})
		.post(
			ROUTES.teams,
			async ({ actor, body, status }) => status(201, await teams.create(actor, body.name, body.slug)),
			{
				...jsonBody,
				actor: true,
				body: CreateTeamBody,
				response: { 201: TeamCreated },
				detail: {
					summary: 'Create a team (Team plan); you become its owner',
					description:
						'The slug is made from the name unless `slug` is given; 409 when it is taken, also by a deleted team.'
				}
			}
		)
		.get(ROUTES.team, ({ caller, params }) => teams.get(caller, params.slug), {
			auth: true,
			params: SlugParams,
			response: TeamDetail,
			detail: { summary: 'A team with its members (members only)' }
		})
		.get(
			ROUTES.members,
			async ({ caller, params, query, set }) => {
				const page = await teams.members(caller, params.slug, query)
				if (page.next !== undefined)
					set.headers.link = `<${apiPath(ROUTES.members, params)}?${new URLSearchParams({ limit: String(query.limit), after: page.next })}>; rel="next"`
				return page.members
			},
			{
				auth: true,
				params: SlugParams,
				query: MembersQuery,
				response: z.array(TeamMember),
				detail: {
					summary: "A team's members by joining time, in pages (members only)",
					description: 'Pages of `limit` (default 100) with `Link: <…>; rel="next"` while more remain.'
				}
			}
		)
		.patch(ROUTES.team, ({ actor, params, body }) => teams.update(actor, params.slug, body), {
			...jsonBody,
			actor: true,
			params: SlugParams,
			body: PatchTeamBody,
			response: TeamCreated,
			detail: {
				summary: 'Rename a team or change its slug (owner or admin)',
				description: 'Only the fields given change: a new name keeps the slug.'
			}
		})
		.delete(
			ROUTES.team,
			async ({ actor, params, status }) => {
				await teams.remove(actor, params.slug)
				return status(204)
			},
			{
				actor: true,
				params: SlugParams,
				detail: { summary: 'Delete a team (owner); it is purged for good after 30 days' }
			}
		)
		.post(ROUTES.restoreTeam, ({ actor, params }) => teams.restore(actor, params.slug), {
			actor: true,
			params: SlugParams,
			response: TeamCreated,
			detail: {
				summary: 'Restore a deleted team (owner), until it is purged',
				description:
					'Brings the team back with its members, invitations and configs as they were, up to 30 days after its deletion. Anyone but its owners: 404; 409 when its slug was taken meanwhile.'
			}
		})
		.post(
			ROUTES.members,
			async ({ actor, params, body, status }) => status(201, await teams.invite(actor, params.slug, body)),
			{
				...jsonBody,
				actor: true,
				params: SlugParams,
				body: AddMemberBody,
				response: { 201: Invitation },
				detail: {
					summary: 'Invite someone (owner: admins and members; admin: members)',
					description:
						'Nobody joins without accepting: this sends an invitation that expires after 7 days. Unknown user 404; already a member or invited 409.'
				}
			}
		)
		.patch(ROUTES.member, ({ actor, params, body }) => teams.setRole(actor, params.slug, params.userId, body.role), {
			...jsonBody,
			actor: true,
			params: MemberParams,
			body: SetRoleBody,
			response: RoleChanged,
			detail: {
				summary: "Change a member's role, or a pending invitation's (owner); the last owner cannot be demoted"
			}
		})
		.delete(
			ROUTES.member,
			async ({ actor, params, status }) => {
				await teams.removeMember(actor, params.slug, params.userId)
				return status(204)
			},
			{
				actor: true,
				params: MemberParams,
				detail: {
					summary: 'Remove a member, leave, or cancel an invitation (owner: anyone; admin: members; anyone: themselves)'
				}
			}
		)

/** docs/api.md: the caller's own invitations, to accept or decline. */
export const invitationsRoutes = (teams: TeamsService, gate: AuthPlugin) =>
	new Elysia({ tags: ['teams'] })
		.use(gate)
		.get(ROUTES.invitations, ({ caller }) => teams.invitations(caller), {
			auth: true,
			response: z.array(Invitation),
			detail: { summary: 'Your pending team invitations, newest first' }
		})
		.post(ROUTES.acceptInvitation, ({ actor, params }) => teams.accept(actor, params.teamSlug), {
			actor: true,
			params: InvitationParams,
			response: TeamMember,
			detail: { summary: 'Accept an invitation: you join with the invited role' }
		})
		.delete(
			ROUTES.invitation,
			async ({ actor, params, status }) => {
				await teams.decline(actor, params.teamSlug)
				return status(204)
			},
			{ actor: true, params: InvitationParams, detail: { summary: 'Decline an invitation' } }
		)
