import { dlopen, FFIType, suffix } from 'bun:ffi'
import { chmodSync, closeSync, openSync } from 'node:fs'
import { join } from 'node:path'
import { giveToDataDirOwner } from './ownership'

/**
 * The data directory's lock (docs/operations.md): every server holds a shared `flock` on this file for its
 * whole life; `restore` and `db copy` take it exclusively and refuse when they cannot. flock, not
 * pid files, because it is seen across containers and PID namespaces that share the directory
 * (a server running as pid 1 in one is invisible to a `restore` running as pid 1 in another), and
 * it is released by the kernel when the holder dies, so a killed server leaves nothing stale.
 * Shared, so that several instances may serve one SQLite file (docs/postgresql.md).
 */
export const LOCK_FILE = 'cfgsync.lock'

const LOCK_SH = 1
const LOCK_EX = 2
const LOCK_NB = 4

type Flock = (fd: number, operation: number) => boolean

let flockOf: Flock | null | undefined

/** libc's flock through Bun's FFI; null where there is no such libc (then only the pid files tell). */
function flock(): Flock | null {
	if (flockOf !== undefined) return flockOf
	const names =
		process.platform === 'linux'
			? ['libc.so.6', 'libc.musl-x86_64.so.1', 'libc.musl-aarch64.so.1']
			: [`libc.${suffix}`, `libSystem.B.${suffix}`]
	flockOf = null
	for (const name of names) {
		try {
			const libc = dlopen(name, { flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } })
			flockOf = (fd, operation) => libc.symbols.flock(fd, operation) === 0
			break
		} catch {}
	}
	return flockOf
}

/** Opens (creating, 0600) the lock file; the descriptor is the lock's handle. */
function openLockFile(dataDir: string): number {
	const file = join(dataDir, LOCK_FILE)
	const fd = openSync(file, 'a+', 0o600)
	chmodSync(file, 0o600)
	giveToDataDirOwner(dataDir, [file])
	return fd
}

/**
 * Takes the server's shared lock for the life of this process (the descriptor is never closed; the
 * kernel drops it at exit). False when a `restore` or `db copy` holds the lock exclusively now.
 */
export function holdServerLock(dataDir: string): boolean {
	const lock = flock()
	if (!lock) return true
	return lock(openLockFile(dataDir), LOCK_SH | LOCK_NB)
}

/**
 * For `restore` and `db copy`: the exclusive lock, held until `release` (or this process ends), so no
 * server starts meanwhile. Undefined when a server holds the lock now.
 */
export function takeExclusiveLock(dataDir: string): { release: () => void } | undefined {
	const lock = flock()
	if (!lock) return { release: () => {} }
	const fd = openLockFile(dataDir)
	if (!lock(fd, LOCK_EX | LOCK_NB)) {
		closeQuietly(fd)
		return undefined
	}
	return { release: () => closeQuietly(fd) }
}

function closeQuietly(fd: number) {
	try {
		// Closing the descriptor releases the flock; it holds no other lock (SQLite's are on other files).
		closeSync(fd)
	} catch {}
}
