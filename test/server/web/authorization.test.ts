// Every form action of the web application, for every kind of caller: the same
// rules as the API (docs/api.md), and a forged request changes nothing (docs/web.md).
import { beforeAll, describe, expect, test } from 'bun:test'
import { sha256Hex } from '../../../src/server/lib/crypto'
import { CALLERS, changes, frozenWorld, type CallerName, type World } from '../../support/web-world'

/** 'ok': done (a redirect back to a page); 'signin': sent to sign in; else the status. */
type Expected = 'ok' | 'signin' | 403 | 404 | 409

interface Row {
	route: string
	what: string
	request: (world: World, caller: CallerName) => { path: string; fields?: Record<string, string> }
	expect: Record<CallerName, Expected>
	/** Brings each copy of the world to where the row starts (before what it records is read). */
	prepare?: (world: World) => Promise<void>
}

const team = (_world: World) => '/teams/crew'
/** A second web session of alice's, made by a row's `prepare` in each copy of the world: what names it on Account. */
const otherSession = new WeakMap<World, string>()
const sessionRef = (cookie: string) => sha256Hex(`session-ref:${sha256Hex(cookie)}`).slice(0, 32)
const password = (world: World, caller: CallerName) =>
	caller === 'signedOut' ? 'x' : world.browsers[caller as Exclude<CallerName, 'signedOut'>].user.password

const rows: Row[] = [
	{
		route: 'POST /sign-out',
		what: 'sign out',
		request: () => ({ path: '/sign-out' }),
		expect: { signedOut: 'signin', member: 'ok', admin: 'ok', owner: 'ok', serverAdmin: 'ok' }
	},
	{
		route: 'POST /configs/:id/rollback',
		what: "roll back alice's personal config",
		request: (w) => ({ path: `/configs/${w.personal.id}/rollback`, fields: { version: w.personal.firstVersion } }),
		expect: { signedOut: 'signin', member: 404, admin: 404, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /configs/:id/rollback',
		what: 'roll back the team config (admin+)',
		request: (w) => ({ path: `/configs/${w.shared.id}/rollback`, fields: { version: w.shared.firstVersion } }),
		expect: { signedOut: 'signin', member: 403, admin: 'ok', owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /devices/:id/revoke',
		what: "revoke alice's key",
		request: (w) => ({ path: `/devices/${w.aliceKeyId}/revoke` }),
		expect: { signedOut: 'signin', member: 404, admin: 404, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /devices/:id/rename',
		what: "rename alice's device",
		request: (w) => ({ path: `/devices/${w.aliceKeyId}/rename`, fields: { name: 'renamed laptop' } }),
		expect: { signedOut: 'signin', member: 404, admin: 404, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams',
		what: 'create a team (Team plan)',
		request: (_w, caller) => ({ path: '/teams', fields: { name: `Team of ${caller}` } }),
		expect: { signedOut: 'signin', member: 'ok', admin: 'ok', owner: 'ok', serverAdmin: 'ok' }
	},
	{
		route: 'POST /invitations/:slug/accept',
		what: 'accept without an invitation',
		request: () => ({ path: '/invitations/crew/accept' }),
		expect: { signedOut: 'signin', member: 404, admin: 404, owner: 404, serverAdmin: 404 }
	},
	{
		route: 'POST /invitations/:slug/decline',
		what: 'decline without an invitation',
		request: () => ({ path: '/invitations/crew/decline' }),
		expect: { signedOut: 'signin', member: 404, admin: 404, owner: 404, serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/members',
		what: 'invite a member (admin+)',
		request: (w) => ({ path: `${team(w)}/members`, fields: { login: 'root', role: 'member' } }),
		expect: { signedOut: 'signin', member: 403, admin: 'ok', owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/members',
		what: 'invite an admin (owner)',
		request: (w) => ({ path: `${team(w)}/members`, fields: { login: 'root', role: 'admin' } }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/members/:userId/role',
		what: "change max's role (owner)",
		request: (w) => ({ path: `${team(w)}/members/${w.users.max.id}/role`, fields: { role: 'admin' } }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/members/:userId/role',
		what: 'demote the last owner',
		request: (w) => ({ path: `${team(w)}/members/${w.users.alice.id}/role`, fields: { role: 'member' } }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 409, serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/members/:userId/remove',
		what: 'remove max, a member (admin+)',
		request: (w) => ({ path: `${team(w)}/members/${w.users.max.id}/remove` }),
		expect: { signedOut: 'signin', member: 403, admin: 'ok', owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/members/:userId/remove',
		what: 'remove ann, an admin (owner)',
		request: (w) => ({ path: `${team(w)}/members/${w.users.ann.id}/remove` }),
		// ann removing herself is leaving, which anyone may do.
		expect: { signedOut: 'signin', member: 403, admin: 'ok', owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/leave',
		what: 'leave (the last owner cannot)',
		request: (w) => ({ path: `${team(w)}/leave` }),
		expect: { signedOut: 'signin', member: 'ok', admin: 'ok', owner: 409, serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/rename',
		what: 'rename (admin+)',
		request: (w) => ({ path: `${team(w)}/rename`, fields: { name: 'Crew 2', slug: 'crew-2' } }),
		expect: { signedOut: 'signin', member: 403, admin: 'ok', owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/delete',
		what: 'delete the team (owner)',
		request: (w) => ({ path: `${team(w)}/delete`, fields: { confirmed: 'yes', slug: 'crew' } }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /teams/:slug/restore',
		what: 'restore the deleted team (owner; 404 for anyone else)',
		prepare: async (w) => {
			expect((await w.w.call('DELETE', '/api/teams/crew', { key: w.users.alice.key })).status).toBe(204)
		},
		request: (w) => ({ path: `${team(w)}/restore` }),
		expect: { signedOut: 'signin', member: 404, admin: 404, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /account/password',
		what: 'change your own password',
		request: (w, caller) => ({
			path: '/account/password',
			fields: { current: password(w, caller), new: 'a whole new password', confirm: 'a whole new password' }
		}),
		expect: { signedOut: 'signin', member: 'ok', admin: 'ok', owner: 'ok', serverAdmin: 'ok' }
	},
	{
		route: 'POST /account/sessions/:ref/sign-out',
		what: "sign out alice's other web session (hers alone; 404 for anyone else)",
		prepare: async (w) => {
			otherSession.set(w, sessionRef((await w.w.signIn(w.users.alice)).cookie))
		},
		request: (w) => ({ path: `/account/sessions/${otherSession.get(w) ?? '0'.repeat(32)}/sign-out` }),
		expect: { signedOut: 'signin', member: 404, admin: 404, owner: 'ok', serverAdmin: 404 }
	},
	{
		route: 'POST /account/sessions/sign-out-others',
		what: 'sign out your other web sessions',
		prepare: async (w) => {
			for (const user of [w.users.alice, w.users.ann, w.users.mike, w.users.root]) await w.w.signIn(user)
		},
		request: () => ({ path: '/account/sessions/sign-out-others' }),
		expect: { signedOut: 'signin', member: 'ok', admin: 'ok', owner: 'ok', serverAdmin: 'ok' }
	},
	{
		route: 'POST /admin/users',
		what: 'add a user (server admin)',
		request: () => ({
			path: '/admin/users',
			fields: { email: 'new@example.test', username: 'newbie', plan: 'pro', password: 'a fine password' }
		}),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 403, serverAdmin: 'ok' }
	},
	{
		route: 'POST /admin/users/:id/plan',
		what: "set max's plan (server admin)",
		request: (w) => ({ path: `/admin/users/${w.users.max.id}/plan`, fields: { plan: 'free' } }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 403, serverAdmin: 'ok' }
	},
	{
		route: 'POST /admin/users/:id/reset-password',
		what: "reset max's password (server admin)",
		request: (w) => ({ path: `/admin/users/${w.users.max.id}/reset-password` }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 403, serverAdmin: 'ok' }
	},
	{
		route: 'POST /admin/users/:id/revoke-keys',
		what: "revoke max's keys (server admin)",
		request: (w) => ({ path: `/admin/users/${w.users.max.id}/revoke-keys` }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 403, serverAdmin: 'ok' }
	},
	{
		route: 'POST /admin/users/:id/remove',
		what: 'remove max (server admin)',
		request: (w) => ({ path: `/admin/users/${w.users.max.id}/remove` }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 403, serverAdmin: 'ok' }
	},
	{
		route: 'POST /admin/links',
		what: 'make a sign-up link (server admin)',
		request: () => ({ path: '/admin/links', fields: { plan: 'free', uses: '2', days: '3' } }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 403, serverAdmin: 'ok' }
	},
	{
		route: 'POST /admin/links/:id/revoke',
		what: 'revoke a sign-up link (server admin)',
		request: (w) => ({ path: `/admin/links/${w.link.id}/revoke`, fields: { confirmed: 'yes' } }),
		expect: { signedOut: 'signin', member: 403, admin: 403, owner: 403, serverAdmin: 'ok' }
	}
]

/**
 * The setup and sign-up forms (docs/web.md) need no session: the token in the address is the
 * permission, for whoever holds it, signed in or not. Without a usable token nothing is made.
 */
type PublicExpected = 'made' | 404 | 410
const publicRows: {
	route: string
	what: string
	path: (world: World) => string
	expect: PublicExpected
}[] = [
	{ route: 'POST /join/:token', what: 'a usable sign-up link', path: (w) => `/join/${w.link.token}`, expect: 'made' },
	{ route: 'POST /join/:token', what: 'an unknown sign-up link', path: () => `/join/${'z'.repeat(43)}`, expect: 404 },
	{
		route: 'POST /setup/:token',
		what: 'a sign-up link is no setup address',
		path: (w) => `/setup/${w.link.token}`,
		expect: 404
	},
	{ route: 'POST /setup/:token', what: 'an unknown setup address', path: () => `/setup/${'z'.repeat(43)}`, expect: 404 }
]

/** The world every test starts from, built once; each call of `fresh` is a copy of it (test/support/web-world.ts). */
let fresh: () => World
beforeAll(async () => {
	fresh = await frozenWorld()
})

describe('setup and sign-up forms: the token is the permission (docs/web.md)', () => {
	for (const row of publicRows) {
		test(`${row.route} — ${row.what}, for every kind of caller`, async () => {
			// A caller refused makes nothing, so the refused share one copy of the world (each checked on its
			// own); a caller that makes an account gets a copy of its own, closed after use.
			const refused = row.expect === 'made' ? undefined : fresh()
			for (const caller of CALLERS) {
				const world = refused ?? fresh()
				const before = await world.w.store.users.list()
				const who = caller === 'signedOut' ? undefined : world.browsers[caller]
				const response = await world.w.post(row.path(world), who, {
					email: `new-${caller}@example.test`,
					username: `new-${caller}`,
					password: 'a fine password'
				})
				const after = await world.w.store.users.list()
				const outcome = response.status === 303 && after.length === before.length + 1 ? 'made' : response.status
				expect({ caller, outcome }).toEqual({ caller, outcome: row.expect })
				if (row.expect !== 'made') {
					expect({ caller, users: after.length }).toEqual({ caller, users: before.length })
					expect(response.html).not.toContain('name="password"')
				} else {
					// Made as an ordinary user on the link's plan, whoever was signed in when it was used.
					const made = after.find((user) => user.username === `new-${caller}`)
					expect({ caller, plan: made?.plan, admin: made?.isAdmin }).toEqual({ caller, plan: 'pro', admin: false })
				}
				if (!refused) world.w.store.close()
			}
			refused?.w.store.close()
		})
	}

	test('with an admin on the server, a setup address is dead for every caller (410, nothing made)', async () => {
		const world = fresh()
		// The address a first start printed before root was made an admin by hand (`user set-admin`).
		const token = 's'.repeat(43)
		await world.w.store.signups.create({
			id: crypto.randomUUID(),
			kind: 'setup',
			tokenHash: sha256Hex(token),
			hint: token.slice(0, 6),
			plan: 'team',
			maxUses: 1,
			uses: 0,
			createdAt: new Date(world.w.clock.now()).toISOString(),
			expiresAt: null,
			revokedAt: null,
			createdBy: null
		})
		for (const caller of CALLERS) {
			const who = caller === 'signedOut' ? undefined : world.browsers[caller]
			expect({ caller, status: (await world.w.get(`/setup/${token}`, who)).status }).toEqual({ caller, status: 410 })
			const posted = await world.w.post(`/setup/${token}`, who, {
				email: 'new@example.test',
				username: 'new',
				password: 'a fine password'
			})
			expect({ caller, status: posted.status }).toEqual({ caller, status: 410 })
		}
		expect(await world.w.store.users.findByLogin('new')).toBeUndefined()
	})
})

const isWeb = (route: { hooks?: { detail?: unknown } }) =>
	((route.hooks?.detail as { tags?: string[] } | undefined)?.tags ?? []).includes('web')

describe('web form actions: the API’s authorisation matrix (docs/api.md)', () => {
	test('every POST of the web application has rows here, for every kind of caller', async () => {
		const world = fresh()
		const posts = world.w.app.routes
			.filter((route) => isWeb(route) && route.method === 'POST')
			.map((route) => `POST ${route.path}`)
		const covered = new Set([...rows.map((row) => row.route), ...publicRows.map((row) => row.route), 'POST /sign-in'])
		expect([...new Set(posts)].sort()).toEqual([...covered].sort())
		for (const row of rows) expect(Object.keys(row.expect).sort()).toEqual([...CALLERS].sort())
	})

	for (const row of rows) {
		test(`${row.route} — ${row.what}`, async () => {
			// A refused caller changes nothing (checked for each), so the refused share one copy of the world;
			// each caller the row lets through gets a copy of its own, closed after use.
			const refused = fresh()
			await row.prepare?.(refused)
			for (const caller of CALLERS) {
				const expected = row.expect[caller]
				const world = expected === 'ok' ? fresh() : refused
				if (world !== refused) await row.prepare?.(world)
				const before = await changes(world)
				const { path, fields } = row.request(world, caller)
				const who = caller === 'signedOut' ? undefined : world.browsers[caller]
				const response = await world.w.post(path, who, fields)
				const location = response.headers.get('location')
				const outcome =
					response.status === 303 && location === '/' && (row.route !== 'POST /sign-out' || caller === 'signedOut')
						? 'signin'
						: // Post/redirect/get (docs/web.md): a change answers with a redirect, never a page a reload would post again.
							response.status === 303
							? 'ok'
							: response.status
				expect({ caller, outcome }).toEqual({ caller, outcome: expected })
				const after = await changes(world)
				// Refused: nothing recorded, so nothing changed. Done: exactly the change was recorded.
				if (expected === 'ok')
					expect({ caller, changed: after.length > before.length }).toEqual({ caller, changed: true })
				else expect({ caller, after }).toEqual({ caller, after: before })
				if (typeof expected === 'number') expect(response.headers.get('content-type')).toContain('text/html')
				if (world !== refused) world.w.store.close()
			}
			refused.w.store.close()
		})
	}
})

describe('forged requests change nothing (docs/web.md)', () => {
	const forgeries: { what: string; csrf?: string | null; headers?: Record<string, string>; otherToken?: boolean }[] = [
		{ what: 'no token', csrf: null },
		{ what: 'a wrong token', csrf: '0'.repeat(64) },
		{ what: "another session's token", otherToken: true },
		{
			what: 'the right token from a foreign Origin',
			headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }
		},
		{
			what: 'the right token with a foreign Origin and no Sec-Fetch-Site',
			headers: { origin: 'https://evil.example', 'sec-fetch-site': '' }
		},
		{ what: 'the right token, labelled cross-site', headers: { origin: 'null', 'sec-fetch-site': 'cross-site' } },
		{
			what: 'the right token, labelled same-site (a sibling subdomain)',
			headers: { origin: 'http://other.localhost', 'sec-fetch-site': 'same-site' }
		},
		{ what: 'the right token, Origin null without Sec-Fetch-Site', headers: { origin: 'null', 'sec-fetch-site': '' } }
	]

	for (const forgery of forgeries) {
		test(`${forgery.what}: refused with 403 for every action, nothing recorded`, async () => {
			const world = fresh()
			const owner = world.browsers.owner
			const csrf = forgery.otherToken ? (await world.w.signIn(world.users.mike)).csrf : forgery.csrf
			const before = await changes(world)
			for (const row of rows) {
				const { path, fields } = row.request(world, 'owner')
				const who = row.route.startsWith('POST /admin') ? world.browsers.serverAdmin : owner
				const sent = await world.w.post(path, who, fields, { csrf, headers: forgery.headers })
				expect({ route: row.route, status: sent.status }).toEqual({ route: row.route, status: 403 })
			}
			expect(await changes(world)).toEqual(before)
		})
	}

	test('the same request with the token from our own page is accepted (Chromium: Origin null, Sec-Fetch-Site same-origin)', async () => {
		const world = fresh()
		const response = await world.w.post(`/teams/crew/rename`, world.browsers.owner, { name: 'Crew', slug: 'crew-x' })
		expect(response.status).toBe(303)
		expect(response.headers.get('location')).toBe('/teams/crew-x')
	})

	test('a request that is no browser’s (no Origin, no Sec-Fetch-Site) is decided by the token alone', async () => {
		const world = fresh()
		const noLabels = { origin: '', 'sec-fetch-site': '' }
		const refused = await world.w.post(
			'/teams/crew/rename',
			world.browsers.owner,
			{ name: 'Crew', slug: 'crew-y' },
			{ csrf: null, headers: noLabels }
		)
		expect(refused.status).toBe(403)
		const accepted = await world.w.post(
			'/teams/crew/rename',
			world.browsers.owner,
			{ name: 'Crew', slug: 'crew-y' },
			{ headers: noLabels }
		)
		expect(accepted.status).toBe(303)
	})

	test('the token is also accepted from the X-CSRF-Token header (htmx requests)', async () => {
		const world = fresh()
		const owner = world.browsers.owner
		const response = await world.w.post(
			`/devices/${world.aliceKeyId}/revoke`,
			owner,
			{},
			{ csrf: null, headers: { 'x-csrf-token': owner.csrf, 'hx-request': 'true' } }
		)
		expect(response.status).toBe(200)
		expect((await world.w.call('GET', '/api/me', { key: world.users.alice.key })).status).toBe(401)
	})

	test('a sign-in posted from another site signs nobody in', async () => {
		const world = fresh()
		const response = await world.w.post(
			'/sign-in',
			undefined,
			{ login: 'alice', password: world.users.alice.password },
			{ headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } }
		)
		expect(response.status).toBe(403)
		expect(response.headers.get('set-cookie')).toBeNull()
	})
})
