import { closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { DIR_MAX_DEPTH, landingPlace, readText, removeLeftTemporaries, safeTarget, writeAtomically } from './files'
import { fileHash, sha256 } from './hash'
import { configDir, stateDir } from './paths'
import { getState, setState, type SyncState } from './state'
import { copyMap, ownValue, type Bases, type Files, type Write } from './sync/engine'
import { isObject, parseJsonc } from './sync/json'
import { TOOLS } from '../shared/constants'
import { knownDirs, knownFiles, partOf } from './tools'

/**
 * The crash journal (docs/sync-model.md, "Crashes"). Before a command touches
 * a file or pushes, it writes down, for its config: each file it is about to
 * write with the hash of its content before and after, what the push sends,
 * and the sync state to keep in each outcome (the writes landed, or the
 * writes and the push). The next command for that config settles it first:
 * a file that reads as the journal's after-content is at the server's
 * version, one still at its before-content is as it was, anything else is a
 * later edit by the person and is judged against the old base; a push counts
 * as stored when the server's latest holds exactly what was sent. So a
 * killed pull's half-written files are never taken for local edits and pushed
 * back, and this machine's own stored push is never a conflict with itself.
 */

export interface JournalWrite {
	key: string
	/** Hash of the file as it read before the write; null: absent. */
	before: string | null
	/** Its content then: the base when a push was stored but this write never landed. */
	beforeContent: string | null
	/** Hash of the file as it reads once written; null: deleted. */
	after: string | null
}

export interface Journal {
	format: 1
	/** The command that wrote it (pull, push, sync, resolve), for the message that settles it. */
	command: string
	startedAt: string
	/** Fingerprint of the sync state the command started from: another one means it was committed. */
	basedOn: string
	/** The state to keep when the writes landed and nothing was stored by a push. */
	pulled: SyncState
	/**
	 * What the push sends (its content hash), the server version it was judged
	 * against (0: it creates the config), and the state to keep once the server holds it.
	 */
	push?: { hash: string; after: number; state: SyncState }
	writes: JournalWrite[]
	/** Directories the command writes temporary files in (beside each file, the backup). */
	places: string[]
	/** The backup directory of this command: temporary files may be anywhere below it. */
	backups?: string
}

const journalsDir = () => join(stateDir(), 'journal')
const journalFile = (key: string) => join(journalsDir(), `${sha256(key).slice(0, 24)}.json`)

/** A sync state's fingerprint, to tell whether a command committed the state its journal leads to. */
export const fingerprint = (state: SyncState | undefined): string => sha256(JSON.stringify(state ?? null))

export function readJournal(key: string): Journal | undefined {
	try {
		const journal = JSON.parse(readFileSync(journalFile(key), 'utf8')) as Journal
		return journal?.format === 1 ? journal : undefined
	} catch {
		return undefined
	}
}

/**
 * Written atomically before any file is touched: a crash while writing it
 * leaves no journal and no change. Its directory is flushed too, so after a
 * power cut the journal is there whenever a file it names was written.
 */
export function writeJournal(key: string, journal: Journal): void {
	mkdirSync(journalsDir(), { recursive: true, mode: 0o700 })
	writeAtomically(journalFile(key), `${JSON.stringify(journal)}\n`, 0o600)
	let fd: number | undefined
	try {
		fd = openSync(journalsDir(), 'r')
		fsyncSync(fd)
	} catch {
		// A directory cannot be opened or flushed everywhere (Windows): the rename stands on its own there.
	} finally {
		if (fd !== undefined) closeSync(fd)
	}
}

/** The journals killed commands left, for every config. */
function everyJournal(): Journal[] {
	let names: string[]
	try {
		names = readdirSync(journalsDir())
	} catch {
		return []
	}
	return names
		.filter((name) => name.endsWith('.json'))
		.map((name) => {
			try {
				const journal = JSON.parse(readFileSync(join(journalsDir(), name), 'utf8')) as Journal
				return journal?.format === 1 && Array.isArray(journal.places) ? journal : undefined
			} catch {
				return undefined
			}
		})
		.filter((journal): journal is Journal => journal !== undefined)
}

export const clearJournal = (key: string): void => rmSync(journalFile(key), { force: true })

/**
 * The configs a killed command was syncing, as the state it meant to keep, with every file it names (those it
 * wrote or was about to write too): until the next command for that config settles it, they are that config's.
 */
export function pendingConfigs(): { state: SyncState; files: string[] }[] {
	return everyJournal().map((journal) => ({
		state: journal.pulled,
		files: [
			...new Set([
				...Object.keys(journal.pulled.files ?? {}),
				...(journal.pulled.serverFiles ?? []),
				...journal.writes.map((write) => write.key)
			])
		]
	}))
}

/** The hash of a file's content as readText will see it once `content` is written (null: absent). */
export function afterHash(key: string, content: string | null): string | null {
	if (content === null) return null
	const part = partOf(key)
	if (!part) return fileHash(content)
	// A part (`.claude.json#mcpServers`) reads back re-serialised from the whole file (files.ts readPart).
	const parsed = parseJsonc(content)
	if (!parsed || !isObject(parsed.value) || !Object.hasOwn(parsed.value, part.member)) return fileHash(content)
	return fileHash(`${JSON.stringify({ [part.member]: parsed.value[part.member] }, null, 2)}\n`)
}

/**
 * The base once the writes landed but the push was not stored: the files the
 * push would have changed keep their old base (they are still this machine's
 * unsent changes), and each written file's base is the server's content.
 */
export function baseWithoutPush(
	landed: Bases,
	old: Bases | undefined,
	remote: Files | undefined,
	push: Files,
	writes: Write[]
): Bases {
	const base = copyMap(landed)
	const keep = (key: string, file: Bases[string] | undefined) => {
		if (file === undefined) delete base[key]
		else base[key] = file
	}
	const changed = new Set([
		...Object.keys(push).filter((key) => push[key] !== ownValue(remote, key)),
		...Object.keys(remote ?? {}).filter((key) => ownValue(push, key) === undefined)
	])
	for (const key of changed) keep(key, ownValue(old, key))
	for (const write of writes) {
		const content = ownValue(remote, write.key)
		keep(write.key, content === undefined ? undefined : { content, hash: fileHash(content) })
	}
	return base
}

/** The journal of a command about to write `writes` and push (when `push` is given). */
export function journalFor(input: {
	command: string
	old: SyncState | undefined
	pulled: SyncState
	push?: { hash: string; after: number; state: SyncState }
	writes: Write[]
	backups?: string
}): Journal {
	const places = new Set<string>()
	for (const write of input.writes) places.add(dirname(landingPlace(safeTarget(write.key))))
	return {
		format: 1,
		command: input.command,
		startedAt: new Date().toISOString(),
		basedOn: fingerprint(input.old),
		pulled: input.pulled,
		push: input.push,
		writes: input.writes.map((w) => ({
			key: w.key,
			before: w.before === undefined ? null : fileHash(w.before),
			beforeContent: w.before ?? null,
			after: afterHash(w.key, w.content)
		})),
		places: [...places].sort(),
		backups: input.backups
	}
}

/** What settling found, for the message. */
export interface Settled {
	/** The command that was stopped. */
	command: string
	/** Whether it was to push. */
	pushed: boolean
	state: SyncState
	/** Files written before the crash (now at the server's version). */
	landed: string[]
	/** Files the crash left as they were. */
	untouched: string[]
	/** Files changed since (judged against the old base by the command). */
	edited: string[]
	/** The version that holds this machine's push, when the server has it. */
	stored?: number
}

/**
 * The sync state a journal leads to (pure: the caller reads the files and
 * the server). `now` is each written file's current hash (null: absent,
 * undefined: unreadable); `stored` the server's version that holds exactly
 * what the push sent, when there is one.
 */
export function settle(
	journal: Journal,
	old: SyncState | undefined,
	now: (key: string) => string | null | undefined,
	stored: number | undefined
): Settled {
	const withPush = journal.push && stored !== undefined ? { ...journal.push.state, version: stored } : undefined
	const pushed = withPush !== undefined
	const next: SyncState = withPush ?? { ...journal.pulled }
	const files = copyMap(next.files)
	const settled: Settled = {
		command: journal.command,
		pushed: journal.push !== undefined,
		state: next,
		landed: [],
		untouched: [],
		edited: [],
		stored: pushed ? stored : undefined
	}
	// Files are written one after another in the journal's order: every write before the last one found at its
	// after-content landed, even if the file was changed again since.
	const current = journal.writes.map((write) => now(write.key))
	const last = current.findLastIndex((hash, i) => hash === journal.writes[i]?.after)
	for (const [i, write] of journal.writes.entries()) {
		if (current[i] === write.after) settled.landed.push(write.key)
		else if (i > last && current[i] === write.before) settled.untouched.push(write.key)
		else settled.edited.push(write.key)
		if (i <= last) continue
		// A command writes its files before it pushes (sync-step/commit.ts), so a stored push's file changed here
		// since was written, then edited: the push's base (what was sent) stands, and only the edit is this
		// machine's. Taking its before-content instead would count what the merge brought as both sides' change.
		if (pushed && current[i] !== write.before) continue
		// Still at its before-content: when the push was stored, the server holds what this write would have made
		// (the write failed, or was undone), so the base is what is here and the next pull finishes the write;
		// otherwise nothing of the server's moved this file, and its old base stands.
		const base = pushed
			? write.beforeContent === null
				? undefined
				: { content: write.beforeContent, hash: fileHash(write.beforeContent) }
			: ownValue(old?.files, write.key)
		if (base === undefined) delete files[write.key]
		else files[write.key] = base
	}
	// A pull cut short has not merged the server's version completely: the version stays the one before.
	if (!pushed && last < journal.writes.length - 1) {
		next.version = old?.version ?? 0
		next.hash = old?.hash ?? ''
	}
	settled.state = { ...next, files, syncedAt: new Date().toISOString() }
	return settled
}

/** A file's hash as readText sees it: null when absent, undefined when it cannot be read as text. */
function currentHash(key: string): string | null | undefined {
	try {
		const content = readText(key)
		return content === undefined ? null : fileHash(content)
	} catch {
		return undefined
	}
}

/**
 * Removes the temporary files killed commands left: those of a state, a
 * journal or a login, and each journal's (it names where they can be). Only a
 * dead process's files are removed, so it needs no lock: read-only commands
 * such as status sweep too.
 */
export function sweepTemporaries(): void {
	for (const dir of [
		stateDir(),
		join(stateDir(), 'configs'),
		journalsDir(),
		configDir(),
		join(configDir(), 'profiles')
	])
		removeLeftTemporaries(dir)
	for (const pending of everyJournal()) {
		for (const place of pending.places) removeLeftTemporaries(place)
		if (pending.backups) removeLeftTemporaries(pending.backups, BACKUP_LEVELS)
	}
	// Beside the tools' own files too, where a command that keeps no journal (discard) writes: once a process, as
	// what a killed command left is there when this one starts.
	if (toolPlacesSwept) return
	toolPlacesSwept = true
	const beside = new Set<string>()
	const below = new Set<string>()
	for (const tool of TOOLS) {
		try {
			for (const key of knownFiles(tool)) beside.add(dirname(landingPlace(safeTarget(key))))
			for (const dir of knownDirs(tool)) below.add(safeTarget(dir))
		} catch {
			// a tool with no place on this machine
		}
	}
	for (const place of beside) removeLeftTemporaries(place)
	for (const place of below) removeLeftTemporaries(place, DIR_MAX_DEPTH)
}

let toolPlacesSwept = false
/** A backup holds copies at their paths below home: deep enough for any tool file. */
const BACKUP_LEVELS = 16

/**
 * Settles the journal a killed command left for `key`, before anything else
 * is judged, and removes the temporary files it left. `storedAs` asks the
 * server which version holds exactly what the push sent, if any (only when
 * the journal has a push). The caller holds the lock. Returns what was found,
 * or undefined when there was nothing to settle.
 */
export async function settleJournal(
	key: string,
	storedAs: (push: { hash: string; after: number }) => Promise<number | undefined>
): Promise<Settled | undefined> {
	sweepTemporaries()
	const journal = readJournal(key)
	if (!journal) return undefined
	const old = getState(key)
	if (fingerprint(old) !== journal.basedOn) {
		// The command committed its state and was stopped just before removing the journal.
		clearJournal(key)
		return undefined
	}
	const stored = journal.push ? await storedAs(journal.push) : undefined
	return commit(key, journal, old, stored)
}

/**
 * The sync state as the next command will settle it, without changing
 * anything (for status and dry runs, which take no lock). `latest` is the
 * server's version as the caller read it: a journal's push counts as stored
 * when it holds exactly what was sent.
 */
export function pendingState(key: string, latest?: { version: number; hash: string }): SyncState | undefined {
	const state = getState(key)
	const journal = readJournal(key)
	if (!journal || fingerprint(state) !== journal.basedOn) return state
	const stored = journal.push !== undefined && latest?.hash === journal.push.hash ? latest.version : undefined
	return settle(journal, state, currentHash, stored).state
}

/** A push that was refused (nothing stored): the writes made stand, the changes stay unsent. */
export function settleUnpushed(key: string): void {
	const journal = readJournal(key)
	if (journal) commit(key, journal, getState(key), undefined)
}

function commit(key: string, journal: Journal, old: SyncState | undefined, stored: number | undefined): Settled {
	const settled = settle(journal, old, currentHash, stored)
	setState(key, settled.state)
	clearJournal(key)
	return settled
}

/** The state is written, then the journal removed: a crash between the two is recognised by basedOn. */
export function finishJournal(key: string, state: SyncState): void {
	setState(key, state)
	clearJournal(key)
}
