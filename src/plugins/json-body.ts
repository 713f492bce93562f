import { BODY_MAX_BYTES, JSON_MAX_DEPTH } from '../lib/constants'
import { AppError } from '../lib/errors'

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
	parse: [({ request }: { request: Request }) => readJson(request), 'json' as const]
}

async function readJson(request: Request): Promise<unknown> {
	if (request.body === null) return undefined
	const bytes = await readLimited(request)
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

async function readLimited(request: Request): Promise<Uint8Array> {
	if (request.headers.has('content-length')) {
		// The declared length was checked by the auth gate before anything was read.
		return new Uint8Array(await request.arrayBuffer())
	}
	const chunks: Uint8Array[] = []
	let total = 0
	for await (const chunk of request.body as ReadableStream<Uint8Array>) {
		total += chunk.byteLength
		if (total > BODY_MAX_BYTES) throw tooLarge()
		chunks.push(chunk)
	}
	return Buffer.concat(chunks)
}

export const tooLarge = () => new AppError('payload_too_large', 'The request body is larger than 1 MiB.')

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
