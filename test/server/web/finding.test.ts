// docs/web.md, finding things: Configs, the Admin page's users and Activity have a field labelled "Search" and
// "Previous"/"Next" past 50 rows; the search is done by the database, case-insensitively, `%` and `_` matching
// only themselves; Activity is in the navigation, says what happened in sentences and links what still exists;
// times show the exact time as text; configs sharing a name are told apart by their tool.
import { describe, expect, test } from 'bun:test'
import { SEARCH_MAX_LENGTH } from '../../../src/server/store/shared'
import { push, setCookieOf, textOf, webApp, withCookie, type Page } from '../../support/web'

/** The rows of the page's (first) table body. */
const rowsOf = (page: Page): string[] => {
	const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.html)?.[1] ?? ''
	return body.match(/<tr[\s>][\s\S]*?<\/tr>/g) ?? []
}
const linkOf = (page: Page, rel: 'next' | 'prev'): string | undefined => {
	const tag = new RegExp(`<a [^>]*rel="${rel}"[^>]*>`).exec(page.html)?.[0]
	return tag ? /href="([^"]*)"/.exec(tag)?.[1]?.replaceAll('&amp;', '&') : undefined
}
const hasSearchField = (page: Page) =>
	/<label for="([^"]+)">Search<\/label>/.exec(page.html)?.[1] !== undefined &&
	new RegExp(`<input id="${/<label for="([^"]+)">Search<\/label>/.exec(page.html)?.[1]}" name="q"`).test(page.html)

const pad = (n: number) => String(n).padStart(2, '0')

describe('Configs: search and pages (docs/web.md)', () => {
	test('60 configs: 50 on the first page with Next, the other 10 on the second with Previous', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		for (let n = 0; n < 60; n++) await push(w, alice, { n }, { name: `cfg-${pad(n)}` })
		const browser = await w.signIn(alice)
		const first = await w.get('/configs', browser)
		expect(first.status).toBe(200)
		expect(hasSearchField(first)).toBe(true)
		expect(rowsOf(first)).toHaveLength(50)
		expect(textOf(first.html)).toContain('cfg-00')
		expect(textOf(first.html)).not.toContain('cfg-50')
		expect(linkOf(first, 'prev')).toBeUndefined()
		expect(linkOf(first, 'next')).toBe('/configs?page=2')
		const second = await w.get('/configs?page=2', browser)
		expect(rowsOf(second)).toHaveLength(10)
		expect(textOf(second.html)).toContain('cfg-59')
		expect(linkOf(second, 'next')).toBeUndefined()
		expect(linkOf(second, 'prev')).toBe('/configs')
		// A page number that is no number is the first page.
		expect(rowsOf(await w.get('/configs?page=abc', browser))).toHaveLength(50)
	})

	test('the search is case-insensitive, keeps its words on the pages, and finds by tool', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		for (let n = 0; n < 60; n++) await push(w, alice, { n }, { name: `Web-${pad(n)}` })
		await push(w, alice, { x: 1 }, { name: 'other', tool: 'cursor' })
		const browser = await w.signIn(alice)
		const found = await w.get('/configs?q=wEB-', browser)
		expect(rowsOf(found)).toHaveLength(50)
		expect(found.html).toContain('value="wEB-"')
		expect(linkOf(found, 'next')).toBe('/configs?q=wEB-&page=2')
		const second = await w.get('/configs?q=wEB-&page=2', browser)
		expect(rowsOf(second)).toHaveLength(10)
		expect(textOf(second.html)).not.toContain('other')
		const byTool = await w.get('/configs?q=CURSOR', browser)
		expect(rowsOf(byTool)).toHaveLength(1)
		expect(textOf(byTool.html)).toContain('other')
		const none = await w.get('/configs?q=nothing-like-it', browser)
		expect(rowsOf(none)).toHaveLength(0)
		expect(textOf(none.html)).toContain('Nothing matches “nothing-like-it”')
	})

	test('% and _ match only themselves; a long search is cut, never refused', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		await push(w, alice, { v: 1 }, { name: 'a_b' })
		await push(w, alice, { v: 1 }, { name: 'axb' })
		const browser = await w.signIn(alice)
		const underscore = textOf((await w.get('/configs?q=_', browser)).html)
		expect(underscore).toContain('a_b')
		expect(underscore).not.toContain('axb')
		expect(rowsOf(await w.get(`/configs?q=${encodeURIComponent('%')}`, browser))).toHaveLength(0)
		expect(rowsOf(await w.get(`/configs?q=${encodeURIComponent('a%b')}`, browser))).toHaveLength(0)
		const long = await w.get(`/configs?q=${'a'.repeat(5000)}`, browser)
		expect(long.status).toBe(200)
		expect(long.html).toContain(`value="${'a'.repeat(SEARCH_MAX_LENGTH)}"`)
		expect(long.html).not.toContain(`value="${'a'.repeat(SEARCH_MAX_LENGTH + 1)}`)
	})

	test("a search finds the user's own and their teams' configs, never anyone else's", async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const bob = await w.user('team', 'bob')
		expect((await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).status).toBe(201)
		const team = (await w.call('GET', '/api/teams/crew', { key: alice.key })).body as { id: string }
		await push(w, alice, { v: 1 }, { name: 'shared-one', teamId: team.id })
		await push(w, bob, { v: 1 }, { name: 'shared-secret' })
		await push(w, alice, { v: 1 }, { name: 'shared-mine' })
		const found = textOf((await w.get('/configs?q=shared', await w.signIn(alice))).html)
		expect(found).toContain('shared-one')
		expect(found).toContain('Crew')
		expect(found).toContain('shared-mine')
		expect(found).not.toContain('shared-secret')
	})

	test('four configs named "default" are told apart by their tool, named first', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		for (const tool of ['claude-code', 'cursor', 'vscode', 'codex']) await push(w, alice, { tool }, { tool })
		const page = await w.get('/configs', await w.signIn(alice))
		const rows = rowsOf(page)
		expect(rows).toHaveLength(4)
		const tools = rows.map((row) => /<th scope="row"[^>]*>[\s\S]*?<\/th>/.exec(row)?.[0] ?? '')
		// The link itself says which (docs/web.md): read alone, each names its config.
		expect(tools.map((cell) => textOf(cell).replace(/\s+/g, ' ').trim())).toEqual([
			'Claude Code · default',
			'Codex · default',
			'Cursor · default',
			'VS Code · default'
		])
		for (const cell of tools) expect(cell).toMatch(/<a href="\/configs\/[^"]+">[^<]+ · default<\/a>/)
	})
})

describe("Admin: the users' search and pages (docs/web.md)", () => {
	test('60 users: 50 a page with Next and Previous; the search finds by email or username', async () => {
		const w = webApp()
		const root = await w.admin('root')
		for (let n = 0; n < 60; n++) await w.user('free', `person-${pad(n)}`)
		const browser = await w.signIn(root)
		const first = await w.get('/admin', browser)
		expect(hasSearchField(first)).toBe(true)
		expect(rowsOf(first)).toHaveLength(50)
		expect(linkOf(first, 'next')).toBe('/admin?page=2')
		const second = await w.get('/admin?page=2', browser)
		expect(rowsOf(second)).toHaveLength(11)
		expect(linkOf(second, 'prev')).toBe('/admin')
		expect(linkOf(second, 'next')).toBeUndefined()
		const byEmail = await w.get('/admin?q=PERSON-0', browser)
		expect(rowsOf(byEmail)).toHaveLength(10)
		expect(linkOf(byEmail, 'next')).toBeUndefined()
		expect(rowsOf(await w.get('/admin?q=root%40example', browser))).toHaveLength(1)
	})

	test("a change made in place keeps the page's search (HX-Current-URL)", async () => {
		const w = webApp()
		const root = await w.admin('root')
		const ann = await w.user('free', 'ann')
		await w.user('free', 'bea')
		const browser = await w.signIn(root)
		const changed = await w.post(
			`/admin/users/${ann.id}/plan`,
			browser,
			{ plan: 'pro' },
			{ headers: { 'hx-request': 'true', 'hx-current-url': 'http://localhost/admin?q=ann' } }
		)
		expect(changed.status).toBe(200)
		expect(textOf(changed.html)).toContain('ann@example.test')
		expect(textOf(changed.html)).not.toContain('bea@example.test')
	})

	test('the users table has the columns docs/web.md names: email, username, plan, admin, keys, last seen; actions in one cell', async () => {
		const w = webApp()
		const root = await w.admin('root')
		await w.user('free', 'ann')
		const page = await w.get('/admin', await w.signIn(root))
		const table = /<table[^>]*aria-labelledby="users-heading"[^>]*>([\s\S]*?)<\/table>/.exec(page.html)?.[1] ?? ''
		const headers = [
			...(/<thead>([\s\S]*?)<\/thead>/.exec(table)?.[1] ?? '').matchAll(/<th scope="col">([\s\S]*?)<\/th>/g)
		].map((header) => textOf(header[1] as string).trim())
		expect(headers).toEqual(['Email', 'Username', 'Plan', 'Admin', 'Keys', 'Last seen', 'Actions'])
		const cells = (email: string) => {
			const row = rowsOf(page).find((html) => html.includes(email)) ?? ''
			return [...row.matchAll(/<(th|td)\b([^>]*)>([\s\S]*?)<\/\1>(?=<t[hd]\b|<\/tr>)/g)].map((cell) => ({
				label: /data-label="([^"]+)"/.exec(cell[2] as string)?.[1] ?? '',
				text: textOf(cell[3] as string).trim()
			}))
		}
		const ann = cells('ann@example.test')
		// Each cell labelled by its column (the phone layout stacks them with these labels).
		expect(ann.map((cell) => cell.label)).toEqual(['Email', 'Username', 'Plan', 'Admin', 'Keys', 'Last seen', ''])
		expect(ann.slice(0, 2).map((cell) => cell.text)).toEqual(['ann@example.test', 'ann'])
		expect(ann[3]?.text).toBe('no')
		expect(ann[4]?.text).toBe('1')
		expect(cells('root@example.test')[3]?.text).toBe('yes')
		const row = rowsOf(page).find((html) => html.includes('ann@example.test')) ?? ''
		expect(row.match(/<td class="actions">/g)).toHaveLength(1)
	})
})

describe('Activity (docs/web.md)', () => {
	test('is in the navigation, in sentences, with links to what still exists', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		expect((await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).status).toBe(201)
		const kept = await push(w, alice, { v: 1 }, { name: 'kept' })
		await push(w, alice, { v: 2 }, { name: 'kept' })
		const gone = await push(w, alice, { v: 1 }, { name: 'gone' })
		expect((await w.call('DELETE', `/api/configs/${gone}`, { key: alice.key })).status).toBeLessThan(300)
		// A refused sign-in on alice's account, on the web.
		expect(
			(await w.post('/sign-in', undefined, { login: 'alice', password: 'wrong-password' })).headers.get('location')
		).toBe('/')
		const browser = await w.signIn(alice)
		const page = await w.get('/activity', browser)
		expect(page.html).toMatch(/<nav aria-label="Main">[\s\S]*<a href="\/activity" aria-current="page">Activity<\/a>/)
		const text = textOf(page.html).replace(/\s+/g, ' ')
		expect(text).toContain('You signed in on the web')
		expect(text).toContain('Sign-in on the web refused: wrong password')
		expect(text).toContain('You pushed Claude Code · kept version 2')
		expect(text).toContain('You created the team Crew')
		expect(text).toContain('You deleted Claude Code · gone')
		expect(page.html).toContain(`You pushed <a href="/configs/${kept}">Claude Code · kept</a> version 2`)
		expect(page.html).toContain('You created the team <a href="/teams/crew">Crew</a>')
		// The deleted config is named, not linked.
		expect(page.html).not.toContain(`href="/configs/${gone}"`)
		expect(text).not.toMatch(/reason: |via: |config\.pushed/)
		expect(hasSearchField(page)).toBe(true)
	})

	test('every target that still exists and the reader may open is a link: accounts, sign-up links, members', async () => {
		const w = webApp()
		const root = await w.signIn(await w.admin('root'))
		for (const name of ['ann', 'carl'])
			expect(
				(
					await w.post('/admin/users', root, {
						email: `${name}@example.test`,
						username: name,
						plan: 'team',
						password: `${name}-password-1`
					})
				).status
			).toBe(303)
		const ann = (await w.store.users.findByLogin('ann'))!
		const carl = (await w.store.users.findByLogin('carl'))!
		expect((await w.post(`/admin/users/${ann.id}/plan`, root, { plan: 'free' })).status).toBe(303)
		const reset = await w.post(`/admin/users/${ann.id}/reset-password`, root, { confirmed: 'yes' })
		expect(reset.status).toBe(303)
		// The one-time password, from the page the redirect leads to.
		const shown = await w.get(
			'/admin',
			undefined,
			withCookie(root, 'cfgsync_flash', setCookieOf(reset, 'cfgsync_flash') ?? '')
		)
		const password = /<code class="secret">([^<]+)<\/code>/.exec(shown.html)?.[1] as string
		expect(password).toBeDefined()
		expect((await w.post('/admin/links', root, { plan: 'pro', uses: '2', days: '7' })).status).toBe(303)
		const [link] = await w.store.signups.listJoin(10)
		expect((await w.post(`/admin/users/${carl.id}/remove`, root, { confirmed: 'yes' })).status).toBe(303)
		const admin = (await w.get('/activity', root)).html
		// A server admin opens a user's row on the Admin page.
		const annRow = `/admin?q=ann#user-${ann.id}`
		expect(admin).toContain(`You created <a href="${annRow}">ann's account</a> on the team plan`)
		expect(admin).toContain(`You changed <a href="${annRow}">ann's plan</a> from team to free`)
		expect(admin).toContain(`You reset <a href="${annRow}">ann's password</a>`)
		expect(admin).toContain(
			`You made a sign-up link <a href="/admin#link-${link!.id}">/join/${link!.hint}…</a> for the pro plan`
		)
		// carl is gone: named, not linked.
		expect(textOf(admin)).toContain("You created carl's account on the team plan")
		expect(textOf(admin)).toContain("You removed carl's account")
		expect(admin).not.toContain(`user-${carl.id}`)
		// ann reads the same events about her own account, which is her Account page.
		const own = (await w.get('/activity', await w.signIn({ username: 'ann', password } as never))).html
		expect(own).toContain('root created <a href="/account">your account</a> on the team plan')
		expect(own).toContain('root changed <a href="/account">your plan</a> from team to free')
		expect(own).toContain('root reset <a href="/account">your password</a>')
		expect(own).not.toContain('/admin')
	})

	test("a team's members are linked to their row on the team's page while they are in it", async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const bob = await w.user('team', 'bob')
		const max = await w.user('team', 'max')
		expect((await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).status).toBe(201)
		await w.join(alice, 'crew', bob, 'member')
		await w.join(alice, 'crew', max, 'member')
		const browser = await w.signIn(alice)
		expect((await w.post(`/teams/crew/members/${bob.id}/role`, browser, { role: 'admin' })).status).toBe(303)
		expect((await w.post(`/teams/crew/members/${max.id}/remove`, browser, { confirmed: 'yes' })).status).toBe(303)
		for (const path of ['/teams/crew/activity', '/activity']) {
			const html = (await w.get(path, browser)).html
			expect({
				path,
				linked: html.includes(`You changed <a href="/teams/crew#member-${bob.id}">bob's role</a>`)
			}).toEqual({
				path,
				linked: true
			})
			expect(html).toContain(`You invited <a href="/teams/crew#member-${bob.id}">bob</a>`)
			// max left the team: named, not linked.
			expect(textOf(html)).toContain('You removed max')
			expect(html).not.toContain(`#member-${max.id}`)
		}
		// bob reads it from his side: his own row.
		const own = (await w.get('/activity', await w.signIn(bob))).html
		expect(own).toContain(
			`alice changed <a href="/teams/crew#member-${bob.id}">your role</a> in <a href="/teams/crew">Crew</a>`
		)
	})

	test('60 events: Next goes to older ones, Previous back; the search finds a config by name', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		for (let n = 0; n < 60; n++) await push(w, alice, { n }, { name: `c${pad(n)}` })
		const browser = await w.signIn(alice)
		const first = await w.get('/activity', browser)
		expect(rowsOf(first)).toHaveLength(50)
		expect(linkOf(first, 'prev')).toBeUndefined()
		const next = linkOf(first, 'next')
		expect(next).toMatch(/^\/activity\?before=[0-9a-f-]{36}$/)
		const second = await w.get(next as string, browser)
		// 60 pushes and the sign-in: 11 older events.
		expect(rowsOf(second)).toHaveLength(11)
		expect(linkOf(second, 'next')).toBeUndefined()
		const previous = linkOf(second, 'prev')
		expect(previous).toMatch(/^\/activity\?after=[0-9a-f-]{36}$/)
		const back = await w.get(previous as string, browser)
		expect(rowsOf(back).map((row) => textOf(row))).toEqual(rowsOf(first).map((row) => textOf(row)))
		expect(linkOf(back, 'prev')).toBeUndefined()
		const found = await w.get('/activity?q=C07', browser)
		expect(rowsOf(found)).toHaveLength(1)
		expect(textOf(found.html)).toContain('You pushed Claude Code · c07 version 1')
	})

	test("a team's activity pages and searches the same way, naming its members", async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const bob = await w.user('team', 'bob')
		expect((await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).status).toBe(201)
		await w.join(alice, 'crew', bob, 'admin')
		const team = (await w.call('GET', '/api/teams/crew', { key: alice.key })).body as { id: string }
		for (let n = 0; n < 55; n++) await push(w, bob, { n }, { name: `t${pad(n)}`, teamId: team.id })
		const browser = await w.signIn(alice)
		const first = await w.get('/teams/crew/activity', browser)
		expect(rowsOf(first)).toHaveLength(50)
		expect(textOf(first.html)).toContain('bob pushed Claude Code · t54 version 1')
		expect(linkOf(first, 'next')).toMatch(/^\/teams\/crew\/activity\?before=/)
		const found = await w.get('/teams/crew/activity?q=invit', browser)
		expect(textOf(found.html).replace(/\s+/g, ' ')).toContain('You invited bob as admin')
	})
})

describe('times (docs/web.md)', () => {
	test('every time shows the exact time as text, not only in a tooltip; an expiry is relative too', async () => {
		const w = webApp()
		const alice = await w.user('team', 'alice')
		const bob = await w.user('team', 'bob')
		await push(w, alice, { v: 1 })
		expect((await w.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).status).toBe(201)
		expect(
			(await w.call('POST', '/api/teams/crew/members', { key: alice.key, body: { login: 'bob', role: 'member' } }))
				.status
		).toBe(201)
		void bob
		const browser = await w.signIn(alice)
		const configs = await w.get('/configs', browser)
		expect(configs.html).toMatch(
			/<time datetime="(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)[^"]*">just now<\/time> <span class="exact">\1 \2 UTC<\/span>/
		)
		const team = await w.get('/teams/crew', browser)
		const invitation = /<tr id="invitation-[\s\S]*?<\/tr>/.exec(team.html)?.[0] ?? ''
		expect(textOf(invitation)).toMatch(/in \d+ days/)
	})
})
