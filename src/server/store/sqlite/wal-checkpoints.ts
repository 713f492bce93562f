import type { Database } from 'bun:sqlite'
import { type SqliteThread, sqliteThread } from './off-thread'

/**
 * Background writes (the purge's steps, the audit prune's) whose WAL checkpoint runs on another thread.
 *
 * SQLite checkpoints at the commit that takes the WAL past `wal_autocheckpoint` pages: it copies them
 * into the file and fsyncs, on the committing thread, the server's. Inside a purge step that added
 * 10-40 ms to the step, so a request that waited for it waited that much more (docs/performance.md#purge:
 * latest's p99 during a 1M-version purge read 26-59 ms with the checkpoint at 250 pages, its steps
 * alone at most 15-25 ms). Here the step commits with no checkpoint and a PASSIVE one then runs on a
 * thread of its own while the server answers requests; the next step starts once it has finished, so
 * the WAL stays as small as it was. Requests' own commits keep SQLite's checkpoint as before.
 */
export type WalCheckpoints = {
	/** Runs `write` (one transaction) with no checkpoint at its commit, then checkpoints off the thread. */
	afterStep<T>(write: () => T): Promise<T>
	end(): void
}

export function walCheckpoints(sqlite: Database, file: string): WalCheckpoints {
	let thread: SqliteThread | undefined
	return {
		async afterStep<T>(write: () => T): Promise<T> {
			// An in-memory database has no WAL.
			if (file === ':memory:') return write()
			const { wal_autocheckpoint: pages } = sqlite.query('PRAGMA wal_autocheckpoint').get() as {
				wal_autocheckpoint: number
			}
			sqlite.run('PRAGMA wal_autocheckpoint = 0')
			let result: T
			try {
				result = write()
			} finally {
				sqlite.run(`PRAGMA wal_autocheckpoint = ${pages}`)
			}
			thread ??= sqliteThread({ kept: true })
			// A checkpoint that fails (the thread could not start) loses nothing: the WAL keeps the commits,
			// and the next request's commit past the threshold checkpoints as SQLite always did.
			await thread.run({ kind: 'checkpoint', file }).catch(() => undefined)
			return result
		},
		end: () => thread?.end()
	}
}
