import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, unlinkSync, writeSync, type Stats } from 'node:fs'
import { basename, dirname, join, resolve, sep } from 'node:path'
import { CliFailure, safe } from './output'
import { home } from './paths'
import { emptyMap, type Files, type Write } from './sync/engine'
import { localKey, shown } from './tools'

/** The config format the CLI pushes: `{"files": {"<key>": "<content>"}}`. */
export interface FileSet {
	files: Record<string, string>
}

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
	if (rel === undefined || key === '' || key.includes('\0') || rel.startsWith('/') || key.includes('\\') || /^[A-Za-z]:/.test(key) || parts.some((p) => p === '..' || p === '' || p === '.')) {
		throw new CliFailure(`refusing the unsafe path "${safe(key)}" in the server's data; nothing was written`)
	}
	const target = resolve(home(), ...parts)
	if (!target.startsWith(home() + sep)) throw new CliFailure(`refusing "${safe(key)}": it is outside your home directory; nothing was written`)
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
	const path = safeTarget(key)
	let stats: Stats
	try {
		stats = statSync(path)
	} catch {
		return undefined // absent, or a link to nothing
	}
	if (stats.isDirectory()) throw new CliFailure(`${shown(key)} is a directory, not a file`)
	try {
		return utf8.decode(readFileSync(path))
	} catch {
		throw new CliFailure(`${shown(key)} is not UTF-8 text; cfgsync syncs text configuration files`)
	}
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

/** Is `data` the CLI's file-set format? (A config pushed by something else may not be.) */
export function asFileSet(data: unknown): FileSet | undefined {
	if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
	const files = (data as { files?: unknown }).files
	if (typeof files !== 'object' || files === null || Array.isArray(files)) return undefined
	if (!Object.values(files).every((content) => typeof content === 'string')) return undefined
	return { files: files as Record<string, string> }
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
 * Writes a pull would refuse (issue 15 point 7): a symbolic link whose target
 * is outside home is never written through. Key → the reason, for each one.
 */
export function refusedWrites(writes: Write[]): Map<string, string> {
	const refused = new Map<string, string>()
	const inside = realHome() + sep
	for (const write of writes) {
		const target = safeTarget(write.key)
		const place = landingPlace(target)
		if (!place.startsWith(inside) && place !== target) {
			refused.set(write.key, `it is a symbolic link (or inside a linked directory) that points outside your home directory, to ${safe(place)}`)
		}
	}
	return refused
}

/** A name for a temporary file beside `path`, unique to this process and call. */
const temporaryBeside = (path: string) => join(dirname(path), `.${basename(path)}.cfgsync-${process.pid}-${randomBytes(4).toString('hex')}.tmp`)

/** Writes `bytes` to `path` atomically: a temporary file in the same directory, flushed, then renamed over it. */
export function writeAtomically(path: string, bytes: string | Uint8Array, mode: number): void {
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
	try {
		renameSync(temporary, path)
	} catch (error) {
		rmSync(temporary, { force: true })
		throw error
	}
}

/**
 * Makes the writes: each file is copied to `backupRoot` first (same relative
 * path, mode 0600), then replaced atomically with exactly the given bytes, or
 * deleted. A symbolic link inside home is written through (the link stays);
 * deleting one removes the link, not what it points to.
 */
export function applyWrites(writes: Write[], backupRoot: string): { backedUp: number } {
	let backedUp = 0
	for (const write of writes) {
		const target = safeTarget(write.key)
		const stats = lstat(target)
		let current: Buffer | undefined
		try {
			current = readFileSync(target)
		} catch {
			current = undefined
		}
		if (current !== undefined) {
			const backup = join(backupRoot, ...write.key.split('/'))
			mkdirSync(dirname(backup), { recursive: true, mode: 0o700 })
			writeAtomically(backup, current, 0o600)
			backedUp++
		}
		if (write.content === null) {
			if (stats !== undefined) unlinkSync(target)
			continue
		}
		const place = landingPlace(target)
		mkdirSync(dirname(place), { recursive: true })
		let mode = 0o600
		try {
			mode = statSync(place).mode & 0o777
		} catch {
			// a new file
		}
		writeAtomically(place, write.content, mode)
	}
	return { backedUp }
}
