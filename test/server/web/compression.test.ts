// docs/web.md: pages, styles and scripts are sent gzip- or brotli-compressed when the browser accepts it,
// with Vary: Accept-Encoding and a Content-Length that is the compressed size; a HEAD says the same as its GET;
// the API's JSON is left as it is.
import { beforeAll, describe, expect, test } from 'bun:test'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { acceptedEncoding, COMPRESS_MIN_BYTES } from '../../../src/server/lib/compression'
import { ORIGIN, push, webApp, type Browser, type WebApp } from '../../support/web'

/** A config of 40 files of settings-like lines: its page is about as large as the largest the issue measured (155 KB). */
function largeConfig() {
	const files: Record<string, string> = {}
	for (let file = 0; file < 40; file++) {
		const lines = ['{']
		for (let line = 0; line < 60; line++)
			lines.push(`  "setting.${file}.${line}": "${(file * 7919 + line * 104729).toString(36)} value for line ${line}",`)
		lines.push(`  "last": ${file}`, '}')
		files[`.config/tool-${file}/settings.json`] = `${lines.join('\n')}\n`
	}
	return { files }
}

async function fetchRaw(w: WebApp, path: string, headers: Record<string, string>, method = 'GET') {
	const response = await w.app.handle(new Request(`${ORIGIN}${path}`, { method, headers }))
	return { response, bytes: new Uint8Array(await response.arrayBuffer()) }
}

const decode = (bytes: Uint8Array, encoding: string | null): string =>
	Buffer.from(
		encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes
	).toString('utf8')

describe('Accept-Encoding (RFC 9110 §12.5.3)', () => {
	test('brotli when accepted at least as much as gzip, gzip next, nothing when neither is acceptable', () => {
		expect(acceptedEncoding('gzip, deflate, br, zstd')).toBe('br')
		expect(acceptedEncoding('gzip, deflate')).toBe('gzip')
		expect(acceptedEncoding('br;q=0.5, gzip;q=0.8')).toBe('gzip')
		expect(acceptedEncoding('BR')).toBe('br')
		expect(acceptedEncoding('x-gzip')).toBe('gzip')
		expect(acceptedEncoding('*')).toBe('br')
		expect(acceptedEncoding('*, br;q=0')).toBe('gzip')
		expect(acceptedEncoding('br;q=0, gzip;q=0')).toBeUndefined()
		expect(acceptedEncoding('identity')).toBeUndefined()
		expect(acceptedEncoding('deflate')).toBeUndefined()
		expect(acceptedEncoding('')).toBeUndefined()
		expect(acceptedEncoding(null)).toBeUndefined()
		expect(acceptedEncoding('gzip;q=nonsense')).toBeUndefined()
	})
})

describe('compressed responses (docs/web.md)', () => {
	let w: WebApp
	let alice: Browser
	let configId: string

	beforeAll(async () => {
		w = webApp()
		const user = await w.user('team', 'alice')
		configId = await push(w, user, largeConfig(), { name: 'big' })
		alice = await w.signIn(user)
	})

	const session = () => ({ cookie: `cfgsync_session=${alice.cookie}` })

	test('the largest page: brotli or gzip as accepted, a fraction of its size, the same page once decoded', async () => {
		const plain = await fetchRaw(w, `/configs/${configId}`, session())
		expect(plain.response.status).toBe(200)
		expect(plain.response.headers.get('content-encoding')).toBeNull()
		expect(plain.response.headers.get('vary')).toBe('Accept-Encoding')
		const html = decode(plain.bytes, null)
		expect(plain.bytes.byteLength).toBeGreaterThan(150_000)
		for (const [accept, encoding] of [
			['gzip, deflate, br, zstd', 'br'],
			['gzip, deflate', 'gzip']
		] as const) {
			const packed = await fetchRaw(w, `/configs/${configId}`, { ...session(), 'accept-encoding': accept })
			expect(packed.response.status).toBe(200)
			expect(packed.response.headers.get('content-encoding')).toBe(encoding)
			expect(packed.response.headers.get('vary')).toBe('Accept-Encoding')
			expect(packed.response.headers.get('content-length')).toBe(String(packed.bytes.byteLength))
			// The page's own headers survive: never stored, the CSP and nosniff.
			expect(packed.response.headers.get('cache-control')).toBe('no-store')
			expect(packed.response.headers.get('content-security-policy')).toContain("default-src 'self'")
			expect(packed.response.headers.get('x-content-type-options')).toBe('nosniff')
			expect(decode(packed.bytes, encoding)).toBe(html)
			const ratio = packed.bytes.byteLength / plain.bytes.byteLength
			console.log(
				`${encoding}: ${plain.bytes.byteLength} → ${packed.bytes.byteLength} bytes (${(ratio * 100).toFixed(1)}%)`
			)
			expect(ratio).toBeLessThan(0.2)
		}
	})

	test('nothing is compressed for a browser that accepts no encoding we have', async () => {
		for (const accept of ['identity', 'deflate', 'br;q=0, gzip;q=0']) {
			const response = await fetchRaw(w, `/configs/${configId}`, { ...session(), 'accept-encoding': accept })
			expect(response.response.headers.get('content-encoding')).toBeNull()
			expect(response.response.headers.get('vary')).toBe('Accept-Encoding')
		}
	})

	test('the stylesheet and both scripts: compressed once and kept, cacheable for good, Vary on the encoding', async () => {
		const page = decode((await fetchRaw(w, '/configs', session())).bytes, null)
		const assets = [...page.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((match) => match[1]!)
		expect(assets.map((path) => path.replace(/\?v=[0-9a-f]+$/, '')).sort()).toEqual([
			'/assets/app.css',
			'/assets/app.js',
			'/assets/htmx.min.js'
		])
		for (const path of assets) {
			const plain = await fetchRaw(w, path, {})
			for (const encoding of ['br', 'gzip'] as const) {
				const first = await fetchRaw(w, path, { 'accept-encoding': encoding })
				const again = await fetchRaw(w, path, { 'accept-encoding': encoding })
				expect(first.response.headers.get('vary')).toBe('Accept-Encoding')
				expect(first.response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
				if (plain.bytes.byteLength < COMPRESS_MIN_BYTES) {
					expect(first.response.headers.get('content-encoding')).toBeNull()
					continue
				}
				expect(first.response.headers.get('content-encoding')).toBe(encoding)
				expect(first.response.headers.get('content-length')).toBe(String(first.bytes.byteLength))
				expect(first.bytes.byteLength).toBeLessThan(plain.bytes.byteLength / 2)
				expect(decode(first.bytes, encoding)).toBe(decode(plain.bytes, null))
				expect(again.bytes).toEqual(first.bytes)
			}
		}
	})

	test('a HEAD gets the headers its GET would (encoding and length), with no body', async () => {
		for (const path of [`/configs/${configId}`, '/assets/htmx.min.js']) {
			const headers = { ...session(), 'accept-encoding': 'br' }
			const get = await fetchRaw(w, path, headers)
			const head = await fetchRaw(w, path, headers, 'HEAD')
			expect(head.response.status).toBe(200)
			expect(head.bytes.byteLength).toBe(0)
			for (const name of ['content-encoding', 'content-length', 'vary', 'content-type'])
				expect({ path, name, value: head.response.headers.get(name) }).toEqual({
					path,
					name,
					value: get.response.headers.get(name)
				})
		}
	})

	test('the public pages too: /download and the API page with its script and styles', async () => {
		for (const path of ['/download', '/docs', '/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']) {
			const plain = await fetchRaw(w, path, {})
			const packed = await fetchRaw(w, path, { 'accept-encoding': 'gzip, br' })
			expect(packed.response.status).toBe(200)
			expect(packed.response.headers.get('vary')).toBe('Accept-Encoding')
			expect(decode(packed.bytes, packed.response.headers.get('content-encoding'))).toBe(decode(plain.bytes, null))
			if (plain.bytes.byteLength >= COMPRESS_MIN_BYTES) {
				expect(packed.response.headers.get('content-encoding')).toBe('br')
				expect(packed.bytes.byteLength).toBeLessThan(plain.bytes.byteLength / 2)
			}
		}
	})

	test("the API's JSON is never compressed, and its ETag and 304 stay as they were", async () => {
		const key = (
			await w.call('POST', '/api/auth/login', {
				body: { login: 'alice', password: alice.user.password, device: 'laptop' }
			})
		).body.apiKey as string
		const read = await fetchRaw(w, `/api/configs/${configId}`, {
			authorization: `Bearer ${key}`,
			'accept-encoding': 'gzip, br'
		})
		expect(read.response.status).toBe(200)
		expect(read.bytes.byteLength).toBeGreaterThan(COMPRESS_MIN_BYTES)
		expect(read.response.headers.get('content-encoding')).toBeNull()
		const etag = read.response.headers.get('etag')
		expect(etag).toMatch(/^"[0-9a-f]{64}"$/)
		expect(JSON.parse(decode(read.bytes, null)).id).toBe(configId)
		const again = await fetchRaw(w, `/api/configs/${configId}`, {
			authorization: `Bearer ${key}`,
			'accept-encoding': 'gzip, br',
			'if-none-match': etag!
		})
		expect(again.response.status).toBe(304)
		expect(again.response.headers.get('etag')).toBe(etag)
		expect(again.response.headers.get('content-encoding')).toBeNull()
	})

	test('a small answer (a redirect, a short fragment) goes as it is', async () => {
		const redirect = await fetchRaw(w, '/sign-in', { 'accept-encoding': 'br' })
		expect(redirect.response.status).toBe(303)
		expect(redirect.response.headers.get('content-encoding')).toBeNull()
		const signIn = await fetchRaw(w, '/', { 'accept-encoding': 'br' })
		// The sign-in page is over the threshold; a tiny error fragment for htmx is not.
		expect(signIn.response.headers.get('content-encoding')).toBe('br')
		const fragment = await fetchRaw(w, `/configs/${crypto.randomUUID()}`, {
			...session(),
			'accept-encoding': 'br',
			'hx-request': 'true'
		})
		expect(fragment.response.status).toBe(404)
		expect(fragment.bytes.byteLength).toBeLessThan(COMPRESS_MIN_BYTES)
		expect(fragment.response.headers.get('content-encoding')).toBeNull()
	})
})
