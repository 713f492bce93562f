// docs/web.md, safe to use: nothing changes on a keystroke, every destructive action asks first and
// names its target, post/redirect/get everywhere, a password change can sign devices out, and a
// comparison's cost is bounded (the page then offers both versions for download).
import { describe, expect, test } from 'bun:test'
import { DIFF_LIMITS, diffData, TooLargeToCompare } from '../../../src/server/web/diff'
import { push, redirectedTo, shownAfter, textOf, webApp } from '../../support/web'
import { buildWorld } from '../../support/web-world'

/** Every <form …> opening tag of a page. */
const forms = (html: string) => [...html.matchAll(/<form[^>]*>/g)].map((match) => match[0])

/** Lines no diff can align: each one unique. */
const uniqueLines = (count: number, seed: string) =>
	Array.from({ length: count }, (_, i) => `${seed}-${i}-${((i * 2654435761) % 4294967296).toString(16)}`).join('\n')

describe('nothing changes on a keystroke (docs/web.md)', () => {
	test('the Role and plan selects are saved by their Save button only: no form listens to `change`', async () => {
		const { w, browsers } = await buildWorld()
		const team = await w.get('/teams/crew', browsers.owner)
		const admin = await w.get('/admin', browsers.serverAdmin)
		for (const html of [team.html, admin.html]) {
			expect(html).toContain('<select id="')
			expect(html).not.toContain('hx-trigger')
			const selects = forms(html).filter((form) => form.includes('class="role-form"'))
			expect(selects.length).toBeGreaterThan(1)
			for (const form of selects) expect(form).toContain('hx-post=')
		}
	})
})

describe('destructive actions ask first, naming their target (docs/web.md)', () => {
	test('without JavaScript each destructive button opens a confirmation page (a GET), and "Cancel invitation" says what it cancels', async () => {
		const { w, browsers, users } = await buildWorld()
		expect((await w.post('/teams/crew/members', browsers.owner, { login: 'root', role: 'member' })).status).toBe(303)
		const team = await w.get('/teams/crew', browsers.owner)
		const destructive = [
			`/teams/crew/members/${users.max.id}/remove`,
			`/teams/crew/members/${users.root.id}/remove`,
			'/teams/crew/delete'
		]
		for (const path of destructive)
			expect(forms(team.html).find((form) => form.includes(`action="${path}"`))).toStartWith('<form method="get"')
		// alice is crew's only owner: her row offers no "Leave" (the API would refuse it) but says why; mike's does.
		expect(forms(team.html).some((form) => form.includes('action="/teams/crew/leave"'))).toBe(false)
		expect(textOf(team.html)).toContain('You are the only owner: make someone else an owner before you leave.')
		const mikesTeam = await w.get('/teams/crew', browsers.member)
		expect(forms(mikesTeam.html).find((form) => form.includes('action="/teams/crew/leave"'))).toStartWith(
			'<form method="get"'
		)
		const invitationRow = team.html.slice(team.html.indexOf(`<tr id="invitation-${users.root.id}">`))
		expect(textOf(invitationRow.slice(0, invitationRow.indexOf('</tr>')))).toContain('Cancel invitation')
		const asked = await w.get(`/teams/crew/members/${users.root.id}/remove`, browsers.owner)
		expect(textOf(asked.html)).toContain('Cancel the invitation of root to Crew?')
		const cancelled = await w.post(`/teams/crew/members/${users.root.id}/remove`, browsers.owner, { confirmed: 'yes' })
		expect(cancelled.headers.get('location')).toBe('/teams/crew')
		const admin = await w.get('/admin', browsers.serverAdmin)
		for (const action of ['reset-password', 'revoke-keys', 'remove'])
			expect(
				forms(admin.html).find((form) => form.includes(`action="/admin/users/${users.max.id}/${action}"`))
			).toStartWith('<form method="get"')
		const devices = await w.get('/devices', browsers.owner)
		expect(forms(devices.html).find((form) => form.includes('/revoke"'))).toStartWith('<form method="get"')
		// Asking changes nothing.
		const before = (await w.store.audit.list({ limit: 1000 })).length
		for (const path of [`/admin/users/${users.max.id}/reset-password`, `/admin/users/${users.max.id}/remove`])
			expect((await w.get(path, browsers.serverAdmin)).status).toBe(200)
		expect((await w.get('/teams/crew/leave', browsers.member)).status).toBe(200)
		expect((await w.store.audit.list({ limit: 1000 })).length).toBe(before)
	})

	test('with JavaScript, Revoke, Remove, "Cancel invitation", Revoke keys and Remove user ask in the page\'s own dialog, naming the target', async () => {
		const { w, browsers, users } = await buildWorld()
		expect((await w.post('/teams/crew/members', browsers.owner, { login: 'root', role: 'member' })).status).toBe(303)
		/** The in-place form posting to `path`: its question (naming the target) and the dialog's button. */
		const asked = (html: string, path: string) => {
			const form = forms(html).find((tag) => tag.includes(`hx-post="${path}"`)) ?? `(no form posting to ${path})`
			const decoded = (text = '') => text.replaceAll('&quot;', '"').replaceAll('&amp;', '&')
			return {
				question: decoded(/\shx-confirm="([^"]*)"/.exec(form)?.[1]),
				button: decoded(/\sdata-confirm-button="([^"]*)"/.exec(form)?.[1])
			}
		}
		const team = (await w.get('/teams/crew', browsers.owner)).html
		expect(asked(team, `/teams/crew/members/${users.max.id}/remove`)).toEqual({
			question: 'Remove max from Crew?',
			button: 'Remove'
		})
		expect(asked(team, `/teams/crew/members/${users.root.id}/remove`)).toEqual({
			question: 'Cancel the invitation of root to Crew?',
			button: 'Cancel invitation'
		})
		const keys = (await w.call('GET', '/api/keys', { key: users.alice.key })).body as { id: string; device: string }[]
		const devices = (await w.get('/devices', browsers.owner)).html
		expect(asked(devices, `/devices/${keys[0]!.id}/revoke`)).toEqual({
			question: `Revoke the key of "${keys[0]!.device}"? That device is signed out at once.`,
			button: 'Revoke'
		})
		const admin = (await w.get('/admin', browsers.serverAdmin)).html
		expect(asked(admin, `/admin/users/${users.max.id}/revoke-keys`)).toEqual({
			question: 'Revoke every key and web session of max?',
			button: 'Revoke keys'
		})
		expect(asked(admin, `/admin/users/${users.max.id}/remove`)).toEqual({
			question: 'Remove max with their keys and personal configs? This cannot be undone.',
			button: 'Remove user'
		})
		// The script that asks: it answers htmx's confirm event with a modal <dialog> of the page's own.
		const script = /<script src="(\/assets\/app\.js\?v=[0-9a-f]+)" defer><\/script>/.exec(team)?.[1] as string
		const source = (await w.get(script)).html
		expect(source).toContain("'htmx:confirm'")
		expect(source).toContain('showModal()')
		expect(source).toContain('issueRequest(true)')
	})

	test("Delete team asks for the team's slug: missing or wrong, the team stays and the page says what to type", async () => {
		const { w, browsers } = await buildWorld()
		const missing = await w.post('/teams/crew/delete', browsers.owner, { confirmed: 'yes' })
		expect(missing.headers.get('location')).toBe('/teams/crew/delete')
		expect(textOf((await shownAfter(w, browsers.owner, missing)).html)).toContain(
			"Type the team's slug, crew, to confirm."
		)
		const wrong = await w.post('/teams/crew/delete', browsers.owner, { confirmed: 'yes', slug: 'Crew' })
		expect(textOf((await shownAfter(w, browsers.owner, wrong)).html)).toContain(
			'"Crew" is not this team\'s slug: type crew to confirm.'
		)
		expect((await w.get('/teams/crew', browsers.owner)).status).toBe(200)
		const deleted = await w.post('/teams/crew/delete', browsers.owner, { confirmed: 'yes', slug: 'crew' })
		expect(deleted.status).toBe(303)
		expect(deleted.headers.get('location')).toBe('/teams')
		expect((await w.get('/teams/crew', browsers.owner)).status).toBe(404)
	})
})

describe('changing a password can sign your devices out (docs/web.md)', () => {
	test('the form has "Sign out my devices", checked by default; checked, every key of yours is revoked', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const here = await w.signIn(alice)
		const form = await w.get('/account', here)
		expect(form.html).toMatch(/<input id="sign-out-devices" name="signOutDevices" type="checkbox" value="yes" checked/)
		expect(form.html).toContain('<label for="sign-out-devices">Sign out my devices</label>')
		const changed = await w.post('/account/password', here, {
			current: alice.password,
			new: 'a brand new password',
			signOutDevices: 'yes'
		})
		expect(changed.status).toBe(303)
		expect(changed.headers.get('location')).toBe('/account')
		expect((await w.call('GET', '/api/me', { key: alice.key })).status).toBe(401)
		expect((await w.get('/account', here)).status).toBe(200)
		expect(textOf((await redirectedTo(w, changed, here)).html)).toContain('every device were signed out')
		const event = (await w.store.audit.list({ userId: alice.id, type: 'password.changed', limit: 1 }))[0]
		expect(event?.details).toMatchObject({ revokedKeys: 1 })
	})

	test('unchecked (the box is not sent), the keys stay', async () => {
		const w = webApp()
		const bob = await w.user('pro', 'bob')
		const here = await w.signIn(bob)
		const changed = await w.post('/account/password', here, { current: bob.password, new: 'a brand new password' })
		expect(changed.headers.get('location')).toBe('/account')
		expect((await w.call('GET', '/api/me', { key: bob.key })).status).toBe(200)
	})
})

describe('a comparison is decided by size and its cost is bounded (docs/web.md)', () => {
	test('two versions of 8,000 unique lines (16,000 edits) are too large, before any work', () => {
		const older = { files: { 'big.txt': `${uniqueLines(8000, 'old')}\n` } }
		const newer = { files: { 'big.txt': `${uniqueLines(8000, 'new')}\n` } }
		expect(() => diffData(older, newer)).toThrow(TooLargeToCompare)
	})

	test('the limits are shared by every file of a comparison, and line caps refuse before any work', () => {
		const edits = (count: number, seed: string) =>
			`${Array.from({ length: count }, (_, i) => `${seed}${i}`).join('\n')}\n`
		const half = DIFF_LIMITS.maxEdits / 4
		// Two files of a quarter of the edits each on each side: all of them, shown; one more edit: too large.
		const files = (seed: string, extra = '') => ({ a: edits(half, `${seed}a`), b: edits(half, `${seed}b`) + extra })
		expect(diffData({ files: files('o') }, { files: files('n') })).toHaveLength(2)
		expect(() => diffData({ files: files('o') }, { files: files('n', 'one more\n') })).toThrow(TooLargeToCompare)
		const many = `${'x\n'.repeat(DIFF_LIMITS.maxLines + 1)}`
		try {
			diffData({ files: { a: many } }, { files: { a: `${many}y\n` } })
			throw new Error('compared')
		} catch (error) {
			expect(error).toBeInstanceOf(TooLargeToCompare)
			expect((error as TooLargeToCompare).why).toBe('lines')
		}
		// Small edits of a large file are well within them.
		const base = uniqueLines(5000, 'same')
		const changed = diffData(
			{ files: { a: `${base}\n` } },
			{ files: { a: `${base.replace('same-100-', 'changed-100-')}\n` } }
		)
		expect(changed[0]).toMatchObject({ status: 'changed', added: 1, removed: 1 })
	})

	test('the Compare page says "too large to compare here" and offers both versions for download; a download keeps the rules of viewing', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const bob = await w.user('pro', 'bob')
		const id = await push(w, alice, { files: { 'big.txt': `${uniqueLines(8000, 'old')}\n` } }, { name: 'big' })
		await push(w, alice, { files: { 'big.txt': `${uniqueLines(8000, 'new')}\n` } }, { name: 'big' })
		const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as {
			id: string
			version: number
		}[]
		const v1 = versions.find((v) => v.version === 1)?.id as string
		const v2 = versions.find((v) => v.version === 2)?.id as string
		const a = await w.signIn(alice)
		const compare = await w.get(`/configs/${id}/compare?from=${v1}&to=${v2}`, a)
		expect(compare.status).toBe(200)
		expect(textOf(compare.html)).toContain('too large to compare here')
		for (const [version, versionId] of [
			[1, v1],
			[2, v2]
		] as const) {
			const href = `/configs/${id}/versions/${versionId}/download`
			expect(compare.html).toContain(`<a href="${href}" download>Download version ${version}</a>`)
			const file = await w.get(href, a)
			expect(file.status).toBe(200)
			expect(file.headers.get('cache-control')).toBe('no-store')
			expect(file.headers.get('content-type')).toStartWith('application/json')
			expect(file.headers.get('content-disposition')).toBe(`attachment; filename="big-claude-code-v${version}.json"`)
			expect(JSON.parse(file.html).files['big.txt']).toStartWith(version === 1 ? 'old-0-' : 'new-0-')
			// Someone else's config is a 404, as on its page; signed out, off to sign in.
			expect((await w.get(href, await w.signIn(bob))).status).toBe(404)
			expect((await w.get(href)).status).toBe(303)
		}
	})
})
