import { Elysia } from 'elysia'
import { z } from 'zod'
import type { AuthPlugin } from '../../plugins/auth'
import { NO_STORE } from '../../lib/http'
import { jsonBody, loginJsonBody } from '../../plugins/json-body'
import { IssuedKey, KeyIdParams, KeyView, LoginBody, Me, RenameKeyBody } from '../../../shared/api/auth'
import { ROUTES } from '../../../shared/api/routes'
import type { AuthService } from './service'

/** Where a request came from, for login throttling (the socket address unless a proxy is trusted). */
export type ClientAddress = (request: Request) => string

export const authRoutes = (auth: AuthService, gate: AuthPlugin, clientAddress: ClientAddress) =>
	new Elysia({ tags: ['auth'] })
		.use(gate)
		.post(
			ROUTES.login,
			async ({ body, request, set, status }) => {
				const issued = await auth.login(body, clientAddress(request))
				Object.assign(set.headers, NO_STORE)
				return status(201, issued)
			},
			{
				...loginJsonBody,
				body: LoginBody,
				response: { 201: IssuedKey },
				detail: {
					summary: 'Log in and get an API key for this device',
					description:
						'No bearer key needed; the body must be `application/json` (else 415) of at most 16 KiB. Logging in again from the same device revokes its previous key. Wrong login or password: 401. Within 15 minutes, after 10 failures for one login from one address or 30 from one address: 429 with Retry-After. Failures for one login from many addresses never refuse it: past 100, its attempts are slowed (up to 5 s). `scope: read-only` makes a key that reads and streams but never writes.',
					security: []
				}
			}
		)
		.post(
			ROUTES.logout,
			async ({ actor, status }) => {
				await auth.logout(actor)
				return status(204)
			},
			{ signOut: true, detail: { summary: 'Revoke the key used for this request (read-only keys too)' } }
		)
		.get(ROUTES.keys, ({ caller }) => auth.listKeys(caller), {
			auth: true,
			response: z.array(KeyView),
			detail: { summary: "The caller's active keys (never the keys themselves)" }
		})
		.delete(
			ROUTES.key,
			async ({ actor, params, status }) => {
				await auth.revokeKey(actor, params.id)
				return status(204)
			},
			{ actor: true, params: KeyIdParams, detail: { summary: 'Revoke one of your keys' } }
		)
		.patch(ROUTES.key, ({ actor, params, body }) => auth.renameKey(actor, params.id, body.name), {
			...jsonBody,
			actor: true,
			params: KeyIdParams,
			body: RenameKeyBody,
			response: KeyView,
			detail: {
				summary: "Rename one of your devices (the key's device name)",
				description:
					"`{name}`, checked as a login's device is. 200 with the key as GET /api/keys lists it; another user's key or an unknown id: 404; a name another of your keys has: 409. Audited as `key.renamed`."
			}
		})
		.get(ROUTES.me, ({ caller }) => ({ email: caller.email, username: caller.username }), {
			auth: true,
			response: Me,
			detail: { summary: 'Who the key belongs to', tags: ['identity'] }
		})
