import { Cron } from 'croner'
import type { Logger } from '../lib/log'
import type { Store } from '../store/types'

/**
 * docs/postgresql.md: a job on a croner schedule that runs once per slot across every
 * instance sharing the database. Each instance's timer fires; the one whose
 * conditional update moves the job's lease to this slot runs it, the others
 * skip. `protect` keeps a slow run from overlapping the next one here.
 */
export function scheduleLeased(options: {
	name: string
	pattern: string
	store: Store
	logger: Logger
	run: () => Promise<unknown>
}): Cron {
	const { name, pattern, store, logger, run } = options
	return new Cron(
		pattern,
		{ name, protect: true, catch: (error) => logger.error(`${name} failed`, { errorMessage: String(error) }) },
		async (self: Cron) => {
			const slot = (self.currentRun() ?? new Date()).getTime()
			await runOnce(store, name, slot, run)
		}
	)
}

/** Runs `run` when this instance wins the lease of `slot` for `name`; true when it ran. */
export async function runOnce(store: Store, name: string, slot: number, run: () => Promise<unknown>): Promise<boolean> {
	if (!(await store.jobs.claim(name, slot))) return false
	await run()
	return true
}
