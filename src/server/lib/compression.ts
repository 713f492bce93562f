import { promisify } from 'node:util'
import { brotliCompress, brotliCompressSync, constants, gzip, gzipSync } from 'node:zlib'

// Pages, styles and scripts sent compressed when the browser accepts it (docs/web.md, how it is built).
// The API's JSON is left as it is: its hot paths are measured in microseconds, and clients read it uncompressed.

export type Encoding = 'br' | 'gzip'

/** Below this a compressed body saves less than a packet; it is sent as it is. */
export const COMPRESS_MIN_BYTES = 1024

const COMPRESSIBLE = /^(text\/(html|css|javascript|plain)|application\/(javascript|json))\b/i

/** True for the types worth compressing (text), judged by the response's Content-Type. */
export const isCompressible = (contentType: string | null): boolean =>
	contentType !== null && COMPRESSIBLE.test(contentType)

/**
 * The encoding to send for an `Accept-Encoding` header (RFC 9110 §12.5.3): brotli when it is accepted at least as
 * much as gzip, then gzip, else none. `q=0` refuses an encoding; `*` stands for those not named.
 */
export function acceptedEncoding(header: string | null): Encoding | undefined {
	if (!header) return undefined
	let br: number | undefined
	let gzip: number | undefined
	let any: number | undefined
	for (const part of header.split(',')) {
		const [token = '', ...parameters] = part.split(';')
		let quality = 1
		for (const parameter of parameters) {
			const match = /^\s*q\s*=\s*(\S*)\s*$/i.exec(parameter)
			if (match) quality = /^[0-9.]+$/.test(match[1] ?? '') ? Number(match[1]) : 0
		}
		if (!Number.isFinite(quality)) quality = 0
		const name = token.trim().toLowerCase()
		if (name === 'br') br = quality
		else if (name === 'gzip' || name === 'x-gzip') gzip = quality
		else if (name === '*') any = quality
	}
	const brQuality = br ?? any ?? 0
	const gzipQuality = gzip ?? any ?? 0
	if (brQuality > 0 && brQuality >= gzipQuality) return 'br'
	return gzipQuality > 0 ? 'gzip' : undefined
}

/**
 * `bytes` compressed. `effort` 'page' is for a body made per request (brotli quality 5, gzip 6: a 155 KB page in a
 * few milliseconds); 'asset' for a file compressed once and kept (brotli 9 and gzip 9; brotli 11 would take seconds
 * for the 1.7 MB API page script and save 10%, so files past 256 KiB keep quality 5).
 */
export function compress(bytes: Uint8Array, encoding: Encoding, effort: 'page' | 'asset'): Uint8Array {
	const thorough = effort === 'asset'
	if (encoding === 'gzip') return gzipSync(bytes, { level: thorough ? 9 : 6 })
	return brotliCompressSync(bytes, {
		params: {
			[constants.BROTLI_PARAM_QUALITY]: thorough && bytes.byteLength <= 256 * 1024 ? 9 : 5,
			[constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
			[constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT
		}
	})
}

/**
 * Past this a page is compressed off the thread that answers requests (zlib's own threads): a large
 * comparison's 2 MB page takes some 30 ms to compress, which /healthz and everyone else would wait for.
 */
const COMPRESS_ASYNC_BYTES = 256 * 1024
const brotliAsync = promisify(brotliCompress)
const gzipAsync = promisify(gzip)

/** A page's `bytes` compressed as `compress(…, 'page')` does; large ones away from this thread. */
async function compressPageBytes(bytes: Uint8Array, encoding: Encoding): Promise<Uint8Array> {
	if (bytes.byteLength < COMPRESS_ASYNC_BYTES) return compress(bytes, encoding, 'page')
	if (encoding === 'gzip') return gzipAsync(bytes, { level: 6 })
	return brotliAsync(bytes, {
		params: {
			[constants.BROTLI_PARAM_QUALITY]: 5,
			[constants.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
			[constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT
		}
	})
}

/** Adds Accept-Encoding to a response's Vary (which may already name other headers). */
export function varyOnEncoding(headers: Headers): void {
	const vary = headers.get('vary')
	if (!vary) headers.set('vary', 'Accept-Encoding')
	else if (!/(^|,)\s*(accept-encoding|\*)\s*(,|$)/i.test(vary)) headers.set('vary', `${vary}, Accept-Encoding`)
}

/**
 * A response whose body is made per request (a page, a fragment), compressed for `request` when it is text, large
 * enough, not already encoded (nor already chosen for this request: its Vary says so) and the browser accepts an encoding. Its Vary names Accept-Encoding either way, and a
 * HEAD gets the headers its GET would. Responses with an ETag are left alone: a strong tag names one
 * representation, and none of the pages carries one.
 */
export async function compressedResponse(request: Request, response: Response): Promise<Response> {
	if (
		response.body === null ||
		response.status === 204 ||
		response.status === 304 ||
		response.headers.has('content-encoding') ||
		response.headers.has('etag') ||
		/accept-encoding/i.test(response.headers.get('vary') ?? '') ||
		!isCompressible(response.headers.get('content-type'))
	)
		return response
	const bytes = new Uint8Array(await response.arrayBuffer())
	const headers = new Headers(response.headers)
	varyOnEncoding(headers)
	const encoding =
		bytes.byteLength >= COMPRESS_MIN_BYTES ? acceptedEncoding(request.headers.get('accept-encoding')) : undefined
	const body = encoding ? await compressPageBytes(bytes, encoding) : bytes
	if (encoding) headers.set('content-encoding', encoding)
	headers.set('content-length', String(body.byteLength))
	return new Response(body as BodyInit, {
		status: response.status,
		statusText: response.statusText,
		headers
	})
}

/**
 * An embedded file (a stylesheet, a script) served compressed: each encoding is made once, on first use, and kept,
 * so later requests cost a lookup. Its URL carries its content hash, so it may be cached for good.
 */
export function compressedAsset(load: () => Uint8Array, headers: Record<string, string>) {
	let plain: Uint8Array | undefined
	const encoded = new Map<Encoding, Uint8Array>()
	return (request: Request): Response => {
		plain ??= load()
		const encoding =
			plain.byteLength >= COMPRESS_MIN_BYTES ? acceptedEncoding(request.headers.get('accept-encoding')) : undefined
		let body = plain
		if (encoding) {
			body = encoded.get(encoding) ?? compress(plain, encoding, 'asset')
			encoded.set(encoding, body)
		}
		const out = new Headers(headers)
		varyOnEncoding(out)
		if (encoding) out.set('content-encoding', encoding)
		out.set('content-length', String(body.byteLength))
		return new Response(body as BodyInit, { headers: out })
	}
}
