import { buildInfo } from '../../build-info'
import type { Sealer } from '../../lib/crypto'
import { AppError, DatabaseDownError } from '../../lib/errors'
import { KEY_CHECK, opensKeyCheck, PENDING_KEY_META } from '../../lib/key-check'
import type { SealedRecord, Store } from '../../store/types'
import type { AppMetrics } from './metrics'

function opensRecord(sealer: Pick<Sealer, 'openBytes'>, record: SealedRecord | null): boolean {
	if (record === null) return false
	try {
		sealer.openBytes(record.sealed, `${record.configId}:${record.id}`)
		return true
	} catch {
		return false
	}
}

/** What `/healthz` and `/readyz` check (docs/api.md): the database answers; the master key opens what it sealed. */
export function createHealthService(deps: {
	store: Store
	sealer: Pick<Sealer, 'open' | 'openBytes' | 'learn'>
	metrics: Pick<AppMetrics, 'backupState'>
}) {
	const { store, sealer } = deps
	return {
		/** Liveness: resolves when the database answers, else throws an internal error caused by why it does not. */
		async live(): Promise<void> {
			const failure = await store.ping().then(
				(answers) => (answers ? undefined : new DatabaseDownError(store.downReason)),
				(error: unknown) => error ?? new DatabaseDownError('the database does not answer')
			)
			// Logged once per 10 s as the database's failure, not as a bug (plugins/errors.ts).
			if (failure !== undefined) throw new AppError('internal', 'The database does not answer.', { cause: failure })
		},

		/** Readiness, for load balancers: the database answers and the master key opens its check value and the newest version. */
		async ready() {
			const answers = await store.ping().catch(() => false)
			const value = answers ? await store.meta.get(KEY_CHECK.meta).catch(() => null) : null
			// The newest version must open too: a server whose check value opens but whose data does not is no use.
			const newest = answers ? await store.configs.newestSealed().catch(() => null) : null
			// Sealed under a rotation's new key this server has not taken yet: learn it first (docs/operations.md).
			if (newest && !opensRecord(sealer, newest)) {
				const pending = await store.meta.get(PENDING_KEY_META).catch(() => undefined)
				if (pending !== undefined) sealer.learn(pending)
			}
			const checks = {
				database: answers && value !== null && newest !== null ? ('ok' as const) : ('failed' as const),
				masterKey:
					typeof value === 'string' &&
					opensKeyCheck(sealer, value) &&
					(newest === undefined || opensRecord(sealer, newest))
						? ('ok' as const)
						: ('failed' as const)
			}
			const ready = checks.database === 'ok' && checks.masterKey === 'ok'
			return {
				status: ready ? ('ready' as const) : ('unavailable' as const),
				checks,
				backups: deps.metrics.backupState(),
				build: buildInfo()
			}
		}
	}
}

export type HealthService = ReturnType<typeof createHealthService>
