// The heavy, read-only SQLite work of a backup, run on a thread of its own (docs/performance.md): `VACUUM INTO`
// copies a snapshot of a large database and `PRAGMA integrity_check` reads every page of the copy, each
// for seconds at a gigabyte. On the server's thread they stopped every request meanwhile; here the
// server's connection goes on serving (WAL lets this connection read its snapshot while others write).
// One message in, one out; the thread is ended by off-thread.ts.
import { Database } from 'bun:sqlite'
import type { SqliteJob, SqliteJobResult } from './off-thread'

declare const self: Worker

self.onmessage = (event: MessageEvent<SqliteJob>) => {
	const job = event.data
	let result: SqliteJobResult
	try {
		if (job.kind === 'vacuum-into') {
			const db = new Database(job.source, { readonly: true })
			try {
				db.run('PRAGMA busy_timeout = 5000')
				db.run('VACUUM INTO ?', [job.target])
			} finally {
				db.close()
			}
			result = { ok: true, rows: [] }
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
