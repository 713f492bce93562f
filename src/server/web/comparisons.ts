import { availableParallelism } from 'node:os'
import type { CompareAnswer, CompareJob } from './compare-worker'

/** A comparison answered: the HTML of the page's #diff (the diff, or that it is too large to compare here). */
export type Compared = string

export interface ComparisonsOptions {
	/** How many comparisons run at once (docs/web.md): one per core but one by default (at least one). */
	slots?: number
	/** How long a comparison waits for a free slot before it is refused (503 with Retry-After). */
	waitMs?: number
	/** How many comparisons may wait at once; one more is refused at once. */
	maxWaiting?: number
	/** Runs one comparison: by default in a worker thread (tests replace it). */
	run?: (job: CompareJob) => Promise<Compared>
}

/** A folded run that is not one to show (web/diff.ts foldOf): the page answers 400 with its reason. */
export class FoldNotShown extends Error {}

/** Every slot was taken for as long as a comparison may wait: the page answers 503 with Retry-After. */
export class ComparisonsBusy extends Error {
	constructor(readonly retryAfterSeconds: number) {
		super('every comparison slot is taken')
	}
}

/**
 * The worker's entry. Compiled, it is an entry point of its own (package.json build:server), named by its
 * path from the entries' common folder (the repository: dist/cfgsync.tgz is one of them); from source,
 * beside this file. test/server/e2e/compare-bound.e2e.test.ts fails when this and the build part ways.
 */
const WORKER_ENTRY = import.meta.url.includes('/$bunfs/')
	? './src/server/web/compare-worker.tsx'
	: new URL('./compare-worker.tsx', import.meta.url).href

/** Seconds a refused comparison is told to wait before it is asked again. */
const RETRY_AFTER_SECONDS = 2

/**
 * Comparisons in worker threads, away from the one thread that answers every request, so a comparison,
 * however large, never holds up /healthz or anyone's page; and at most one per core at once, so together
 * they never take the whole machine (docs/web.md). Idle workers are kept for the next comparison and do not
 * keep the process alive.
 */
function workerRunner(): { run: (job: CompareJob) => Promise<Compared>; close(): void } {
	const idle: Worker[] = []
	const all = new Set<Worker>()
	const spawn = () => {
		const worker = new Worker(WORKER_ENTRY, { ref: false })
		all.add(worker)
		return worker
	}
	return {
		run: (job) =>
			new Promise<Compared>((resolve, reject) => {
				const worker = idle.pop() ?? spawn()
				const done = () => {
					worker.removeEventListener('message', onMessage)
					worker.removeEventListener('error', onError)
				}
				const onMessage = (event: MessageEvent<CompareAnswer>) => {
					done()
					idle.push(worker)
					const answer = event.data
					if ('html' in answer) resolve(answer.html)
					else if ('refused' in answer) reject(new FoldNotShown(answer.refused))
					else reject(new Error(`comparison failed: ${answer.failed}`))
				}
				const onError = (event: ErrorEvent) => {
					done()
					all.delete(worker)
					worker.terminate()
					reject(new Error(`comparison worker failed: ${event.message}`))
				}
				worker.addEventListener('message', onMessage)
				worker.addEventListener('error', onError)
				worker.postMessage(job)
			}),
		close() {
			for (const worker of all) worker.terminate()
			all.clear()
			idle.length = 0
		}
	}
}

/**
 * docs/web.md "Comparing versions": at most `slots` comparisons at once; the others wait in order for up to
 * `waitMs`, then are refused with ComparisonsBusy.
 */
export function createComparisons(options: ComparisonsOptions = {}) {
	// One core is left to the thread that answers requests: comparisons never take the whole machine.
	const slots = Math.max(1, options.slots ?? availableParallelism() - 1)
	const waitMs = options.waitMs ?? 3_000
	const maxWaiting = options.maxWaiting ?? slots * 16
	const runner = options.run ? { run: options.run, close() {} } : workerRunner()
	let running = 0
	const waiting: { start: () => void }[] = []

	function acquire(): Promise<void> {
		if (running < slots) {
			running++
			return Promise.resolve()
		}
		if (waitMs <= 0 || waiting.length >= maxWaiting) return Promise.reject(new ComparisonsBusy(RETRY_AFTER_SECONDS))
		return new Promise<void>((resolve, reject) => {
			const entry = {
				start: () => {
					clearTimeout(timer)
					resolve()
				}
			}
			const timer = setTimeout(() => {
				waiting.splice(waiting.indexOf(entry), 1)
				reject(new ComparisonsBusy(RETRY_AFTER_SECONDS))
			}, waitMs)
			waiting.push(entry)
		})
	}

	/** A finished comparison hands its slot to the next one waiting, else frees it. */
	function release(): void {
		const next = waiting.shift()
		if (next) next.start()
		else running--
	}

	return {
		/** Compares two versions' stored data; throws ComparisonsBusy when no slot came free in time. */
		async compare(job: CompareJob): Promise<Compared> {
			await acquire()
			try {
				return await runner.run(job)
			} finally {
				release()
			}
		},
		/** How many comparisons run now and wait (for tests and metrics). */
		get load() {
			return { running, waiting: waiting.length }
		},
		/** Ends the worker threads (shutdown). */
		close: () => runner.close()
	}
}

export type Comparisons = ReturnType<typeof createComparisons>
