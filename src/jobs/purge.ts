import { Cron } from 'croner'
import { toIso, type Clock } from '../lib/clock'
import { TEAM_RETENTION_MS } from '../lib/constants'
import type { Logger } from '../lib/log'
import type { Store } from '../store/types'

/**
 * SPEC: a soft-deleted team is removed for good 30 days after deletion, with
 * its memberships, configs and versions; one transaction per team, so a crash
 * mid-way leaves every team either whole or gone. Returns how many went.
 */
export async function purgeDeletedTeams({ store, clock, logger }: { store: Store; clock: Clock; logger: Logger }): Promise<number> {
	const due = await store.teams.deletedBefore(toIso(clock.now() - TEAM_RETENTION_MS))
	let purged = 0
	for (const teamId of due) {
		if (await store.teams.purge(teamId)) purged++
	}
	if (purged > 0) logger.info('purged deleted teams', { count: purged })
	return purged
}

/** CONTRACT §5: hourly, and once at start. `protect` keeps runs from overlapping. */
export function schedulePurge(deps: { store: Store; clock: Clock; logger: Logger }, housekeeping: () => Promise<unknown> = async () => {}): Cron {
	const run = async () => {
		await purgeDeletedTeams(deps)
		await housekeeping()
	}
	const job = new Cron('0 * * * *', { name: 'purge', protect: true, catch: (error) => deps.logger.error('purge failed', { errorMessage: String(error) }) }, run)
	void run().catch((error) => deps.logger.error('purge failed', { errorMessage: String(error) }))
	return job
}
