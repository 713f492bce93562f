// docs/web.md, round 3 ("no dead ends"): an address outside /api that matches nothing is the
// application's HTML 404 page (title, lang, a heading, a link home), /api keeps its JSON; no error page links to
// itself (the Admin 403 leads home); /download has the application's header and navigation, a "Copy" for its
// command and says only what an end user does.
import { describe, expect, test } from 'bun:test'
import { textOf, webApp } from '../../support/web'

describe('no dead ends (docs/web.md)', () => {
	test('an unknown address outside /api is an HTML 404 page with a link home; /api keeps JSON', async () => {
		const w = webApp()
		const signedOut = await w.get('/no/such/page')
		expect(signedOut.status).toBe(404)
		expect(signedOut.headers.get('content-type')).toContain('text/html')
		expect(signedOut.headers.get('content-security-policy')).toContain("default-src 'self'")
		expect(signedOut.html).toContain('<html lang="en"')
		expect(signedOut.html).toContain('<title>Not found · cfgsync</title>')
		expect(signedOut.html).toContain('<h1>Not found</h1>')
		expect(signedOut.html).toContain('href="/"')
		const alice = await w.signIn(await w.user('team', 'alice'))
		const signedIn = await w.get('/settings', alice)
		expect(signedIn.status).toBe(404)
		expect(signedIn.html).toContain('aria-label="Main"')
		expect(signedIn.html).toContain('<a href="/configs">')
		const api = await w.call('GET', '/api/nope', { key: alice.user.key })
		expect(api.status).toBe(404)
		expect(api.body).toEqual({ error: 'No such route.', code: 'not_found' })
		expect((await w.call('GET', '/api/nope')).status).toBe(401)
	})

	test('the Admin 403 leads home, not back to the same 403', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		const refused = await w.get('/admin', alice)
		expect(refused.status).toBe(403)
		expect(refused.html).not.toContain('Back to Admin')
		expect(refused.html).not.toMatch(/<main[\s\S]*href="\/admin"/)
		expect(refused.html).toContain('<a href="/configs">Back to Configs</a>')
	})

	test('/download has the header and navigation when signed in, a Copy button, and no build instructions', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		const page = await w.get('/download', alice)
		expect(page.status).toBe(200)
		expect(page.html).toContain('aria-label="Main"')
		expect(page.html).toContain('data-copy=')
		expect(textOf(page.html)).not.toContain('npm run build')
		const signedOut = await w.get('/download')
		expect(signedOut.html).toContain('class="top"')
		expect(textOf(signedOut.html)).not.toContain('npm run build')
	})
})
