// The heavy, read-only SQLite work of a backup, run on a thread of its own (docs/performance.md): `VACUUM INTO`
// copies a snapshot of a large database and `PRAGMA integrity_check` reads every page of the copy, each
// for seconds at a gigabyte. On the server's thread they stopped every request meanwhile; here the
// server's connection goes on serving (WAL lets this connection read its snapshot while others write).
// Each message is answered with one, in order; the thread is ended by off-thread.ts. A checkpoint opens
// a connection of its own and closes it: never the file's last connection, so closing it checkpoints
// nothing and leaves the WAL in place.
import { constants, Database } from 'bun:sqlite'
import type { SqliteJob, SqliteJobResult } from './off-thread'

declare const self: Worker

self.onmessage = (event: MessageEvent<SqliteJob>) => {
	const job = event.data
	let result: SqliteJobResult
	try {
		if (job.kind === 'vacuum-into') {
			const db = job.immutable
				? new Database(
						`file:${encodeURI(job.source).replace(/[?#]/g, encodeURIComponent)}?immutable=1`,
						constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI
					)
				: new Database(job.source, { readonly: true })
			try {
				db.run('PRAGMA busy_timeout = 5000')
				db.run('VACUUM INTO ?', [job.target])
			} finally {
				db.close()
			}
			result = { ok: true, rows: [] }
		} else if (job.kind === 'checkpoint') {
			const db = new Database(job.file, { readwrite: true, create: false })
			try {
				const row = db
					.query<{ busy: number; log: number; checkpointed: number }, []>('PRAGMA wal_checkpoint(PASSIVE)')
					.get()
				result = { ok: true, rows: row ? [`${row.busy} ${row.log} ${row.checkpointed}`] : [] }
			} finally {
				db.close()
			}
		} else {
			const db = new Database(job.file, { readonly: true })
			try {
				const rows = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').all()
				result = { ok: true, rows: rows.map((row) => row.integrity_check) }
			} finally {
				db.close()
			}
		}
	} catch (error) {
		result = { ok: false, error: (error as Error).message }
	}
	postMessage(result)
}
