// docs/web.md, round 3: each file and each version can be downloaded from a config's page; a new
// server's `/` says how to make its first admin; shown-once secrets have "Copy"; notices travel in a one-time
// cookie, never in the URL, and show commands as code; configs are named by tool first; a free plan's refusal
// says whom to ask.
import { describe, expect, test } from 'bun:test'
import { push, setCookieOf, textOf, webApp, withCookie } from '../../support/web'

/** The ids of a config's versions, by number. */
async function versionIds(w: ReturnType<typeof webApp>, key: string, id: string) {
	const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key })).body as {
		id: string
		version: number
	}[]
	return (n: number) => versions.find((version) => version.version === n)?.id as string
}

describe('downloads from a config page (docs/web.md)', () => {
	test('"Download version N" on each history row gives that version as {"files"} JSON', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const id = await push(w, alice, { files: { 'a.txt': 'one\n' } }, { name: 'main' })
		await push(w, alice, { files: { 'a.txt': 'two\n' } }, { name: 'main' })
		const v = await versionIds(w, alice.key, id)
		const browser = await w.signIn(alice)
		const page = await w.get(`/configs/${id}`, browser)
		expect(textOf(page.html)).toContain('Download version 1')
		expect(textOf(page.html)).toContain('Download version 2')
		for (const n of [1, 2]) {
			const href = `/configs/${id}/versions/${v(n)}/download`
			expect(page.html).toContain(`href="${href}"`)
			const file = await w.get(href, browser)
			expect(file.status).toBe(200)
			expect(JSON.parse(file.html)).toEqual({ files: { 'a.txt': n === 1 ? 'one\n' : 'two\n' } })
		}
	})

	test('"Download" on each file gives the file itself, on a free plan too; another file name is a 404', async () => {
		const w = webApp()
		const ann = await w.user('free', 'ann')
		const id = await push(
			w,
			ann,
			{ files: { '.claude/settings.json': '{"a": 1}\n', 'CLAUDE.md': '# Rules\n' } },
			{ name: 'main' }
		)
		const browser = await w.signIn(ann)
		const page = await w.get(`/configs/${id}`, browser)
		const current = (await w.call('GET', `/api/configs/${id}`, { key: ann.key })).body.currentVersionId as string
		for (const [path, name, text] of [
			['.claude/settings.json', 'settings.json', '{"a": 1}\n'],
			['CLAUDE.md', 'CLAUDE.md', '# Rules\n']
		] as const) {
			const href = `/configs/${id}/versions/${current}/download?file=${encodeURIComponent(path)}`
			expect(page.html).toContain(`href="${href.replace(/&/g, '&amp;')}"`)
			expect(textOf(page.html)).toContain(`Download ${path}`)
			const file = await w.get(href, browser)
			expect(file.status).toBe(200)
			expect(file.html).toBe(text)
			expect(file.headers.get('content-type')).toStartWith('text/plain')
			expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${name}"`)
			expect(file.headers.get('cache-control')).toBe('no-store')
		}
		const missing = await w.get(`/configs/${id}/versions/${current}/download?file=nope.txt`, browser)
		expect(missing.status).toBe(404)
		// Someone else's config stays a 404.
		const bob = await w.signIn(await w.user('pro', 'bob'))
		expect((await w.get(`/configs/${id}/versions/${current}/download?file=CLAUDE.md`, bob)).status).toBe(404)
	})
})

describe('first start (docs/web.md)', () => {
	test("a new server's / says where the setup address is and how to make a new one, never to ask the admin", async () => {
		const w = webApp()
		const first = await w.get('/')
		expect(first.status).toBe(200)
		const text = textOf(first.html)
		expect(text).toContain('no admin yet')
		expect(text).toContain("server's output")
		expect(first.html).toContain('<code>cfgsync-server setup-link</code>')
		expect(text).not.toMatch(/ask the server.s admin/i)
		// Once a user exists, `/` is the sign-in page as before.
		await w.user('team', 'alice')
		const later = textOf((await w.get('/')).html)
		expect(later).toContain('Username or email')
		expect(later).not.toContain('setup-link')
	})
})

/** The secret on a page has a "Copy" button whose target holds it (docs/web.md: shown-once secrets have Copy). */
function expectCopyable(html: string, name: string) {
	const target = /data-copy="([^"]+)"[^>]*>Copy<span class="visually-hidden"> ([^<]+)<\/span>/g
	const found = [...html.matchAll(target)].find((match) => match[2] === name)
	expect(found).toBeDefined()
	expect(html).toMatch(new RegExp(`id="${found?.[1]}"[^>]*><code class="secret">`))
}

describe('shown-once secrets have "Copy" (docs/web.md)', () => {
	test('a new sign-up link and a one-time password', async () => {
		const w = webApp()
		const root = await w.signIn(await w.admin('root'))
		const made = await w.post('/admin/links', root, { plan: 'team', uses: '1', days: '7' })
		const link = await w.get('/admin', root, withCookie(root, 'cfgsync_flash', setCookieOf(made, 'cfgsync_flash')!))
		expectCopyable(link.html, 'New sign-up link')
		const added = await w.post('/admin/users', root, {
			email: 'new@example.test',
			username: 'newbie',
			plan: 'pro',
			password: ''
		})
		const otp = await w.get('/admin', root, withCookie(root, 'cfgsync_flash', setCookieOf(added, 'cfgsync_flash')!))
		expectCopyable(otp.html, 'New password for newbie')
	})
})

describe('notices after a redirect come from a one-time cookie, not the URL (docs/web.md)', () => {
	test('Create team: the redirect carries no notice; the next page shows it once and clears it; a URL shows none', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		const made = await w.post('/teams', alice, { name: 'Crew' })
		expect(made.status).toBe(303)
		expect(made.headers.get('location')).toBe('/teams/crew')
		const notice = setCookieOf(made, 'cfgsync_notice')
		expect(notice).toBe('created')
		expect(made.headers.get('set-cookie')).toMatch(/cfgsync_notice=created; Path=\/; HttpOnly; SameSite=Lax/)
		const shown = await w.get('/teams/crew', alice, withCookie(alice, 'cfgsync_notice', notice!))
		expect(shown.html).toContain('<p class="notice" role="status">The team was created.</p>')
		expect(setCookieOf(shown, 'cfgsync_notice')).toBe('')
		// A reload (no cookie now) and an old address with ?notice= show nothing.
		expect((await w.get('/teams/crew', alice)).html).not.toContain('class="notice"')
		expect((await w.get('/teams/crew?notice=created', alice)).html).not.toContain('class="notice"')
		// An unknown name shows nothing.
		const unknown = await w.get('/teams/crew', alice, withCookie(alice, 'cfgsync_notice', '%3Cb%3E'))
		expect(unknown.html).not.toContain('class="notice"')
	})

	test('signing out: the sign-in page says so once', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		const out = await w.post('/sign-out', alice)
		expect(out.headers.get('location')).toBe('/')
		const notice = setCookieOf(out, 'cfgsync_notice')
		expect(notice).toBe('signed-out')
		expect(setCookieOf(out, 'cfgsync_session')).toBe('')
		const landed = await w.get('/', undefined, { cookie: `cfgsync_notice=${notice}` })
		expect(textOf(landed.html)).toContain('You are signed out')
		expect(setCookieOf(landed, 'cfgsync_notice')).toBe('')
	})

	test('a command in a notice is code, never literal backticks', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		const changed = await w.post('/account/password', alice, {
			current: alice.user.password,
			new: 'a-new-password-1',
			signOutDevices: 'yes'
		})
		expect(changed.headers.get('location')).toBe('/account')
		const shown = await w.get(
			'/account',
			alice,
			withCookie(alice, 'cfgsync_notice', setCookieOf(changed, 'cfgsync_notice')!)
		)
		expect(shown.html).toContain('<code>cfgsync login</code>')
		expect(textOf(shown.html)).not.toContain('`')
		// A service's refusal too: an unknown setup address names the command that prints a new one.
		const dead = await w.get(`/setup/${'z'.repeat(43)}`)
		expect(dead.status).toBe(404)
		expect(dead.html).toContain('<code>cfgsync-server setup-link</code>')
		expect(textOf(dead.html)).not.toContain('`')
	})
})

describe('the live notice stays visible when the page is scrolled (docs/web.md)', () => {
	test('the stylesheet makes a shown live notice sticky at the top', async () => {
		const w = webApp()
		const css = (await w.get('/assets/app.css')).html
		const rule = /\.live-notice:not\(:empty\)\s*\{([^}]*)\}/.exec(css)?.[1] ?? ''
		expect(rule).toContain('position: sticky')
		expect(rule).toMatch(/top: [\d.]+rem/)
	})
})

describe('configs are named by tool first in lists and titles (docs/web.md)', () => {
	test('the list, a team page, a config page and its comparison say "Claude Code · default"', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const id = await push(w, alice, { files: { a: '1\n' } }, { tool: 'claude-code' })
		await push(w, alice, { files: { a: '2\n' } }, { tool: 'claude-code' })
		await push(w, alice, { files: { a: '1\n' } }, { tool: 'cursor' })
		const browser = await w.signIn(alice)
		const list = await w.get('/configs', browser)
		expect(list.html).toContain(`<a href="/configs/${id}">Claude Code · default</a>`)
		expect(list.html).toMatch(/<a href="\/configs\/[^"]+">Cursor · default<\/a>/)
		const page = await w.get(`/configs/${id}`, browser)
		expect(page.html).toContain('<title>Claude Code · default · cfgsync</title>')
		expect(page.html).toContain('<h1>Claude Code · default</h1>')
		const v = await versionIds(w, alice.key, id)
		const compare = await w.get(`/configs/${id}/compare?from=${v(1)}&to=${v(2)}`, browser)
		expect(compare.html).toContain('<title>Compare Claude Code · default, version 1 → 2 · cfgsync</title>')
		expect(textOf(/<h1>([\s\S]*?)<\/h1>/.exec(compare.html)?.[1] ?? '')).toBe(
			'Claude Code · default: version 1 → version 2'
		)
	})
})

describe('"Show all" says "Show less" when open (docs/web.md)', () => {
	test('the button holds both labels; the stylesheet shows the one that fits aria-expanded', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const text = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n')
		const id = await push(w, alice, { files: { 'long.txt': text } }, { name: 'main' })
		const page = await w.get(`/configs/${id}`, await w.signIn(alice))
		const button = /<button[^>]*class="link show-all"[^>]*>([\s\S]*?)<\/button>/.exec(page.html)?.[1] ?? ''
		expect(button).toContain('<span class="when-folded">Show all')
		expect(button).toContain('<span class="when-open">Show less<span class="visually-hidden"> of long.txt</span>')
		const css = (await w.get('/assets/app.css')).html
		expect(css).toMatch(
			/\[aria-expanded="true"\] > \.when-folded,\s*\[aria-expanded="false"\] > \.when-open \{\s*display: none;/
		)
	})
})

describe("a free plan's refusal says whom to ask (docs/web.md)", () => {
	test("the config page, a comparison refused, and the API say to ask the server's admin", async () => {
		const w = webApp()
		const ann = await w.user('free', 'ann')
		const id = await push(w, ann, { files: { a: '1\n' } })
		const browser = await w.signIn(ann)
		const ask = /ask (this|the) server.s admin/
		expect(textOf((await w.get(`/configs/${id}`, browser)).html)).toMatch(ask)
		const current = (await w.call('GET', `/api/configs/${id}`, { key: ann.key })).body.currentVersionId as string
		const refused = await w.get(`/configs/${id}/compare?from=${current}&to=${current}`, browser)
		expect(refused.status).toBe(403)
		expect(textOf(refused.html)).toMatch(ask)
		const api = await w.call('GET', `/api/configs/${id}/versions`, { key: ann.key })
		expect(api.body.error).toMatch(ask)
	})
})

describe('a notice after an htmx redirect travels the same way (docs/web.md)', () => {
	test('leaving a team in place: hx-redirect to /teams without the notice, which the cookie carries', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('team', 'alice'))
		const bobUser = await w.user('team', 'bob')
		const bob = await w.signIn(bobUser)
		await w.post('/teams', alice, { name: 'Crew' })
		expect((await w.post('/teams/crew/members', alice, { login: 'bob', role: 'member' })).status).toBe(303)
		expect((await w.post('/invitations/crew/accept', bob)).status).toBe(303)
		const left = await w.post(
			`/teams/crew/members/${bobUser.id}/remove`,
			bob,
			{ confirmed: 'yes' },
			{ headers: { 'hx-request': 'true' } }
		)
		expect(left.headers.get('hx-redirect')).toBe('/teams')
		expect(setCookieOf(left, 'cfgsync_notice')).toBe('left')
		const teams = await w.get('/teams', bob, withCookie(bob, 'cfgsync_notice', 'left'))
		expect(textOf(teams.html)).toContain('You left the team.')
	})
})
