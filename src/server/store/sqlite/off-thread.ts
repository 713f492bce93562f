/**
 * Runs heavy or blocking SQLite work on a Worker so the event loop keeps answering requests meanwhile
 * (docs/performance.md: at a 1 GB database a scheduled backup stopped the server for 6.5 s; a WAL
 * checkpoint's fsync inside a purge step stalled requests by tens of milliseconds). A backup takes a
 * thread of its own (rare, and a thread costs milliseconds to start); the purge's checkpoints share one
 * thread for as long as the store is open (wal-checkpoints.ts).
 */
export type SqliteJob =
	/** `immutable`: the source cannot change now (read-only, no WAL): SQLite then needs no lock or shared-memory file. */
	| { kind: 'vacuum-into'; source: string; target: string; immutable?: boolean }
	| { kind: 'integrity-check'; file: string }
	/** A PASSIVE checkpoint: copies what it can of the WAL into the file without waiting for anyone. */
	| { kind: 'checkpoint'; file: string }

export type SqliteJobResult = { ok: true; rows: string[] } | { ok: false; error: string }

/**
 * The worker's entry point. The compiled server embeds it (package.json, build:server) under its
 * entry points' common root, the repository's, where this code runs from a chunk; from the sources it
 * sits beside this file.
 */
const WORKER = import.meta.url.includes('/$bunfs/')
	? new URL('./src/server/store/sqlite/worker.ts', import.meta.url).href
	: new URL('./worker.ts', import.meta.url).href

/** A worker that runs jobs one after another, in the order given, until `end`. */
export type SqliteThread = { run(job: SqliteJob): Promise<string[]>; end(): void }

/** `kept`: a thread kept for later jobs, which must not keep the process alive once all else is done. */
export function sqliteThread({ kept = false } = {}): SqliteThread {
	const worker = new Worker(WORKER, { ref: !kept })
	// The worker answers in the order it was asked.
	const waiting: { resolve: (rows: string[]) => void; reject: (error: Error) => void }[] = []
	let ended = false
	const failAll = (error: Error) => {
		for (const job of waiting.splice(0)) job.reject(error)
	}
	worker.onmessage = (event: MessageEvent<SqliteJobResult>) => {
		const job = waiting.shift()
		if (event.data.ok) job?.resolve(event.data.rows)
		else job?.reject(new Error(event.data.error))
	}
	worker.onerror = (event) => {
		ended = true
		worker.terminate()
		failAll(new Error(event.message || 'the SQLite thread failed'))
	}
	return {
		run(job) {
			if (ended) return Promise.reject(new Error('the SQLite thread has ended'))
			return new Promise<string[]>((resolve, reject) => {
				waiting.push({ resolve, reject })
				worker.postMessage(job)
			})
		},
		end() {
			if (ended) return
			ended = true
			worker.terminate()
			failAll(new Error('the SQLite thread has ended'))
		}
	}
}

/** One job on a thread of its own, ended once it answers. */
export async function offThread(job: SqliteJob): Promise<string[]> {
	const thread = sqliteThread()
	try {
		return await thread.run(job)
	} finally {
		thread.end()
	}
}
