import { Elysia } from 'elysia'
import { z } from 'zod'
import type { AuthPlugin } from '../../plugins/auth'
import { jsonBody } from '../../plugins/json-body'
import {
	AddMemberBody,
	CreateTeamBody,
	MemberParams,
	PatchTeamBody,
	SetRoleBody,
	SlugParams,
	TeamCreated,
	TeamDetail,
	TeamListItem,
	TeamMember
} from './model'
import type { TeamsService } from './service'

export const teamsRoutes = (teams: TeamsService, gate: AuthPlugin) =>
	new Elysia({ prefix: '/api/teams', tags: ['teams'] })
		.use(gate)
		.get('', ({ caller }) => teams.list(caller), {
			auth: true,
			response: z.array(TeamListItem),
			detail: { summary: 'Your teams, with your role in each' }
		})
		.post('', async ({ caller, body, status }) => status(201, await teams.create(caller, body.name)), {
			...jsonBody,
			auth: true,
			body: CreateTeamBody,
			response: { 201: TeamCreated },
			detail: { summary: 'Create a team (Team plan); you become its owner', description: 'The slug is made from the name; 409 when it is taken, also by a deleted team.' }
		})
		.get('/:slug', ({ caller, params }) => teams.get(caller, params.slug), {
			auth: true,
			params: SlugParams,
			response: TeamDetail,
			detail: { summary: 'A team with its members (members only)' }
		})
		.patch('/:slug', ({ caller, params, body }) => teams.update(caller, params.slug, body), {
			...jsonBody,
			auth: true,
			params: SlugParams,
			body: PatchTeamBody,
			response: TeamCreated,
			detail: { summary: 'Rename a team or change its slug (owner or admin)', description: 'Only the fields given change: a new name keeps the slug.' }
		})
		.delete(
			'/:slug',
			async ({ caller, params, status }) => {
				await teams.remove(caller, params.slug)
				return status(204)
			},
			{ auth: true, params: SlugParams, detail: { summary: 'Delete a team (owner); it is purged for good after 30 days' } }
		)
		.post('/:slug/members', async ({ caller, params, body, status }) => status(201, await teams.addMember(caller, params.slug, body)), {
			...jsonBody,
			auth: true,
			params: SlugParams,
			body: AddMemberBody,
			response: { 201: TeamMember },
			detail: { summary: 'Add a member (owner: admins and members; admin: members)' }
		})
		.patch('/:slug/members/:userId', ({ caller, params, body }) => teams.setRole(caller, params.slug, params.userId, body.role), {
			...jsonBody,
			auth: true,
			params: MemberParams,
			body: SetRoleBody,
			response: TeamMember,
			detail: { summary: "Change a member's role (owner); the last owner cannot be demoted" }
		})
		.delete(
			'/:slug/members/:userId',
			async ({ caller, params, status }) => {
				await teams.removeMember(caller, params.slug, params.userId)
				return status(204)
			},
			{
				auth: true,
				params: MemberParams,
				detail: { summary: 'Remove a member, or leave (owner: anyone; admin: members; anyone: themselves)' }
			}
		)
