import type { Clock } from '../../lib/clock'
import { AppError } from '../../lib/errors'
import { uuidv7Floor } from '../../lib/ids'
import type { Owner, Store } from '../../store/types'
import { formatBytes } from '../../../shared/text'

/** Quotas (docs/operations.md): bytes stored per user (personal configs) or team, and stored pushes a minute per user; 0 is no limit. */
export interface QuotaLimits {
	bytes: number
	pushesPerMinute: number
}

export const DEFAULT_QUOTAS: QuotaLimits = { bytes: 256 * 1024 * 1024, pushesPerMinute: 120 }

const MINUTE_MS = 60_000
/** How long a cached usage is believed before the database is asked again (it is asked anyway before a refusal). */
const USAGE_FRESH_MS = 60_000
/** Below this many pushes through this process in the last minute, the rate needs no database (see `checkRate`). */
const LOCAL_FREE_PUSHES = 10
/** Entries kept in each memory; past it they start afresh (a few MB at most). */
const REMEMBERED_MAX = 10_000

const ownerKey = (owner: Owner) => (owner.teamId === null ? `u:${owner.userId}` : `t:${owner.teamId}`)

/**
 * The quotas' checks, kept off the hot path: a push asks no database in the common case. What an owner stores is
 * cached per process (refreshed once a minute, and always read afresh before a push is refused, so a deletion
 * elsewhere never causes a wrong refusal); a user's pushes a minute are counted in memory, and the database
 * (the audit log's pushes, counted across every instance) is asked only once this process has seen 10 of
 * them in the last minute. So a push costs one map lookup until someone comes near a limit.
 */
export function createQuota({ store, clock, limits }: { store: Store; clock: Clock; limits: QuotaLimits }) {
	const usage = new Map<string, { bytes: number; at: number }>()
	const recent = new Map<string, number[]>()

	const remember = <V>(map: Map<string, V>, key: string, value: V) => {
		if (map.size >= REMEMBERED_MAX && !map.has(key)) map.clear()
		map.set(key, value)
	}

	const fresh = async (owner: Owner): Promise<number> => {
		const bytes = await store.configs.storedBytes(owner)
		remember(usage, ownerKey(owner), { bytes, at: clock.now() })
		return bytes
	}

	const pushesOf = (userId: string, now: number): number[] => {
		const times = (recent.get(userId) ?? []).filter((at) => at > now - MINUTE_MS)
		remember(recent, userId, times)
		return times
	}

	const rateLimited = (retryAt: number, now: number) => {
		const seconds = Math.max(1, Math.ceil((retryAt - now) / 1000))
		return new AppError(
			'rate_limited',
			`Too many pushes: at most ${limits.pushesPerMinute} pushes a minute per user (CFGSYNC_QUOTA_PUSHES_PER_MINUTE). Try again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
			{ headers: { 'retry-after': String(seconds) } }
		)
	}

	return {
		limits,

		/** Refuses (429 rate_limited, Retry-After) a push past the user's pushes a minute. */
		async checkRate(userId: string): Promise<void> {
			const limit = limits.pushesPerMinute
			if (limit <= 0) return
			const now = clock.now()
			const local = pushesOf(userId, now)
			if (local.length < Math.min(LOCAL_FREE_PUSHES, limit)) return
			// This process's own pushes are real: at the limit already, no need to ask.
			if (local.length >= limit) throw rateLimited((local[local.length - limit] as number) + MINUTE_MS, now)
			const tipped = await store.configs.nthPushSince(userId, uuidv7Floor(now - MINUTE_MS), limit)
			if (tipped !== undefined) throw rateLimited(Date.parse(tipped) + MINUTE_MS, now)
		},

		/** Refuses (413 quota_exceeded) a version of `incoming` bytes that would take the owner past the quota. */
		async checkBytes(owner: Owner, incoming: number): Promise<void> {
			const limit = limits.bytes
			if (limit <= 0) return
			const cached = usage.get(ownerKey(owner))
			const now = clock.now()
			let used = cached && now - cached.at < USAGE_FRESH_MS && now >= cached.at ? cached.bytes : await fresh(owner)
			if (used + incoming <= limit) return
			if (cached) used = await fresh(owner)
			if (used + incoming <= limit) return
			const whose = owner.teamId === null ? 'your configs' : "this team's configs"
			throw new AppError(
				'quota_exceeded',
				`Storage quota reached: ${whose} may store at most ${limit.toLocaleString('en')} bytes (${formatBytes(limit)}; CFGSYNC_QUOTA_BYTES), ${formatBytes(used)} are stored and this version needs ${formatBytes(incoming)}. Delete configs you no longer need (their history goes with them), or ask the server's admin for a larger quota.`,
				{ extra: { usedBytes: used, limitBytes: limit } }
			)
		},

		/** A version of `bytes` was stored for `owner` by `userId`: both counters move. */
		stored(owner: Owner, userId: string, bytes: number): void {
			const cached = usage.get(ownerKey(owner))
			if (cached) cached.bytes += bytes
			const limit = limits.pushesPerMinute
			if (limit <= 0) return
			// Only the newest `limit` times matter (the oldest of them says when the next push may go).
			const now = clock.now()
			const times = pushesOf(userId, now)
			times.push(now)
			if (times.length > limit) times.splice(0, times.length - limit)
		},

		/** What an owner stores now, from the database (the Account page, GET /api/usage). */
		usedBytes: (owner: Owner): Promise<number> => fresh(owner)
	}
}
