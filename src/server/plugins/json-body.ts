import { parseQuery } from 'elysia/parse-query'
import { BODY_MAX_BYTES, JSON_MAX_DEPTH, LOGIN_BODY_MAX_BYTES } from '../../shared/constants'
import { AppError } from '../lib/errors'
import { bodyLimitOf, pathOf } from '../lib/http'

const utf8 = new TextDecoder('utf-8', { fatal: true })

/**
 * Route option for every route that takes a body: `{ ...jsonBody, body: Schema }`.
 * Request bodies are JSON whatever the Content-Type says (so `curl -d` works),
 * must be valid UTF-8 (nothing is silently replaced), at most 1 MiB (counted
 * while reading, for bodies sent without Content-Length) and at most
 * JSON_MAX_DEPTH levels deep (so nothing downstream recurses without bound).
 * The trailing 'json' never runs (ours always answers first); it tells the
 * OpenAPI generator the body is application/json.
 */
export const jsonBody = {
	parse: [({ request }: { request: Request }) => readJson(request, BODY_MAX_BYTES), 'json' as const]
}

/**
 * For `POST /api/auth/login` (docs/api.md): only `application/json` (415
 * otherwise, so a web page cannot send a login from a visitor's browser
 * without a CORS preflight) and at most 16 KiB, refused before it is read.
 */
export const loginJsonBody = {
	parse: [
		({ request }: { request: Request }) => {
			if (!isJsonMediaType(request.headers.get('content-type'))) {
				throw new AppError('unsupported_media_type', 'Send the login as JSON, with Content-Type: application/json.')
			}
			return readJson(request, LOGIN_BODY_MAX_BYTES)
		},
		'json' as const
	]
}

/** `application/json`, any case, with or without parameters such as charset. */
const isJsonMediaType = (header: string | null): boolean =>
	header !== null && /^application\/json\s*(;|$)/i.test(header.trim())

async function readJson(request: Request, limit: number): Promise<unknown> {
	if (request.body === null) return undefined
	const bytes = await readLimited(request, limit)
	if (bytes.byteLength === 0) return undefined
	let text: string
	try {
		text = utf8.decode(bytes)
	} catch {
		throw new AppError('invalid_request', 'The request body is not valid UTF-8.')
	}
	let value: unknown
	try {
		value = JSON.parse(text)
	} catch {
		throw new AppError('invalid_request', 'The request body is not valid JSON.')
	}
	if (depthExceeds(value, JSON_MAX_DEPTH)) {
		throw new AppError('invalid_request', `The request body nests deeper than ${JSON_MAX_DEPTH} levels.`)
	}
	return value
}

/**
 * The web application's parser (an `onParse` hook on its routes), in place of
 * Elysia's, which reads a body whole whatever its size: docs/api.md's limit
 * for the path (16 KiB for sign-in), counted as the body arrives and before
 * the session or the CSRF token is looked at; then parsed by its type the way
 * Elysia would (a repeated form field becomes a list).
 */
export async function readForm({ request }: { request: Request }): Promise<unknown> {
	if (request.body === null) return {}
	const bytes = await readLimited(request, bodyLimitOf(pathOf(request.url)))
	const header = request.headers.get('content-type') ?? ''
	const type = header.split(';')[0]?.trim().toLowerCase()
	if (type === 'multipart/form-data') {
		const form = await new Response(bytes as BodyInit, { headers: { 'content-type': header } }).formData().catch(() => {
			throw new AppError('invalid_request', 'The form could not be read.')
		})
		const fields: Record<string, unknown> = {}
		for (const [name, value] of form) fields[name] = typeof value === 'string' ? value : ''
		return fields
	}
	const text = Buffer.from(bytes).toString('utf8')
	if (type === 'application/json') {
		try {
			return JSON.parse(text)
		} catch {
			throw new AppError('invalid_request', 'The request body is not valid JSON.')
		}
	}
	return parseQuery(text)
}

/** The body, at most `limit` bytes of it: a larger declared length is refused unread, a body without one is counted as it arrives (413 past the limit). */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
	const declared = request.headers.get('content-length')
	if (declared !== null) {
		// The auth gate checked the declared length against 1 MiB before anything was read; a route may allow less.
		if (Number(declared) > limit) throw tooLarge(limit)
		return new Uint8Array(await request.arrayBuffer())
	}
	const chunks: Uint8Array[] = []
	let total = 0
	for await (const chunk of request.body as ReadableStream<Uint8Array>) {
		total += chunk.byteLength
		if (total > limit) throw tooLarge(limit)
		chunks.push(chunk)
	}
	return Buffer.concat(chunks)
}

export const tooLarge = (limit = BODY_MAX_BYTES) =>
	new AppError(
		'payload_too_large',
		`The request body is larger than ${limit >= 1_048_576 ? `${limit / 1_048_576} MiB` : `${limit / 1024} KiB`}.`
	)

/** Recursion stops at `remaining` levels, so a hostile 500,000-deep body cannot overflow the stack here. */
function depthExceeds(value: unknown, remaining: number): boolean {
	if (typeof value !== 'object' || value === null) return false
	if (remaining === 0) return true
	if (Array.isArray(value)) {
		for (const item of value) if (depthExceeds(item, remaining - 1)) return true
		return false
	}
	const record = value as Record<string, unknown>
	for (const key in record) if (depthExceeds(record[key], remaining - 1)) return true
	return false
}
