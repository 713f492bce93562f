import { Elysia } from 'elysia'
import { z } from 'zod'
import { sha256Hex } from '../../lib/crypto'
import { AppError } from '../../lib/errors'
import type { AppMetrics } from './metrics'
import type { HealthService } from './service'

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

/**
 * docs/api.md and docs/operations.md: `/healthz` (liveness: the database answers), `/readyz`
 * (for load balancers: the database answers and the master key opens its
 * check value and the newest stored version; 503 otherwise), `/metrics` (Prometheus text, only with
 * CFGSYNC_METRICS_TOKEN set, and only for that bearer token).
 */
export const healthRoutes = (deps: { health: HealthService; metrics: AppMetrics; metricsToken?: string }) =>
	new Elysia({ tags: ['operations'] })
		.get(
			'/healthz',
			async () => {
				await deps.health.live()
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
				const readiness = await deps.health.ready()
				if (readiness.status !== 'ready') set.status = 503
				return readiness
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
