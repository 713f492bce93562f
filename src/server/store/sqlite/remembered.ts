import type { Database } from 'bun:sqlite'

/**
 * Rows of the hottest reads (the caller behind a key, a config's current sealed version) remembered
 * while nothing at all is committed to the database: not by this connection (`total_changes()`, which
 * every INSERT, UPDATE and DELETE moves) nor by any other, another process's included
 * (`PRAGMA data_version`, which moves on each of their commits). Both are read before the lookup they
 * vouch for, so a commit between them only forgets more: what a request reads is what the database
 * held when it arrived, as without the memory. The two checks cost about a sixth of the lookup they
 * save (docs/performance.md). After a write of this connection the next lookup is not remembered, so
 * a stream of writes pays the lookup and one cheap check, nothing more. Config data stays sealed here:
 * it is opened per request, as before.
 */
export function rememberedRows<Row>(
	sqlite: Database,
	limits: { rows: number; bytes?: (row: Row) => number; maxBytes?: number }
) {
	const ownChanges = sqlite.prepare<{ n: number }, []>('SELECT total_changes() AS n')
	const othersCommits = sqlite.prepare<{ data_version: number }, []>('PRAGMA data_version')
	const rows = new Map<string, Row>()
	let bytes = 0
	// What the remembered rows were read after; -1: nothing vouches for them yet.
	let seenChanges = -1
	let seenVersion = -1
	const forget = () => {
		rows.clear()
		bytes = 0
	}
	const read = (key: string, load: () => Row | undefined): Row | undefined => {
		const changes = (ownChanges.get() as { n: number }).n
		if (changes !== seenChanges) {
			forget()
			seenChanges = changes
			seenVersion = -1
			return load()
		}
		const version = (othersCommits.get() as { data_version: number }).data_version
		if (version !== seenVersion) {
			forget()
			seenVersion = version
		}
		const known = rows.get(key)
		if (known !== undefined) return known
		const row = load()
		if (row === undefined) return row
		const size = limits.bytes?.(row) ?? 0
		// Bounded: a flood of distinct keys, or of large versions, starts the memory again.
		if (rows.size >= limits.rows || bytes + size > (limits.maxBytes ?? Number.POSITIVE_INFINITY)) forget()
		if (size <= (limits.maxBytes ?? Number.POSITIVE_INFINITY)) {
			rows.set(key, row)
			bytes += size
		}
		return row
	}
	return Object.assign(read, {
		/**
		 * Runs `write`, a synchronous transaction the caller knows changes none of the remembered rows (a push
		 * writes versions, a config's row and the audit log, never a key or a user), and keeps them remembered
		 * across it: only the changes made inside it are excused, and only when nothing else was written since
		 * the rows were vouched for. A write that fails excuses nothing.
		 */
		unaffectedBy<T>(write: () => T): T {
			const before = (ownChanges.get() as { n: number }).n
			const result = write()
			if (seenChanges === before) seenChanges = (ownChanges.get() as { n: number }).n
			return result
		}
	})
}
