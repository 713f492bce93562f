import { Elysia } from 'elysia'
import { AppError } from '../lib/errors'
import { bodyLimitOf, hasValidHost, pathOf } from '../lib/http'
import type { Actor, Caller } from '../store/types'
import { ROUTES } from '../../shared/api/routes'
import { tooLarge } from './json-body'

export interface Authenticator {
	/** The caller holding the bearer key of this Authorization header; throws 401. A promise unless `synchronous`. */
	authenticate(authorization: string | null): Caller | Promise<Caller>
	/** True when `authenticate` never returns a promise (`Store.findsCallerSynchronously`). */
	synchronous: boolean
}

/** docs/api.md: every /api path needs a key, known route or not, except login. */
const needsKey = (path: string): boolean => (path === '/api' || path.startsWith('/api/')) && path !== ROUTES.login

/**
 * the key is checked in `onRequest`, before Elysia parses or
 * validates anything, so docs/api.md's order holds (401 before 400/413/404).
 * The caller is kept per request and handed to handlers by the `auth` macro,
 * which fails closed. Before the key, a malformed Host is refused (400,
 * docs/api.md); after it, on every path, a declared body size over the path's
 * limit (413) before any byte is read. Bodies sent without a length are
 * counted as they are read (plugins/json-body.ts). Create it once per app and
 * hand the same instance to every module.
 */
export function authPlugin(authenticator: Authenticator, addressOf: (request: Request) => string) {
	const callers = new WeakMap<Request, Caller>()
	// Taken, not just read: a finished request's entry would stay until a GC, and
	// young-generation GCs walk every entry (see createRequestTracker).
	const take = (request: Request): Caller => {
		const caller = callers.get(request)
		callers.delete(request)
		if (!caller) throw new AppError('unauthorized', 'A valid API key is required.')
		return caller
	}
	const checkHost = (request: Request) => {
		if (!hasValidHost(request)) throw new AppError('invalid_request', 'The Host header is not a valid host name.')
	}
	const checkDeclaredLength = (request: Request, path: string) => {
		const declared = request.headers.get('content-length')
		if (declared === null) return
		const limit = bodyLimitOf(path)
		if (Number(declared) > limit) throw tooLarge(limit)
	}
	// A plain function with no `return`: Elysia reads hook sources and counts an arrow
	// that returns a call as async, awaiting it and mapping its result. Awaited, this
	// gate and the access log's start hook cost GET /api/me 5% of its server CPU.
	function gate({ request }: { request: Request }) {
		checkHost(request)
		const path = pathOf(request.url)
		if (needsKey(path)) {
			callers.set(request, authenticator.authenticate(request.headers.get('authorization')) as Caller)
		}
		checkDeclaredLength(request, path)
	}
	// PostgreSQL's key lookup is a round trip: there the gate awaits it (docs/postgresql.md).
	async function awaitingGate({ request }: { request: Request }) {
		checkHost(request)
		const path = pathOf(request.url)
		if (needsKey(path)) {
			callers.set(request, await authenticator.authenticate(request.headers.get('authorization')))
		}
		checkDeclaredLength(request, path)
	}
	const actorOf = (request: Request) => {
		const caller = take(request)
		const actor: Actor = { ...caller, address: addressOf(request) }
		return { caller, actor }
	}
	return new Elysia({ name: 'auth' }).onRequest(authenticator.synchronous ? gate : awaitingGate).macro({
		auth: {
			resolve: ({ request }) => ({ caller: take(request) })
		},
		/**
		 * For routes that change something: the caller and where the request came from, for the audit log. A
		 * read-only key is refused here (403 read_only_key, docs/api.md keys with a scope): every write route
		 * declares `actor`, so no write can forget the check, and reads pay nothing for it.
		 */
		actor: {
			resolve: ({ request }) => {
				const found = actorOf(request)
				if (found.caller.readOnly) throw readOnlyRefusal()
				return found
			}
		},
		/** The one change a read-only key may make: signing itself out takes away only its own access. */
		signOut: {
			resolve: ({ request }) => actorOf(request)
		}
	})
}

export type AuthPlugin = ReturnType<typeof authPlugin>

const readOnlyRefusal = () =>
	new AppError(
		'read_only_key',
		'This key is read-only: it reads and streams but changes nothing. To push or change anything, use a key that reads and writes (cfgsync login without --read-only, or key issue without --read-only).'
	)
