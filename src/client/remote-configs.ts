import type { Tool } from '../shared/constants'
import type { Session } from './context'
import { type Target, targetOf } from './run'
import { allStates, type SyncState } from './state'

/**
 * The configs the server holds for this account (its own and its teams')
 * that this machine does not sync yet: what a new machine is offered by
 * `status` and `sync` (docs/client.md), and what `sync --all-remote` takes on.
 */
export interface RemoteConfig {
	target: Target
	version: number
	updatedAt: string
}

export async function unsyncedConfigs(s: Session, tools?: readonly Tool[]): Promise<RemoteConfig[]> {
	const username = await s.username()
	const synced = new Set(allStates(s.server, username).map((state) => targetOf(s, state).key))
	const teams = await s.run((api) => api.teams.list())
	const scopes: { id?: string; slug?: string }[] = [{}, ...teams.map((team) => ({ id: team.id, slug: team.slug }))]
	const found: RemoteConfig[] = []
	for (const scope of scopes) {
		const configs = await s.run((api) => api.configs.list({ teamId: scope.id }))
		for (const c of configs) {
			if (tools && tools.length > 0 && !tools.includes(c.tool)) continue
			// A target is made from what a state would hold: the config's identity, nothing synced yet.
			const target = targetOf(s, {
				username,
				tool: c.tool,
				name: c.name,
				teamId: scope.id,
				team: scope.slug
			} as SyncState)
			if (!synced.has(target.key)) found.push({ target, version: c.version, updatedAt: c.updatedAt })
		}
	}
	return found
}
