import { toIso, type Clock } from '../../lib/clock'
import type { Role } from '../../lib/constants'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import { slugify } from '../../lib/slug'
import type { Caller, MemberRow, Store, TeamRow } from '../../store/types'
import { planOf } from '../users/plan'
import type { AddMemberBody, PatchTeamBody, TeamMember } from './model'

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 }

const noTeam = () => new AppError('not_found', 'No such team.')
const memberView = ({ teamId: _, ...member }: MemberRow): TeamMember => member

/**
 * Teams and their members (SPEC, CONTRACT §3 and §4). Non-members get 404 for
 * everything about a team; a soft-deleted team is gone for everyone at once.
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

	return {
		/** Team plan only; the creator becomes the owner; 409 when the generated slug is taken. */
		async create(caller: Caller, name: string) {
			const slug = slugify(name)
			if (slug === '') {
				throw new AppError('invalid_request', 'The name needs at least one letter or digit (a-z, 0-9) to make a slug.', {
					details: [{ path: 'name', message: 'Yields an empty slug.' }]
				})
			}
			if ((await planOf(store, caller)) !== 'team') throw new AppError('plan_required', 'Creating teams needs the Team plan.')
			const at = toIso(clock.now())
			const team: TeamRow = { id: newId(), name, slug, createdAt: at, deletedAt: null }
			if (!(await store.teams.create(team, { membershipId: newId(), userId: caller.userId, joinedAt: at }))) {
				throw new AppError('conflict', `The slug "${slug}" is already taken; choose another name.`)
			}
			return { id: team.id, name: team.name, slug: team.slug }
		},

		async list(caller: Caller) {
			const teams = await store.teams.listForUser(caller.userId)
			return teams.map(({ id, name, slug, role, createdAt }) => ({ id, name, slug, role, createdAt }))
		},

		async get(caller: Caller, slug: string) {
			const { team, role } = await membership(caller, slug)
			const members = await store.teams.members(team.id)
			return { id: team.id, name: team.name, slug: team.slug, createdAt: team.createdAt, userRole: role, members: members.map(memberView) }
		},

		/** Admin or owner; changes only the fields given (a new name keeps the slug). */
		async update(caller: Caller, slug: string, changes: PatchTeamBody) {
			const { team, role } = await membership(caller, slug)
			requireRole(role, 'admin', 'change the team')
			const updated = await store.teams.update(team.id, changes)
			if (updated === 'conflict') throw new AppError('conflict', `The slug "${changes.slug}" is already taken.`)
			if (!updated) throw noTeam()
			return { id: updated.id, name: updated.name, slug: updated.slug }
		},

		/** Owner only; the team and its configs vanish at once and are purged after 30 days. */
		async remove(caller: Caller, slug: string) {
			const { team, role } = await membership(caller, slug)
			requireRole(role, 'owner', 'delete the team')
			if (!(await store.teams.softDelete(team.id, toIso(clock.now())))) throw noTeam()
		},

		/** Owner adds admins and members; admin adds members. */
		async addMember(caller: Caller, slug: string, body: AddMemberBody) {
			const { team, role } = await membership(caller, slug)
			requireRole(role, body.role === 'admin' ? 'owner' : 'admin', `add ${body.role}s`)
			const user = await store.users.findByLogin(body.login)
			if (!user) throw new AppError('not_found', `No user with email or username "${body.login}".`)
			const added = await store.teams.addMember({ id: newId(), teamId: team.id, userId: user.id, role: body.role, joinedAt: toIso(clock.now()) })
			if (added === 'conflict') throw new AppError('conflict', `${user.username} is already a member of this team.`)
			return memberView(added)
		},

		/** Owner only; a team always keeps at least one owner. */
		async setRole(caller: Caller, slug: string, userId: string, newRole: Role) {
			const { team, role } = await membership(caller, slug)
			requireRole(role, 'owner', 'change roles')
			const result = await store.teams.setRole(team.id, userId, newRole)
			if (result === 'last_owner') throw new AppError('conflict', 'This is the last owner: make someone else an owner first.')
			if (!result) throw new AppError('not_found', 'That user is not a member of this team.')
			return memberView(result)
		},

		/** Owner removes anyone, admin removes members, anyone removes themselves; never the last owner. */
		async removeMember(caller: Caller, slug: string, userId: string) {
			const { team, role } = await membership(caller, slug)
			if (userId !== caller.userId) {
				requireRole(role, 'admin', 'remove members')
				if (role === 'admin') {
					const target = await store.teams.roleIn(team.id, userId)
					if (target === undefined) throw new AppError('not_found', 'That user is not a member of this team.')
					if (target !== 'member') throw new AppError('forbidden', 'Only a team owner can remove admins and owners.')
				}
			}
			const result = await store.teams.removeMember(team.id, userId)
			if (result === 'last_owner') throw new AppError('conflict', 'The last owner cannot leave: make someone else an owner first, or delete the team.')
			if (!result) throw new AppError('not_found', 'That user is not a member of this team.')
		}
	}
}

export type TeamsService = ReturnType<typeof createTeamsService>
