import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { api, type Server } from '../../harness'

/**
 * Who syncs what in the model. Two users: ada owns team model-team and syncs,
 * on machines A and B, a personal gemini-cli config (JSON with comments and a
 * text file), a personal claude-code config (CLAUDE.md, her own commands) and
 * the team's claude-code config (the team's commands and
 * `~/.claude/settings.json`); ben, a plain member of the team, syncs on
 * machine C his own personal claude-code config and the team's. Both personal
 * claude-code configs also list `~/.claude/settings.json` (pushed before the
 * team took it): the overlap docs/sync-model.md's "one file, one owner" rule
 * is about. On every machine the team config owns that file, so the personal
 * configs' copies must never change again.
 */

/** What a file belongs to on a machine: its personal gemini-cli or claude-code config, or the team's. */
export type ConfigId = 'gemini' | 'personal' | 'team'
export const CONFIG_IDS: ConfigId[] = ['gemini', 'personal', 'team']
/** A config on the server: ada's two personal ones, ben's personal claude-code one, the team's. */
export type StoreId = 'ada-gemini' | 'ada-claude' | 'ben-claude' | 'team'
export const STORE_IDS: StoreId[] = ['ada-gemini', 'ada-claude', 'ben-claude', 'team']
export type UserName = 'ada' | 'ben'
export const TEAM_SLUG = 'model-team'

export interface ConfigSpec {
	tool: 'gemini-cli' | 'claude-code'
	team: boolean
	/** How a command line names it. */
	args: string[]
}

export const CONFIGS: Record<ConfigId, ConfigSpec> = {
	gemini: { tool: 'gemini-cli', team: false, args: ['gemini-cli'] },
	personal: { tool: 'claude-code', team: false, args: ['claude-code'] },
	team: { tool: 'claude-code', team: true, args: ['claude-code', '--team', TEAM_SLUG] }
}

export const STORES: Record<StoreId, { kind: ConfigId; user: UserName }> = {
	'ada-gemini': { kind: 'gemini', user: 'ada' },
	'ada-claude': { kind: 'personal', user: 'ada' },
	'ben-claude': { kind: 'personal', user: 'ben' },
	team: { kind: 'team', user: 'ada' }
}

export interface MachineSpec {
	name: string
	user: UserName
	/** The team role of the machine's user: a member may not push to the team config. */
	role: 'owner' | 'member'
	/** The configs it syncs, by what they are on this machine. */
	stores: Partial<Record<ConfigId, StoreId>>
}

export const MACHINES: MachineSpec[] = [
	{ name: 'A', user: 'ada', role: 'owner', stores: { gemini: 'ada-gemini', personal: 'ada-claude', team: 'team' } },
	{ name: 'B', user: 'ada', role: 'owner', stores: { gemini: 'ada-gemini', personal: 'ada-claude', team: 'team' } },
	{ name: 'C', user: 'ben', role: 'member', stores: { personal: 'ben-claude', team: 'team' } }
]

/** The file both personal claude-code configs and the team's hold: synced with the team config on every machine. */
export const SHARED = '.claude/settings.json'
export const TEAM_FILE = /^\.claude\/commands\/team-[0-9]+\.md$/
/**
 * Claude Code's own state file: the personal claude-code config syncs only its `mcpServers` (the part
 * below); the tool's other keys never leave the machine and cfgsync never changes them.
 */
export const CLAUDE_JSON = '.claude.json'
export const CLAUDE_PART = '.claude.json#mcpServers'

/** The config a tool file belongs to on a machine that syncs the team; undefined for anything else. */
export function ownerOf(path: string): ConfigId | undefined {
	if (path.startsWith('.gemini/')) return 'gemini'
	if (path === SHARED || TEAM_FILE.test(path)) return 'team'
	if (path === '.claude/CLAUDE.md' || path.startsWith('.claude/commands/')) return 'personal'
	return undefined
}

/** Keys of a claude-code settings file whose changes the review lets through unasked (its descriptor's inert list). */
export const INERT_KEYS = new Set(['theme'])

export const isJson = (path: string) => path.endsWith('.json')

/** Files outside every tool's files, planted on each machine: their bytes must never change. */
export const PLANTED: Record<string, string> = {
	'.bashrc': '# planted by the model test: never to be written by cfgsync\nexport EDITOR=vi\n',
	'.ssh/config': 'Host example\n  User nobody\n'
}

/** cfgsync's own directories in a machine's home (state, credentials, backups). */
export const OWN_DIRS = ['.local/state/cfgsync/', '.config/cfgsync/']
export const BACKUPS = '.local/state/cfgsync/backups'

/** A temporary file a write left: `.name.cfgsync-PID-RANDOM.tmp` today, any `*.tmp` or `.cfgsync-*`. */
export const isTemporary = (path: string) => {
	const name = path.slice(path.lastIndexOf('/') + 1)
	return name.endsWith('.tmp') || name.includes('.cfgsync-') || name.startsWith('.cfgsync')
}

/** Every regular file under `dir` (relative paths, `/`-separated); links are listed, not followed. */
export function walk(dir: string, prefix = ''): string[] {
	if (!existsSync(dir)) return []
	const found: string[] = []
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const rel = prefix ? `${prefix}/${entry.name}` : entry.name
		if (entry.isDirectory()) found.push(...walk(join(dir, entry.name), rel))
		else found.push(rel)
	}
	return found.sort()
}

/** A file's text, or undefined when there is none (a directory or a dangling link counts as none). */
export function readText(home: string, path: string): string | undefined {
	const full = join(home, path)
	try {
		if (!lstatSync(full).isFile()) return undefined
		return readFileSync(full, 'utf8')
	} catch {
		return undefined
	}
}

export const mtimeAndSize = (full: string) => {
	const stats = statSync(full)
	return `${stats.mtimeMs}:${stats.size}`
}

export interface ServerVersion {
	version: number
	hash: string
	files: Record<string, string>
	/** The stored data as the server returns it, to compare byte for byte later. */
	raw: string
}

export interface ServerConfig {
	id: string
	latest: number
	versions: Map<number, ServerVersion>
}

export type ServerView = Record<StoreId, ServerConfig | undefined>

/** Reads every config's versions through the API, each with its owner's key (paged, newest first). */
export async function readServer(server: Server, keys: Record<UserName, string>, teamId: string): Promise<ServerView> {
	const view = {} as ServerView
	for (const id of STORE_IDS) {
		const { kind, user } = STORES[id]
		const spec = CONFIGS[kind]
		const key = keys[user]
		const query = `name=default&tool=${spec.tool}${spec.team ? `&teamId=${teamId}` : ''}`
		const latest = await api(server, 'GET', `/api/configs/latest?${query}`, key)
		if (latest.status === 404) {
			view[id] = undefined
			continue
		}
		if (latest.status !== 200) throw new Error(`GET latest ${id}: ${latest.status} ${JSON.stringify(latest.body)}`)
		const versions = new Map<number, ServerVersion>()
		let before: number | undefined
		for (;;) {
			const page = await api(
				server,
				'GET',
				`/api/configs/${latest.body.id}/versions?limit=1000${before ? `&before=${before}` : ''}`,
				key
			)
			if (page.status !== 200) throw new Error(`GET versions ${id}: ${page.status} ${JSON.stringify(page.body)}`)
			const rows = page.body as { version: number; hash: string; data: unknown }[]
			for (const row of rows) {
				const data = row.data as { files?: Record<string, string> } | string
				const files = typeof data === 'object' && data !== null && data.files ? data.files : {}
				versions.set(row.version, { version: row.version, hash: row.hash, files, raw: JSON.stringify(row.data) })
			}
			if (rows.length < 1000) break
			before = Math.min(...rows.map((r) => r.version))
		}
		view[id] = { id: latest.body.id, latest: latest.body.version, versions }
	}
	return view
}
