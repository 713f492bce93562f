import type { Tool } from '../shared/constants'
import type { Session } from './context'
import { readLocal } from './files'
import { pendingConfigs } from './journal'
import { CliFailure, EXIT } from './output'
import type { Target } from './target'
import { type Scope, scopeFor } from './scope'
import { allStates, forgetState, leftFiles, rememberLeftFiles, stateKey, type SyncState } from './state'
import type { Bases, Files } from './sync/engine'
import { knownFiles, shown } from './tools'

/**
 * One file, one owner on a machine (docs/sync-model.md, "Team and personal
 * configs of one tool"). A file that a team config of a tool holds here (in
 * its base, or in the server's copy this command has read) is synced with
 * that team config only: the personal config of the tool leaves it out, and
 * so does any later team config of the tool (team configs are ordered by team
 * slug, then name: the first one holding a file owns it). A team config
 * without PATHs looks only at the files it already holds, so sync, watch and
 * a plain push never add files to it; push --team SLUG PATH... does.
 *
 * A plain member of a team may not push its configs, so their sync and watch
 * pull them and keep changes made here to their files local (reported, exit
 * 0) instead of attempting a push the server would refuse.
 */

/** The server's file lists of the team configs this command has read (sync, watch and status read them first). */
const seenOnServer = new Map<string, string[]>()

interface Holder {
	key: string
	label: string
	order: string
	files: Set<string>
}

/** Team configs are ordered by team slug, then name: for two holding one file, the first owns it. */
const orderOf = (team: string, name: string) => `${team}\u0000${name}`

/** The same words as a Target's label (run.ts), for a config known only from its state. */
const labelOf = (state: SyncState) => `${state.tool}/${state.name} of team ${state.team ?? state.teamId}`

/**
 * The team configs of a tool this machine syncs, in owning order, with the files each holds here: its base,
 * the server's files as last read (this command's reading, else the state's), and the files a killed command
 * of it was writing (its journal, until the next command settles it).
 */
function holders(server: string, username: string, tool: Tool): Holder[] {
	const found = new Map<string, Holder>()
	const add = (state: SyncState, files: string[]) => {
		if (state.teamId === undefined || state.tool !== tool || state.server !== server || state.username !== username)
			return
		const key = stateKey(state)
		const holder = found.get(key) ?? {
			key,
			label: labelOf(state),
			order: orderOf(state.team ?? state.teamId, state.name),
			files: new Set<string>()
		}
		for (const file of files) holder.files.add(file)
		found.set(key, holder)
	}
	for (const state of allStates(server, username))
		add(state, [...Object.keys(state.files), ...(seenOnServer.get(stateKey(state)) ?? state.serverFiles ?? [])])
	for (const pending of pendingConfigs()) add(pending.state, pending.files)
	return [...found.values()].sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
}

/** The files another config of the tool owns on this machine: key → that config's label. */
export function ownedElsewhere(t: Target, server: string, username: string): Map<string, string> {
	const mine = t.teamId !== undefined ? orderOf(t.team ?? t.teamId, t.name) : undefined
	const owners = new Map<string, string>()
	for (const holder of holders(server, username, t.tool)) {
		// A personal config yields to every team config; a team config only to those ordered before it.
		if (holder.key === t.key || (mine !== undefined && holder.order >= mine)) continue
		for (const key of holder.files) if (!owners.has(key)) owners.set(key, holder.label)
	}
	return owners
}

export interface OwnedScope extends Scope {
	/** Files of the tool synced with another config on this machine (listed in `skipped`, never "outside"). */
	elsewhere: string[]
}

/**
 * The scope of one config on this machine: scopeFor's (a team config's
 * without PATHs is only the files it holds), less the files another config
 * of the tool owns here, and for a personal config the files a team config
 * this machine no longer syncs left here; each listed as skipped, with why,
 * when it exists here or in this config.
 */
export async function configScope(
	s: Session,
	t: Target,
	sides: { named?: string[]; base?: Bases; remote?: Files }
): Promise<OwnedScope> {
	if (t.teamId !== undefined && sides.remote) seenOnServer.set(t.key, Object.keys(sides.remote))
	const scope = scopeFor(t.tool, { ...sides, heldOnly: t.teamId !== undefined })
	const username = await s.username()
	const why = new Map<string, string>()
	for (const [key, label] of ownedElsewhere(t, s.server, username)) why.set(key, syncedElsewhereWhy(label))
	if (t.teamId === undefined)
		// Even when this config held the file before the team took it: what is here now is the team's content,
		// which goes into a personal config only when a push names it (docs/sync-model.md).
		for (const [key, label] of leftFiles(s.server, username, t.tool))
			if (!why.has(key) && !namedIn(key, sides.named)) why.set(key, leftWhy(label))
	const owned = scope.keys.filter((key) => why.has(key))
	if (owned.length === 0) return { ...scope, elsewhere: [] }
	const here = readLocal(owned)
	const present = (key: string) => Object.hasOwn(here, key) || held(key, sides)
	return {
		...scope,
		keys: scope.keys.filter((key) => !why.has(key)),
		skipped: [...scope.skipped, ...owned.filter(present).map((key) => ({ key, why: why.get(key) as string }))],
		elsewhere: owned
	}
}

/** Whether the command names a file (itself or a directory it is in). */
const namedIn = (key: string, named: string[] | undefined) =>
	named?.some((name) => key === name || key.startsWith(name.endsWith('/') ? name : `${name}/`)) === true

/** Whether this config already holds a file (its base or the server's copy) or the command names it. */
const held = (key: string, sides: { named?: string[]; base?: Bases; remote?: Files }) =>
	Object.hasOwn(sides.base ?? {}, key) || Object.hasOwn(sides.remote ?? {}, key) || namedIn(key, sides.named)

export const syncedElsewhereWhy = (label: string) =>
	`synced with team config ${label} on this machine, so this config leaves it out here`

/** A file a team config this machine no longer syncs left here: a personal config takes it only when a push names it. */
export const leftWhy = (label: string) =>
	`left here by team config ${label}, which this machine no longer syncs, so this config leaves it out until a push names it`

/** Team configs before personal ones (each group in owning order), so a sync reads what the teams hold first. */
export function teamsFirst(targets: Target[]): Target[] {
	const rank = (t: Target) =>
		t.teamId === undefined ? `1${t.tool}\u0000${t.name}` : `0${orderOf(t.team ?? t.teamId, t.name)}`
	return [...targets].sort((a, b) => (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0))
}

/**
 * Why this machine keeps local changes to a team config here, for each team
 * of `targets` this account is a plain member of (teamId → the reason). One
 * request, only when a team config is among them.
 */
export async function memberTeams(s: Session, targets: Target[]): Promise<Map<string, string>> {
	const notes = new Map<string, string>()
	if (!targets.some((t) => t.teamId !== undefined)) return notes
	for (const team of await s.run((api) => api.teams.list())) {
		if (team.role === 'member')
			notes.set(team.id, `you are a member of team ${team.slug}; only its owners and admins push to its configs`)
	}
	return notes
}

/**
 * Why a plain member's changes to this team config stay here, for the words
 * of a command that has already done its work: undefined for a personal
 * config, an owner or admin, or when the server cannot say just now (the
 * command's outcome does not depend on it).
 */
export async function memberNote(s: Session, t: Target): Promise<string | undefined> {
	if (t.teamId === undefined) return undefined
	try {
		return (await memberTeams(s, [t])).get(t.teamId)
	} catch {
		return undefined
	}
}

/** A plain member's push to a team config is refused before anything is done, saying what to do instead. */
export async function refuseMemberPush(s: Session, t: Target): Promise<void> {
	if (t.teamId === undefined || t.team === undefined) return
	const slug = t.team
	const team = await s.run((api) => api.teams.get(slug), `Team "${slug}"`)
	if (team.userRole !== 'member') return
	throw new CliFailure(
		`Not allowed: you are a member of team ${slug}, and only its owners and admins push to its configs; nothing was sent. Your changes here stay on this machine (cfgsync sync keeps pulling the team's and leaves them alone); to share them, ask an owner or admin of ${slug} (cfgsync team show ${slug} lists them).`,
		EXIT.error,
		'forbidden'
	)
}

/** A team config is started only by naming the files its members should share (push --team SLUG PATH...). */
export function newTeamConfigFailure(t: Target): CliFailure {
	const example = knownFiles(t.tool)[0]
	return new CliFailure(
		`${t.label} does not exist yet, and a push without PATHs never adds this machine's files to a team config; nothing was sent. Start it with the files the team should share: cfgsync push ${t.tool}${t.args} PATH...${example ? ` (for example ${shown(example)})` : ''}`,
		EXIT.usage
	)
}

/** After leaving (or deleting) a team: this machine stops syncing its configs; their files stay. Their labels. */
export function forgetTeam(server: string, username: string, teamId: string): string[] {
	const gone = allStates(server, username).filter((state) => state.teamId === teamId)
	for (const state of gone) {
		rememberLeftFiles(state)
		forgetState(stateKey(state))
	}
	return gone.map((state) => `${state.tool}/${state.name}`)
}
