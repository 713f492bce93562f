import { ROUTES } from '../../shared/api/routes'
import { BODY_MAX_BYTES, LOGIN_BODY_MAX_BYTES } from '../../shared/constants'

/** Paths whose bodies are a person's login and password (docs/api.md, docs/web.md): 16 KiB is plenty. */
const SMALL_BODY_PATHS = new Set<string>([ROUTES.login, '/sign-in'])

/**
 * docs/api.md: the most body a request to `path` may send: 16 KiB for the
 * login, the sign-in and the first-admin and sign-up forms, 1 MiB elsewhere.
 */
export function bodyLimitOf(path: string): number {
	const bare = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path
	return SMALL_BODY_PATHS.has(bare) || bare.startsWith('/setup/') || bare.startsWith('/join/')
		? LOGIN_BODY_MAX_BYTES
		: BODY_MAX_BYTES
}

/**
 * False when the request's URL is no URL: Bun then hands over the bare path
 * (for a Host such as `exémple`, `a b` or `[::1]:99999`), and every
 * `new URL(request.url)` after it would throw. Checked once, first.
 */
export const hasValidHost = (request: Request): boolean => URL.canParse(request.url)

/** The path of a request URL without parsing the whole URL (hot path: every request). */
export function pathOf(url: string): string {
	const start = url.indexOf('/', url.indexOf('//') + 2)
	if (start === -1) return '/'
	const query = url.indexOf('?', start)
	const hash = url.indexOf('#', start)
	const end = query === -1 ? (hash === -1 ? url.length : hash) : hash === -1 ? query : Math.min(query, hash)
	return url.slice(start, end)
}

/**
 * Entity tags of an If-Match / If-None-Match header (RFC 9110 §13.1): `*`, or
 * the list of tags. Weak tags keep their `W/` prefix so a strong comparison
 * can refuse them; an unquoted token is taken as a tag, for hand-typed curl.
 */
export function parseEntityTags(header: string | null | undefined): string[] | '*' | undefined {
	if (header === null || header === undefined) return undefined
	const value = header.trim()
	if (value === '') return undefined
	if (value === '*') return '*'
	const tags: string[] = []
	const pattern = /\s*(W\/)?(?:"([^"]*)"|([^\s,"]+))\s*(?:,|$)/gy
	while (pattern.lastIndex < value.length) {
		const match = pattern.exec(value)
		if (match === null) break
		tags.push((match[1] ?? '') + (match[2] ?? match[3] ?? ''))
	}
	return tags
}

/** Strong comparison (If-Match): weak tags never match. */
export const strongTags = (tags: string[] | '*'): string[] | '*' =>
	tags === '*' ? '*' : tags.filter((tag) => !tag.startsWith('W/'))

/** Weak comparison (If-None-Match): `W/"x"` and `"x"` both mean x. */
export const weakTags = (tags: string[] | '*'): string[] | '*' =>
	tags === '*' ? '*' : tags.map((tag) => (tag.startsWith('W/') ? tag.slice(2) : tag))

export const etagOf = (hash: string): string => `"${hash}"`

const JSON_TYPE = 'application/json;charset=utf-8'

/** docs/api.md: on every response. */
export const SECURITY_HEADERS = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' } as const

/** docs/api.md: responses that carry a key, a session or config data are never stored by a cache. */
export const NO_STORE = { 'cache-control': 'no-store' } as const

/**
 * docs/api.md: HTML may load scripts, styles and images from this server only,
 * run no inline or eval'd script, and never be framed.
 */
export const CONTENT_SECURITY_POLICY =
	"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/** An HTML page with docs/api.md's headers (nosniff and Referrer-Policy come from the app's defaults). */
export const htmlResponse = (
	html: string,
	init: { status?: number; headers?: Record<string, string> } = {}
): Response =>
	new Response(html, {
		status: init.status ?? 200,
		headers: {
			'content-type': 'text/html;charset=utf-8',
			'content-security-policy': CONTENT_SECURITY_POLICY,
			'x-frame-options': 'DENY',
			...init.headers
		}
	})

/**
 * `fields` as a JSON object with a `data` member spliced in from the UTF-8
 * JSON bytes we already hold (the decrypted record), as byte chunks: large
 * configs are neither parsed, re-serialised nor copied into a string on the way out.
 */
export function objectWithData(fields: object, data: Uint8Array): Uint8Array[] {
	const head = JSON.stringify(fields)
	return [Buffer.from(head === '{}' ? '{"data":' : `${head.slice(0, -1)},"data":`), data, CLOSE_BRACE]
}

const CLOSE_BRACE = Buffer.from('}')
const OPEN_BRACKET = Buffer.from('[')
const CLOSE_BRACKET = Buffer.from(']')
const COMMA = Buffer.from(',')

export function jsonResponse(
	body: string | Uint8Array | Uint8Array[],
	init: { status?: number; headers?: Record<string, string> } = {}
): Response {
	const payload = Array.isArray(body) ? Buffer.concat(body) : body
	// (BodyInit: preact's JSX types bring in the DOM lib, whose BodyInit names Uint8Array<ArrayBuffer> only.)
	return new Response(payload as BodyInit, {
		status: init.status ?? 200,
		headers: { 'content-type': JSON_TYPE, ...SECURITY_HEADERS, ...init.headers }
	})
}

/**
 * Sends a Response that already carries every header the app adds by default
 * (jsonResponse, notModified): with `set.headers` emptied, Elysia sends it as
 * it is instead of copying it into a new Response to merge the defaults in.
 * On the config reads that cost about a tenth of the request's server CPU.
 */
export function asIs(set: { headers: Record<string, unknown> }, response: Response): Response {
	set.headers = {}
	return response
}

/** 304 for a conditional GET whose tag matched: no body, the same ETag. */
export const notModified = (hash: string): Response =>
	new Response(null, { status: 304, headers: { etag: etagOf(hash), ...SECURITY_HEADERS } })

/**
 * How long a list is written before other work gets a turn. Its items come from promises that are
 * already settled (SQLite answers synchronously) and the socket takes megabytes at once, so without
 * a turn a page of 100 versions of 64 KiB (~65 ms) held every other request up until it was written.
 */
const LIST_TURN_MS = 1

/** Resolves on the event loop's next turn once `LIST_TURN_MS` have passed since the last one. */
function turns() {
	let since = performance.now()
	return async () => {
		if (performance.now() - since < LIST_TURN_MS) return
		await new Promise<void>((resolve) => setImmediate(resolve))
		since = performance.now()
	}
}

/**
 * A JSON array written as its items arrive (each item as byte chunks), so
 * its size never has to fit in memory, letting other requests run between
 * items (LIST_TURN_MS). Lists that end within the first `inlineUpTo` items
 * are sent in one piece with a Content-Length, which is cheaper for the
 * common short list.
 */
export async function jsonArrayResponse(
	items: AsyncIterable<Uint8Array[]>,
	headers: Record<string, string> = {},
	inlineUpTo = 8
): Promise<Response> {
	const iterator = items[Symbol.asyncIterator]()
	const turn = turns()
	const head: Uint8Array[] = [OPEN_BRACKET]
	for (let count = 0; count < inlineUpTo; count++) {
		await turn()
		const next = await iterator.next()
		if (next.done) return jsonResponse([...head, CLOSE_BRACKET], { headers })
		if (count > 0) head.push(COMMA)
		head.push(...next.value)
	}
	const stream = new ReadableStream<Uint8Array>({
		start(controller) {
			controller.enqueue(Buffer.concat(head))
		},
		async pull(controller) {
			await turn()
			const next = await iterator.next()
			if (next.done) {
				controller.enqueue(CLOSE_BRACKET)
				controller.close()
				return
			}
			controller.enqueue(COMMA)
			for (const chunk of next.value) controller.enqueue(chunk)
		},
		async cancel() {
			await iterator.return?.()
		}
	})
	return new Response(stream, { headers: { 'content-type': JSON_TYPE, ...headers } })
}
