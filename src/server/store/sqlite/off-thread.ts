/**
 * Runs a backup's heavy SQLite work (the copy, the integrity check) on a Worker so the event loop keeps
 * answering requests meanwhile (docs/performance.md: at a 1 GB database a scheduled backup stopped the server
 * for 6.5 s). A thread a job: backups are rare and a thread costs milliseconds to start.
 */
export type SqliteJob =
	| { kind: 'vacuum-into'; source: string; target: string }
	| { kind: 'integrity-check'; file: string }

export type SqliteJobResult = { ok: true; rows: string[] } | { ok: false; error: string }

/**
 * The worker's entry point. The compiled server embeds it (package.json, build:server) under its
 * entry points' common root, the repository's, where this code runs from a chunk; from the sources it
 * sits beside this file.
 */
const WORKER = import.meta.url.includes('/$bunfs/')
	? new URL('./src/server/store/sqlite/worker.ts', import.meta.url).href
	: new URL('./worker.ts', import.meta.url).href

export function offThread(job: SqliteJob): Promise<string[]> {
	const worker = new Worker(WORKER)
	return new Promise<string[]>((resolve, reject) => {
		worker.onmessage = (event: MessageEvent<SqliteJobResult>) => {
			worker.terminate()
			if (event.data.ok) resolve(event.data.rows)
			else reject(new Error(event.data.error))
		}
		worker.onerror = (event) => {
			worker.terminate()
			reject(new Error(event.message || 'the backup thread failed'))
		}
		worker.postMessage(job)
	})
}
