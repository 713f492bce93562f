import { describe, expect, test } from 'bun:test'
import { createApp } from '../../src/server/app'
import { parseTrustedProxies } from '../../src/server/lib/client-address'
import { manualClock } from '../../src/server/lib/clock'
import { loadConfig } from '../../src/server/config'
import { createSealer, generateMasterKey } from '../../src/server/lib/crypto'
import { memoryLogger } from '../../src/server/lib/log'
import { createDownloads } from '../../src/server/modules/download/service'
import { openTestStore } from '../support/engine'
import { fastPasswords } from '../support/helpers'

/**
 * docs/api.md: pages that print an absolute URL (the install command on
 * /download) use CFGSYNC_PUBLIC_URL; without it the request's Host, with
 * X-Forwarded-Proto / X-Forwarded-Host believed only from a trusted proxy.
 * Such pages are never stored by a cache.
 */
function downloadPage(options: { publicUrl?: string; peer?: string; trusted?: string } = {}) {
	const app = createApp({
		store: openTestStore(),
		sealer: createSealer(generateMasterKey()),
		clock: manualClock(),
		logger: memoryLogger(),
		passwords: fastPasswords,
		downloads: createDownloads({ clientPackage: new Blob(['a tarball']) }),
		publicUrl: options.publicUrl,
		peerAddress: () => options.peer ?? '203.0.113.9',
		trustedProxies: options.trusted === undefined ? undefined : parseTrustedProxies(options.trusted)
	})
	return async (headers: Record<string, string>) => {
		const response = await app.handle(new Request('http://localhost/download', { headers }))
		const html = await response.text()
		return {
			status: response.status,
			cacheControl: response.headers.get('cache-control'),
			install: /npm install -g (\S+)<\/code>/.exec(html)?.[1],
			login: /cfgsync login --server (\S+)/.exec(html)?.[1]
		}
	}
}

describe('/download prints the address people use (docs/api.md)', () => {
	test('with CFGSYNC_PUBLIC_URL: that address, whatever Host and forwarded headers say, and no-store', async () => {
		const get = downloadPage({ publicUrl: 'https://cfgsync.example.com' })
		const page = await get({ host: 'evil.example', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' })
		expect(page).toEqual({
			status: 200,
			cacheControl: 'no-store',
			install: 'https://cfgsync.example.com/download/cfgsync.tgz',
			login: 'https://cfgsync.example.com'
		})
	})

	test('without it: the request Host; forged X-Forwarded-Proto and X-Forwarded-Host from a peer that is no trusted proxy are ignored', async () => {
		const get = downloadPage({ peer: '203.0.113.9', trusted: '127.0.0.1/32' })
		const page = await get({
			host: 'cfgsync.lan:8787',
			'x-forwarded-proto': 'https',
			'x-forwarded-host': 'evil.example'
		})
		expect(page).toEqual({
			status: 200,
			cacheControl: 'no-store',
			install: 'http://cfgsync.lan:8787/download/cfgsync.tgz',
			login: 'http://cfgsync.lan:8787'
		})
		const noProxies = await downloadPage()({ host: 'cfgsync.lan', 'x-forwarded-proto': 'https' })
		expect(noProxies.install).toBe('http://cfgsync.lan/download/cfgsync.tgz')
	})

	test('from a trusted proxy: its X-Forwarded-Proto and X-Forwarded-Host are honoured (first value of a list); a forwarded host that is no host is not', async () => {
		const get = downloadPage({ peer: '127.0.0.1', trusted: '127.0.0.1/32' })
		expect(
			(await get({ host: '127.0.0.1:8787', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'sync.example.org' }))
				.install
		).toBe('https://sync.example.org/download/cfgsync.tgz')
		expect((await get({ host: 'sync.example.org', 'x-forwarded-proto': 'https, http' })).install).toBe(
			'https://sync.example.org/download/cfgsync.tgz'
		)
		expect((await get({ host: 'sync.example.org', 'x-forwarded-proto': 'gopher' })).install).toBe(
			'http://sync.example.org/download/cfgsync.tgz'
		)
		expect((await get({ host: 'sync.example.org', 'x-forwarded-host': 'a b/<script>' })).install).toBe(
			'http://sync.example.org/download/cfgsync.tgz'
		)
	})
})

describe('--public-url / CFGSYNC_PUBLIC_URL (docs/api.md)', () => {
	test('an http(s) address is kept as an origin: trailing slash trimmed, host lower-cased, default port dropped; the flag wins over the environment', () => {
		expect(loadConfig({}, {}).publicUrl).toBeUndefined()
		expect(loadConfig({}, { CFGSYNC_PUBLIC_URL: 'https://CfgSync.Example.com/' }).publicUrl).toBe(
			'https://cfgsync.example.com'
		)
		expect(loadConfig({}, { CFGSYNC_PUBLIC_URL: 'http://10.0.0.5:8787' }).publicUrl).toBe('http://10.0.0.5:8787')
		expect(loadConfig({}, { CFGSYNC_PUBLIC_URL: 'https://sync.example.org:443' }).publicUrl).toBe(
			'https://sync.example.org'
		)
		expect(
			loadConfig({ publicUrl: 'https://flag.example' }, { CFGSYNC_PUBLIC_URL: 'https://env.example' }).publicUrl
		).toBe('https://flag.example')
	})

	test('anything else stops the start with one line naming the setting', () => {
		for (const bad of [
			'cfgsync.example.com',
			'ftp://cfgsync.example.com',
			'https://cfgsync.example.com/sync',
			'https://cfgsync.example.com/?a=1',
			'https://user:pw@cfgsync.example.com',
			'https://',
			'http://a b'
		]) {
			expect(() => loadConfig({}, { CFGSYNC_PUBLIC_URL: bad })).toThrow(
				/^invalid setting --public-url \/ CFGSYNC_PUBLIC_URL: .*such as https:\/\/cfgsync\.example\.com/
			)
		}
	})
})
