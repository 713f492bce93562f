// docs/web.md, the smaller promises: the team's only owner is never offered "Leave" nor sent to a dead end;
// a failed sign-in puts the cursor in the password field; password fields have a "Show password" toggle;
// signing out says so; Devices and the empty states link /download; text that scrolls sideways is focusable
// and named; an error page leads back to where it was asked from.
import { describe, expect, test } from 'bun:test'
import { createSignupService } from '../../../src/server/modules/signup/service'
import { fastPasswords } from '../../support/helpers'
import { push, redirectedTo, setCookieOf, textOf, webApp, type Browser } from '../../support/web'
import { buildWorld } from '../../support/web-world'

/** The opening tag of the element with this id. */
const tagOf = (html: string, id: string) => new RegExp(`<[a-z]+[^>]*\\sid="${id}"[^>]*>`).exec(html)?.[0] ?? ''

describe("the team's only owner and Leave (docs/web.md)", () => {
	test('the only owner is not offered Leave; their row says why, and another owner is offered it again', async () => {
		const { w, browsers, users } = await buildWorld()
		const page = await w.get('/teams/crew', browsers.owner)
		const aliceRow = /<tr id="member-[^"]+">(?:(?!<\/tr>)[\s\S])*?\(you\)[\s\S]*?<\/tr>/.exec(page.html)?.[0] ?? ''
		expect(aliceRow).not.toContain('>Leave</button>')
		expect(textOf(aliceRow)).toContain('You are the only owner: make someone else an owner before you leave.')
		// With ann made an owner too, alice may leave: her row offers it.
		expect((await w.post(`/teams/crew/members/${users.ann.id}/role`, browsers.owner, { role: 'owner' })).status).toBe(
			303
		)
		const after = await w.get('/teams/crew', browsers.owner)
		expect(after.html).toContain('action="/teams/crew/leave"')
		expect((await w.get('/teams/crew/leave', browsers.owner)).status).toBe(200)
	})

	test('posting Leave as the only owner explains and links back to the team, never "Something went wrong"', async () => {
		const { w, browsers } = await buildWorld()
		const refused = await w.post('/teams/crew/leave', browsers.owner, { confirmed: 'yes' })
		expect(refused.status).toBe(409)
		const text = textOf(refused.html)
		expect(text).toContain('You cannot leave Crew yet')
		expect(text).toContain('You are the only owner of Crew')
		expect(text).not.toContain('Something went wrong')
		expect(refused.html).toContain('href="/teams/crew#members-heading"')
		expect(refused.html).not.toContain('href="/configs">Back')
		// Still the owner of a team that is still there.
		expect((await w.get('/teams/crew', browsers.owner)).status).toBe(200)
	})

	test('an error page leads back to the page it was asked from, or to the list when the thing is gone', async () => {
		const world = await buildWorld()
		const { w, browsers, users } = world
		// Removing yourself by the member form as the last owner: a conflict, back to the team.
		const conflict = await w.post(`/teams/crew/members/${users.alice.id}/remove`, browsers.owner, { confirmed: 'yes' })
		expect(conflict.status).toBe(409)
		expect(textOf(conflict.html)).toContain('That cannot be done')
		expect(conflict.html).toContain('<a href="/teams/crew">Back to the team</a>')
		expect(textOf(conflict.html)).not.toContain('Something went wrong')
		// A team that is not there: back to Teams; a config that is not there: back to Configs.
		const noTeam = await w.get('/teams/nope/leave', browsers.owner)
		expect(noTeam.status).toBe(404)
		expect(noTeam.html).toContain('<a href="/teams">Back to Teams</a>')
		const noConfig = await w.get(`/configs/${crypto.randomUUID()}`, browsers.owner)
		expect(noConfig.status).toBe(404)
		expect(noConfig.html).toContain('<a href="/configs">Back to Configs</a>')
		// A member may not roll back: back to the config it was asked from.
		const refused = await w.get(
			`/configs/${world.shared.id}/rollback?version=${world.shared.firstVersion}`,
			browsers.member
		)
		expect(refused.status).toBe(403)
		expect(refused.html).toContain(`<a href="/configs/${world.shared.id}">Back to the config</a>`)
	})
})

describe('signing in and out (docs/web.md)', () => {
	test('on arrival the login field has the focus; after a failed sign-in, the password field (the login is kept)', async () => {
		const w = webApp()
		const alice = await w.user('free', 'alice')
		const first = await w.get('/')
		expect(tagOf(first.html, 'login')).toContain('autofocus')
		expect(tagOf(first.html, 'password')).not.toContain('autofocus')
		// Back to sign-in by a redirect (docs/web.md), the failed form in its one-time cookie.
		const shownAfterSignIn = async (fields: Record<string, string>) => {
			const answer = await w.post('/sign-in', undefined, fields)
			expect(answer.status).toBe(303)
			return w.get(answer.headers.get('location') as string, undefined, {
				cookie: `cfgsync_entry_form=${setCookieOf(answer, 'cfgsync_entry_form')}`
			})
		}
		const failed = await shownAfterSignIn({ login: alice.username, password: 'wrong' })
		expect(failed.html).toContain('role="alert"')
		expect(tagOf(failed.html, 'login')).toContain(`value="${alice.username}"`)
		expect(tagOf(failed.html, 'login')).not.toContain('autofocus')
		expect(tagOf(failed.html, 'password')).toContain('autofocus')
		// Nothing typed at all: the login is what to fill in first.
		const empty = await shownAfterSignIn({ login: '', password: '' })
		expect(tagOf(empty.html, 'login')).toContain('autofocus')
		expect(tagOf(empty.html, 'password')).not.toContain('autofocus')
	})

	test('each password field has a "Show password" toggle button (aria-pressed), shown by the script', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('free', 'alice'))
		const toggles = [
			{ html: (await w.get('/')).html, field: 'password', name: 'Show password' },
			{ html: (await w.get('/account', alice)).html, field: 'current', name: 'Show current password' },
			{ html: (await w.get('/account', alice)).html, field: 'new', name: 'Show new password' }
		]
		for (const { html, field, name } of toggles) {
			const button = new RegExp(`<button[^>]*data-reveals="${field}"[^>]*>([^<]*)</button>`).exec(html)
			expect(button?.[1]).toBe(name)
			expect(button?.[0]).toContain('type="button"')
			expect(button?.[0]).toContain('aria-pressed="false"')
			expect(button?.[0]).toContain(`aria-controls="${field}"`)
			// Without a script it could do nothing, so it is hidden until app.js shows it.
			expect(button?.[0]).toContain('hidden')
			expect(tagOf(html, field)).toContain('type="password"')
		}
		const script = /<script src="(\/assets\/app\.js\?v=[0-9a-f]+)" defer><\/script>/.exec(toggles[0]!.html)?.[1]
		expect(script).toBeDefined()
		const served = await w.get(script!)
		expect(served.status).toBe(200)
		expect(served.headers.get('content-type')).toBe('text/javascript;charset=utf-8')
		expect(served.html).toContain('aria-pressed')
	})

	test('signing out lands on the sign-in page with a status message that says so', async () => {
		const w = webApp()
		const alice = await w.signIn(await w.user('free', 'alice'))
		const out = await w.post('/sign-out', alice)
		expect(out.status).toBe(303)
		const landed = await redirectedTo(w, out)
		expect(landed.status).toBe(200)
		expect(landed.html).toMatch(/<p class="notice" role="status">You are signed out\. Sign in again below\.<\/p>/)
		expect(textOf(landed.html)).toContain('Sign in')
		// Only our own fixed sentences: an unknown notice shows nothing.
		expect((await w.get('/', undefined, { cookie: 'cfgsync_notice=%3Cb%3Ehi' })).html).not.toContain('role="status"')
	})
})

describe('"Install the client" links /download (docs/web.md)', () => {
	test('on Devices, in its empty state, in the empty Configs and in a team without configs', async () => {
		const w = webApp()
		const user = await w.user('team', 'alice')
		const alice = await w.signIn(user)
		const link = '<a href="/download">Install the client</a>'
		const devices = await w.get('/devices', alice)
		expect(devices.html).toContain(link)
		expect(devices.html).toContain('>Revoke<span class="visually-hidden"> test</span></button>')
		const configs = await w.get('/configs', alice)
		expect(textOf(configs.html)).toContain('Nothing synced yet')
		expect(configs.html).toContain(link)
		expect((await w.call('POST', '/api/teams', { key: user.key, body: { name: 'Crew' } })).status).toBe(201)
		const team = await w.get('/teams/crew', alice)
		expect(textOf(team.html)).toContain('No team config yet')
		expect(team.html).toContain(link)
		// With every key revoked, the empty Devices list links it as well.
		for (const key of (await w.call('GET', '/api/keys', { key: user.key })).body as { id: string }[])
			expect((await w.post(`/devices/${key.id}/revoke`, alice, { confirmed: 'yes' })).status).toBe(303)
		const empty = await w.get('/devices', alice)
		expect(textOf(empty.html)).toContain('No device has a key')
		expect(empty.html).toContain(link)
	})

	test('once on each page that has it: a second link of the same name is one too many (Playwright strict mode)', async () => {
		const w = webApp()
		const user = await w.user('team', 'alice')
		const alice = await w.signIn(user)
		expect((await w.call('POST', '/api/teams', { key: user.key, body: { name: 'Crew' } })).status).toBe(201)
		const count = async (path: string) =>
			((await w.get(path, alice)).html.match(/<a [^>]*>Install the client<\/a>/g) ?? []).length
		// Devices with a key, the empty Configs, a team without configs.
		for (const path of ['/devices', '/configs', '/teams/crew'])
			expect({ path, links: await count(path) }).toEqual({ path, links: 1 })
		// Devices with none left: the empty list and the page's lead would both say it.
		for (const key of (await w.call('GET', '/api/keys', { key: user.key })).body as { id: string }[])
			expect((await w.post(`/devices/${key.id}/revoke`, alice, { confirmed: 'yes' })).status).toBe(303)
		expect(await count('/devices')).toBe(1)
		// The list swapped in place after the last revocation adds none beside the page's own.
		const again = await w.user('team', 'bob')
		const bob = await w.signIn(again)
		const [key] = (await w.call('GET', '/api/keys', { key: again.key })).body as { id: string }[]
		const swapped = await w.post(`/devices/${key!.id}/revoke`, bob, {}, { headers: { 'hx-request': 'true' } })
		expect(swapped.status).toBe(200)
		expect(textOf(swapped.html)).toContain('No device has a key')
		expect(swapped.html).not.toContain('>Install the client</a>')
	})
})

/**
 * The accessible name of each form on a page that has one (what getByRole('form', { name }) finds): the text of the
 * element its aria-labelledby names, or its aria-label.
 */
function formNames(html: string): string[] {
	const names: string[] = []
	for (const [tag] of html.matchAll(/<form\b[^>]*>/g)) {
		const label = /\saria-label="([^"]+)"/.exec(tag)?.[1]
		const by = /\saria-labelledby="([^"]+)"/.exec(tag)?.[1]
		if (label) names.push(label)
		else if (by) {
			const named = new RegExp(`<(h[1-6]|legend|span|p)\\b[^>]*\\sid="${by}"[^>]*>([\\s\\S]*?)</\\1>`).exec(html)
			names.push(named ? textOf(named[2] as string).trim() : `(nothing has id ${by})`)
		}
	}
	return names
}

describe('every form the contract names is a form by that name (docs/web.md)', () => {
	test('sign-in, setup, sign-up, Create team, Add member, Rename, Change password, Add user, Invite people, Compare two versions', async () => {
		const { w, browsers, personal, link } = await buildWorld()
		// A setup address exists only while no user does: on a server of its own.
		const fresh = webApp()
		const setup = await createSignupService({
			store: fresh.store,
			clock: fresh.clock,
			passwords: fastPasswords,
			sealer: fresh.sealer
		}).openSetup('team')
		expect(formNames((await fresh.get(`/setup/${setup}`)).html)).toEqual(['Create the first admin'])
		const expected: [string, Browser | undefined, string[]][] = [
			['/', undefined, ['Sign in']],
			[`/join/${link.token}`, undefined, ['Create your account']],
			['/teams', browsers.owner, ['Create team']],
			['/teams/crew', browsers.owner, ['Add member', 'Rename']],
			['/account', browsers.owner, ['Change password']],
			['/admin', browsers.serverAdmin, ['Add user', 'Invite people']],
			[`/configs/${personal.id}`, browsers.owner, ['Compare two versions']],
			[
				`/configs/${personal.id}/compare?from=${personal.firstVersion}&to=${personal.firstVersion}`,
				browsers.owner,
				['Compare two versions']
			]
		]
		for (const [path, who, names] of expected) {
			const page = await w.get(path, who)
			expect({ path, status: page.status }).toEqual({ path, status: 200 })
			const found = formNames(page.html)
			for (const name of names)
				expect({ path, found: found.includes(name), name, all: found }).toMatchObject({ path, found: true })
		}
	})
})

describe('text that scrolls sideways is focusable and named (axe: scrollable-region-focusable)', () => {
	test("a config's file blocks, a plain config's data and /download's commands", async () => {
		const w = webApp()
		const user = await w.user('team', 'alice')
		const alice = await w.signIn(user)
		const files = await push(w, user, { files: { 'a.json': '{}\n', 'wide.json': `"${'x'.repeat(500)}"\n` } })
		const plain = await push(w, user, { theme: 'dark' }, { name: 'plain' })
		for (const [id, count] of [
			[files, 2],
			[plain, 1]
		] as const) {
			const html = (await w.get(`/configs/${id}`, alice)).html
			const pres = html.match(/<pre[^>]*>/g) ?? []
			expect(pres.length).toBe(count)
			for (const pre of pres) {
				expect(pre).toContain('tabindex="0"')
				expect(pre).toContain('role="region"')
				const labelledBy = /aria-labelledby="([^"]+)"/.exec(pre)?.[1]
				// Named by its file's heading (the path), or, for data that is not files, as the config's data.
				if (labelledBy)
					expect(html).toMatch(new RegExp(`<h3 class="file-path" id="${labelledBy}"><code>[a-z]+\\.json</code>`))
				else expect(pre).toContain('aria-label="Config data"')
			}
		}
		const download = (await w.get('/download')).html
		const commands = download.match(/<pre[^>]*>/g) ?? []
		// The install command is there only when the binary embeds the client package; the first commands always are.
		expect(commands.length).toBeGreaterThan(0)
		for (const pre of commands)
			expect(pre).toMatch(/tabindex="0" role="region" aria-label="(Install command|First commands)"/)
	})
})
