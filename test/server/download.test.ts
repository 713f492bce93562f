import { describe, expect, test } from 'bun:test'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '../../src/server/app'
import { manualClock } from '../../src/server/lib/clock'
import { createSealer, generateMasterKey } from '../../src/server/lib/crypto'
import { memoryLogger } from '../../src/server/lib/log'
import { downloadPage, escapeHtml } from '../../src/server/modules/download/page'
import { createDownloads, embeddedClientPackage } from '../../src/server/modules/download/service'
import { openTestStore } from '../support/engine'
import { fastPasswords } from '../support/helpers'
import { tempDir } from '../support/temp'

/**
 * docs/client.md /download, in process. Not compiled, Bun.embeddedFiles is
 * empty: the package is then a clear 404 and the page says the server was
 * built without it (the compiled binary is tested in test/client/install.e2e.test.ts).
 */

const sha = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex')

function appWith(downloads?: ReturnType<typeof createDownloads>) {
	const app = createApp({
		store: openTestStore(),
		sealer: createSealer(generateMasterKey()),
		clock: manualClock(),
		logger: memoryLogger(),
		passwords: fastPasswords,
		downloads
	})
	return (path: string, headers: Record<string, string> = {}) =>
		app.handle(new Request(`http://localhost${path}`, { headers }))
}

describe('GET /download', () => {
	test('without the embedded package (not compiled): the page says so and cfgsync.tgz is a JSON 404', async () => {
		expect(embeddedClientPackage()).toBeUndefined()
		const get = appWith()
		const page = await get('/download')
		expect(page.status).toBe(200)
		expect(page.headers.get('content-type')).toBe('text/html;charset=utf-8')
		expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'")
		expect(page.headers.get('x-content-type-options')).toBe('nosniff')
		expect(await page.text()).toContain('This server has no client to download yet. Ask the person who runs it')
		const tgz = await get('/download/cfgsync.tgz')
		expect(tgz.status).toBe(404)
		expect(await tgz.json()).toEqual({ error: expect.stringContaining('npm run build'), code: 'not_found' })
		expect(await (await get('/download/SHA256SUMS')).text()).toBe('')
	})

	test('the package and the downloads directory: page, sums, files; no key needed; nothing outside the directory', async () => {
		const dir = tempDir('downloads')
		const outside = tempDir('outside')
		writeFileSync(join(dir, 'cfgsync-linux-x64'), 'ELF pretend')
		writeFileSync(join(dir, 'cfgsync-windows-x64.exe'), 'MZ pretend')
		writeFileSync(join(dir, '.hidden'), 'no')
		writeFileSync(join(dir, 'SHA256SUMS'), 'stale sums from elsewhere\n')
		mkdirSync(join(dir, 'subdir'))
		writeFileSync(join(outside, 'secret'), 'master key')
		symlinkSync(join(outside, 'secret'), join(dir, 'linked-out'))
		symlinkSync(join(dir, 'cfgsync-linux-x64'), join(dir, 'linked-in'))
		const pkg = new Blob(['a tarball'])
		const get = appWith(createDownloads({ dir, clientPackage: pkg }))

		const page = await (await get('/download', { host: 'cfgsync.lan:8787' })).text()
		expect(page).toContain('npm install -g http://cfgsync.lan:8787/download/cfgsync.tgz')
		expect(page).toContain(sha('a tarball'))
		expect(page).toContain(`<a href="/download/cfgsync-linux-x64">cfgsync-linux-x64</a>`)
		expect(page).toContain(sha('ELF pretend'))
		expect(page).not.toContain('linked-out')
		expect(page).not.toContain('.hidden')
		// X-Forwarded-Proto from a peer that is no trusted proxy is ignored (docs/api.md; test/server/public-url.test.ts covers trusted proxies).
		expect(await (await get('/download', { host: 'sync.example.org', 'x-forwarded-proto': 'https' })).text()).toContain(
			'npm install -g http://sync.example.org/download/cfgsync.tgz'
		)

		const sums = await (await get('/download/SHA256SUMS')).text()
		expect(sums).toBe(
			[
				`${sha('a tarball')}  cfgsync.tgz`,
				`${sha('ELF pretend')}  cfgsync-linux-x64`,
				`${sha('MZ pretend')}  cfgsync-windows-x64.exe`,
				`${sha('ELF pretend')}  linked-in`
			]
				.map((line) => `${line}\n`)
				.join('')
		)
		const tgz = await get('/download/cfgsync.tgz')
		expect(await tgz.text()).toBe('a tarball')
		expect(tgz.headers.get('content-disposition')).toBe('attachment; filename="cfgsync.tgz"')
		const exe = await get('/download/cfgsync-windows-x64.exe')
		expect(exe.status).toBe(200)
		expect(exe.headers.get('content-type')).toBe('application/octet-stream')
		expect(await exe.text()).toBe('MZ pretend')
		for (const path of [
			'/download/linked-out',
			'/download/.hidden',
			'/download/subdir',
			'/download/..%2Foutside%2Fsecret',
			'/download/nope'
		]) {
			const response = await get(path)
			expect({ path, status: response.status }).toEqual({ path, status: 404 })
			expect(await response.text()).not.toContain('master key')
		}
		// `%2e%2e` is a dot segment: the URL itself becomes `/`, the web application's sign-in page, never a file.
		const dots = await get('/download/%2e%2e')
		expect(dots.headers.get('content-type')).toStartWith('text/html')
		expect(await dots.text()).toContain('Sign in')
		// A file replaced in place is hashed again.
		writeFileSync(join(dir, 'cfgsync-linux-x64'), 'ELF rebuilt, longer')
		expect(await (await get('/download/SHA256SUMS')).text()).toContain(
			`${sha('ELF rebuilt, longer')}  cfgsync-linux-x64`
		)
	})

	test('everything on the page is escaped', () => {
		expect(escapeHtml(`<script>"x" & 'y'</script>`)).toBe(
			'&#60;script&#62;&#34;x&#34; &#38; &#39;y&#39;&#60;/script&#62;'
		)
		const view = { now: 0, path: '/download', assets: { css: '/a.css', script: '/a.js', htmx: '/h.js' } }
		const page = downloadPage({ origin: 'http://"><script>alert(1)</script>', version: '<b>', files: [], view })
		expect(page).not.toContain('<script>')
		expect(page).not.toContain('<b>')
		expect(page).toContain('&#60;script&#62;')
	})
})
