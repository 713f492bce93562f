import { beforeAll, describe, expect, test } from 'bun:test'
import { CALLERS, frozenWorld, type CallerName, type World } from '../../support/world'

/**
 * The authorisation promise, as one table: for every endpoint and every kind
 * of caller, the status docs/api.md requires. 'plan' is 403
 * plan_required, 'role' is 403 forbidden. Callers: no key, a malformed key, a
 * revoked key; alice (pro, owns P), fred (free, owns F), oscar (team plan, in
 * no team); in team "crew": tom owner (team plan), ann admin (pro), max member
 * (pro), fay member (free); ivy (pro) is invited to crew and has not answered,
 * so she sees nothing of it (docs/api.md). aliceReadOnly and tomReadOnly hold
 * read-only keys of alice and tom ('readonly' is 403 read_only_key).
 */
type Expected = number | 'plan' | 'role' | 'readonly'
type Row = {
	route: string
	what: string
	/** Rows that change something: each caller they let through gets a copy of the world of its own. */
	mutates?: boolean
	request: (w: World) => { path: string; body?: unknown }
	expect: Partial<Record<CallerName, Expected>>
	/** An answer that stays open (the event stream): its status is read, then the body is cancelled. */
	stream?: boolean
}

const NO_KEY = { none: 401, malformed: 401, revoked: 401 } as const
const ANY_VALID = (status: Expected) => ({
	alice: status,
	fred: status,
	oscar: status,
	tom: status,
	ann: status,
	max: status,
	fay: status,
	ivy: status
})
const TEAM = (owner: Expected, admin: Expected, member: Expected, freeMember: Expected, outsider: Expected) => ({
	tom: owner,
	ann: admin,
	max: member,
	fay: freeMember,
	alice: outsider,
	fred: outsider,
	oscar: outsider,
	ivy: outsider
})
const PERSONAL = (owner: Expected, others: Expected = 404) => ({ ...ANY_VALID(others), alice: owner })

const rows: Row[] = [
	{
		route: 'POST /api/auth/login',
		what: 'public: the bearer header is ignored',
		mutates: true,
		request: (w) => ({
			path: '/api/auth/login',
			body: { login: 'alice', password: w.users.alice.password, device: 'matrix' }
		}),
		expect: { none: 201, malformed: 201, revoked: 201, ...ANY_VALID(201) }
	},
	{
		route: 'POST /api/auth/logout',
		what: 'own key',
		mutates: true,
		request: () => ({ path: '/api/auth/logout' }),
		expect: { ...NO_KEY, ...ANY_VALID(204) }
	},
	{
		route: 'GET /api/keys',
		what: 'own keys',
		request: () => ({ path: '/api/keys' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'DELETE /api/keys/:id',
		what: "alice's spare key",
		mutates: true,
		request: (w) => ({ path: `/api/keys/${w.spareKeyId}` }),
		expect: { ...NO_KEY, ...PERSONAL(204) }
	},
	{
		route: 'PATCH /api/keys/:id',
		what: "rename alice's spare key",
		mutates: true,
		request: (w) => ({ path: `/api/keys/${w.spareKeyId}`, body: { name: 'renamed spare' } }),
		expect: { ...NO_KEY, ...PERSONAL(200) }
	},
	{
		route: 'GET /api/me',
		what: 'identity',
		request: () => ({ path: '/api/me' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'GET /api/usage',
		what: 'own storage and quotas',
		request: () => ({ path: '/api/usage' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'GET /api/configs',
		what: 'personal list',
		request: () => ({ path: '/api/configs' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'GET /api/configs',
		what: 'team list',
		request: (w) => ({ path: `/api/configs?teamId=${w.team.id}` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 200, 200, 404) }
	},
	{
		route: 'GET /api/configs/latest',
		what: 'personal P by name and tool',
		request: () => ({ path: '/api/configs/latest?name=p&tool=cursor' }),
		expect: { ...NO_KEY, ...PERSONAL(200) }
	},
	{
		route: 'GET /api/configs/latest',
		what: 'team C',
		request: (w) => ({ path: `/api/configs/latest?name=c&tool=vscode&teamId=${w.team.id}` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 200, 200, 404) }
	},
	{
		route: 'POST /api/configs',
		what: 'push to own space',
		mutates: true,
		request: () => ({ path: '/api/configs', body: { name: 'p', tool: 'cursor', data: { v: 3 } } }),
		expect: { ...NO_KEY, ...PERSONAL(200, 201) }
	},
	{
		route: 'POST /api/configs',
		what: 'push to team C',
		mutates: true,
		request: (w) => ({ path: '/api/configs', body: { name: 'c', tool: 'vscode', teamId: w.team.id, data: { v: 3 } } }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 'role', 'role', 404) }
	},
	{
		route: 'GET /api/configs/:id',
		what: 'personal P',
		request: (w) => ({ path: `/api/configs/${w.P.id}` }),
		expect: { ...NO_KEY, ...PERSONAL(200) }
	},
	{
		route: 'GET /api/configs/:id',
		what: 'team C',
		request: (w) => ({ path: `/api/configs/${w.C.id}` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 200, 200, 404) }
	},
	{
		route: 'DELETE /api/configs/:id',
		what: 'personal P',
		mutates: true,
		request: (w) => ({ path: `/api/configs/${w.P.id}` }),
		expect: { ...NO_KEY, ...PERSONAL(204) }
	},
	{
		route: 'DELETE /api/configs/:id',
		what: 'team C',
		mutates: true,
		request: (w) => ({ path: `/api/configs/${w.C.id}` }),
		expect: { ...NO_KEY, ...TEAM(204, 204, 'role', 'role', 404) }
	},
	{
		route: 'GET /api/configs/:id/versions',
		what: 'personal P (pro owner)',
		request: (w) => ({ path: `/api/configs/${w.P.id}/versions` }),
		expect: { ...NO_KEY, ...PERSONAL(200) }
	},
	{
		route: 'GET /api/configs/:id/versions',
		what: 'personal F (free owner)',
		request: (w) => ({ path: `/api/configs/${w.F.id}/versions` }),
		expect: { ...NO_KEY, ...ANY_VALID(404), fred: 'plan' }
	},
	{
		route: 'GET /api/configs/:id/versions',
		what: 'team C',
		request: (w) => ({ path: `/api/configs/${w.C.id}/versions` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 200, 'plan', 404) }
	},
	{
		route: 'GET /api/configs/:id/versions/:versionId',
		what: 'personal P',
		request: (w) => ({ path: `/api/configs/${w.P.id}/versions/${w.P.oldVersionId}` }),
		expect: { ...NO_KEY, ...PERSONAL(200) }
	},
	{
		route: 'GET /api/configs/:id/versions/:versionId',
		what: 'team C',
		request: (w) => ({ path: `/api/configs/${w.C.id}/versions/${w.C.oldVersionId}` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 200, 'plan', 404) }
	},
	{
		route: 'POST /api/configs/:id/rollback',
		what: 'personal P',
		mutates: true,
		request: (w) => ({ path: `/api/configs/${w.P.id}/rollback`, body: { versionId: w.P.oldVersionId } }),
		expect: { ...NO_KEY, ...PERSONAL(200) }
	},
	{
		route: 'POST /api/configs/:id/rollback',
		what: 'personal F (free owner)',
		mutates: true,
		request: (w) => ({ path: `/api/configs/${w.F.id}/rollback`, body: { versionId: w.P.oldVersionId } }),
		expect: { ...NO_KEY, ...ANY_VALID(404), fred: 'plan' }
	},
	{
		route: 'POST /api/configs/:id/rollback',
		what: 'team C',
		mutates: true,
		request: (w) => ({ path: `/api/configs/${w.C.id}/rollback`, body: { versionId: w.C.oldVersionId } }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 'role', 'plan', 404) }
	},
	{
		route: 'GET /api/teams',
		what: 'own teams',
		request: () => ({ path: '/api/teams' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'POST /api/teams',
		what: 'create (Team plan only)',
		mutates: true,
		request: () => ({ path: '/api/teams', body: { name: 'New Team' } }),
		expect: { ...NO_KEY, ...ANY_VALID('plan'), tom: 201, oscar: 201 }
	},
	{
		route: 'GET /api/teams/:slug',
		what: 'crew',
		request: (w) => ({ path: `/api/teams/${w.team.slug}` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 200, 200, 404) }
	},
	{
		route: 'GET /api/teams/:slug/members',
		what: "crew's members",
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 200, 200, 404) }
	},
	{
		route: 'PATCH /api/teams/:slug',
		what: 'rename crew',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}`, body: { name: 'Crew 2' } }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 'role', 'role', 404) }
	},
	{
		route: 'DELETE /api/teams/:slug',
		what: 'delete crew',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}` }),
		expect: { ...NO_KEY, ...TEAM(204, 'role', 'role', 'role', 404) }
	},
	{
		route: 'POST /api/teams/:slug/restore',
		what: 'restore crew, which is not deleted (test/server/teams-restore.test.ts: a deleted one)',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/restore` }),
		expect: { ...NO_KEY, ...TEAM(404, 404, 404, 404, 404) }
	},
	{
		route: 'POST /api/teams/:slug/members',
		what: 'add oscar as member',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members`, body: { login: 'oscar', role: 'member' } }),
		expect: { ...NO_KEY, ...TEAM(201, 201, 'role', 'role', 404) }
	},
	{
		route: 'POST /api/teams/:slug/members',
		what: 'add oscar as admin',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members`, body: { login: 'oscar', role: 'admin' } }),
		expect: { ...NO_KEY, ...TEAM(201, 'role', 'role', 'role', 404) }
	},
	{
		route: 'PATCH /api/teams/:slug/members/:userId',
		what: 'make max admin',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members/${w.users.max.id}`, body: { role: 'admin' } }),
		expect: { ...NO_KEY, ...TEAM(200, 'role', 'role', 'role', 404) }
	},
	{
		route: 'DELETE /api/teams/:slug/members/:userId',
		what: 'remove max (a member; max himself leaves)',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members/${w.users.max.id}` }),
		expect: { ...NO_KEY, ...TEAM(204, 204, 204, 'role', 404) }
	},
	{
		route: 'DELETE /api/teams/:slug/members/:userId',
		what: 'remove ann (an admin)',
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members/${w.users.ann.id}` }),
		expect: { ...NO_KEY, ...TEAM(204, 204, 'role', 'role', 404) }
	},
	{
		route: 'PATCH /api/teams/:slug/members/:userId',
		what: "make ivy's invitation an admin's",
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members/${w.users.ivy.id}`, body: { role: 'admin' } }),
		expect: { ...NO_KEY, ...TEAM(200, 'role', 'role', 'role', 404) }
	},
	{
		route: 'DELETE /api/teams/:slug/members/:userId',
		what: "cancel ivy's invitation (as a member)",
		mutates: true,
		request: (w) => ({ path: `/api/teams/${w.team.slug}/members/${w.users.ivy.id}` }),
		expect: { ...NO_KEY, ...TEAM(204, 204, 'role', 'role', 404) }
	},
	{
		route: 'GET /api/audit',
		what: 'own activity',
		request: () => ({ path: '/api/audit' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'GET /api/teams/:slug/audit',
		what: "crew's activity (owners and admins)",
		request: (w) => ({ path: `/api/teams/${w.team.slug}/audit` }),
		expect: { ...NO_KEY, ...TEAM(200, 200, 'role', 'role', 404) }
	},
	{
		route: 'GET /api/events',
		what: 'own event stream',
		stream: true,
		request: () => ({ path: '/api/events' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'GET /api/invitations',
		what: 'own invitations',
		request: () => ({ path: '/api/invitations' }),
		expect: { ...NO_KEY, ...ANY_VALID(200) }
	},
	{
		route: 'POST /api/invitations/:teamSlug/accept',
		what: 'accept crew (only ivy is invited)',
		mutates: true,
		request: (w) => ({ path: `/api/invitations/${w.team.slug}/accept` }),
		expect: { ...NO_KEY, ...ANY_VALID(404), ivy: 200 }
	},
	{
		route: 'DELETE /api/invitations/:teamSlug',
		what: 'decline crew (only ivy is invited)',
		mutates: true,
		request: (w) => ({ path: `/api/invitations/${w.team.slug}` }),
		expect: { ...NO_KEY, ...ANY_VALID(404), ivy: 204 }
	}
]

/**
 * docs/api.md keys with a scope: a read-only key reads what its user reads and streams, and may sign itself
 * out (the login route ignores any key); every other write is refused, whatever it targets.
 */
const READ_ONLY_MAY = new Set(['POST /api/auth/login', 'POST /api/auth/logout'])
for (const row of rows) {
	const refused = row.mutates === true && !READ_ONLY_MAY.has(row.route)
	row.expect.aliceReadOnly = refused ? 'readonly' : row.expect.alice
	row.expect.tomReadOnly = refused ? 'readonly' : row.expect.tom
}

const PUBLIC_ROUTES = [
	'GET /healthz',
	'GET /readyz',
	'GET /metrics',
	'GET /openapi.json',
	'GET /docs',
	'GET /docs/assets/swagger-ui-bundle.js',
	'GET /docs/assets/swagger-ui.css',
	'GET /docs/assets/start.js',
	'GET /download',
	'GET /download/:file'
]

describe('authorisation matrix (docs/api.md)', () => {
	/** The world every row starts from, built once; `shared` serves every request that must change nothing. */
	let fresh: () => World
	let shared: World
	beforeAll(async () => {
		fresh = await frozenWorld()
		shared = fresh()
	})

	test('every route the app serves has rows here, for every kind of caller', () => {
		// The web application's pages have their own matrix (test/server/web/authorization.test.ts).
		const api = shared.t.app.routes.filter(
			(route) => !(route.hooks?.detail as { tags?: string[] } | undefined)?.tags?.includes('web')
		)
		const served = api.map((route) => `${route.method} ${route.path}`).filter((route) => !PUBLIC_ROUTES.includes(route))
		expect([...new Set(rows.map((row) => row.route))].sort()).toEqual([...new Set(served)].sort())
		for (const row of rows)
			expect({ row: `${row.route} ${row.what}`, callers: Object.keys(row.expect).sort() }).toEqual({
				row: `${row.route} ${row.what}`,
				callers: [...CALLERS].sort()
			})
	})

	/** One caller's request in `world`, checked against the row: the status, the code, the error body. */
	async function check(row: Row, world: World, caller: CallerName): Promise<void> {
		const { path, body } = row.request(world)
		const [method] = row.route.split(' ') as [string]
		if (row.stream) {
			const headers = new Headers()
			const key = world.keys[caller]
			if (key) headers.set('authorization', `Bearer ${key}`)
			const open = await world.t.app.handle(new Request(`http://localhost${path}`, { method, headers }))
			expect({ caller, status: open.status }).toEqual({ caller, status: row.expect[caller] as number })
			if (open.status === 401) expect(open.headers.get('www-authenticate')).toBe('Bearer')
			await open.body?.cancel()
			cells++
			return
		}
		const res = await world.t.call(method, path, { key: world.keys[caller], body })
		const expected = row.expect[caller] as Expected
		const status = typeof expected === 'number' ? expected : 403
		expect({ caller, status: res.status }).toEqual({ caller, status })
		if (expected === 'plan') expect(res.body.code).toBe('plan_required')
		if (expected === 'role') expect(res.body.code).toBe('forbidden')
		if (expected === 'readonly') expect(res.body.code).toBe('read_only_key')
		if (res.status >= 400) expect(typeof res.body.error).toBe('string')
		if (res.status === 401) expect(res.headers.get('www-authenticate')).toBe('Bearer')
		cells++
	}

	const letThrough = (expected: Expected | undefined) => typeof expected === 'number' && expected < 300

	let cells = 0
	for (const row of rows) {
		test(`${row.route} — ${row.what}`, async () => {
			if (!row.mutates) {
				// Nothing changes: every caller asks the one shared world, all at once.
				await Promise.all(CALLERS.map((caller) => check(row, shared, caller)))
				return
			}
			// Callers the row refuses change nothing, so they share one copy: one that wrongly got through
			// fails on its own status. Each caller let through gets a copy of its own, closed after use, so
			// one world's connections are open at a time.
			const refused = fresh()
			await Promise.all(CALLERS.filter((caller) => !letThrough(row.expect[caller])).map((c) => check(row, refused, c)))
			refused.t.store.close()
			for (const caller of CALLERS.filter((caller) => letThrough(row.expect[caller]))) {
				const world = fresh()
				await check(row, world, caller)
				world.t.store.close()
			}
		})
	}

	test('figures', () => {
		console.log(
			`[reliability] authorisation matrix: ${rows.length} rows × ${CALLERS.length} callers = ${cells} cells checked`
		)
	})
})
