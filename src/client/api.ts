import { z } from 'zod'
import { AuditEventView, type AuditQuery } from '../shared/api/audit'
import { IssuedKey, KeyView, type LoginBody, Me } from '../shared/api/auth'
import {
	ConfigSummary,
	ConfigVersion,
	LatestConfig,
	type LatestQuery,
	type ListQuery,
	type PushBody,
	type PushCondition,
	PushResult,
	type RollbackBody,
	RolledBack,
	Usage,
	type VersionsQuery
} from '../shared/api/configs'
import { type ErrorCode, isErrorCode } from '../shared/api/errors'
import { apiPath, ROUTES } from '../shared/api/routes'
import {
	type AddMemberBody,
	type CreateTeamBody,
	Invitation,
	type PatchTeamBody,
	RoleChanged,
	type SetRoleBody,
	TeamCreated,
	TeamDetail,
	TeamListItem,
	TeamMember,
	MEMBERS_IN_DETAIL
} from '../shared/api/teams'
import { type ListenEnd, type ListenOptions, listen } from './live'

/**
 * The server's API as the client calls it: one method per route, whose
 * request and response types are the zod wire models the server's routes
 * validate with (src/shared/api/), so the two cannot drift. Every answer is
 * checked against its model before anything is done with it, so a broken or
 * hostile server gets a sentence, never a crash (docs/client.md).
 */
export type {
	AuditEventView,
	ConfigSummary,
	ConfigVersion,
	Invitation,
	IssuedKey,
	KeyView,
	LatestConfig,
	Me,
	PushResult,
	RoleChanged,
	RolledBack,
	TeamCreated,
	TeamDetail,
	TeamListItem,
	TeamMember
}

/** A request body as the client sends it: what the server's model accepts (defaults may be left out). */
type Body<T extends z.ZodType> = z.input<T>
/** A query as the server reads it once parsed. */
type Query<T extends z.ZodType> = z.output<T>

/**
 * What a failed call's code can be: the server's (src/shared/api/errors.ts, docs/api.md#errors),
 * `unreachable` when no answer came, `bad_response` when it was not a cfgsync answer, `unknown` when the
 * server sent a code this client does not know (it stays in the error's `body.code`).
 */
export type ApiErrorCode = ErrorCode | 'unreachable' | 'bad_response' | 'unknown'

/** A failed call: its code, and the server's sentence. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: ApiErrorCode,
		message: string,
		readonly body: Record<string, unknown> = {}
	) {
		super(message)
	}
}

export interface Reply<T> {
	status: number
	headers: Headers
	body: T
}

export type Api = ReturnType<typeof createApi>

/** The server's page size when none is asked for, and the largest it gives (docs/performance.md). */
const PAGE = 100
const MAX_PAGE = 1000
/** Where following a list's pages stops: far past any real list, short of a server that never ends one. */
const MAX_LISTED = 100_000

/** The path of a `rel="next"` link when it stays on this server's API. */
export function nextPage(link: string | null): string | undefined {
	const match = link && /<(\/api\/[^>\s]*)>\s*;\s*rel="?next"?/.exec(link)
	return match ? match[1] : undefined
}

/**
 * What the client allows a server (docs/client.md, "A broken or hostile
 * server"): every request ends within CFGSYNC_TIMEOUT seconds — connecting,
 * waiting for the answer and reading it — and no answer may be larger than
 * 16 MiB, counted as it arrives, so a hung server cannot keep a command waiting
 * and a huge answer can fill neither memory nor a file. A config is at most
 * 512 KiB, so no honest answer comes near the cap.
 */
export const DEFAULT_TIMEOUT_SECONDS = 30
export const MAX_TIMEOUT_SECONDS = 86_400
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024

/**
 * CFGSYNC_TIMEOUT in milliseconds (the default when unset or empty);
 * undefined when it is not a number of seconds above 0 and up to a day.
 */
export function timeoutMs(text: string | undefined = process.env.CFGSYNC_TIMEOUT): number | undefined {
	if (text === undefined || text.trim() === '') return DEFAULT_TIMEOUT_SECONDS * 1000
	if (!/^\d+(?:\.\d+)?$/.test(text.trim())) return undefined
	const seconds = Number(text)
	return seconds > 0 && seconds <= MAX_TIMEOUT_SECONDS ? Math.ceil(seconds * 1000) : undefined
}

export interface Limits {
	/** How long one request may take, in milliseconds (default: CFGSYNC_TIMEOUT). */
	timeoutMs?: number
	/** The largest answer accepted, in bytes (default 16 MiB). */
	maxBytes?: number
	/** What sends a request (default the global fetch; an in-process test passes the server app's handler). */
	fetch?: Fetch
}

export type Fetch = (url: string, init: RequestInit) => Promise<Response>

export function createApi(server: string, key?: string, limits: Limits = {}) {
	const base = server.replace(/\/+$/, '')
	const timeout = limits.timeoutMs ?? timeoutMs() ?? DEFAULT_TIMEOUT_SECONDS * 1000
	const maxBytes = limits.maxBytes ?? MAX_RESPONSE_BYTES
	const request = limits.fetch ?? fetch
	const seconds = `${Math.round(timeout / 100) / 10} s`
	const timedOut = () =>
		new ApiError(
			0,
			'unreachable',
			`${base} did not answer within ${seconds}: check that the server is running and reachable, then try again (CFGSYNC_TIMEOUT=SECONDS waits longer)`
		)
	const tooLarge = () =>
		new ApiError(
			0,
			'bad_response',
			`${base} sent an answer larger than ${maxBytes / 1024 / 1024} MiB, more than any config holds: it was refused and nothing from it was written. Check that ${base} is your cfgsync server (not a proxy or another service answering for it)`
		)

	/** The body as text, counted as it arrives: past `maxBytes` reading stops and nothing is kept. */
	async function readBody(response: Response, abort: () => void): Promise<string> {
		const declared = Number(response.headers.get('content-length'))
		// A compressed body's length says nothing about its size once decoded, so only a plain one is judged up front.
		if (!response.headers.has('content-encoding') && declared > maxBytes) {
			abort()
			throw tooLarge()
		}
		if (!response.body) return ''
		const reader = response.body.getReader()
		const decoder = new TextDecoder()
		const parts: string[] = []
		let size = 0
		for (;;) {
			const { done, value } = await reader.read()
			if (done) break
			size += value.byteLength
			if (size > maxBytes) {
				abort()
				throw tooLarge()
			}
			parts.push(decoder.decode(value, { stream: true }))
		}
		parts.push(decoder.decode())
		return parts.join('')
	}

	async function call<T>(
		method: string,
		path: string,
		options: { body?: unknown; headers?: Record<string, string>; ok?: number[] } = {}
	): Promise<Reply<T>> {
		const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
		if (key) headers.authorization = `Bearer ${key}`
		let payload: string | undefined
		if (options.body !== undefined) {
			payload = JSON.stringify(options.body)
			headers['content-type'] = 'application/json'
		}
		// One deadline for the whole exchange: the same signal ends the connection, the wait and the body.
		const controller = new AbortController()
		let late = false
		const timer = setTimeout(() => {
			late = true
			controller.abort()
		}, timeout)
		let response: Response
		let text: string
		try {
			try {
				response = await request(`${base}${path}`, {
					method,
					headers,
					body: payload,
					redirect: 'error',
					signal: controller.signal
				})
			} catch (error) {
				if (late) throw timedOut()
				throw new ApiError(0, 'unreachable', `cannot reach the server at ${base}: ${connectionProblem(error)}`)
			}
			try {
				text = await readBody(response, () => controller.abort())
			} catch (error) {
				if (error instanceof ApiError) throw error
				if (late) throw timedOut()
				throw new ApiError(0, 'unreachable', `the connection to ${base} broke while it answered: try again`)
			}
		} finally {
			clearTimeout(timer)
		}
		let body: unknown
		try {
			body = text === '' ? undefined : JSON.parse(text)
		} catch {
			throw new ApiError(
				response.status,
				'bad_response',
				`${base} did not answer like a cfgsync server (HTTP ${response.status})`
			)
		}
		if (response.status >= 400 && !options.ok?.includes(response.status)) {
			const error = (body ?? {}) as { error?: string; code?: unknown }
			throw new ApiError(
				response.status,
				isErrorCode(error.code) ? error.code : 'unknown',
				error.error ?? `HTTP ${response.status}`,
				body as Record<string, unknown>
			)
		}
		return { status: response.status, headers: response.headers, body: body as T }
	}
	/** An answer as its model says it is, or a sentence naming what was wrong with it. */
	function checked<M extends z.ZodType>(model: M, method: string, path: string, body: unknown): z.output<M> {
		const parsed = model.safeParse(body)
		if (parsed.success) return parsed.data
		const issue = parsed.error.issues[0]
		const where = issue && issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : ''
		throw new ApiError(
			0,
			'bad_response',
			`${base} answered ${method} ${path.split('?')[0]} with something cfgsync does not understand (${issue?.message ?? 'unexpected content'}${where}); nothing was done with it. Check that ${base} is your cfgsync server and that the client is up to date (cfgsync --version)`
		)
	}
	const get = async <M extends z.ZodType>(path: string, model: M) =>
		checked(model, 'GET', path, (await call('GET', path)).body)
	const send = async <M extends z.ZodType>(method: string, path: string, model: M, body?: unknown) =>
		checked(model, method, path, (await call(method, path, { body })).body)
	const remove = async (path: string): Promise<void> => {
		await call<undefined>('DELETE', path)
	}
	/**
	 * A list read page by page along `Link: <…>; rel="next"` (RFC 8288) until `wanted` items came or no
	 * next page remains. Only a link to this server's own /api/ is followed: a hostile answer cannot send
	 * the key elsewhere.
	 */
	async function pages<M extends z.ZodType>(first: string, item: M, wanted: number): Promise<z.output<M>[]> {
		const items: z.output<M>[] = []
		let path: string | undefined = first
		while (path !== undefined && items.length < wanted) {
			const reply: Reply<unknown> = await call('GET', path)
			const page: z.output<M>[] = checked(z.array(item), 'GET', path, reply.body)
			items.push(...page)
			// An empty page ends the list, whatever its Link says: a server linking to itself cannot spin us.
			path = page.length === 0 ? undefined : nextPage(reply.headers.get('link'))
		}
		return items.slice(0, wanted)
	}

	return {
		base,
		auth: {
			login: (body: Body<typeof LoginBody>) => send('POST', ROUTES.login, IssuedKey, body),
			/** Revokes the key the call is made with. */
			logout: async (): Promise<void> => {
				await call<undefined>('POST', ROUTES.logout)
			}
		},
		me: () => get(ROUTES.me, Me),
		/** docs/operations.md: what this account and its teams store, against the quotas. */
		usage: () => get(ROUTES.usage, Usage),
		keys: {
			list: () => get(ROUTES.keys, z.array(KeyView)),
			revoke: (id: string) => remove(apiPath(ROUTES.key, { id })),
			/** docs/api.md: the device gets another name; the key stays. */
			rename: (id: string, name: string) => send('PATCH', apiPath(ROUTES.key, { id }), KeyView, { name })
		},
		configs: {
			/** Every config of the caller or a team, page after page (docs/performance.md). */
			list: (params: Partial<Query<typeof ListQuery>>) =>
				pages(`${ROUTES.configs}${query({ ...params, limit: MAX_PAGE })}`, ConfigSummary, MAX_LISTED),
			latest: (params: Query<typeof LatestQuery>) => get(`${ROUTES.latestConfig}${query(params)}`, LatestConfig),
			/**
			 * The latest version for a poll: undefined when the config does not
			 * exist, `unchanged` when `etag` is still its hash (304).
			 */
			poll: async (
				params: Query<typeof LatestQuery>,
				etag?: string
			): Promise<LatestConfig | undefined | 'unchanged'> => {
				const path = `${ROUTES.latestConfig}${query(params)}`
				const reply = await call('GET', path, {
					ok: [404],
					headers: etag ? { 'if-none-match': `"${etag}"` } : {}
				})
				if (reply.status === 304) return 'unchanged'
				if (reply.status === 404) return undefined
				return checked(LatestConfig, 'GET', path, reply.body)
			},
			/** How a push names the version it was judged against: If-Match its hash, or If-None-Match * to create. */
			push: async (body: Body<typeof PushBody>, condition: PushCondition) => {
				const headers: Record<string, string> = {}
				if (condition.ifMatch) headers['if-match'] = entityTags(condition.ifMatch)
				if (condition.ifNoneMatch) headers['if-none-match'] = entityTags(condition.ifNoneMatch)
				return checked(PushResult, 'POST', ROUTES.configs, (await call('POST', ROUTES.configs, { body, headers })).body)
			},
			/** Up to `limit` versions, highest first, following the server's `rel="next"` pages (docs/performance.md). */
			versions: (id: string, params: Partial<Query<typeof VersionsQuery>>) =>
				pages(
					`${apiPath(ROUTES.versions, { id })}${query({ ...params, limit: Math.min(params.limit ?? PAGE, MAX_PAGE) })}`,
					ConfigVersion,
					params.limit ?? PAGE
				),
			rollback: (id: string, body: Body<typeof RollbackBody>) =>
				send('POST', apiPath(ROUTES.rollback, { id }), RolledBack, body),
			remove: (id: string) => remove(apiPath(ROUTES.config, { id }))
		},
		teams: {
			list: () => get(ROUTES.teams, z.array(TeamListItem)),
			create: (body: Body<typeof CreateTeamBody>) => send('POST', ROUTES.teams, TeamCreated, body),
			/** A team with all its members: past the first 100 the rest come from …/members, page after page. */
			get: async (team: string) => {
				const detail = await get(apiPath(ROUTES.team, { slug: team }), TeamDetail)
				if (detail.members.length < MEMBERS_IN_DETAIL) return detail
				const members = await pages(
					`${apiPath(ROUTES.members, { slug: team })}?limit=${MAX_PAGE}`,
					TeamMember,
					MAX_LISTED
				)
				return { ...detail, members }
			},
			update: (team: string, body: Body<typeof PatchTeamBody>) =>
				send('PATCH', apiPath(ROUTES.team, { slug: team }), TeamCreated, body),
			remove: (team: string) => remove(apiPath(ROUTES.team, { slug: team })),
			/** A deleted team back, until its purge (its owners only). */
			restore: (team: string) => send('POST', apiPath(ROUTES.restoreTeam, { slug: team }), TeamCreated),
			invite: (team: string, body: Body<typeof AddMemberBody>) =>
				send('POST', apiPath(ROUTES.members, { slug: team }), Invitation, body),
			setRole: (team: string, userId: string, body: Body<typeof SetRoleBody>) =>
				send('PATCH', apiPath(ROUTES.member, { slug: team, userId }), RoleChanged, body),
			/** Removes a member, leaves, or cancels an invitation. */
			removeMember: (team: string, userId: string) => remove(apiPath(ROUTES.member, { slug: team, userId }))
		},
		invitations: {
			list: () => get(ROUTES.invitations, z.array(Invitation)),
			accept: (team: string) => send('POST', apiPath(ROUTES.acceptInvitation, { teamSlug: team }), TeamMember),
			decline: (team: string) => remove(apiPath(ROUTES.invitation, { teamSlug: team }))
		},
		/**
		 * GET /api/events, kept open until `signal` aborts or it ends for good
		 * (src/client/live.ts): connecting is bounded by the request time-out,
		 * the stream itself is not.
		 */
		events: (options: Omit<ListenOptions, 'base' | 'key' | 'connectTimeoutMs' | 'unreachable'>): Promise<ListenEnd> =>
			listen({
				...options,
				base,
				key: key ?? '',
				connectTimeoutMs: timeout,
				unreachable: (error) => `cannot reach the server at ${base}: ${connectionProblem(error)}`
			}),
		audit: {
			/** Your own audit log, or with `team` a team's. */
			list: (params: Query<typeof AuditQuery>, team?: string) =>
				pages(
					`${team === undefined ? ROUTES.audit : apiPath(ROUTES.teamAudit, { slug: team })}${query(params)}`,
					AuditEventView,
					params.limit
				)
		}
	}
}

/**
 * Why a connection failed, in our words: Bun says "Unable to connect. Is the
 * computer able to access the url?" and Node "fetch failed", neither of which
 * tells a person what to check. The error's code (Bun) or its cause's (Node)
 * says what happened.
 */
export function connectionProblem(error: unknown): string {
	const found = error as { code?: unknown; cause?: { code?: unknown; message?: unknown } } | undefined
	const code = String(found?.code ?? found?.cause?.code ?? '')
	const detail = String(found?.cause?.message ?? '')
	if (/bad port/.test(detail))
		return "its port is one that Node's fetch refuses to connect to (as browsers do). Run the server on another port"
	if (/ECONNREFUSED|ConnectionRefused/i.test(code))
		return 'nothing answers there (connection refused). Check that the server is running and that the address and port are right'
	if (/ENOTFOUND|EAI_AGAIN|DNS/i.test(code))
		return 'its host name was not found. Check the address (cfgsync whoami shows the one in use)'
	if (/ECONNRESET|ConnectionClosed|EPIPE/i.test(code)) return 'the connection was closed before it answered. Try again'
	if (/ETIMEDOUT|EHOSTUNREACH|ENETUNREACH/i.test(code))
		return 'the network gave no route to it. Check your connection (or VPN) and the address'
	if (/CERT|SSL|TLS|EPROTO/i.test(code))
		return 'the secure connection failed (its certificate was not accepted, or it does not speak https on that port). Check the address: http:// or https://'
	return `the connection failed${/^[A-Z_]+$/.test(code) ? ` (${code})` : ''}. Check that the server is running and reachable`
}

/** Hashes as an If-Match or If-None-Match value: each quoted, or `*`. */
const entityTags = (tags: string[] | '*') => (tags === '*' ? '*' : tags.map((tag) => `"${tag}"`).join(', '))

export const query = (params: Record<string, string | number | undefined>) => {
	const entries = Object.entries(params).filter(([, value]) => value !== undefined) as [string, string | number][]
	return entries.length === 0
		? ''
		: `?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`
}
