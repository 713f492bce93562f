import type { Plan } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import type { Caller, Store } from '../../store/types'

/**
 * The caller's plan, read where a plan decides (history, rollback, teams)
 * rather than by the key lookup every request makes. A user removed since the
 * key was checked has no plan: their key is gone too, so 401.
 */
export async function planOf(store: Store, caller: Caller): Promise<Plan> {
	const user = await store.users.findById(caller.userId)
	if (!user) throw new AppError('unauthorized', 'This API key is unknown or has been revoked.')
	return user.plan
}

/** Creating teams needs the Team plan (docs/api.md). The Teams page asks this too, to offer the form or not. */
export const createsTeams = (plan: Plan): boolean => plan === 'team'
