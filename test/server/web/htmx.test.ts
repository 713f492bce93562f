// What htmx swaps in for the in-place updates, and how a refusal reaches the page: the row with its alert, or the alert region.
import { describe, expect, test } from 'bun:test'
import { buildWorld } from '../../support/web-world'

const HTMX = { 'hx-request': 'true' }

describe('htmx fragments', () => {
	test('an owner changes a role in place: the new row comes back; demoting the last owner comes back as the row with an alert', async () => {
		const { w, browsers, users } = await buildWorld()
		const changed = await w.post(
			`/teams/crew/members/${users.max.id}/role`,
			browsers.owner,
			{ role: 'admin' },
			{ headers: HTMX }
		)
		expect(changed.status).toBe(200)
		expect(changed.html).toStartWith(`<tr id="member-${users.max.id}">`)
		expect(changed.html).toContain('<option value="admin" selected>admin</option>')
		const refused = await w.post(
			`/teams/crew/members/${users.alice.id}/role`,
			browsers.owner,
			{ role: 'member' },
			{ headers: HTMX }
		)
		expect(refused.status).toBe(409)
		expect(refused.html).toStartWith(`<tr id="member-${users.alice.id}">`)
		expect(refused.html).toContain('role="alert"')
		expect(refused.html).toContain('<option value="owner" selected>owner</option>')
	})

	test('removing a member or revoking a key answers 200 with nothing (htmx deletes the row); a refusal is retargeted to the alert region', async () => {
		const { w, browsers, users, aliceKeyId } = await buildWorld()
		const removed = await w.post(`/teams/crew/members/${users.max.id}/remove`, browsers.admin, {}, { headers: HTMX })
		expect(removed.status).toBe(200)
		expect(removed.html).toBe('')
		const revoked = await w.post(`/devices/${aliceKeyId}/revoke`, browsers.owner, {}, { headers: HTMX })
		expect(revoked.status).toBe(200)
		expect(revoked.html).toBe('')
		const refused = await w.post(`/teams/crew/members/${users.alice.id}/remove`, browsers.admin, {}, { headers: HTMX })
		expect(refused.status).toBe(403)
		expect(refused.headers.get('hx-retarget')).toBe('#alerts')
		expect(refused.headers.get('hx-reswap')).toBe('innerHTML')
		expect(refused.html).toContain('role="alert"')
	})

	test('a server admin changes a plan in place: the row comes back with the new plan', async () => {
		const { w, browsers, users } = await buildWorld()
		const changed = await w.post(
			`/admin/users/${users.max.id}/plan`,
			browsers.serverAdmin,
			{ plan: 'free' },
			{ headers: HTMX }
		)
		expect(changed.status).toBe(200)
		expect(changed.html).toStartWith(`<tr id="user-${users.max.id}">`)
		expect(changed.html).toContain('<option value="free" selected>free</option>')
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
		expect(changed.headers.get('location')).toBe('/teams/crew?notice=role')
		expect((await w.get('/teams/crew?notice=role', browsers.owner)).html).toContain('The role was changed.')
	})
})
