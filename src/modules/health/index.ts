import { Elysia } from 'elysia'
import { z } from 'zod'
import { AppError } from '../../lib/errors'

/** CONTRACT §3: 200 `{"status":"ok"}` when the database answers; no key needed. */
export const healthRoutes = (ping: () => Promise<boolean>) =>
	new Elysia({ tags: ['operations'] }).get(
		'/healthz',
		async () => {
			if (!(await ping().catch(() => false))) throw new AppError('internal', 'The database does not answer.')
			return { status: 'ok' as const }
		},
		{ response: z.object({ status: z.literal('ok') }), detail: { summary: 'Liveness and database check', security: [] } }
	)
