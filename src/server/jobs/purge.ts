import type { Cron } from 'croner'
import { toIso, type Clock } from '../lib/clock'
import { DAY_MS, SESSION_IDLE_MS, SLUG_RESERVATION_MS, TEAM_RETENTION_MS } from '../../shared/constants'
import type { Logger } from '../lib/log'
import { THROTTLE } from '../modules/auth/service'
import type { Store } from '../store/types'
import { scheduleLeased } from './schedule'

/**
 * How many rows one statement of the purge or the retention prune removes; between two batches the
 * server answers requests (docs/performance.md: a 500,000-version team was one 1.4 s transaction).
 */
export const PURGE_BATCH = 2000

/** Lets the event loop run what waits (requests, timers) before the next batch. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * docs/api.md: a soft-deleted team is removed for good 30 days after deletion, with
 * its memberships, configs and versions. Its old versions go first, in batches
 * that let requests in between; then one transaction removes the team with the
 * rest. A crash mid-way leaves a team that is deleted for everyone either way,
 * and the next run finishes it. Returns how many went.
 */
export async function purgeDeletedTeams({
	store,
	clock,
	logger,
	batch = PURGE_BATCH
}: {
	store: Store
	clock: Clock
	logger: Logger
	batch?: number
}): Promise<number> {
	const due = await store.teams.deletedBefore(toIso(clock.now() - TEAM_RETENTION_MS))
	let purged = 0
	for (const teamId of due) {
		while ((await store.teams.purgeVersions(teamId, batch)) === batch) await yieldToRequests()
		if (await store.teams.purge(teamId)) purged++
		await yieldToRequests()
	}
	if (purged > 0) logger.info('purged deleted teams', { count: purged })
	return purged
}

type JobDeps = { store: Store; clock: Clock; logger: Logger; auditRetentionDays?: number; batch?: number }

/** docs/operations.md: audit events are kept 365 days unless CFGSYNC_AUDIT_RETENTION_DAYS says otherwise. */
export const DEFAULT_AUDIT_RETENTION_DAYS = 365

/**
 * The scheduled work: the team purge, and dropping what no longer counts —
 * failed logins older than the throttling window, slug reservations past
 * their 30 days, expired invitations and web sessions, audit events past retention.
 */
export async function housekeeping(deps: JobDeps): Promise<number> {
	const purged = await purgeDeletedTeams(deps)
	const now = deps.clock.now()
	await deps.store.loginFailures.prune(now - THROTTLE.windowMs)
	await deps.store.teams.pruneReservationsAndInvitations(toIso(now - SLUG_RESERVATION_MS), toIso(now))
	await deps.store.sessions.prune(toIso(now), toIso(now - SESSION_IDLE_MS))
	const retainedFrom = toIso(now - (deps.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * DAY_MS)
	const batch = deps.batch ?? PURGE_BATCH
	while ((await deps.store.audit.prune(retainedFrom, batch)) === batch) await yieldToRequests()
	return purged
}

/**
 * docs/api.md: hourly, once across instances (docs/postgresql.md), and at start: each instance
 * catches up on its own when it starts (the work is idempotent, so two at once only repeat it).
 */
export function schedulePurge(deps: JobDeps): Cron {
	void housekeeping(deps).catch((error) => deps.logger.error('purge failed', { errorMessage: String(error) }))
	return scheduleLeased({
		name: 'purge',
		pattern: '0 * * * *',
		store: deps.store,
		logger: deps.logger,
		run: () => housekeeping(deps)
	})
}
