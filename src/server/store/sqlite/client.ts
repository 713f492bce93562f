import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { chmodSync, closeSync, existsSync, openSync, statSync } from 'node:fs'
import * as schema from './schema'

export type SqliteDb = ReturnType<typeof drizzleFor>

const drizzleFor = (sqlite: Database) => drizzle({ client: sqlite, schema })

/**
 * Opens the database file with the pragmas every connection needs:
 * WAL so readers never wait for the writer, foreign keys for cascades, and a
 * busy timeout so a server and an admin command on one file wait instead of failing.
 */
export function openDatabase(file: string): Database {
	if (file !== ':memory:') makePrivate(file)
	const sqlite = new Database(file, { create: true, strict: true })
	sqlite.run('PRAGMA busy_timeout = 5000')
	if (file !== ':memory:') {
		switchToWal(sqlite)
		// SQLite gives the WAL and shared-memory files the database file's mode; older ones may predate that.
		for (const companion of [`${file}-wal`, `${file}-shm`]) if (existsSync(companion)) tighten(companion)
	}
	// In WAL mode a killed process loses no commit; only a power cut can lose the last few, never corrupting the file.
	sqlite.run('PRAGMA synchronous = NORMAL')
	sqlite.run('PRAGMA foreign_keys = ON')
	return sqlite
}

/**
 * WAL mode, waiting out another process that holds the new file: switching a database's journal
 * mode needs it alone, and SQLite answers SQLITE_BUSY at once there rather than through the busy
 * timeout (two first starts at once saw "database is locked"). Once one of them has switched, the
 * other's pragma only reads.
 */
function switchToWal(sqlite: Database) {
	for (let attempt = 1; ; attempt++) {
		try {
			sqlite.run('PRAGMA journal_mode = WAL')
			return
		} catch (error) {
			if ((error as { code?: string }).code !== 'SQLITE_BUSY' || attempt >= 200) throw error
			Bun.sleepSync(25)
		}
	}
}

export const wrap = (sqlite: Database): SqliteDb => drizzleFor(sqlite)

/**
 * docs/operations.md: the database is 0600 whatever the directory's mode or the
 * umask. Created empty with that mode (SQLite then uses it for the WAL and
 * shared-memory files too); an existing one from an older version is tightened.
 */
function makePrivate(file: string) {
	try {
		closeSync(openSync(file, 'wx', 0o600))
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
	}
	tighten(file)
}

/**
 * 0600, changed only when it is not: a file that already is needs no write (a read-only mount, a
 * directory another user owns). One this process may not change is left to its owner's server, which
 * tightens it at its start.
 */
function tighten(file: string) {
	if ((statSync(file).mode & 0o777) === 0o600) return
	try {
		chmodSync(file, 0o600)
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code
		if (code !== 'EPERM' && code !== 'EROFS') throw error
	}
}

/** Reads and writes `meta` values on the raw connection (inside the migration transaction). */
export function rawMeta(sqlite: Database) {
	return {
		get: (key: string) =>
			sqlite.query<{ value: string }, [string]>('SELECT value FROM meta WHERE key = ?').get(key)?.value,
		set: (key: string, value: string) =>
			void sqlite.run(
				'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
				[key, value]
			)
	}
}

/** How long a write waits for another process's write lock, as `busy_timeout` says for everything else. */
const WRITE_WAIT_MS = 5000

/**
 * For one connection: runs `attempt` (a `transaction.immediate` call) and, while another process
 * holds the write lock, tries again after short sleeps that let this process's other requests run
 * (docs/performance.md). SQLite's own busy handler sleeps inside the call, so a push waiting for the
 * other worker's commit froze every request of its process, in steps of up to 100 ms. Writes that
 * find the lock taken wait in line, first come first served: a later one trying in the gaps would
 * overtake the one that waited longest. The busy timeout is 0 only for the attempt itself, so no
 * other statement of this process meets SQLITE_BUSY where it would have waited.
 */
export function writerWhenFree(sqlite: Database) {
	let line: Promise<unknown> = Promise.resolve()
	let waiting = 0
	const once = <T>(attempt: () => T): { done: true; value: T } | { done: false; busy: unknown } => {
		sqlite.run('PRAGMA busy_timeout = 0')
		try {
			return { done: true, value: attempt() }
		} catch (error) {
			if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error
			return { done: false, busy: error }
		} finally {
			sqlite.run(`PRAGMA busy_timeout = ${WRITE_WAIT_MS}`)
		}
	}
	const untilFree = async <T>(attempt: () => T, deadline: number): Promise<T> => {
		for (let pause = 0.25; ; pause = Math.min(pause * 2, 4)) {
			const tried = once(attempt)
			if (tried.done) return tried.value
			if (performance.now() >= deadline) throw tried.busy
			await Bun.sleep(pause)
		}
	}
	return async <T>(attempt: () => T): Promise<T> => {
		const deadline = performance.now() + WRITE_WAIT_MS
		if (waiting === 0) {
			const tried = once(attempt)
			if (tried.done) return tried.value
		}
		waiting++
		const turn = line.then(() => untilFree(attempt, deadline))
		line = turn.catch(() => {})
		try {
			return await turn
		} finally {
			waiting--
		}
	}
}
