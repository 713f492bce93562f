import type { Cron } from 'croner'
import { toIso, type Clock } from '../lib/clock'
import { DAY_MS, SESSION_IDLE_MS, SLUG_RESERVATION_MS, TEAM_RETENTION_MS } from '../../shared/constants'
import type { Logger } from '../lib/log'
import { THROTTLE } from '../modules/auth/service'
import type { Store } from '../store/types'
import { scheduleLeased } from './schedule'

/**
 * SPEC: a soft-deleted team is removed for good 30 days after deletion, with
 * its memberships, configs and versions; one transaction per team, so a crash
 * mid-way leaves every team either whole or gone. Returns how many went.
 */
export async function purgeDeletedTeams({
	store,
	clock,
	logger
}: {
	store: Store
	clock: Clock
	logger: Logger
}): Promise<number> {
	const due = await store.teams.deletedBefore(toIso(clock.now() - TEAM_RETENTION_MS))
	let purged = 0
	for (const teamId of due) {
		if (await store.teams.purge(teamId)) purged++
	}
	if (purged > 0) logger.info('purged deleted teams', { count: purged })
	return purged
}

type JobDeps = { store: Store; clock: Clock; logger: Logger; auditRetentionDays?: number }

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
	await deps.store.audit.prune(toIso(now - (deps.auditRetentionDays ?? DEFAULT_AUDIT_RETENTION_DAYS) * DAY_MS))
	return purged
}

/**
 * docs/api.md: hourly, once across instances (§9), and at start: each instance
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
