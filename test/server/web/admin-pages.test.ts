// The Admin page on a long server (docs/web.md): "Invite people" a link away from the top, where the users list
// is and how much of it there is, a page past the end, and the server's activity for admins. Both engines.
import { describe, expect, test } from 'bun:test'
import { push, webApp, type Page } from '../../support/web'

const rowsOf = (page: Page): string[] => {
	const body = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.html)?.[1] ?? ''
	return body.match(/<tr[\s>][\s\S]*?<\/tr>/g) ?? []
}
const linkOf = (page: Page, rel: 'next' | 'prev'): string | undefined => {
	const tag = new RegExp(`<a [^>]*rel="${rel}"[^>]*>`).exec(page.html)?.[0]
	return tag ? /href="([^"]*)"/.exec(tag)?.[1]?.replaceAll('&amp;', '&') : undefined
}
const pad = (n: number) => String(n).padStart(3, '0')

/** root, a server admin, and 119 others: 120 users, 3 pages of 50. */
async function crowded() {
	const w = webApp()
	const root = await w.admin('root')
	for (let n = 0; n < 119; n++) await w.user('free', `person-${pad(n)}`)
	return { w, root, browser: await w.signIn(root) }
}

describe('the Admin page of a server with many users', () => {
	test('"Invite people" and "Add user" are linked at the top, before the users list', async () => {
		const { w, browser } = await crowded()
		const page = await w.get('/admin', browser)
		const top = page.html.indexOf('<nav class="page-links" aria-label="On this page">')
		expect(top).toBeGreaterThan(page.html.indexOf('<h1>Admin</h1>'))
		expect(top).toBeLessThan(page.html.indexOf('id="users-heading"'))
		const nav = page.html.slice(top, page.html.indexOf('</nav>', top))
		expect(nav).toContain('<a href="#invite-people">Invite people</a>')
		expect(nav).toContain('<a href="#add-user">Add user</a>')
		expect(nav).toContain('<a href="/admin/activity">Server activity</a>')
		expect(page.html).toContain('id="invite-people"')
		expect(page.html).toContain('id="add-user"')
	})

	test('the list says which users it shows of how many, and which page of how many', async () => {
		const { w, browser } = await crowded()
		expect((await w.get('/admin', browser)).html).toContain('Users 1–50 of 120, page 1 of 3')
		const second = await w.get('/admin?page=2', browser)
		expect(second.html).toContain('Users 51–100 of 120, page 2 of 3')
		const last = await w.get('/admin?page=3', browser)
		expect(last.html).toContain('Users 101–120 of 120, page 3 of 3')
		expect(rowsOf(last)).toHaveLength(20)
		const searched = await w.get('/admin?q=person-1', browser)
		expect(searched.html).toContain('Users 1–19 of 19 matching “person-1”, page 1 of 1')
	})

	test('a page past the end says so and links the last page, instead of an empty table', async () => {
		const { w, browser } = await crowded()
		const past = await w.get('/admin?page=99', browser)
		expect(past.status).toBe(200)
		expect(past.html).not.toContain('<table class="stack-on-phone compact" aria-labelledby="users-heading">')
		expect(past.html).toContain('There is no page 99: the 120 users fill 3 pages.')
		expect(past.html).toContain('<a href="/admin?page=3">Go to the last page (page 3)</a>')
		expect(linkOf(past, 'next')).toBeUndefined()
		expect(linkOf(past, 'prev')).toBeUndefined()
		const searched = await w.get('/admin?q=person-1&page=2', browser)
		expect(searched.html).toContain('There is no page 2: the 19 users matching “person-1” fill one page.')
		expect(searched.html).toContain('<a href="/admin?q=person-1">Go to the last page (page 1)</a>')
	})
})

describe("the server's activity (/admin/activity)", () => {
	test("every user's events, searchable, in pages of 50, for server admins only; never a config's data", async () => {
		const w = webApp()
		const root = await w.admin('root')
		const alice = await w.user('team', 'alice')
		const bob = await w.user('team', 'bob')
		for (let n = 0; n < 30; n++) await push(w, alice, { secret: `alice-data-${n}` }, { name: `a${n}` })
		for (let n = 0; n < 30; n++) await push(w, bob, { secret: `bob-data-${n}` }, { name: `b${n}` })
		const browser = await w.signIn(root)
		const first = await w.get('/admin/activity', browser)
		expect(first.status).toBe(200)
		expect(first.html).toContain('<h1>Server activity</h1>')
		expect(first.html).toContain('bob pushed Claude Code · b29')
		expect(first.html).not.toContain('-data-')
		expect(rowsOf(first)).toHaveLength(50)
		const older = linkOf(first, 'next')
		expect(older).toMatch(/^\/admin\/activity\?before=/)
		const second = await w.get(older ?? '', browser)
		expect(second.html).toContain('alice pushed Claude Code · a0')
		expect(linkOf(second, 'prev')).toMatch(/^\/admin\/activity\?after=/)
		const searched = await w.get('/admin/activity?q=alice', browser)
		expect(searched.html).toContain('alice pushed')
		expect(searched.html).not.toContain('bob pushed')
		// Not a server admin: refused, as every Admin page is, and not pointed to it from their own Activity.
		const aliceBrowser = await w.signIn(alice)
		expect((await w.get('/admin/activity', aliceBrowser)).status).toBe(403)
		expect((await w.get('/activity', aliceBrowser)).html).not.toContain('href="/admin/activity"')
		// A server admin's own Activity says where everyone's events are.
		expect((await w.get('/activity', browser)).html).toContain(
			'every user\'s are in <a href="/admin/activity">Server activity</a>'
		)
		// Admin links it, and it leads back.
		expect(second.html).toContain('<a href="/admin">Admin</a>')
	})
})
