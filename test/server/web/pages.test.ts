// Every page of the web application for every kind of caller (docs/web.md), with
// docs/api.md's headers, the accessible names people find things by, and config data as text.
import { beforeAll, describe, expect, test } from 'bun:test'
import { push, textOf } from '../../support/web'
import { buildWorld, CALLERS, type CallerName, type World } from '../../support/web-world'

/** 200 with these texts present (and those absent), or a status (303: sent to sign in). */
type Expected = { status: 200 | 409; has?: string[]; hasNot?: string[] } | 303 | 403 | 404

interface PageRow {
	path: (world: World) => string
	what: string
	expect: Record<CallerName, Expected>
}

const ok = (has: string[] = [], hasNot: string[] = []): Expected => ({ status: 200, has, hasNot })

const pages: PageRow[] = [
	{
		path: () => '/configs',
		what: 'configs: personal and team configs',
		expect: {
			signedOut: 303,
			member: ok(['<h1>Configs</h1>', ' · shared</a>'], [' · mine</a>']),
			admin: ok([' · shared</a>'], [' · mine</a>']),
			owner: ok([' · shared</a>', ' · mine</a>']),
			serverAdmin: ok(['Nothing synced yet'], [' · shared</a>', ' · mine</a>'])
		}
	},
	{
		path: (w) => `/configs/${w.personal.id}`,
		what: "alice's personal config",
		expect: { signedOut: 303, member: 404, admin: 404, owner: ok(['a.json', 'Roll back', 'Compare']), serverAdmin: 404 }
	},
	{
		path: (w) => `/configs/${w.shared.id}`,
		what: 'the team config: history for members, Roll back for admin+',
		expect: {
			signedOut: 303,
			member: ok(['&quot;theme&quot;: &quot;light&quot;', 'Compare'], ['Roll back']),
			admin: ok(['Compare', 'Roll back']),
			owner: ok(['Compare', 'Roll back']),
			serverAdmin: 404
		}
	},
	{
		path: (w) => `/configs/${w.shared.id}/compare?from=${w.shared.firstVersion}&to=${w.shared.firstVersion}`,
		what: 'compare (the same version: no differences)',
		expect: {
			signedOut: 303,
			member: ok(['No differences']),
			admin: ok(['No differences']),
			owner: ok(['No differences']),
			serverAdmin: 404
		}
	},
	{
		path: (w) =>
			`/configs/${w.shared.id}/compare/fold?from=${w.shared.firstVersion}&to=${w.shared.firstVersion}&start=1&end=1&old=1`,
		what: "a comparison's folded run on a page of its own (what its link shows without a script)",
		expect: {
			signedOut: 303,
			member: ok(['unchanged lines', 'Back to the comparison']),
			admin: ok(['unchanged lines']),
			owner: ok(['unchanged lines']),
			serverAdmin: 404
		}
	},
	{
		path: (w) => `/configs/${w.shared.id}/rollback?version=${w.shared.firstVersion}`,
		what: 'the rollback confirmation',
		expect: {
			signedOut: 303,
			member: 403,
			admin: ok(['Make version 1']),
			owner: ok(['Make version 1']),
			serverAdmin: 404
		}
	},
	{
		path: () => '/devices',
		what: 'devices: own keys only',
		expect: {
			signedOut: 303,
			// Each button names its device (docs/web.md): "Revoke test", "Rename test".
			member: ok([
				'<h1 id="devices-heading" tabindex="-1">Devices</h1>',
				'Revoke<span class="visually-hidden"> test</span></button>',
				'Rename<span class="visually-hidden"> test</span></button>'
			]),
			admin: ok(['>test</th>']),
			owner: ok(['>test</th>']),
			serverAdmin: ok(['>test</th>'])
		}
	},
	{
		path: () => '/teams',
		what: 'teams: your teams with your role, and the create form',
		expect: {
			signedOut: 303,
			member: ok(['<h1>Teams</h1>', '>Crew</a>', 'member', 'Create team']),
			admin: ok(['>Crew</a>', 'admin']),
			owner: ok(['>Crew</a>', 'owner']),
			serverAdmin: ok(['You are in no team yet', 'Create team'], ['>Crew</a>'])
		}
	},
	{
		path: () => '/teams/crew',
		what: "a team's page: what each role may do",
		expect: {
			signedOut: 303,
			member: ok(
				['mike@example.test', '>Leave</button>', ' · shared</a>'],
				[
					'>Add member</button>',
					'>Rename</button>',
					'>Delete team</button>',
					'<select id="role-',
					'href="/teams/crew/activity"'
				]
			),
			admin: ok(
				['>Add member</button>', '>Rename</button>', '>Remove</button>', 'href="/teams/crew/activity"'],
				['>Delete team</button>', '<select id="role-', '<option value="admin">admin</option></select>']
			),
			owner: ok([
				'>Add member</button>',
				'>Rename</button>',
				'>Delete team</button>',
				'<select id="role-',
				'>Remove</button>',
				'href="/teams/crew/activity"'
			]),
			serverAdmin: 404
		}
	},
	{
		path: () => '/teams/crew/activity',
		what: "a team's activity (admin+)",
		expect: {
			signedOut: 303,
			member: 403,
			admin: ok(['Activity of Crew', 'accepted an invitation and joined the team']),
			owner: ok(['You created the team']),
			serverAdmin: 404
		}
	},
	{
		path: (w) => `/devices/${w.aliceKeyId}/revoke`,
		what: 'the revocation confirmation, naming the device',
		expect: {
			signedOut: 303,
			member: 404,
			admin: 404,
			owner: ok(['Revoke the key of &quot;test&quot;?', '>Revoke</button>']),
			serverAdmin: 404
		}
	},
	{
		path: (w) => `/teams/crew/members/${w.users.max.id}/remove`,
		what: 'the removal confirmation, naming the member (admin+)',
		expect: {
			signedOut: 303,
			member: 403,
			admin: ok(['Remove max (member) from Crew?', '>Remove</button>']),
			owner: ok(['Remove max (member) from Crew?']),
			serverAdmin: 404
		}
	},
	{
		path: () => '/teams/crew/leave',
		what: 'the leave confirmation, naming the team; the only owner is told why not and where to go instead',
		expect: {
			signedOut: 303,
			member: ok(['Leave the team Crew (crew)?', '>Leave</button>']),
			admin: ok(['Leave the team Crew (crew)?']),
			owner: {
				status: 409,
				has: [
					'role="alert"',
					'You are the only owner of Crew',
					'href="/teams/crew#members-heading"',
					'href="/teams/crew/delete"'
				],
				hasNot: ['Leave the team Crew (crew)?', '>Leave</button>', 'Something went wrong']
			},
			serverAdmin: 404
		}
	},
	{
		path: (w) => `/admin/users/${w.users.max.id}/reset-password`,
		what: 'the password reset confirmation, naming the user (server admin)',
		expect: {
			signedOut: 303,
			member: 403,
			admin: 403,
			owner: 403,
			serverAdmin: ok(['Give max a new one-time password?', '>Reset password</button>'])
		}
	},
	{
		path: (w) => `/admin/users/${w.users.max.id}/revoke-keys`,
		what: 'the key revocation confirmation, naming the user (server admin)',
		expect: {
			signedOut: 303,
			member: 403,
			admin: 403,
			owner: 403,
			serverAdmin: ok(['Revoke every key and web session of max?', '>Revoke keys</button>'])
		}
	},
	{
		path: (w) => `/admin/users/${w.users.max.id}/remove`,
		what: 'the user removal confirmation, naming the user (server admin)',
		expect: {
			signedOut: 303,
			member: 403,
			admin: 403,
			owner: 403,
			serverAdmin: ok(['Remove max with their keys and personal configs?', '>Remove user</button>'])
		}
	},
	{
		path: (w) => `/admin/links/${w.link.id}/revoke`,
		what: 'the sign-up link revocation confirmation, naming the link (server admin)',
		expect: {
			signedOut: 303,
			member: 403,
			admin: 403,
			owner: 403,
			serverAdmin: ok(['Revoke the sign-up link /join/', '>Revoke link</button>'])
		}
	},
	{
		path: () => '/admin/activity',
		what: "the server's activity: every user's events (server admin)",
		expect: {
			signedOut: 303,
			member: 403,
			admin: 403,
			owner: 403,
			serverAdmin: ok(
				['<h1>Server activity</h1>', 'alice pushed', 'ann accepted an invitation', 'name="q"'],
				['&quot;theme&quot;']
			)
		}
	},
	{
		path: () => '/teams/crew/delete',
		what: 'the team deletion confirmation, asking for the slug (owner)',
		expect: {
			signedOut: 303,
			member: 403,
			admin: 403,
			owner: ok(['Delete the team Crew', "Type the team's slug, crew, to confirm", 'name="slug"']),
			serverAdmin: 404
		}
	},
	{
		path: () => '/account',
		what: 'account: the password form',
		expect: {
			signedOut: 303,
			member: ok(
				['<h1>Account</h1>', 'Current password', 'New password', '>Change password</button>'],
				['Confirm new password']
			),
			admin: ok(['ann@example.test']),
			owner: ok(['alice@example.test']),
			serverAdmin: ok(['root@example.test'])
		}
	},
	{
		path: () => '/activity',
		what: 'your own activity',
		expect: {
			signedOut: 303,
			member: ok(['Your activity', 'You signed in on the web']),
			admin: ok(['You accepted an invitation and joined <a href="/teams/crew">Crew</a>']),
			owner: ok(['You created the team <a href="/teams/crew">Crew</a>', 'You pushed <a href="/configs/']),
			serverAdmin: ok(['You signed in on the web'], ['created the team'])
		}
	},
	{
		path: () => '/admin',
		what: 'admin: server admins only',
		expect: {
			signedOut: 303,
			member: 403,
			admin: 403,
			owner: 403,
			serverAdmin: ok([
				'<h1>Admin</h1>',
				'max@example.test',
				'>Reset password</button>',
				'>Revoke keys<span class="visually-hidden"> of max</span></button>',
				'>Remove</button>',
				'Add user',
				'Invite people',
				'>Create sign-up link</button>'
			])
		}
	}
]

describe('every page, for every kind of caller (docs/web.md)', () => {
	let world: World
	beforeAll(async () => {
		world = await buildWorld()
	})

	test('every GET of the web application is listed here (or is the sign-in, setup or sign-up page or an asset)', () => {
		const gets = world.w.app.routes
			.filter(
				(route) =>
					((route.hooks?.detail as { tags?: string[] } | undefined)?.tags ?? []).includes('web') &&
					route.method === 'GET'
			)
			.map((route) => route.path)
		const listed = [
			'/',
			'/sign-in',
			'/sign-out',
			'/assets/app.css',
			'/assets/app.js',
			'/assets/htmx.min.js',
			'/configs',
			'/configs/:id',
			'/configs/:id/compare',
			'/configs/:id/compare/fold',
			'/configs/:id/rollback',
			'/configs/:id/versions/:versionId/download',
			'/devices',
			'/devices/:id/revoke',
			'/teams',
			'/teams/:slug',
			'/teams/:slug/activity',
			'/teams/:slug/delete',
			'/teams/:slug/members/:userId/remove',
			'/teams/:slug/leave',
			'/account',
			'/activity',
			'/admin',
			'/admin/activity',
			'/admin/users/:id/reset-password',
			'/admin/users/:id/revoke-keys',
			'/admin/users/:id/remove',
			'/admin/links/:id/revoke',
			// Public: the token in the address is the permission (test/server/web/signup.test.ts).
			'/setup/:token',
			'/join/:token',
			// Not a page: the event stream behind the pages' notice, a 401 when signed out (test/server/web/live.test.ts).
			'/events'
		]
		expect([...gets].sort()).toEqual([...listed].sort())
	})

	for (const row of pages) {
		test(row.what, async () => {
			for (const caller of CALLERS) {
				const path = row.path(world)
				const page = await world.w.get(path, caller === 'signedOut' ? undefined : world.browsers[caller])
				const expected = row.expect[caller]
				const status = typeof expected === 'number' ? expected : expected.status
				expect({ caller, path, status: page.status }).toEqual({ caller, path, status })
				// docs/api.md on every page, error pages included.
				expect(page.headers.get('x-content-type-options')).toBe('nosniff')
				expect(page.headers.get('referrer-policy')).toBe('no-referrer')
				expect(page.headers.get('cache-control')).toBe('no-store')
				if (status === 303) {
					expect(page.headers.get('location')).toBe(`/?next=${encodeURIComponent(path)}`)
					continue
				}
				const csp = page.headers.get('content-security-policy') ?? ''
				expect(csp).toContain("default-src 'self'")
				expect(csp).toContain("frame-ancestors 'none'")
				expect(csp).not.toMatch(/unsafe-(inline|eval)/)
				expect(page.html).toStartWith('<!DOCTYPE html><html lang="en" class="no-js">')
				if (typeof expected === 'number') {
					expect(page.html).toContain('role="alert"')
					continue
				}
				for (const text of expected.has ?? [])
					expect({ caller, path, has: text, found: page.html.includes(text) }).toEqual({
						caller,
						path,
						has: text,
						found: true
					})
				for (const text of expected.hasNot ?? [])
					expect({ caller, path, hasNot: text, found: page.html.includes(text) }).toEqual({
						caller,
						path,
						hasNot: text,
						found: false
					})
				// The navigation: Configs, Devices, Teams, Activity, Account, and Admin for server admins only; a Sign out button.
				const nav = /<nav aria-label="Main">([\s\S]*?)<\/nav>/.exec(page.html)?.[1] ?? ''
				expect(textOf(nav).trim()).toBe(
					caller === 'serverAdmin'
						? 'Configs Devices Teams Activity Account Admin'
						: 'Configs Devices Teams Activity Account'
				)
				expect(page.html).toContain('>Sign out</button>')
				// No inline script or style anywhere (the CSP would refuse them).
				expect(page.html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>|<style|\sstyle=|\shx-on|\son[a-z]+=/)
				// Every form that posts carries this session's token.
				const posts = [...page.html.matchAll(/<form[^>]*method="post"[^>]*>([\s\S]*?)<\/form>/g)]
				for (const form of posts)
					expect(form[1]).toContain(
						`name="_csrf" value="${world.browsers[caller as Exclude<CallerName, 'signedOut'>].csrf}"`
					)
			}
		})
	}

	test('signed out, / is the sign-in form; signed in, / goes to Configs', async () => {
		const signedOut = await world.w.get('/')
		expect(signedOut.status).toBe(200)
		for (const text of [
			'<label for="login">Username or email</label>',
			'<label for="password">Password</label>',
			'<button type="submit">Sign in</button>'
		])
			expect(signedOut.html).toContain(text)
		expect(signedOut.html).not.toContain('<nav')
		const signedIn = await world.w.get('/', world.browsers.member)
		expect(signedIn.status).toBe(303)
		expect(signedIn.headers.get('location')).toBe('/configs')
	})

	test('a page asked for while signed out comes back after sign-in; a foreign `next` is ignored', async () => {
		const form = await world.w.get(`/?next=${encodeURIComponent('/teams/crew')}`)
		expect(form.html).toContain('name="next" value="/teams/crew"')
		const signed = await world.w.post('/sign-in', undefined, {
			login: 'mike',
			password: world.users.mike.password,
			next: '/teams/crew'
		})
		expect(signed.headers.get('location')).toBe('/teams/crew')
		for (const next of ['//evil.example/x', 'https://evil.example', '/\\evil.example']) {
			const away = await world.w.post('/sign-in', undefined, {
				login: 'mike',
				password: world.users.mike.password,
				next
			})
			expect(away.headers.get('location')).toBe('/configs')
		}
	})

	test('htmx requests get fragments: the diff alone when toggled, an HX-Redirect when the session is gone', async () => {
		const path = `/configs/${world.shared.id}/compare?from=${world.shared.firstVersion}&to=${world.shared.firstVersion}&view=split`
		const fragment = await world.w.get(path, world.browsers.member, { 'hx-request': 'true' })
		expect(fragment.status).toBe(200)
		expect(fragment.html).toStartWith('<div id="diff">')
		expect(fragment.html).toContain('Show in one column')
		const gone = await world.w.get(path, { cookie: 'A'.repeat(43) }, { 'hx-request': 'true' })
		expect(gone.status).toBe(401)
		expect(gone.headers.get('hx-redirect')).toBe('/')
	})

	test('assets are served from the binary, cacheable by their hashed URL; the OpenAPI document does not list the pages', async () => {
		const page = await world.w.get('/configs', world.browsers.member)
		const css = /href="(\/assets\/app\.css\?v=[0-9a-f]{12})"/.exec(page.html)?.[1]
		const htmx = /src="(\/assets\/htmx\.min\.js\?v=[0-9a-f]{12})"/.exec(page.html)?.[1]
		expect(css).toBeDefined()
		expect(htmx).toBeDefined()
		const style = await world.w.get(css as string)
		expect(style.headers.get('content-type')).toStartWith('text/css')
		expect(style.headers.get('cache-control')).toContain('immutable')
		expect(style.html).toContain('prefers-color-scheme: dark')
		const script = await world.w.get(htmx as string)
		expect(script.headers.get('content-type')).toStartWith('text/javascript')
		expect(script.html).toContain('htmx')
		const own = /src="(\/assets\/app\.js\?v=[0-9a-f]{12})"/.exec(page.html)?.[1]
		const copying = await world.w.get(own as string)
		expect(copying.headers.get('content-type')).toStartWith('text/javascript')
		expect(copying.headers.get('cache-control')).toContain('immutable')
		expect(copying.html).toContain('data-copy')
		expect(page.html).toContain('&quot;allowEval&quot;:false')
		expect(page.html).toContain('&quot;includeIndicatorStyles&quot;:false')
		const openapi = await world.w.call('GET', '/openapi.json')
		const documented = Object.keys(openapi.body.paths)
		const pages = world.w.app.routes
			.filter((route) => ((route.hooks?.detail as { tags?: string[] } | undefined)?.tags ?? []).includes('web'))
			.map((route) => route.path.replace(/:([A-Za-z]+)/g, '{$1}'))
		expect(documented.filter((path) => pages.includes(path))).toEqual([])
		expect(documented).toContain('/api/me')
	})

	test("a config's page marks the keys local on every machine (cfgsync local --everywhere) from the version's own list", async () => {
		const w = world.w
		const user = await w.user('pro', 'lena')
		const files = {
			'@Code/User/settings.json': '{"editor.fontSize": 14}\n',
			'.cfgsync/local-keys.json': `${JSON.stringify({
				local: [
					{ file: '@Code/User/settings.json', path: ['editor.fontSize'] },
					{ file: '@Code/User/keybindings.json' }
				]
			})}\n`
		}
		const id = await push(w, user, { files }, { name: 'laptops', tool: 'vscode' })
		const page = await w.get(`/configs/${id}`, await w.signIn(user))
		const text = textOf(page.html)
		expect(text).toContain('Local on every machine')
		expect(page.html).toContain('<code>@Code/User/settings.json</code>: <code>editor.fontSize</code>')
		expect(text).toContain('@Code/User/keybindings.json (the whole file)')
		const plain = await push(
			w,
			user,
			{ files: { '@Code/User/settings.json': '{}\n' } },
			{ name: 'plain', tool: 'vscode' }
		)
		expect((await w.get(`/configs/${plain}`, await w.signIn(user))).html).not.toContain('Local on every machine')
	})

	test('a user on the free plan sees their config without history, and why', async () => {
		const w = world.w
		const free = await w.user('free', 'fran')
		const id = (await w.call('POST', '/api/configs', { key: free.key, body: { data: { a: 1 } } })).body.id as string
		const page = await w.get(`/configs/${id}`, await w.signIn(free))
		expect(page.status).toBe(200)
		expect(page.html).toContain('need the Pro or Team plan')
		expect(page.html).not.toContain('Roll back')
		expect((await w.get('/teams', await w.signIn(free))).html).toContain('Creating teams needs the Team plan')
	})
})
