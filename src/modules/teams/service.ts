import { toIso, type Clock } from '../../lib/clock'
import { INVITATION_TTL_MS, SLUG_RESERVATION_MS, type Role } from '../../lib/constants'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { slugify } from '../../lib/slug'
import type { Caller, InvitationRow, MemberRow, Store, TeamRow } from '../../store/types'
import { planOf } from '../users/plan'
import type { AddMemberBody, Invitation, PatchTeamBody, TeamMember } from './model'

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 }

const noTeam = () => new AppError('not_found', 'No such team.')
const noMember = () => new AppError('not_found', 'That user is neither a member of this team nor invited to it.')
const memberView = ({ teamId: _, ...member }: MemberRow): TeamMember => member
const invitationView = ({ teamId: _, ...invitation }: InvitationRow): Invitation => ({ ...invitation, status: 'invited' })

/**
 * Teams, their members and invitations (SPEC, CONTRACT §3 and §4). Non-members
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
		if (RANK[role] < RANK[least]) throw new AppError('forbidden', `Only a team ${least}${least === 'owner' ? '' : ' or owner'} can ${action}.`)
	}

	const now = () => clock.now()
	/** Reservations of slugs given up after this moment still hold (CONTRACT §3: 30 days). */
	const reservedSince = (at: number) => toIso(at - SLUG_RESERVATION_MS)

	return {
		/** Team plan only; the creator becomes the owner; 409 when the generated slug is taken or reserved. */
		async create(caller: Caller, name: string) {
			const slug = slugify(name)
			if (slug === '') {
				throw new AppError('invalid_request', 'The name needs at least one letter or digit (a-z, 0-9) to make a slug.', {
					details: [{ path: 'name', message: 'Yields an empty slug.' }]
				})
			}
			if ((await planOf(store, caller)) !== 'team') throw new AppError('plan_required', 'Creating teams needs the Team plan.')
			const at = now()
			const team: TeamRow = { id: newId(), name, slug, createdAt: toIso(at), deletedAt: null }
			if (!(await store.teams.create(team, { membershipId: newId(), userId: caller.userId, joinedAt: team.createdAt }, reservedSince(at)))) {
				throw new AppError('conflict', `The slug "${slug}" is already taken; choose another name.`)
			}
			return { id: team.id, name: team.name, slug: team.slug }
		},

		async list(caller: Caller) {
			const teams = await store.teams.listForUser(caller.userId)
			return teams.map(({ id, name, slug, role, createdAt }) => ({ id, name, slug, role, createdAt }))
		},

		/** Members for every member; pending invitations for owners and admins too. */
		async get(caller: Caller, slug: string) {
			const { team, role } = await membership(caller, slug)
			const members = await store.teams.members(team.id)
			const detail = { id: team.id, name: team.name, slug: team.slug, createdAt: team.createdAt, userRole: role, members: members.map(memberView) }
			if (RANK[role] < RANK.admin) return detail
			const invitations = await store.teams.invitationsForTeam(team.id, toIso(now()))
			return { ...detail, invitations: invitations.map(invitationView) }
		},

		/** Admin or owner; changes only the fields given (a new name keeps the slug); the old slug stays reserved. */
		async update(caller: Caller, slug: string, changes: PatchTeamBody) {
			const { team, role } = await membership(caller, slug)
			requireRole(role, 'admin', 'change the team')
			const at = now()
			const updated = await store.teams.update(team.id, changes, toIso(at), reservedSince(at))
			if (updated === 'conflict') throw new AppError('conflict', `The slug "${changes.slug}" is already taken, or reserved for 30 days after a rename.`)
			if (!updated) throw noTeam()
			return { id: updated.id, name: updated.name, slug: updated.slug }
		},

		/** Owner only; the team and its configs vanish at once and are purged after 30 days. */
		async remove(caller: Caller, slug: string) {
			const { team, role } = await membership(caller, slug)
			requireRole(role, 'owner', 'delete the team')
			if (!(await store.teams.softDelete(team.id, toIso(now())))) throw noTeam()
		},

		/** CONTRACT §3: owner invites admins and members, admin invites members; nobody joins without accepting. */
		async invite(caller: Caller, slug: string, body: AddMemberBody): Promise<Invitation> {
			const { team, role } = await membership(caller, slug)
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
					invitedBy: caller.userId,
					createdAt: toIso(at),
					expiresAt: toIso(at + INVITATION_TTL_MS)
				},
				toIso(at)
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
		async accept(caller: Caller, slug: string): Promise<TeamMember> {
			const at = toIso(now())
			const joined = await store.teams.acceptInvitation(slug, caller.userId, at, { id: newId(), joinedAt: at })
			if (!joined) throw new AppError('not_found', `You have no pending invitation to "${slug}".`)
			return memberView(joined)
		},

		async decline(caller: Caller, slug: string): Promise<void> {
			if (!(await store.teams.declineInvitation(slug, caller.userId, toIso(now())))) {
				throw new AppError('not_found', `You have no pending invitation to "${slug}".`)
			}
		},

		/**
		 * Owner only. For a member: a team always keeps at least one owner. For an
		 * invitee: changes the invitation's role (admin or member).
		 */
		async setRole(caller: Caller, slug: string, userId: string, newRole: Role): Promise<TeamMember | Invitation> {
			const { team, role } = await membership(caller, slug)
			requireRole(role, 'owner', 'change roles')
			const result = await store.teams.setRole(team.id, userId, newRole)
			if (result === 'last_owner') throw new AppError('conflict', 'This is the last owner: make someone else an owner first.')
			if (result) return memberView(result)
			if (!(await store.teams.findInvitation(team.id, userId, toIso(now())))) throw noMember()
			if (newRole === 'owner') {
				throw new AppError('invalid_request', 'An invitation is for an admin or a member; make them owner once they have joined.', {
					details: [{ path: 'role', message: 'Must be admin or member for an invitation.' }]
				})
			}
			const updated = await store.teams.setInvitationRole(team.id, userId, newRole, toIso(now()))
			if (!updated) throw noMember()
			return invitationView(updated)
		},

		/**
		 * Members: owner removes anyone, admin removes members, anyone removes
		 * themselves; never the last owner. Invitations: the owner cancels any, an
		 * admin cancels invitations of members.
		 */
		async removeMember(caller: Caller, slug: string, userId: string) {
			const { team, role } = await membership(caller, slug)
			const target = userId === caller.userId ? role : await store.teams.roleIn(team.id, userId)
			if (target === undefined) {
				requireRole(role, 'admin', 'cancel invitations')
				const invitation = await store.teams.findInvitation(team.id, userId, toIso(now()))
				if (!invitation) throw noMember()
				if (role === 'admin' && invitation.role !== 'member') throw new AppError('forbidden', 'Only a team owner can cancel invitations of admins.')
				await store.teams.cancelInvitation(team.id, userId)
				return
			}
			if (userId !== caller.userId) {
				requireRole(role, 'admin', 'remove members')
				if (role === 'admin' && target !== 'member') throw new AppError('forbidden', 'Only a team owner can remove admins and owners.')
			}
			const result = await store.teams.removeMember(team.id, userId)
			if (result === 'last_owner') throw new AppError('conflict', 'The last owner cannot leave: make someone else an owner first, or delete the team.')
			if (!result) throw noMember()
		}
	}
}

export type TeamsService = ReturnType<typeof createTeamsService>
