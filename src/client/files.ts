// Over 500 lines: every read and write the client makes to a person's files, so the safety rules (symbolic links,
// files that are not regular, atomic writes, backups) are checked in one place.
import { randomBytes } from 'node:crypto'
import {
	accessSync,
	closeSync,
	constants,
	fsyncSync,
	lstatSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	renameSync,
	rmSync,
	statSync,
	unlinkSync,
	writeSync,
	type Dirent,
	type Stats
} from 'node:fs'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { applyEdits, modify } from 'jsonc-parser/lib/esm/main.js'
import { processAlive } from '../shared/process'
import { crashPoint } from './crash-points'
import { CliFailure, safe } from './output'
import { home } from './paths'
import { emptyMap, type Files, type Write } from './sync/engine'
import { isObject, jsonSyntaxError, parseJsonc, rewrite, type Json } from './sync/json'
import { eolOf } from './sync/text'
import { localKey, partOf, shown } from './tools'

export { asFileSet, type FileSet } from '../shared/config-files'

/** Keeps a BOM (the default decoder drops it, and a dropped BOM was a change nobody saw). */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * The absolute path for a key, refusing anything that could land outside
 * home: absolute paths, `..`, empty or NUL-bearing names, neutral names this
 * machine has no place for. Keys come from the server, which a teammate may
 * have written.
 */
export function safeTarget(key: string): string {
	const rel = localKey(key)
	const parts = (rel ?? '').split('/')
	if (
		rel === undefined ||
		key === '' ||
		key.includes('\0') ||
		rel.startsWith('/') ||
		key.includes('\\') ||
		/^[A-Za-z]:/.test(key) ||
		parts.some((p) => p === '..' || p === '' || p === '.')
	) {
		throw new CliFailure(`refusing the unsafe path "${safe(key)}" in the server's data; nothing was written`)
	}
	const target = resolve(home(), ...parts)
	if (!target.startsWith(home() + sep))
		throw new CliFailure(`refusing "${safe(key)}": it is outside your home directory; nothing was written`)
	return target
}

const lstat = (path: string): Stats | undefined => {
	try {
		return lstatSync(path)
	} catch {
		return undefined
	}
}

/** A file's text exactly as its bytes say (BOM and line endings kept), or undefined when it does not exist. */
export function readText(key: string): string | undefined {
	const part = partOf(key)
	if (part) return readPart(key, part)
	return readWhole(key)
}

/**
 * What stands at a key's place when it is not a regular file (a link is
 * followed): `a directory`, `a FIFO (named pipe)`, `a socket`, `a device`;
 * undefined for a regular file or nothing. Only regular files are ever opened
 * (docs/sync-model.md): opening a FIFO waits for a writer for ever.
 */
export function notRegular(key: string): string | undefined {
	let stats: Stats
	try {
		stats = statSync(safeTarget(key))
	} catch {
		return undefined // nothing there, or a key with no place here (refused where it is written)
	}
	if (stats.isFile()) {
		try {
			accessSync(safeTarget(key), constants.R_OK)
			return undefined
		} catch {
			return UNREADABLE
		}
	}
	if (stats.isDirectory()) return 'a directory'
	if (stats.isFIFO()) return 'a FIFO (named pipe)'
	if (stats.isSocket()) return 'a socket'
	return 'a device'
}

const UNREADABLE = 'a file this user may not read'
const NOT_REGULAR = ', so cfgsync leaves it as it is, neither read nor written'

/** Why a file is left out when something else stands at its place, or it may not be read. */
export const notRegularWhy = (what: string) =>
	what === UNREADABLE
		? `not readable by this user (permission denied)${NOT_REGULAR}`
		: `${what} where a file should be: only regular files are read${NOT_REGULAR}`

/** Is this why a file was left out (scopeFor's skipped) something else standing at its place? */
export const isNotRegularWhy = (why: string) => why.endsWith(NOT_REGULAR)

function readWhole(key: string): string | undefined {
	const path = safeTarget(key)
	let stats: Stats
	try {
		stats = statSync(path)
	} catch {
		return undefined // absent, or a link to nothing
	}
	if (stats.isDirectory()) throw new CliFailure(`${shown(key)} is a directory, not a file`)
	if (!stats.isFile())
		throw new CliFailure(`${shown(key)} is ${notRegular(key) ?? 'not a regular file'}: only regular files are read`)
	try {
		return utf8.decode(readFileSync(path))
	} catch {
		throw new CliFailure(`${shown(key)} is not UTF-8 text; cfgsync syncs text configuration files`)
	}
}

/**
 * The synced part of a file (`.claude.json#mcpServers`): `{"MEMBER": …}` as
 * JSON with two-space indentation, or undefined when the file or the member
 * is absent. The rest of the file never leaves this machine.
 */
function readPart(key: string, part: { file: string; member: string }): string | undefined {
	const text = readWhole(key)
	if (text === undefined) return undefined
	const parsed = parseJsonc(text)
	if (!parsed) {
		const error = jsonSyntaxError(text)
		const where = error ? ` (line ${error.line}, column ${error.column}: ${error.problem})` : ''
		throw new CliFailure(
			`~/${part.file} is not valid JSON${where}, so its ${part.member} cannot be read; nothing of it was synced. Fix the file and run the command again.`
		)
	}
	if (!isObject(parsed.value) || !Object.hasOwn(parsed.value, part.member)) return undefined
	return `${JSON.stringify({ [part.member]: parsed.value[part.member] }, null, 2)}\n`
}

/** The whole new text of a part's file once `content` (the part, or null to remove it) is merged into `current`. */
export function mergePart(key: string, current: string | undefined, content: string | null): string | undefined {
	const part = partOf(key) as { file: string; member: string }
	let value: Json | undefined
	if (content !== null) {
		const parsed = parseJsonc(content)
		if (!parsed || !isObject(parsed.value) || !Object.hasOwn(parsed.value, part.member)) {
			throw new CliFailure(
				`the server's ${shown(key)} is not a JSON object with "${part.member}"; nothing was written to ~/${part.file}`
			)
		}
		value = parsed.value[part.member]
	}
	if (current === undefined) return content ?? undefined
	const parsedCurrent = parseJsonc(current)
	if (!parsedCurrent)
		throw new CliFailure(
			`~/${part.file} is not valid JSON; its ${part.member} were not written (nothing else in it was touched)`
		)
	// Only what changed is edited: an entry that did not change keeps its bytes (docs/sync-model.md).
	if (isObject(parsedCurrent.value)) {
		const wanted = { ...parsedCurrent.value }
		if (value === undefined) delete wanted[part.member]
		else wanted[part.member] = value
		const edited = rewrite(current, parsedCurrent.value, wanted)
		if (edited !== undefined) return edited
	}
	const indent = /\n(\t| +)"/.exec(current)?.[1] ?? '  '
	const formattingOptions = {
		insertSpaces: indent !== '\t',
		tabSize: indent === '\t' ? 1 : indent.length,
		eol: eolOf(current)
	}
	return applyEdits(current, modify(current, [part.member], value, { formattingOptions }))
}

/** Keys of the files to sync in one directory, and what was left out and why. */
export interface DirScan {
	keys: string[]
	skipped: { key: string; why: string }[]
	/** Set when the directory is over a cap: it is then not synced at all. */
	over?: string
}

/** Issue 20: a directory is synced whole up to these caps, and says so beyond them. */
export const DIR_MAX_FILES = 200
export const DIR_MAX_BYTES = 256 * 1024
export const DIR_MAX_DEPTH = 8

/**
 * The text files under a directory key (`.claude/commands`), recursively:
 * hidden names (`.DS_Store`, `.git`) are left out, files that are not UTF-8
 * text are listed as skipped, and linked directories are not followed.
 */
export function scanDir(dirKey: string): DirScan {
	const root = safeTarget(dirKey)
	const scan: DirScan = { keys: [], skipped: [] }
	try {
		if (!statSync(root).isDirectory()) return scan
	} catch {
		return scan
	}
	let bytes = 0
	const walk = (dir: string, prefix: string, depth: number) => {
		for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) =>
			a.name < b.name ? -1 : a.name > b.name ? 1 : 0
		)) {
			if (entry.name.startsWith('.')) continue
			const key = `${prefix}/${entry.name}`
			const path = join(dir, entry.name)
			if (entry.isDirectory()) {
				if (depth < DIR_MAX_DEPTH) walk(path, key, depth + 1)
				continue
			}
			let stats: Stats
			try {
				stats = statSync(path)
			} catch {
				continue // a link to nothing
			}
			if (!stats.isFile()) continue
			let content: Buffer
			try {
				content = readFileSync(path)
				utf8.decode(content)
			} catch {
				scan.skipped.push({ key, why: 'not UTF-8 text' })
				continue
			}
			bytes += content.length
			scan.keys.push(key)
		}
	}
	walk(root, dirKey, 1)
	if (scan.keys.length > DIR_MAX_FILES || bytes > DIR_MAX_BYTES) {
		scan.over = `${scan.keys.length} file${scan.keys.length === 1 ? '' : 's'}, ${Math.ceil(bytes / 1024)} KiB: more than cfgsync syncs from one directory (${DIR_MAX_FILES} files, ${DIR_MAX_BYTES / 1024} KiB)`
	}
	return scan
}

/** The existing files among `keys`. */
export function readLocal(keys: string[]): Files {
	const files: Files = emptyMap()
	for (const key of keys) {
		const content = readText(key)
		if (content !== undefined) files[key] = content
	}
	return files
}

const realHome = (): string => {
	try {
		return realpathSync(home())
	} catch {
		return home()
	}
}

/**
 * Where a write to `path` really lands: symbolic links (of the file or of any
 * directory above it) followed, dangling ones too, to the first part that
 * does not exist yet.
 */
export function landingPlace(path: string): string {
	let current = path
	const rest: string[] = []
	for (let hops = 0; hops < 64; hops++) {
		const stats = lstat(current)
		if (stats === undefined) {
			const parent = dirname(current)
			if (parent === current) return join(current, ...rest)
			rest.unshift(basename(current))
			current = parent
			continue
		}
		try {
			return join(realpathSync(current), ...rest)
		} catch {
			// A link to something that does not exist: follow it by hand.
			if (!stats.isSymbolicLink()) return join(current, ...rest)
			current = resolve(dirname(current), readlinkSync(current))
		}
	}
	throw new CliFailure(`${path}: too many symbolic links`)
}

/**
 * Where a key's file really is when a symbolic link (of the file, or of a
 * directory above it) leads out of home; undefined when it stays inside. A
 * pull never writes through such a link, and a push never reads through one
 * (docs/sync-model.md), so a link to /etc/passwd cannot carry it anywhere.
 */
export function linkOutOfHome(key: string): string | undefined {
	const target = safeTarget(key)
	const place = landingPlace(target)
	return !place.startsWith(realHome() + sep) && place !== target ? place : undefined
}

/**
 * Writes a pull would refuse: a symbolic link whose target
 * is outside home is never written through. Key → the reason, for each one.
 */
export function refusedWrites(writes: Write[]): Map<string, string> {
	const refused = new Map<string, string>()
	for (const write of writes) {
		const place = linkOutOfHome(write.key)
		if (place !== undefined) {
			refused.set(
				write.key,
				`it is a symbolic link (or inside a linked directory) that points outside your home directory, to ${safe(place)}`
			)
		}
	}
	return refused
}

/** A name for a temporary file beside `path`, unique to this process and call. */
const temporaryBeside = (path: string) =>
	join(dirname(path), `.${basename(path)}.cfgsync-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)

/** The names temporaryBeside makes; the number is the writing process's id. */
const TEMPORARY_NAME = /^\..+\.cfgsync-(\d+)-[0-9a-f]{8}\.tmp$/

/**
 * Removes the temporary files a killed cfgsync left in `dir` (and `levels`
 * of directories below it):
 * only names this client makes, and only when the process that made them is
 * gone, so a running command's file is never taken from it. Returns how many
 * were removed.
 */
export function removeLeftTemporaries(dir: string, levels = 0): number {
	let removed = 0
	let entries: Dirent[]
	try {
		entries = readdirSync(dir, { withFileTypes: true })
	} catch {
		return 0 // gone, or not a directory
	}
	for (const entry of entries) {
		const path = join(dir, entry.name)
		if (entry.isDirectory()) {
			if (levels > 0) removed += removeLeftTemporaries(path, levels - 1)
			continue
		}
		const match = TEMPORARY_NAME.exec(entry.name)
		if (!match || !entry.isFile() || processAlive(Number(match[1]))) continue
		try {
			unlinkSync(path)
			removed++
		} catch {
			// removed meanwhile, or not ours to remove
		}
	}
	return removed
}

/** Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed, then renamed over it. */
export function writeAtomically(
	path: string,
	bytes: string | Uint8Array,
	mode: number,
	beforeRename?: () => void,
	stillCurrent?: () => boolean
): boolean {
	const temporary = temporaryBeside(path)
	const fd = openSync(temporary, 'wx', mode)
	try {
		writeSync(fd, typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes)
		fsyncSync(fd)
	} catch (error) {
		closeSync(fd)
		rmSync(temporary, { force: true })
		throw error
	}
	closeSync(fd)
	beforeRename?.()
	try {
		// The file changed since it was read (its tool wrote it): the caller merges again rather than lose that.
		if (stillCurrent !== undefined && !stillCurrent()) {
			rmSync(temporary, { force: true })
			return false
		}
		renameSync(temporary, path)
	} catch (error) {
		rmSync(temporary, { force: true })
		throw error
	}
	return true
}

const readBytes = (path: string): Buffer | undefined => {
	try {
		return readFileSync(path)
	} catch {
		return undefined
	}
}

/** How many times a part is merged again into a file its tool keeps rewriting before cfgsync gives up. */
const PART_ATTEMPTS = 20

/**
 * Makes the writes: each file is copied to `backupRoot` first (same relative
 * path, mode 0600), then replaced atomically with exactly the given bytes, or
 * deleted. A symbolic link inside home is written through (the link stays);
 * deleting one removes the link, not what it points to. A write that fails
 * (permission denied, a file where a directory should be, a full disk) leaves
 * that file as it was and the others go on (docs/sync-model.md): `failed`
 * names each, with why, for the caller to keep its old base.
 */
export function applyWrites(writes: Write[], backupRoot: string): { backedUp: number; failed: Map<string, string> } {
	let backedUp = 0
	let written = 0
	const failed = new Map<string, string>()
	for (const write of writes) {
		if (written > 0) crashPoint(`write:${written}`)
		written++
		try {
			if (applyOne(write, backupRoot, written)) backedUp++
		} catch (error) {
			failed.set(write.key, writeFailure(error))
		}
	}
	if (written > 0) crashPoint(`write:${written}`)
	return { backedUp, failed }
}

/** Why a write failed, in words (never a raw error with a temporary file's name). */
function writeFailure(error: unknown): string {
	if (error instanceof CliFailure) return error.message
	const code = (error as { code?: string }).code
	if (code === 'EACCES' || code === 'EPERM') return 'permission denied (a read-only file or directory)'
	if (code === 'EROFS') return 'the file system is read-only'
	if (code === 'ENOSPC' || code === 'EDQUOT') return 'no space left on the disk'
	if (code === 'EEXIST' || code === 'ENOTDIR') return 'a file stands where a directory should be'
	if (code === 'EISDIR') return 'a directory stands where the file should be'
	return code ?? (error instanceof Error ? error.message : String(error))
}

/** One write of applyWrites; whether the file was backed up first. */
function applyOne(write: Write, backupRoot: string, written: number): boolean {
	let backedUp = false
	const target = safeTarget(write.key)
	const stats = lstat(target)
	const other = notRegular(write.key)
	if (other !== undefined) throw new CliFailure(`${shown(write.key)} is ${other}: only regular files are written`)
	let current: Buffer | undefined
	try {
		current = readFileSync(target)
	} catch {
		current = undefined
	}
	const part = partOf(write.key)
	if (current !== undefined) {
		const backup = join(backupRoot, ...(localKey(write.key) ?? write.key).split('/'))
		mkdirSync(dirname(backup), { recursive: true, mode: 0o700 })
		writeAtomically(backup, current, 0o600)
		backedUp = true
	}
	const content = write.content
	// A part of a file (`~/.claude.json`, which its tool rewrites at any moment): merged into the rest of it,
	// which stays as it is (a removed part removes only its key). The file is read again just before the
	// rename, and when the tool wrote it meanwhile, the part is merged into that text instead, so the tool's
	// own write is never lost (docs/sync-model.md).
	if (part) {
		const place = landingPlace(target)
		let mode = 0o600
		try {
			mode = statSync(place).mode & 0o777
		} catch {
			// a new file
		}
		mkdirSync(dirname(place), { recursive: true })
		for (let attempt = 1; ; attempt++) {
			const text = current === undefined ? undefined : utf8.decode(current)
			const next = mergePart(write.key, text, content)
			if (next === undefined) break
			const seen = current
			const unchanged = () => {
				const now = readBytes(place)
				return now === undefined ? seen === undefined : seen !== undefined && now.equals(seen)
			}
			const done = writeAtomically(
				place,
				next,
				mode,
				() => crashPoint(`temporary:${written}`),
				attempt < PART_ATTEMPTS ? unchanged : undefined
			)
			if (done) break
			current = readBytes(place)
		}
		return backedUp
	}
	if (content === null) {
		if (stats !== undefined) unlinkSync(target)
		return backedUp
	}
	const place = landingPlace(target)
	mkdirSync(dirname(place), { recursive: true })
	let mode = 0o600
	try {
		mode = statSync(place).mode & 0o777
	} catch {
		// a new file
	}
	writeAtomically(place, content, mode, () => crashPoint(`temporary:${written}`))
	return backedUp
}
