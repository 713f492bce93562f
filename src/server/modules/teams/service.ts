import { toIso, type Clock } from '../../lib/clock'
import { INVITATION_TTL_MS, SLUG_RESERVATION_MS, TEAM_RETENTION_MS, type Role } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { slugify } from '../../../shared/slug'
import type { Caller, InvitationRow, MemberRow, Store, TeamRow } from '../../store/types'
import { createAuditEvents, type Actor } from '../audit/event'
import { createsTeams, planOf } from '../users/plan'
import {
	type AddMemberBody,
	type Invitation,
	MEMBERS_IN_DETAIL,
	type MembersQuery,
	type PatchTeamBody,
	type TeamMember
} from '../../../shared/api/teams'

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 }

const noTeam = () => new AppError('not_found', 'No such team.')
const noMember = () => new AppError('not_found', 'That user is neither a member of this team nor invited to it.')
const memberView = ({ teamId: _, ...member }: MemberRow): TeamMember => member
const invitationView = ({ teamId: _, ...invitation }: InvitationRow): Invitation => ({
	...invitation,
	status: 'invited'
})

/**
 * Teams, their members and invitations (docs/api.md). Non-members
 * get 404 for everything about a team, invitees included until they accept; a
 * soft-deleted team is gone for everyone at once.
 */
export function createTeamsService({ store, clock }: { store: Store; clock: Clock }) {
	/** The live team with the caller's role, or 404. */
	async function membership(caller: Caller, slug: string): Promise<{ team: TeamRow; role: Role }> {
		const found = await store.teams.findForMember(slug, caller.userId)
		if (!found) throw noTeam()
		return found
	}

	function requireRole(role: Role, least: Role, action: string) {
		if (RANK[role] < RANK[least])
			throw new AppError('forbidden', `Only a team ${least}${least === 'owner' ? '' : ' or owner'} can ${action}.`)
	}

	const now = () => clock.now()
	const event = createAuditEvents(clock)
	const inTeam = (team: Pick<TeamRow, 'id' | 'slug'>) => ({
		teamId: team.id,
		target: { type: 'team' as const, id: team.id, name: team.slug }
	})
	const invitee = (team: Pick<TeamRow, 'id'>, user: { id?: string; userId?: string; username: string }) => {
		const id = user.userId ?? user.id ?? null
		return { teamId: team.id, subjectUserId: id, target: { type: 'invitation' as const, id, name: user.username } }
	}
	/** Reservations of slugs given up after this moment still hold (docs/api.md: 30 days). */
	const reservedSince = (at: number) => toIso(at - SLUG_RESERVATION_MS)
	/** Teams deleted after this moment are not yet due for the purge, so their owners may restore them. */
	const restorableSince = (at: number) => toIso(at - TEAM_RETENTION_MS)
	/** When a team deleted at `deletedAt` is due for the purge (docs/api.md: 30 days). */
	const purgeAtOf = (deletedAt: string) => toIso(Date.parse(deletedAt) + TEAM_RETENTION_MS)

	/**
	 * Why a slug cannot be had. A deleted team's own members learn that it holds the slug until its purge, and
	 * whether they may restore it; anyone else only that it is taken, as for a live team they are not in.
	 */
	async function slugTaken(caller: Caller, slug: string, change: 'name' | 'slug'): Promise<AppError> {
		const held = await store.teams.deletedHolder(slug, caller.userId)
		if (held?.role !== undefined) {
			const until = purgeAtOf(held.team.deletedAt)
			const who =
				held.role === 'owner'
					? `you can restore it from your Teams page (or cfgsync team restore ${slug})`
					: 'its owners can restore it'
			return new AppError(
				'conflict',
				`The slug "${slug}" is held by your deleted team ${held.team.name} until ${until.slice(0, 10)}, when it is purged; ${who}, or choose another ${change}.`
			)
		}
		return new AppError('conflict', `The slug "${slug}" is already taken; choose another ${change}.`)
	}

	return {
		/** Team plan only; the creator becomes the owner; 409 when the generated slug is taken or reserved. */
		async create(actor: Actor, name: string, chosenSlug?: string) {
			const slug = chosenSlug ?? slugify(name)
			if (slug === '') {
				throw new AppError(
					'invalid_request',
					'The name needs at least one letter or digit (a-z, 0-9) to make a slug.',
					{
						details: [{ path: 'name', message: 'Yields an empty slug.' }]
					}
				)
			}
			if (!createsTeams(await planOf(store, actor)))
				throw new AppError('plan_required', 'Creating teams needs the Team plan.', { extra: { plan: 'team' } })
			const at = now()
			const team: TeamRow = { id: newId(), name, slug, createdAt: toIso(at), deletedAt: null }
			const created = await store.teams.create(
				team,
				{ membershipId: newId(), userId: actor.userId, joinedAt: team.createdAt },
				reservedSince(at),
				event('team.created', actor, { ...inTeam(team), details: { name } })
			)
			if (!created) throw await slugTaken(actor, slug, chosenSlug === undefined ? 'name' : 'slug')
			return { id: team.id, name: team.name, slug: team.slug }
		},

		async list(caller: Caller) {
			const teams = await store.teams.listForUser(caller.userId)
			return teams.map(({ id, name, slug, role, createdAt }) => ({ id, name, slug, role, createdAt }))
		},

		/** Members for every member; pending invitations for owners and admins too. */
		async get(caller: Caller, slug: string) {
			const { team, role } = await membership(caller, slug)
			// docs/api.md's `members` array: the first 100 (docs/performance.md); GET …/members pages through them all.
			const members = await store.teams.members(team.id, { limit: MEMBERS_IN_DETAIL })
			const detail = {
				id: team.id,
				name: team.name,
				slug: team.slug,
				createdAt: team.createdAt,
				userRole: role,
				members: members.map(memberView)
			}
			if (RANK[role] < RANK.admin) return detail
			const invitations = await store.teams.invitationsForTeam(team.id, toIso(now()))
			return { ...detail, invitations: invitations.map(invitationView) }
		},

		/** A page of the team's members by joining time (members only), with the next page's cursor when more remain. */
		async members(caller: Caller, slug: string, page: MembersQuery) {
			const { team } = await membership(caller, slug)
			const [joinedAt = '', id = ''] = page.after?.split('_') ?? []
			const found = await store.teams.members(team.id, {
				after: page.after ? { joinedAt, id } : undefined,
				limit: page.limit + 1
			})
			const shown = found.slice(0, page.limit)
			const last = shown.at(-1)
			return {
				members: shown.map(memberView),
				next: found.length > page.limit && last ? `${last.joinedAt}_${last.id}` : undefined
			}
		},

		/** The ids of at most two owners: enough to tell whether one of them is the only one. */
		async ownerIds(caller: Caller, slug: string) {
			const { team } = await membership(caller, slug)
			return (await store.teams.members(team.id, { limit: 2, role: 'owner' })).map((owner) => owner.userId)
		},

		/** One member of the team, wherever they are in its pages; undefined when they are not in it. */
		async member(caller: Caller, slug: string, userId: string) {
			const { team } = await membership(caller, slug)
			const [found] = await store.teams.members(team.id, { limit: 1, userId })
			return found && memberView(found)
		},

		/** Admin or owner; changes only the fields given (a new name keeps the slug); the old slug stays reserved. */
		async update(actor: Actor, slug: string, changes: PatchTeamBody) {
			const { team, role } = await membership(actor, slug)
			requireRole(role, 'admin', 'change the team')
			const at = now()
			const updated = await store.teams.update(
				team.id,
				changes,
				toIso(at),
				reservedSince(at),
				event('team.renamed', actor, inTeam(team))
			)
			if (updated === 'conflict')
				throw new AppError(
					'conflict',
					`The slug "${changes.slug}" is already taken, or reserved for 30 days after a rename.`
				)
			if (!updated) throw noTeam()
			return { id: updated.id, name: updated.name, slug: updated.slug }
		},

		/** Owner only; the team and its configs vanish at once and are purged after 30 days. */
		async remove(actor: Actor, slug: string) {
			const { team, role } = await membership(actor, slug)
			requireRole(role, 'owner', 'delete the team')
			if (!(await store.teams.softDelete(team.id, toIso(now()), event('team.deleted', actor, inTeam(team)))))
				throw noTeam()
		},

		/** The caller's deleted teams they own and may still restore, with when each is purged; the latest deletion first. */
		async deleted(caller: Caller) {
			const teams = await store.teams.deletedOwnedBy(caller.userId, restorableSince(now()))
			return teams.map(({ id, name, slug, deletedAt }) => ({
				id,
				name,
				slug,
				deletedAt,
				purgeAt: purgeAtOf(deletedAt)
			}))
		},

		/**
		 * Owner only: brings a deleted team back, before its purge, with its members, invitations and configs
		 * as they were. 404 for anyone else (a deleted team is gone for them); 409 when its slug was taken meanwhile.
		 */
		async restore(actor: Actor, slug: string) {
			const held = await store.teams.deletedHolder(slug, actor.userId)
			if (held?.role !== 'owner') throw new AppError('not_found', `You have no deleted team "${slug}" to restore.`)
			const at = now()
			const restored = await store.teams.restore(
				held.team.id,
				restorableSince(at),
				reservedSince(at),
				event('team.restored', actor, inTeam(held.team))
			)
			if (restored === 'conflict')
				throw new AppError(
					'conflict',
					`The slug "${slug}" was taken by another team meanwhile; ask its admins, or the server's admin.`
				)
			if (!restored) throw new AppError('not_found', `You have no deleted team "${slug}" to restore: it was purged.`)
			return { id: restored.id, name: restored.name, slug: restored.slug }
		},

		/** docs/api.md: owner invites admins and members, admin invites members; nobody joins without accepting. */
		async invite(actor: Actor, slug: string, body: AddMemberBody): Promise<Invitation> {
			const { team, role } = await membership(actor, slug)
			requireRole(role, body.role === 'admin' ? 'owner' : 'admin', `invite ${body.role}s`)
			const user = await store.users.findByLogin(body.login)
			if (!user) throw new AppError('not_found', `No user with email or username "${body.login}".`)
			const at = now()
			const result = await store.teams.invite(
				{
					id: newId(),
					teamId: team.id,
					userId: user.id,
					role: body.role,
					invitedBy: actor.userId,
					createdAt: toIso(at),
					expiresAt: toIso(at + INVITATION_TTL_MS)
				},
				toIso(at),
				event('invitation.sent', actor, { ...invitee(team, user), details: { role: body.role } })
			)
			if (result === 'member') throw new AppError('conflict', `${user.username} is already a member of this team.`)
			if (result === 'invited') throw new AppError('conflict', `${user.username} is already invited to this team.`)
			return invitationView(result)
		},

		/** The caller's pending invitations, newest first. */
		async invitations(caller: Caller): Promise<Invitation[]> {
			return (await store.teams.invitationsForUser(caller.userId, toIso(now()))).map(invitationView)
		},

		/** The caller joins with the invited role; 404 without a pending invitation. */
		async accept(actor: Actor, slug: string): Promise<TeamMember> {
			const at = toIso(now())
			const joined = await store.teams.acceptInvitation(
				slug,
				actor.userId,
				at,
				{ id: newId(), joinedAt: at },
				event('invitation.accepted', actor)
			)
			if (!joined) throw new AppError('not_found', `You have no pending invitation to "${slug}".`)
			return memberView(joined)
		},

		async decline(actor: Actor, slug: string): Promise<void> {
			if (
				!(await store.teams.declineInvitation(slug, actor.userId, toIso(now()), event('invitation.declined', actor)))
			) {
				throw new AppError('not_found', `You have no pending invitation to "${slug}".`)
			}
		},

		/**
		 * Owner only. For a member: a team always keeps at least one owner. For an
		 * invitee: changes the invitation's role (admin or member).
		 */
		async setRole(actor: Actor, slug: string, userId: string, newRole: Role): Promise<TeamMember | Invitation> {
			const { team, role } = await membership(actor, slug)
			requireRole(role, 'owner', 'change roles')
			const result = await store.teams.setRole(
				team.id,
				userId,
				newRole,
				event('member.role_changed', actor, { teamId: team.id, subjectUserId: userId })
			)
			if (result === 'last_owner')
				throw new AppError('conflict', 'This is the last owner: make someone else an owner first.')
			if (result) return memberView(result)
			const invitation = await store.teams.findInvitation(team.id, userId, toIso(now()))
			if (!invitation) throw noMember()
			if (newRole === 'owner') {
				throw new AppError(
					'invalid_request',
					'An invitation is for an admin or a member; make them owner once they have joined.',
					{
						details: [{ path: 'role', message: 'Must be admin or member for an invitation.' }]
					}
				)
			}
			const updated = await store.teams.setInvitationRole(
				team.id,
				userId,
				newRole,
				toIso(now()),
				event('invitation.changed', actor, {
					...invitee(team, invitation),
					details: { from: invitation.role, to: newRole }
				})
			)
			if (!updated) throw noMember()
			return invitationView(updated)
		},

		/**
		 * Members: owner removes anyone, admin removes members, anyone removes
		 * themselves; never the last owner. Invitations: the owner cancels any, an
		 * admin cancels invitations of members.
		 */
		async removeMember(actor: Actor, slug: string, userId: string) {
			const { team, role } = await membership(actor, slug)
			const target = userId === actor.userId ? role : await store.teams.roleIn(team.id, userId)
			if (target === undefined) {
				requireRole(role, 'admin', 'cancel invitations')
				const invitation = await store.teams.findInvitation(team.id, userId, toIso(now()))
				if (!invitation) throw noMember()
				if (role === 'admin' && invitation.role !== 'member')
					throw new AppError('forbidden', 'Only a team owner can cancel invitations of admins.')
				await store.teams.cancelInvitation(
					team.id,
					userId,
					event('invitation.cancelled', actor, { ...invitee(team, invitation), details: { role: invitation.role } })
				)
				return
			}
			if (userId !== actor.userId) {
				requireRole(role, 'admin', 'remove members')
				if (role === 'admin' && target !== 'member')
					throw new AppError('forbidden', 'Only a team owner can remove admins and owners.')
			}
			const leaving = userId === actor.userId
			const result = await store.teams.removeMember(
				team.id,
				userId,
				event(leaving ? 'member.left' : 'member.removed', actor, { teamId: team.id, subjectUserId: userId })
			)
			if (result === 'last_owner')
				throw new AppError(
					'conflict',
					'The last owner cannot leave: make someone else an owner first, or delete the team.'
				)
			if (!result) throw noMember()
		}
	}
}

export type TeamsService = ReturnType<typeof createTeamsService>
