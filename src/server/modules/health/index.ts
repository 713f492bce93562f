import { Elysia } from 'elysia'
import { z } from 'zod'
import type { Sealer } from '../../lib/crypto'
import { AppError, DatabaseDownError } from '../../lib/errors'
import { sha256Hex } from '../../lib/crypto'
import { KEY_CHECK, opensKeyCheck, PENDING_KEY_META } from '../../lib/key-check'
import type { SealedRecord, Store } from '../../store/types'
import type { AppMetrics } from './metrics'
import { buildInfo } from '../../build-info'

const Readiness = z.object({
	status: z.enum(['ready', 'unavailable']),
	checks: z.object({ database: z.enum(['ok', 'failed']), masterKey: z.enum(['ok', 'failed']) }),
	backups: z
		.object({
			lastSuccessAt: z.string().nullable(),
			lastFailureAt: z.string().nullable(),
			lastError: z.string().nullable()
		})
		.describe('scheduled backups; a failed backup never makes the server unready'),
	build: z
		.object({ version: z.string(), commit: z.string(), schema: z.number().int() })
		.describe('what this build is, as --version and cfgsync_build_info say (a mixed fleet is seen here)')
})

function opensRecord(sealer: Pick<Sealer, 'openBytes'>, record: SealedRecord | null): boolean {
	if (record === null) return false
	try {
		sealer.openBytes(record.sealed, `${record.configId}:${record.id}`)
		return true
	} catch {
		return false
	}
}

/**
 * docs/api.md and §10: `/healthz` (liveness: the database answers), `/readyz`
 * (for load balancers: the database answers and the master key opens its
 * check value and the newest stored version; 503 otherwise), `/metrics` (Prometheus text, only with
 * CFGSYNC_METRICS_TOKEN set, and only for that bearer token).
 */
export const healthRoutes = (deps: {
	store: Store
	sealer: Pick<Sealer, 'open' | 'openBytes' | 'learn'>
	metrics: AppMetrics
	metricsToken?: string
}) =>
	new Elysia({ tags: ['operations'] })
		.get(
			'/healthz',
			async () => {
				const failure = await deps.store.ping().then(
					(answers) =>
						answers
							? undefined
							: new DatabaseDownError(
									`the ${deps.store.engine === 'sqlite' ? 'SQLite file is gone, replaced or damaged' : 'PostgreSQL database does not answer'}`
								),
					(error: unknown) => error ?? new DatabaseDownError('the database does not answer')
				)
				// Logged once per 10 s as the database's failure, not as a bug (plugins/errors.ts).
				if (failure !== undefined) throw new AppError('internal', 'The database does not answer.', { cause: failure })
				return { status: 'ok' as const }
			},
			{
				response: z.object({ status: z.literal('ok') }),
				detail: { summary: 'Liveness and database check', security: [] }
			}
		)
		.get(
			'/readyz',
			async ({ set }) => {
				const answers = await deps.store.ping().catch(() => false)
				const value = answers ? await deps.store.meta.get(KEY_CHECK.meta).catch(() => null) : null
				// The newest version must open too: a server whose check value opens but whose data does not is no use.
				const newest = answers ? await deps.store.configs.newestSealed().catch(() => null) : null
				// Sealed under a rotation's new key this server has not taken yet: learn it first (docs/operations.md).
				if (newest && !opensRecord(deps.sealer, newest)) {
					const pending = await deps.store.meta.get(PENDING_KEY_META).catch(() => undefined)
					if (pending !== undefined) deps.sealer.learn(pending)
				}
				const check = {
					database: answers && value !== null && newest !== null ? ('ok' as const) : ('failed' as const),
					masterKey:
						typeof value === 'string' &&
						opensKeyCheck(deps.sealer, value) &&
						(newest === undefined || opensRecord(deps.sealer, newest))
							? ('ok' as const)
							: ('failed' as const)
				}
				const ready = check.database === 'ok' && check.masterKey === 'ok'
				if (!ready) set.status = 503
				return {
					status: ready ? ('ready' as const) : ('unavailable' as const),
					checks: check,
					backups: deps.metrics.backupState(),
					build: buildInfo()
				}
			},
			{
				response: { 200: Readiness, 503: Readiness },
				detail: { summary: 'Readiness for load balancers: database and master key', security: [] }
			}
		)
		.get(
			'/metrics',
			async ({ request }) => {
				if (deps.metricsToken === undefined) throw new AppError('not_found', 'No such route.')
				const header = request.headers.get('authorization') ?? ''
				const given = header.toLowerCase().startsWith('bearer ') ? header.slice(7).trim() : ''
				// Compared as hashes, so the time taken says nothing about the token.
				if (sha256Hex(given) !== sha256Hex(deps.metricsToken))
					throw new AppError('unauthorized', 'Send the metrics token as "Authorization: Bearer <token>".')
				return new Response(await deps.metrics.render(), {
					headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' }
				})
			},
			{ detail: { summary: 'Prometheus metrics (with CFGSYNC_METRICS_TOKEN)', security: [] } }
		)
