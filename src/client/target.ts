import { DEFAULT_CONFIG_NAME, type Tool } from '../shared/constants'
import { type Session, teamId } from './context'
import { stateKey, type SyncState } from './state'

/** Which config a command names, and how messages and the server name it (docs/client.md). */

/** One config on the server, as the commands name it. */
export interface Target {
	tool: Tool
	name: string
	teamId?: string
	team?: string
	key: string
	label: string
	/** The options that name this config on a command line: ` --name rules --team platform`. */
	args: string
	/** How the server finds it: GET /api/configs/latest's query. */
	latest: { name: string; tool: Tool; teamId?: string }
}

function target(s: Session, username: string, tool: Tool, name: string, id?: string, team?: string): Target {
	const args = `${name === DEFAULT_CONFIG_NAME ? '' : ` --name ${name}`}${team ? ` --team ${team}` : id ? ` --team ${id}` : ''}`
	return {
		tool,
		name,
		teamId: id,
		team,
		key: stateKey({ server: s.server, username, teamId: id, tool, name }),
		label: `${tool}/${name}${team ? ` of team ${team}` : id ? ` of team ${id}` : ''}`,
		args,
		latest: { name, tool, teamId: id }
	}
}

/** The config named on the command line (TOOL, --name, --team). */
export async function resolveTarget(s: Session, tool: Tool, values: { name?: string; team?: string }): Promise<Target> {
	const id = await teamId(s, values.team)
	return target(s, await s.username(), tool, values.name ?? DEFAULT_CONFIG_NAME, id, values.team)
}

/** A config this machine syncs, from its state. */
export const targetOf = (s: Session, state: SyncState): Target =>
	target(s, state.username, state.tool, state.name, state.teamId, state.team)

/** A team config under its team's current slug (a team renamed elsewhere is followed by its id: docs/sync-model.md). */
export function withTeamSlug(t: Target, slug: string): Target {
	if (t.teamId === undefined || t.team === slug) return t
	return {
		...t,
		team: slug,
		label: `${t.tool}/${t.name} of team ${slug}`,
		args: `${t.name === DEFAULT_CONFIG_NAME ? '' : ` --name ${t.name}`} --team ${slug}`
	}
}
