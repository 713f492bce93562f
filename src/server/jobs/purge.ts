import type { Cron } from 'croner'
import { toIso, type Clock } from '../lib/clock'
import { DAY_MS, SESSION_IDLE_MS, SLUG_RESERVATION_MS, TEAM_RETENTION_MS } from '../../shared/constants'
import type { Logger } from '../lib/log'
import { THROTTLE } from '../modules/auth/service'
import type { Store } from '../store/types'
import { scheduleLeased } from './schedule'

/**
 * The most rows one step of the purge or the retention prune removes. Steps are sized by time under
 * it: between two of them the server answers requests (docs/performance.md#purge: a 500,000-version
 * team was one 1.4 s transaction, and its 10,000 configs one 280 ms cascade).
 */
export const PURGE_BATCH = 2000
/**
 * What one step aims to take; a step that took longer makes the next one smaller in proportion. A
 * request that arrives meanwhile waits for the step (its WAL checkpoint runs on another thread,
 * store/sqlite/wal-checkpoints.ts): at 10 ms, latest's p99 during a 1M-version purge read 7-8 ms.
 */
export const STEP_TARGET_MS = 10
const FIRST_STEP = 200
const SMALLEST_STEP = 50

/** Lets the event loop run what waits (requests, timers) before the next batch. */
const yieldToRequests = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Runs `step(limit)` until `more` says it is done, yielding to requests between steps. The limit
 * follows how long the last step took, up to `most`: a row is a 256-byte version or a 512 KiB one, a
 * fast disk or a slow one, so no one count suits every database.
 */
async function inSteps(
	step: (limit: number) => Promise<number>,
	most: number,
	more: (removed: number, limit: number) => boolean
) {
	let limit = Math.min(most, FIRST_STEP)
	const floor = Math.min(most, SMALLEST_STEP)
	for (;;) {
		const started = performance.now()
		const removed = await step(limit)
		if (!more(removed, limit)) return
		const took = performance.now() - started
		// At most halved at a time and never under a floor: a step's fixed cost (a commit's fsync on a busy
		// disk) would otherwise shrink it to a few rows a step, a purge of hours.
		if (took > STEP_TARGET_MS)
			limit = Math.max(floor, Math.floor(limit / 2), Math.floor((limit * STEP_TARGET_MS) / took))
		else if (took < STEP_TARGET_MS / 2) limit = Math.min(most, limit * 2)
		await yieldToRequests()
	}
}

/**
 * docs/api.md: a soft-deleted team is removed for good 30 days after deletion, with
 * its memberships, configs and versions. Its configs and versions go first, in short
 * steps that let requests in between; then the team's row with its memberships. A crash
 * mid-way leaves a team that is deleted for everyone either way, with whole configs
 * (each step keeps a remaining config's current version), and the next run finishes it.
 * Returns how many went.
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
		await inSteps(
			(limit) => store.teams.purgeStep(teamId, limit),
			batch,
			(removed) => removed > 0
		)
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
	await inSteps(
		(limit) => deps.store.audit.prune(retainedFrom, limit),
		deps.batch ?? PURGE_BATCH,
		(removed, limit) => removed === limit
	)
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
