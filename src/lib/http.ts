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
	let match: RegExpExecArray | null
	while (pattern.lastIndex < value.length && (match = pattern.exec(value)) !== null) {
		tags.push((match[1] ?? '') + (match[2] ?? match[3] ?? ''))
	}
	return tags
}

/** Strong comparison (If-Match): weak tags never match. */
export const strongTags = (tags: string[] | '*'): string[] | '*' => (tags === '*' ? '*' : tags.filter((tag) => !tag.startsWith('W/')))

/** Weak comparison (If-None-Match): `W/"x"` and `"x"` both mean x. */
export const weakTags = (tags: string[] | '*'): string[] | '*' => (tags === '*' ? '*' : tags.map((tag) => (tag.startsWith('W/') ? tag.slice(2) : tag)))

export const etagOf = (hash: string): string => `"${hash}"`

const JSON_TYPE = 'application/json;charset=utf-8'

/**
 * `fields` as a JSON object with a `data` member spliced in from JSON text we
 * already hold (the decrypted record), so large configs are not parsed and
 * re-serialised on the way out.
 */
export function objectWithData(fields: object, dataJson: string): string {
	const head = JSON.stringify(fields)
	return head === '{}' ? `{"data":${dataJson}}` : `${head.slice(0, -1)},"data":${dataJson}}`
}

export function jsonResponse(body: string, init: { status?: number; headers?: Record<string, string> } = {}): Response {
	return new Response(body, { status: init.status ?? 200, headers: { 'content-type': JSON_TYPE, ...init.headers } })
}

/** 304 for a conditional GET whose tag matched: no body, the same ETag. */
export const notModified = (hash: string): Response => new Response(null, { status: 304, headers: { etag: etagOf(hash) } })

/**
 * A JSON array written as its items arrive, so its size never has to fit in
 * memory. Lists that end within the first `inlineUpTo` items are sent as one
 * string with a Content-Length, which is cheaper for the common short list.
 */
export async function jsonArrayResponse(items: AsyncIterable<string>, inlineUpTo = 8): Promise<Response> {
	const iterator = items[Symbol.asyncIterator]()
	const head: string[] = []
	while (head.length < inlineUpTo) {
		const next = await iterator.next()
		if (next.done) return jsonResponse(`[${head.join(',')}]`)
		head.push(next.value)
	}
	const encoder = new TextEncoder()
	const stream = new ReadableStream<Uint8Array>({
		start(controller) {
			controller.enqueue(encoder.encode(`[${head.join(',')}`))
		},
		async pull(controller) {
			const next = await iterator.next()
			if (next.done) {
				controller.enqueue(encoder.encode(']'))
				controller.close()
				return
			}
			controller.enqueue(encoder.encode(`,${next.value}`))
		},
		async cancel() {
			await iterator.return?.()
		}
	})
	return new Response(stream, { headers: { 'content-type': JSON_TYPE } })
}
