import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Tool } from '../shared/constants'
import { writeAtomically } from './files'
import { sha256 } from './hash'
import { CliFailure, EXIT } from './output'
import { platform, stateDir } from './paths'
import { emptyMap, type Bases } from './sync/engine'
import { toNeutral } from './sync/paths'

/**
 * What this machine last synced for one config (docs/sync-model.md: the base): the
 * version and hash last merged, and each file's content then. Content, not
 * only hashes, because a three-way JSON merge needs the base's text and old
 * versions cannot be read back from a free plan.
 *
 * One file per config under $XDG_STATE_HOME/cfgsync/configs/ (mode 0600),
 * written atomically, so parallel commands on different configs never touch
 * each other's state and a crash never leaves half a file.
 */
export interface SyncState {
	format: 2
	server: string
	username: string
	teamId?: string
	/** The team's slug when last synced (for messages; the id is what counts). */
	team?: string
	tool: Tool
	name: string
	/** The server version and hash this machine last merged completely (0 and '' before the first). */
	version: number
	hash: string
	files: Bases
	/**
	 * Per file, the hash of the content this machine last pushed for it. Any
	 * other content of a team config's file was pushed by someone else (the
	 * audit log that names pushers is closed to a team's plain members).
	 */
	pushedFiles?: Record<string, string>
	/**
	 * Per file, hashes of content someone else pushed that this machine
	 * accepted after a review (docs/sync-model.md): not asked about again.
	 */
	acceptedFiles?: Record<string, string[]>
	/**
	 * A personal config's files left for review of a change from devices this machine does not trust
	 * (docs/sync-model.md), with those devices: asked about again until written, even when a trusted
	 * device pushes a version on top of it.
	 */
	reviewFrom?: Record<string, string[]>
	/** The PATHs `push --only` limited the config to (keys; a directory's ends in `/`): plain runs keep to them. */
	only?: string[]
	/** Secret-looking values this machine already noted for a personal config (`file#path`). */
	secretsNoted?: string[]
	/**
	 * A team config's files on the server when this machine last read it: they are the team's here (one file,
	 * one owner) even before they are written here, or when a killed command left one without a base.
	 */
	serverFiles?: string[]
	/**
	 * Files `resolve --edit` wrote conflict markers into and not yet pushed: per file, how many `=======`
	 * lines in it are not markers (a Markdown heading's underline), so a push can tell a marker left behind.
	 */
	marked?: Record<string, number>
	/** The config's `--everywhere` list as last read from the server: a team config of the tool keeps those keys back too. */
	everywhere?: string
	syncedAt: string
}

export interface Identity {
	server: string
	username: string
	teamId?: string
	tool: string
	name: string
}

/** One entry per server, user, scope (personal or team id), tool and name. */
export const stateKey = (parts: Identity) =>
	[parts.server, parts.username, parts.teamId ?? 'personal', parts.tool, parts.name].join(' ')

const configsDir = () => join(stateDir(), 'configs')
const fileOf = (key: string) => join(configsDir(), `${sha256(key).slice(0, 24)}.json`)
/** The single state file older clients wrote (hashes only). */
const legacyFile = () => join(stateDir(), 'state.json')

interface LegacyEntry {
	hash: string
	version: number
	files: Record<string, string>
	syncedAt: string
}

function readJson(path: string): unknown {
	try {
		return JSON.parse(readFileSync(path, 'utf8'))
	} catch {
		return undefined
	}
}

/** An entry of the older state.json as a base with hashes only (JSON files then cannot merge until the next sync). */
function fromLegacy(key: string, entry: LegacyEntry): SyncState | undefined {
	const [server, username, scope, tool, name] = key.split(' ')
	if (!server || !username || !scope || !tool || !name || typeof entry?.files !== 'object') return undefined
	const files: Bases = emptyMap()
	for (const [file, hash] of Object.entries(entry.files)) files[toNeutral(file, platform())] = { hash }
	return {
		format: 2,
		server,
		username,
		teamId: scope === 'personal' ? undefined : scope,
		tool: tool as Tool,
		name,
		version: entry.version,
		hash: entry.hash,
		files,
		syncedAt: entry.syncedAt
	}
}

const legacyEntries = (): Record<string, LegacyEntry> =>
	(readJson(legacyFile()) as Record<string, LegacyEntry> | undefined) ?? {}

export function getState(key: string): SyncState | undefined {
	const state = readJson(fileOf(key)) as SyncState | undefined
	if (state?.format === 2) return state
	const legacy = legacyEntries()[key]
	return legacy ? fromLegacy(key, legacy) : undefined
}

/** Written to a temporary file and renamed: a crash or a parallel command never leaves half a state. */
export function setState(key: string, state: SyncState): void {
	mkdirSync(configsDir(), { recursive: true, mode: 0o700 })
	writeAtomically(fileOf(key), `${JSON.stringify(state, null, 2)}\n`, 0o600)
}

/** This machine stops syncing a config (its files stay where they are). */
export function forgetState(key: string): void {
	rmSync(fileOf(key), { force: true })
	const legacy = legacyEntries()
	if (legacy[key] !== undefined) {
		delete legacy[key]
		writeAtomically(legacyFile(), `${JSON.stringify(legacy, null, 2)}\n`, 0o600)
	}
}

/** Every config this machine syncs with this account on this server. */
export function allStates(server: string, username: string): SyncState[] {
	const found = new Map<string, SyncState>()
	if (existsSync(configsDir())) {
		for (const entry of readdirSync(configsDir())) {
			if (!entry.endsWith('.json')) continue
			const state = readJson(join(configsDir(), entry)) as SyncState | undefined
			if (state?.format === 2 && state.server === server && state.username === username)
				found.set(stateKey(state), state)
		}
	}
	for (const [key, entry] of Object.entries(legacyEntries())) {
		if (found.has(key)) continue
		const state = fromLegacy(key, entry)
		if (state && state.server === server && state.username === username) found.set(key, state)
	}
	return [...found.values()].sort((a, b) => stateKey(a).localeCompare(stateKey(b)))
}

export const backupsDir = (): string => join(stateDir(), 'backups')

/** After a team rename: this machine's configs of that team name it by its new slug. */
export function renameTeamInStates(teamId: string, slug: string): void {
	if (!existsSync(configsDir())) return
	for (const entry of readdirSync(configsDir())) {
		if (!entry.endsWith('.json')) continue
		const state = readJson(join(configsDir(), entry)) as SyncState | undefined
		if (state?.format !== 2 || state.teamId !== teamId || state.team === slug) continue
		writeAtomically(join(configsDir(), entry), `${JSON.stringify({ ...state, team: slug }, null, 2)}\n`, 0o600)
	}
}

/** Every config this machine syncs, on any server (for shell completion: names and teams, without a request). */
export function everyState(): SyncState[] {
	if (!existsSync(configsDir())) return []
	const found: SyncState[] = []
	for (const entry of readdirSync(configsDir())) {
		if (!entry.endsWith('.json')) continue
		const state = readJson(join(configsDir(), entry)) as SyncState | undefined
		if (state?.format === 2) found.push(state)
	}
	return found
}

export const DEFAULT_BACKUP_DAYS = 30

/** How many backups of each config are kept whatever their age (docs/sync-model.md). */
export const BACKUPS_KEPT = 20

/**
 * Where one run's backups of one config go: a directory named by the time it
 * was made and by the config (a short hash of its state key), so that
 * pruning can keep each config's newest ones.
 */
export function backupRoot(configKey: string, at = new Date()): string {
	return join(backupsDir(), `${at.toISOString().replace(/[:.]/g, '-')}-${sha256(configKey).slice(0, 8)}`)
}

const BACKUP_NAME = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z(?:-([0-9a-f]{8}))?$/

/**
 * Pull backups are kept by count and by age together (docs/sync-model.md):
 * the newest BACKUPS_KEPT of each config are never removed, whatever the
 * clock says (a clock 40 days ahead once removed them all); older ones go
 * when older than CFGSYNC_BACKUP_DAYS days (default 30; 0 keeps them all). A
 * backup is a directory named by the time it was made and its config
 * (2026-11-23T22-18-02-098Z-1a2b3c4d); its age comes from that name, or from
 * its modification time when the name is not one (those count as one config).
 */
export function pruneBackups(days = backupDays(), now = Date.now()): string[] {
	if (days === 0 || !existsSync(backupsDir())) return []
	const groups = new Map<string, { path: string; made: number }[]>()
	for (const entry of readdirSync(backupsDir(), { withFileTypes: true })) {
		if (!entry.isDirectory()) continue
		const path = join(backupsDir(), entry.name)
		const match = BACKUP_NAME.exec(entry.name)
		let made = match ? Date.parse(`${match[1]}T${match[2]}:${match[3]}:${match[4]}.${match[5]}Z`) : Number.NaN
		if (Number.isNaN(made)) {
			try {
				made = statSync(path).mtimeMs
			} catch {
				continue
			}
		}
		const config = match?.[6] ?? ''
		const group = groups.get(config) ?? []
		group.push({ path, made })
		groups.set(config, group)
	}
	const removed: string[] = []
	for (const backups of groups.values()) {
		backups.sort((a, b) => b.made - a.made || (a.path < b.path ? 1 : -1))
		for (const { path, made } of backups.slice(BACKUPS_KEPT)) {
			if (now - made <= days * 86_400_000) continue
			try {
				rmSync(path, { recursive: true, force: true })
				removed.push(path)
			} catch {
				// not ours to remove (permissions): left for the person
			}
		}
	}
	return removed
}

export function backupDays(): number {
	const text = process.env.CFGSYNC_BACKUP_DAYS
	if (text === undefined || text.trim() === '') return DEFAULT_BACKUP_DAYS
	const days = Number(text)
	if (!Number.isInteger(days) || days < 0)
		throw new CliFailure(
			`CFGSYNC_BACKUP_DAYS is "${text}": give a whole number of days (0 keeps backups for ever)`,
			EXIT.usage
		)
	return days
}

/**
 * Files a team config synced here before this machine stopped syncing it (the
 * team was left or deleted, or the config went away): per server, account and
 * tool, each file's key → the team config's label. The personal config of the
 * tool leaves them out until a push names them (docs/sync-model.md), so a
 * team's files do not move into someone's personal config on their own.
 */
const leftFile = () => join(stateDir(), 'left-by-teams.json')
type LeftFiles = Record<string, Record<string, string>>
const leftKey = (server: string, username: string, tool: Tool) => [server, username, tool].join(' ')

function readLeft(): LeftFiles {
	const found = readJson(leftFile())
	return found !== null && typeof found === 'object' && !Array.isArray(found) ? (found as LeftFiles) : {}
}

/** Remembers the files of a team config this machine stops syncing. */
export function rememberLeftFiles(state: SyncState): void {
	if (state.teamId === undefined) return
	const keys = Object.keys(state.files)
	if (keys.length === 0) return
	const all = readLeft()
	const id = leftKey(state.server, state.username, state.tool)
	const entry = { ...(all[id] ?? {}) }
	for (const key of keys) entry[key] = `${state.tool}/${state.name} of team ${state.team ?? state.teamId}`
	all[id] = entry
	mkdirSync(stateDir(), { recursive: true, mode: 0o700 })
	writeAtomically(leftFile(), `${JSON.stringify(all, null, 2)}\n`, 0o600)
}

/** The files a left team config synced here for this tool: key → its label. */
export function leftFiles(server: string, username: string, tool: Tool): Map<string, string> {
	return new Map(Object.entries(readLeft()[leftKey(server, username, tool)] ?? {}))
}

/** A push that named files a left team config had here took them into a personal config: they are no longer left. */
export function forgetLeftFiles(server: string, username: string, tool: Tool, keys: string[]): void {
	const all = readLeft()
	const id = leftKey(server, username, tool)
	const entry = all[id]
	if (entry === undefined || !keys.some((key) => Object.hasOwn(entry, key))) return
	for (const key of keys) delete entry[key]
	if (Object.keys(entry).length === 0) delete all[id]
	writeAtomically(leftFile(), `${JSON.stringify(all, null, 2)}\n`, 0o600)
}
