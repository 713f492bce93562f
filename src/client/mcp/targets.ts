import { join } from 'node:path'
import { TOOLS, type Tool } from '../../shared/constants'
import type { Session } from '../context'
import { applyWrites } from '../files'
import { machineEntries, setMachineEntries } from '../local-keys'
import { withLock } from '../lock'
import { CliFailure, EXIT } from '../output'
import { ownedElsewhere, syncedElsewhereWhy } from '../ownership'
import { resolveTarget } from '../run'
import { allStates, backupsDir, stateKey, type SyncState } from '../state'
import type { Write } from '../sync/engine'
import { type LocalEntry, sameEntry } from '../sync/local-keys'
import { localKey } from '../tools'
import type { McpContext } from './context'
import { readToolFile, type ToolFile } from './here'
import { namedTools } from './list'

/**
 * Which tools an `mcp add`, `remove` or `copy` writes, and with which config
 * each file syncs on this machine (docs/client.md, "MCP servers"): the tools
 * named by --tool, else those this machine syncs (personal configs, or with
 * --team the team's). One file, one owner: a file a team config holds here
 * is written only with --team, and a team's file only when its config holds it.
 */

export interface ToolTarget {
	tool: Tool
	file: ToolFile
	/** The config the file syncs with here (its local keys go there); undefined without a login. */
	config?: { key: string; label: string }
	/** Why this tool is left out, when it is. */
	refused?: string
}

export interface Targets {
	targets: ToolTarget[]
	/** Were the tools named with --tool (then a tool that cannot take the change is an error)? */
	named: boolean
	team?: { slug: string; id: string }
	session?: Session
}

const heldBy = (state: SyncState, key: string) =>
	Object.hasOwn(state.files, key) || (state.serverFiles ?? []).includes(key)

/** How a person adds a file to a team config (an owner or admin). */
const addToTeam = (tool: Tool, slug: string, file: ToolFile) =>
	`cfgsync push ${tool} --team ${slug} ~/${localKey(file.key) ?? file.key}`

export async function targetsFor(
	ctx: McpContext,
	values: { tool?: string[]; team?: string; server?: string; profile?: string },
	command: string,
	needsLogin: boolean
): Promise<Targets> {
	const named = namedTools(values.tool, command)
	const slug = values.team
	if (named === undefined || needsLogin || slug !== undefined) return withLogin(ctx, values, command, named, slug)
	return { named: true, targets: named.map((tool) => ({ tool, file: readToolFile(tool) })) }
}

async function withLogin(
	ctx: McpContext,
	values: { server?: string; profile?: string },
	command: string,
	named: Tool[] | undefined,
	slug: string | undefined
): Promise<Targets> {
	const s = ctx.session(values)
	const username = await s.username()
	const states = allStates(s.server, username)
	let team: Targets['team']
	if (slug !== undefined) {
		const detail = await s.run((api) => api.teams.get(slug), `Team "${slug}"`)
		if (detail.userRole === 'member')
			throw new CliFailure(
				`only an owner or admin of team ${slug} changes its MCP servers; a member receives them with the next sync, after the review`,
				EXIT.error,
				'forbidden'
			)
		team = { slug, id: detail.id }
	}
	const mine = states.filter((state) => (team ? state.teamId === team.id : state.teamId === undefined))
	const tools = named ?? TOOLS.filter((tool) => mine.some((state) => state.tool === tool))
	if (tools.length === 0)
		throw new CliFailure(
			team
				? `this machine syncs no config of team ${team.slug}: run cfgsync sync first, or name the tools with --tool T`
				: `this machine syncs no config yet, so cfgsync mcp ${command} does not know which tools you use: name them with --tool T (or run cfgsync push TOOL first)`,
			EXIT.usage
		)
	const targets: ToolTarget[] = []
	for (const tool of tools) {
		const file = readToolFile(tool)
		if (team) {
			const holder = mine.find((state) => state.tool === tool && heldBy(state, file.key))
			targets.push(
				holder
					? { tool, file, config: { key: stateKey(holder), label: `${tool}/${holder.name} of team ${team.slug}` } }
					: {
							tool,
							file,
							refused: `team ${team.slug}'s ${tool} config does not hold ${file.name} on this machine (to add it: ${addToTeam(tool, team.slug, file)})`
						}
			)
			continue
		}
		const name = mine.find((state) => state.tool === tool)?.name
		const t = await resolveTarget(s, tool, { name })
		const owner = ownedElsewhere(t, s.server, username).get(file.key)
		targets.push(
			owner
				? { tool, file, refused: `${file.name} is ${syncedElsewhereWhy(owner)}: use --team with that team's slug` }
				: { tool, file, config: { key: t.key, label: t.label } }
		)
	}
	return { named: named !== undefined, targets, team, session: s }
}

/** A file's new text, and the keys of it that stay on this machine (under its config). */
export interface Change {
	target: ToolTarget
	text: string
	local: string[][]
}

/**
 * Writes the changes under the client's lock: the local keys recorded first,
 * so that no sync running meanwhile can send a secret the file is about to
 * hold; then each file, backed up, atomically (the sync engine's writer, which
 * merges ~/.claude.json's part into the rest of it as it is then).
 */
export async function applyChanges(ctx: McpContext, changes: Change[], command: string): Promise<string | null> {
	if (changes.length === 0) return null
	const root = join(backupsDir(), new Date().toISOString().replace(/[:.]/g, '-'))
	if (changes.some((c) => c.local.length > 0 && c.target.config === undefined))
		throw new CliFailure(
			'a value kept on this machine is a local key of a config: log in first (cfgsync login)',
			EXIT.auth
		)
	return withLock(
		`mcp ${command}`,
		async () => {
			for (const change of changes) {
				const config = change.target.config
				if (change.local.length === 0 || config === undefined) continue
				const entries = machineEntries(config.key)
				for (const path of change.local) {
					const entry: LocalEntry = { file: change.target.file.key, path }
					if (!entries.some((known) => sameEntry(known, entry))) entries.push(entry)
				}
				setMachineEntries(config.key, entries)
			}
			const writes: Write[] = changes.map((c) => ({
				key: c.target.file.key,
				content: c.text,
				kind: c.target.file.text === undefined ? 'created' : 'updated'
			}))
			const { backedUp } = applyWrites(writes, root)
			return backedUp > 0 ? root : null
		},
		ctx.io.stderr
	)
}
