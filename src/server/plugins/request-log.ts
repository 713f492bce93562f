import { Elysia } from 'elysia'
import { pathOf } from '../lib/http'

/** Longer path segments are logged as `:redacted`: no route of ours has one, but a pasted secret does. */
const SEGMENT_MAX = 40
/** A key, or a segment that is mostly a long run of hex or base64: what a secret looks like. */
const SECRET_LIKE = /^cs_|[0-9a-f]{32}|[A-Za-z0-9+/_-]{32}/i

/**
 * docs/api.md: a client that puts a key (or a password) in the path of an
 * unknown route must not get it into the log. Only unmatched paths are ever
 * logged, so this costs nothing on the routes that exist.
 */
export function redactPath(path: string): string {
	return path
		.split('/')
		.map((segment) => (segment.length > SEGMENT_MAX || SECRET_LIKE.test(segment) ? ':redacted' : segment))
		.join('/')
}
import type { Logger } from '../lib/log'

/**
 * Per-request bookkeeping shared by the access log and the error mapper: when
 * the request started and its id. Ids are a per-process prefix and a counter
 * (cheaper than a UUID on every request, unique enough to find a log line).
 */
export function createRequestTracker() {
	// One record per request, made when it arrives and dropped once its log line is out. A WeakMap
	// keeps entries of finished requests until a GC, and every young-generation GC walks them all:
	// left in, this map and the auth gate's made GC pauses under load a third longer.
	const records = new WeakMap<Request, { startedAt?: number; id?: string; client?: string }>()
	const prefix = `${process.pid.toString(36)}-${Date.now().toString(36)}-`
	let counter = 0
	return {
		/** The request arrived, from `client` (read while its connection is surely open). */
		start: (request: Request, client?: string) =>
			void records.set(request, { startedAt: performance.now(), id: undefined, client }),
		clientOf: (request: Request): string | undefined => records.get(request)?.client,
		/** The request's id, made on first use. */
		idOf(request: Request): string {
			let record = records.get(request)
			if (record === undefined) {
				record = {}
				records.set(request, record)
			}
			record.id ??= prefix + (++counter).toString(36)
			return record.id
		},
		/** The request is done with: its log line is written. */
		finish: (request: Request) => void records.delete(request),
		elapsedMs(request: Request): number | undefined {
			const at = records.get(request)?.startedAt
			return at === undefined ? undefined : Math.round((performance.now() - at) * 100) / 100
		}
	}
}

export type RequestTracker = ReturnType<typeof createRequestTracker>

/** A route as the app declares it: its method and pattern (`/api/configs/:id`). */
export interface DeclaredRoute {
	method: string
	path: string
}

/**
 * The route pattern a path would have reached, for requests refused before routing (a bad key, a database that
 * does not answer in the auth gate, a body over its limit): the metrics count them under their route (docs/operations.md), never
 * `unmatched`. Only those requests ask, so it is built on first use; a pattern with more literal segments wins
 * (`/api/configs/latest` before `/api/configs/:id`). Undefined for a path no route has.
 */
export function createRouteMatcher(declared: () => readonly DeclaredRoute[]) {
	type Pattern = { path: string; segments: string[]; literals: number; wildcard: boolean }
	let byMethod: Map<string, Pattern[]> | undefined
	const build = () => {
		const table = new Map<string, Pattern[]>()
		for (const route of declared()) {
			const segments = route.path.split('/').filter(Boolean)
			const wildcard = segments.at(-1) === '*'
			if (wildcard) segments.pop()
			const pattern = {
				path: route.path,
				segments,
				literals: segments.filter((segment) => !segment.startsWith(':')).length,
				wildcard
			}
			const list = table.get(route.method) ?? []
			list.push(pattern)
			table.set(route.method, list)
		}
		for (const list of table.values())
			list.sort((a, b) => b.literals - a.literals || Number(a.wildcard) - Number(b.wildcard))
		return table
	}
	const matches = (pattern: Pattern, parts: string[]) => {
		if (pattern.wildcard ? parts.length < pattern.segments.length : parts.length !== pattern.segments.length)
			return false
		return pattern.segments.every((segment, i) => segment.startsWith(':') || segment === parts[i])
	}
	return (method: string, path: string): string | undefined => {
		byMethod ??= build()
		const parts = path.split('/').filter(Boolean)
		const candidates = byMethod.get(method) ?? (method === 'HEAD' ? byMethod.get('GET') : undefined) ?? []
		return candidates.find((pattern) => matches(pattern, parts))?.path
	}
}

/**
 * One access-log line per request: method, route pattern, status, ms, request
 * id and the client address as resolved through trusted proxies
 * (docs/api.md). Never headers, query strings or bodies. Error responses
 * carry the same id as X-Request-Id so a user can quote it.
 */
export const requestLogPlugin = (
	logger: Logger,
	tracker: RequestTracker,
	addressOf: (request: Request) => string,
	metrics?: { request(route: string | undefined, method: string, status: number, ms: number | undefined): void },
	/** The pattern of a request that never reached its route (createRouteMatcher). */
	routeOf: (method: string, path: string) => string | undefined = () => undefined
) =>
	new Elysia({ name: 'request-log' })
		// A plain function with no `return`, so Elysia does not await it (see plugins/auth.ts).
		.onRequest(function startClock({ request }) {
			tracker.start(request, addressOf(request))
		})
		// `route` keeps its name: Elysia reads this function's source to decide what to build per request.
		.onAfterResponse({ as: 'global' }, ({ request, route, set, responseValue }) => {
			// Refused before routing (the auth gate), a known route still has its pattern; only paths no route has are unmatched.
			const pattern = route || routeOf(request.method, pathOf(request.url))
			// A handler that returns a Response (304, streamed lists) sets its status there, not in `set`.
			const status =
				responseValue instanceof Response ? responseValue.status : typeof set.status === 'number' ? set.status : 200
			// An event stream is counted but never timed as a request, and logged once, when it closes (streamClosed).
			if (responseValue instanceof Response && isEventStream(responseValue)) {
				metrics?.request(pattern, request.method, status, undefined)
				return
			}
			const ms = tracker.elapsedMs(request)
			logger.info('request', {
				method: request.method,
				// Unmatched requests have no route pattern; their path (without query, secrets redacted) is logged instead.
				route: pattern || undefined,
				path: pattern ? undefined : redactPath(pathOf(request.url)),
				status,
				ms,
				client: tracker.clientOf(request),
				requestId: tracker.idOf(request)
			})
			metrics?.request(pattern, request.method, status, ms)
			tracker.finish(request)
		})

const isEventStream = (response: Response) =>
	response.headers.get('content-type')?.startsWith('text/event-stream') === true

/**
 * docs/api.md "Live changes": the access-log line of an event stream, written when it closes, with how long
 * it was open. It is left out of the latency metrics: a stream is not a request that took that long.
 */
export function streamClosed(logger: Logger, tracker: RequestTracker, request: Request, route: string): void {
	logger.info('request', {
		method: request.method,
		route,
		status: 200,
		ms: tracker.elapsedMs(request),
		stream: true,
		client: tracker.clientOf(request),
		requestId: tracker.idOf(request)
	})
	tracker.finish(request)
}
