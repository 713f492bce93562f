import { HISTORY_PLANS, type Role } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import type { Caller, ConfigRow, Owner, Store } from '../../store/types'
import { planOf } from '../users/plan'

/** What a caller wants to do with configs; docs/api.md decides per action. */
export type ConfigAction = 'read' | 'write' | 'history' | 'rollback'

/** docs/api.md, team column: the least role each action needs. */
const TEAM_ROLE_NEEDED: Record<ConfigAction, Role> = {
	read: 'member',
	write: 'admin',
	history: 'member',
	rollback: 'admin'
}
const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 }
const NEEDS_HISTORY_PLAN: Record<ConfigAction, boolean> = { read: false, write: false, history: true, rollback: true }

const notFound = () => new AppError('not_found', 'No such config.')

/**
 * The one place that decides who may do what with configs (docs/api.md), in
 * docs/api.md's order: not visible → 404, plan → 403 plan_required, role →
 * 403 forbidden. A personal config is visible to its owner only; a team
 * config to the members of a live team, each action needing a role.
 */
export function createConfigPolicy(store: Store) {
	/** Why the caller may not do `action` here, or undefined when they may. */
	async function refusal(
		caller: Caller,
		teamId: string | null,
		action: ConfigAction,
		ownerId?: string
	): Promise<AppError | undefined> {
		let role: Role | undefined
		if (teamId === null) {
			if (ownerId !== undefined && ownerId !== caller.userId) return notFound()
		} else {
			role = await store.teams.roleIn(teamId, caller.userId)
			if (role === undefined) return notFound()
		}
		if (NEEDS_HISTORY_PLAN[action] && !HISTORY_PLANS.includes(await planOf(store, caller))) {
			return new AppError(
				'plan_required',
				"Version history and rollback need the Pro or Team plan: ask the server's admin to change your plan.",
				{ extra: { plan: 'pro' } }
			)
		}
		if (role !== undefined && RANK[role] < RANK[TEAM_ROLE_NEEDED[action]]) {
			return new AppError('forbidden', `This needs the ${TEAM_ROLE_NEEDED[action]} role or higher in the team.`)
		}
		return undefined
	}

	async function check(caller: Caller, teamId: string | null, action: ConfigAction, ownerId?: string): Promise<void> {
		const refused = await refusal(caller, teamId, action, ownerId)
		if (refused) throw refused
	}

	return {
		/** Where configs named by an optional teamId live, if the caller may do `action` there. */
		async scope(caller: Caller, teamId: string | null | undefined, action: ConfigAction): Promise<Owner> {
			if (teamId === null || teamId === undefined) return { userId: caller.userId, teamId: null }
			await check(caller, teamId, action)
			return { userId: caller.userId, teamId }
		},

		/** Throws unless the caller may do `action` on this existing config. */
		authorize: (caller: Caller, config: Pick<ConfigRow, 'userId' | 'teamId'>, action: ConfigAction): Promise<void> =>
			check(caller, config.teamId, action, config.userId),

		/** Whether the caller may do `action` on this config: the same rules as `authorize`, as a yes or no (what a page offers). */
		can: async (caller: Caller, config: Pick<ConfigRow, 'userId' | 'teamId'>, action: ConfigAction): Promise<boolean> =>
			(await refusal(caller, config.teamId, action, config.userId)) === undefined
	}
}

export type ConfigPolicy = ReturnType<typeof createConfigPolicy>
