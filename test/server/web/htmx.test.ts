// What htmx swaps in for the in-place updates (docs/web.md, safe to use): the list again with the
// focus on the next row's control (or its heading), a sentence in the list's status region, and how
// a refusal reaches the page: the list with the row's alert, or the alert region.
import { describe, expect, test } from 'bun:test'
import { redirectedTo, textOf } from '../../support/web'
import { buildWorld } from '../../support/web-world'

const HTMX = { 'hx-request': 'true' }

/** The element carrying `autofocus` in an htmx answer (its opening tag), or undefined. */
const focused = (html: string) => /<[^>]*\sautofocus[\s>][^>]*>/.exec(html)?.[0]

describe('htmx fragments', () => {
	test('an owner changes a role in place: the members come back with focus on that row’s Save and a status sentence; demoting the last owner comes back with the row’s alert', async () => {
		const { w, browsers, users } = await buildWorld()
		const changed = await w.post(
			`/teams/crew/members/${users.max.id}/role`,
			browsers.owner,
			{ role: 'admin' },
			{ headers: HTMX }
		)
		expect(changed.status).toBe(200)
		expect(changed.html).toStartWith('<div id="members-list">')
		const maxRow = changed.html.slice(changed.html.indexOf(`<tr id="member-${users.max.id}">`))
		expect(maxRow.slice(0, maxRow.indexOf('</tr>'))).toContain('<option value="admin" selected>admin</option>')
		expect(focused(maxRow.slice(0, maxRow.indexOf('</tr>')))).toContain('Save')
		expect(changed.html).toContain('<p id="members-status" hx-swap-oob="innerHTML">max is now an admin.</p>')
		const refused = await w.post(
			`/teams/crew/members/${users.alice.id}/role`,
			browsers.owner,
			{ role: 'member' },
			{ headers: HTMX }
		)
		expect(refused.status).toBe(409)
		expect(refused.html).toStartWith('<div id="members-list">')
		const aliceRow = refused.html.slice(refused.html.indexOf(`<tr id="member-${users.alice.id}">`))
		expect(aliceRow.slice(0, aliceRow.indexOf('</tr>'))).toContain('role="alert"')
		expect(aliceRow).toContain('<option value="owner" selected>owner</option>')
	})

	test('removing a member or revoking a key: the list comes back without the row, focus on the next row’s button, and a status sentence naming it; a refusal is retargeted to the alert region', async () => {
		const { w, browsers, users, aliceKeyId } = await buildWorld()
		// The members in order: alice (owner), ann (admin), mike, max. Ann removes mike; max's Remove takes the focus.
		const removed = await w.post(`/teams/crew/members/${users.mike.id}/remove`, browsers.admin, {}, { headers: HTMX })
		expect(removed.status).toBe(200)
		expect(removed.html).toStartWith('<div id="members-list">')
		expect(removed.html).not.toContain(`member-${users.mike.id}`)
		expect(textOf(removed.html)).toContain('mike was removed from Crew.')
		expect(removed.html).toContain('<p id="members-status" hx-swap-oob="innerHTML">')
		const maxRow = removed.html.slice(removed.html.indexOf(`<tr id="member-${users.max.id}">`))
		expect(focused(maxRow.slice(0, maxRow.indexOf('</tr>')))).toMatch(/^<button[^>]*class="danger"/)
		// Max was the last row: with no next row, the heading takes the focus (swapped out of band with autofocus).
		const last = await w.post(`/teams/crew/members/${users.max.id}/remove`, browsers.admin, {}, { headers: HTMX })
		expect(focused(last.html)).toMatch(/^<h2 id="members-heading" tabindex="-1" autofocus hx-swap-oob="true">/)
		const revoked = await w.post(`/devices/${aliceKeyId}/revoke`, browsers.owner, {}, { headers: HTMX })
		expect(revoked.status).toBe(200)
		expect(revoked.html).toStartWith('<div id="devices-list">')
		expect(textOf(revoked.html)).toContain('The key of "test" was revoked')
		expect(focused(revoked.html)).toMatch(/^<h1 id="devices-heading"/)
		const refused = await w.post(`/teams/crew/members/${users.alice.id}/remove`, browsers.admin, {}, { headers: HTMX })
		expect(refused.status).toBe(403)
		expect(refused.headers.get('hx-retarget')).toBe('#alerts')
		expect(refused.headers.get('hx-reswap')).toBe('innerHTML')
		expect(refused.html).toContain('role="alert"')
	})

	test('a server admin changes a plan in place: the users come back with the new plan, focus on that row’s Save', async () => {
		const { w, browsers, users } = await buildWorld()
		const changed = await w.post(
			`/admin/users/${users.max.id}/plan`,
			browsers.serverAdmin,
			{ plan: 'free' },
			{ headers: HTMX }
		)
		expect(changed.status).toBe(200)
		expect(changed.html).toStartWith('<div id="users-list">')
		const maxRow = changed.html.slice(changed.html.indexOf(`<tr id="user-${users.max.id}">`))
		expect(maxRow.slice(0, maxRow.indexOf('</tr>'))).toContain('<option value="free" selected>free</option>')
		expect(focused(changed.html)).toContain('Save')
		expect(textOf(changed.html)).toContain('The plan of max is now free.')
		const bad = await w.post(
			`/admin/users/${users.max.id}/plan`,
			browsers.serverAdmin,
			{ plan: 'platinum' },
			{ headers: HTMX }
		)
		expect(bad.status).toBe(400)
		expect(bad.headers.get('hx-retarget')).toBe('#alerts')
	})

	test('without htmx the same forms redirect back to their page with a notice', async () => {
		const { w, browsers, users } = await buildWorld()
		const changed = await w.post(`/teams/crew/members/${users.max.id}/role`, browsers.owner, { role: 'admin' })
		expect(changed.status).toBe(303)
		expect(changed.headers.get('location')).toBe('/teams/crew')
		expect((await redirectedTo(w, changed, browsers.owner)).html).toContain('The role was changed.')
	})
})

describe('htmx under the CSP', () => {
	test('a swap never copies a style attribute onto the new elements (the CSP refuses any; Devices swaps its fields)', async () => {
		const { w, browsers } = await buildWorld()
		const page = await w.get('/devices', browsers.owner)
		const meta = /<meta name="htmx-config" content="([^"]+)"/.exec(page.html)?.[1] ?? ''
		const config = JSON.parse(meta.replace(/&quot;/g, '"')) as { attributesToSettle?: string[] }
		expect(config.attributesToSettle).toBeDefined()
		expect(config.attributesToSettle).not.toContain('style')
	})
})
