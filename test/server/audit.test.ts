import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { housekeeping } from '../../src/server/jobs/purge'
import { silentLogger } from '../../src/server/lib/log'
import { ADMIN_COMMAND } from '../../src/server/modules/audit/event'
import { auditView } from '../../src/server/modules/audit/service'
import { createUsersService } from '../../src/server/modules/users/service'
import { openSqliteStore } from '../../src/server/store/sqlite'
import { AUDIT_TYPES, type AuditRow } from '../../src/server/store/types'
import { fastPasswords, testApp, type TestApp, type TestUser } from '../support/helpers'
import { tempDir } from '../support/temp'

const DAY = 24 * 60 * 60 * 1000
const SECRET_DATA = 'do-not-log-this-config-value'

type Event = {
	type: string
	actor: { userId: string | null; username: string | null; device: string | null; keyId?: string | null }
	address: string | null
	teamId: string | null
	subjectUserId: string | null
	target: { type: string; id: string | null; name: string | null } | null
	details: Record<string, unknown>
}

/** A team "crew" (tom owner, ann admin, max member), a team config and a personal config of tom's, all from 203.0.113.9. */
async function world() {
	const t = testApp({ address: () => '203.0.113.9' })
	const tom = await t.user('team', 'tom')
	const ann = await t.user('pro', 'ann')
	const max = await t.user('pro', 'max')
	const team = (await t.call('POST', '/api/teams', { key: tom.key, body: { name: 'Crew' } })).body as {
		id: string
		slug: string
	}
	await t.join(tom, 'crew', ann, 'admin')
	await t.join(tom, 'crew', max)
	const personal = (
		await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'mine', data: { v: 1, s: SECRET_DATA } } })
	).body
	const shared = (
		await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'shared', teamId: team.id, data: { v: 1 } } })
	).body
	await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'shared', teamId: team.id, data: { v: 2 } } })
	return { t, tom, ann, max, team, personal, shared }
}

const mine = async (t: TestApp, user: TestUser, query = ''): Promise<Event[]> =>
	(await t.call('GET', `/api/audit${query}`, { key: user.key })).body
const ofTeam = async (t: TestApp, user: TestUser, query = ''): Promise<Event[]> =>
	(await t.call('GET', `/api/teams/crew/audit${query}`, { key: user.key })).body

describe('audit log: every state-changing endpoint records its event (docs/operations.md)', () => {
	type Row = {
		endpoint: string
		type: string
		act: (w: Awaited<ReturnType<typeof world>>) => Promise<{ status: number }>
		status: number
		by: 'tom' | 'ann' | 'max'
		team?: boolean
		target?: string
		details?: Record<string, unknown>
	}
	const rows: Row[] = [
		{
			endpoint: 'POST /api/auth/login',
			type: 'login.succeeded',
			by: 'max',
			status: 201,
			act: (w) =>
				w.t.call('POST', '/api/auth/login', { body: { login: 'max', password: w.max.password, device: 'laptop' } }),
			details: { device: 'laptop' }
		},
		{
			endpoint: 'POST /api/auth/login (wrong password)',
			type: 'login.failed',
			by: 'max',
			status: 401,
			act: (w) =>
				w.t.call('POST', '/api/auth/login', { body: { login: 'max', password: 'not-the-password', device: 'x' } }),
			details: { reason: 'wrong_password' }
		},
		{
			endpoint: 'POST /api/auth/logout',
			type: 'key.revoked',
			by: 'max',
			status: 204,
			act: (w) => w.t.call('POST', '/api/auth/logout', { key: w.max.key }),
			details: { reason: 'logout' }
		},
		{
			endpoint: 'DELETE /api/keys/:id',
			type: 'key.revoked',
			by: 'max',
			status: 204,
			act: async (w) => {
				await w.t.call('POST', '/api/auth/login', {
					body: { login: 'max', password: w.max.password, device: 'old-phone' }
				})
				const keys = (await w.t.call('GET', '/api/keys', { key: w.max.key })).body as { id: string; device: string }[]
				return w.t.call('DELETE', `/api/keys/${keys.find((k) => k.device === 'old-phone')?.id}`, { key: w.max.key })
			},
			target: 'old-phone'
		},
		{
			endpoint: 'POST /api/configs (personal)',
			type: 'config.pushed',
			by: 'max',
			status: 201,
			act: (w) =>
				w.t.call('POST', '/api/configs', { key: w.max.key, body: { name: 'notes', data: { a: SECRET_DATA } } }),
			target: 'claude-code/notes',
			details: { version: 1 }
		},
		{
			endpoint: 'POST /api/configs (team)',
			type: 'config.pushed',
			by: 'ann',
			status: 200,
			team: true,
			act: (w) =>
				w.t.call('POST', '/api/configs', {
					key: w.ann.key,
					body: { name: 'shared', teamId: w.team.id, data: { v: 3, s: SECRET_DATA } }
				}),
			target: 'claude-code/shared',
			details: { version: 3 }
		},
		{
			endpoint: 'POST /api/configs/:id/rollback',
			type: 'config.rolled_back',
			by: 'ann',
			status: 200,
			team: true,
			act: async (w) => {
				const versions = (await w.t.call('GET', `/api/configs/${w.shared.id}/versions`, { key: w.ann.key })).body as {
					id: string
					version: number
				}[]
				return w.t.call('POST', `/api/configs/${w.shared.id}/rollback`, {
					key: w.ann.key,
					body: { versionId: versions.find((v) => v.version === 1)?.id }
				})
			},
			target: 'claude-code/shared',
			details: { restored: 1, version: 3 }
		},
		{
			endpoint: 'DELETE /api/configs/:id',
			type: 'config.deleted',
			by: 'ann',
			status: 204,
			team: true,
			act: (w) => w.t.call('DELETE', `/api/configs/${w.shared.id}`, { key: w.ann.key }),
			target: 'claude-code/shared',
			details: { version: 2 }
		},
		{
			endpoint: 'POST /api/teams',
			type: 'team.created',
			by: 'tom',
			status: 201,
			act: (w) => w.t.call('POST', '/api/teams', { key: w.tom.key, body: { name: 'Second' } }),
			target: 'second'
		},
		{
			endpoint: 'PATCH /api/teams/:slug',
			type: 'team.renamed',
			by: 'ann',
			status: 200,
			team: true,
			act: (w) => w.t.call('PATCH', '/api/teams/crew', { key: w.ann.key, body: { name: 'Crew Two' } }),
			details: { fromName: 'Crew', toName: 'Crew Two' }
		},
		{
			endpoint: 'DELETE /api/teams/:slug',
			type: 'team.deleted',
			by: 'tom',
			status: 204,
			team: true,
			act: (w) => w.t.call('DELETE', '/api/teams/crew', { key: w.tom.key }),
			target: 'crew'
		},
		{
			endpoint: 'POST /api/teams/:slug/members',
			type: 'invitation.sent',
			by: 'ann',
			status: 201,
			team: true,
			act: async (w) => {
				await w.t.user('free', 'newbie')
				return w.t.call('POST', '/api/teams/crew/members', { key: w.ann.key, body: { login: 'newbie' } })
			},
			target: 'newbie',
			details: { role: 'member' }
		},
		{
			endpoint: 'PATCH /api/teams/:slug/members/:userId (invitation)',
			type: 'invitation.changed',
			by: 'tom',
			status: 200,
			team: true,
			act: async (w) => {
				const newbie = await w.t.user('free', 'newbie')
				await w.t.call('POST', '/api/teams/crew/members', { key: w.tom.key, body: { login: 'newbie' } })
				return w.t.call('PATCH', `/api/teams/crew/members/${newbie.id}`, { key: w.tom.key, body: { role: 'admin' } })
			},
			target: 'newbie',
			details: { from: 'member', to: 'admin' }
		},
		{
			endpoint: 'DELETE /api/teams/:slug/members/:userId (invitation)',
			type: 'invitation.cancelled',
			by: 'ann',
			status: 204,
			team: true,
			act: async (w) => {
				const newbie = await w.t.user('free', 'newbie')
				await w.t.call('POST', '/api/teams/crew/members', { key: w.tom.key, body: { login: 'newbie' } })
				return w.t.call('DELETE', `/api/teams/crew/members/${newbie.id}`, { key: w.ann.key })
			},
			target: 'newbie'
		},
		{
			endpoint: 'PATCH /api/teams/:slug/members/:userId',
			type: 'member.role_changed',
			by: 'tom',
			status: 200,
			team: true,
			act: (w) => w.t.call('PATCH', `/api/teams/crew/members/${w.max.id}`, { key: w.tom.key, body: { role: 'admin' } }),
			target: 'max',
			details: { from: 'member', to: 'admin' }
		},
		{
			endpoint: 'DELETE /api/teams/:slug/members/:userId',
			type: 'member.removed',
			by: 'ann',
			status: 204,
			team: true,
			act: (w) => w.t.call('DELETE', `/api/teams/crew/members/${w.max.id}`, { key: w.ann.key }),
			target: 'max',
			details: { role: 'member' }
		},
		{
			endpoint: 'DELETE /api/teams/:slug/members/:userId (self)',
			type: 'member.left',
			by: 'max',
			status: 204,
			team: true,
			act: (w) => w.t.call('DELETE', `/api/teams/crew/members/${w.max.id}`, { key: w.max.key }),
			target: 'max'
		}
	]
	const invitationRows: Row[] = [
		{
			endpoint: 'POST /api/invitations/:teamSlug/accept',
			type: 'invitation.accepted',
			by: 'tom',
			status: 200,
			team: true,
			act: async () => ({ status: 200 }),
			details: { role: 'member' }
		}
	]

	for (const row of rows) {
		test(`${row.endpoint} → ${row.type}`, async () => {
			const w = await world()
			const res = await row.act(w)
			expect(res.status).toBe(row.status)
			const actor = w[row.by]
			// Read from the store: after a logout or a team's deletion the endpoints rightly refuse.
			const rows = await w.t.store.audit.list({
				...(row.team ? { teamId: w.team.id } : { userId: actor.id }),
				limit: 100
			})
			const events = rows.map(auditView) as Event[]
			const event = events.find((e) => e.type === row.type)
			expect(event).toBeDefined()
			const e = event as Event
			if (row.type === 'login.failed') {
				expect(e.actor.userId).toBeNull()
				expect(e.subjectUserId).toBe(actor.id)
			} else {
				expect(e.actor).toMatchObject({ userId: actor.id, username: actor.username })
				// The device of the key used, except for a login, which is made without one.
				if (row.type !== 'login.succeeded') expect(e.actor.device).toBe('test')
			}
			expect(e.address).toBe('203.0.113.9')
			if (row.team) expect(e.teamId).toBe(w.team.id)
			if (row.target) expect(e.target?.name).toBe(row.target)
			if (row.details) expect(e.details).toMatchObject(row.details)
			expect(JSON.stringify(events)).not.toContain(SECRET_DATA)
		})
	}

	test('POST /api/invitations/:teamSlug/accept → invitation.accepted; DELETE /api/invitations/:teamSlug → invitation.declined', async () => {
		const w = await world()
		const a = await w.t.user('free', 'a')
		const b = await w.t.user('free', 'b')
		await w.t.call('POST', '/api/teams/crew/members', { key: w.tom.key, body: { login: 'a' } })
		await w.t.call('POST', '/api/teams/crew/members', { key: w.tom.key, body: { login: 'b' } })
		expect((await w.t.call('POST', '/api/invitations/crew/accept', { key: a.key })).status).toBe(200)
		expect((await w.t.call('DELETE', '/api/invitations/crew', { key: b.key })).status).toBe(204)
		const team = await ofTeam(w.t, w.tom)
		expect(team.find((e) => e.type === 'invitation.accepted')).toMatchObject({
			actor: { userId: a.id, device: 'test' },
			teamId: w.team.id,
			details: { role: 'member' }
		})
		expect(team.find((e) => e.type === 'invitation.declined')).toMatchObject({
			actor: { userId: b.id },
			teamId: w.team.id
		})
		expect((await mine(w.t, a)).map((e) => e.type)).toEqual(['invitation.accepted', 'invitation.sent'])
		expect(invitationRows).toHaveLength(1)
	})

	test('admin commands record their events, as "admin command", and the user they concern sees them', async () => {
		const w = await world()
		const users = createUsersService({ store: w.t.store, clock: w.t.clock, passwords: fastPasswords })
		await users.add({ email: 'zed@example.test', username: 'zed', plan: 'free', password: 'long enough password' })
		await users.setPlan('max', 'team')
		await users.setAdmin('max', true)
		await users.setPassword('max', 'a new long password', { revokeKeys: false })
		await users.unlock('max')
		await users.revokeKeys('max')
		const events = (await w.t.store.audit.list({ userId: w.max.id, limit: 50 })).map((e: AuditRow) => [
			e.type,
			e.actorDevice,
			e.actorUserId
		])
		for (const type of [
			'user.plan_changed',
			'user.admin_changed',
			'user.password_reset',
			'user.unlocked',
			'keys.revoked'
		]) {
			expect(events).toContainEqual([type, 'admin command', null])
		}
		const zed = (await w.t.store.users.findByLogin('zed'))?.id as string
		expect((await w.t.store.audit.list({ userId: zed, limit: 5 }))[0]).toMatchObject({
			type: 'user.created',
			details: { plan: 'free', admin: false }
		})
		await users.remove('zed')
		expect((await w.t.store.audit.list({ type: 'user.removed', limit: 5 }))[0]).toMatchObject({
			subjectUserId: zed,
			targetName: 'zed'
		})
		expect(ADMIN_COMMAND.via).toBe('admin command')
	})

	test('every event type the API can record is in the table above or among admin and web actions', () => {
		const covered = new Set([
			...rows.map((r) => r.type),
			'invitation.accepted',
			'invitation.declined',
			'user.created',
			'user.plan_changed',
			'user.admin_changed',
			'user.password_reset',
			'user.unlocked',
			'keys.revoked',
			'user.removed',
			'key.issued'
		])
		// Web sign-in and password changes, sign-up links (test/server/web/signup.test.ts), backups, restores and key rotation are tested where they are built.
		const elsewhere = new Set([
			'signup_link.created',
			'signup_link.revoked',
			'signup.refused',
			'session.started',
			'session.ended',
			'password.changed',
			'backup.written',
			'backup.restored',
			'master_key.rotated',
			// test/server/teams-restore.test.ts
			'team.restored',
			// test/server/keys-rename.test.ts, test/server/web/account-sessions.test.ts
			'key.renamed'
		])
		expect(AUDIT_TYPES.filter((type) => !covered.has(type) && !elsewhere.has(type))).toEqual([])
	})
})

describe('audit log: who may read it', () => {
	test("your own events only: what you did and what was done to your account; never another user's", async () => {
		const w = await world()
		const outsider = await w.t.user('team', 'outsider')
		await w.t.call('POST', '/api/configs', { key: outsider.key, body: { name: 'x', data: { a: 1 } } })
		for (const user of [w.tom, w.ann, w.max]) {
			const events = await mine(w.t, user)
			expect(events.length).toBeGreaterThan(0)
			for (const e of events) expect(e.actor.userId === user.id || e.subjectUserId === user.id).toBe(true)
		}
		expect((await mine(w.t, outsider)).map((e) => e.type)).toEqual(['config.pushed'])
	})

	test("the subject of an event sees who acted and what, never the actor's address or device; the actor sees both", async () => {
		const w = await world()
		const aboutAnn = (await mine(w.t, w.ann)).filter((e) => e.actor.userId !== w.ann.id)
		expect(aboutAnn.map((e) => e.type)).toContain('invitation.sent')
		for (const e of aboutAnn) {
			expect(e.address).toBeNull()
			expect(e.actor.device).toBeNull()
		}
		expect(aboutAnn.find((e) => e.type === 'invitation.sent')?.actor.username).toBe('tom')
		const byTom = (await mine(w.t, w.tom)).find((e) => e.type === 'invitation.sent')
		expect(byTom).toMatchObject({ address: '203.0.113.9', actor: { username: 'tom', device: 'test' } })
	})

	test('a push names the key it came with, by id, to its own user only: a device name can be taken over, a key id cannot', async () => {
		const w = await world()
		const keys = (await w.t.call('GET', '/api/keys', { key: w.tom.key })).body as { id: string; current: boolean }[]
		const tomsKey = keys.find((k) => k.current)?.id
		expect(tomsKey).toBeString()
		const pushes = (await mine(w.t, w.tom)).filter((e) => e.type === 'config.pushed')
		expect(pushes.length).toBe(3)
		for (const e of pushes) expect(e.actor.keyId).toBe(tomsKey as string)
		// The same pushes, read by a team admin: tom's device, never his key's id.
		const seenByAnn = (await ofTeam(w.t, w.ann)).filter((e) => e.type === 'config.pushed')
		expect(seenByAnn.length).toBe(2)
		for (const e of seenByAnn) expect(e.actor).toMatchObject({ device: 'test', keyId: null })
		// Ann as the subject of tom's invitation: neither his device nor his key.
		for (const e of (await mine(w.t, w.ann)).filter((e) => e.actor.userId === w.tom.id))
			expect(e.actor).toMatchObject({ device: null, keyId: null })
	})

	test("a team's events: owners and admins only; members 403, others 404; other teams' events never appear", async () => {
		const w = await world()
		const other = await w.t.user('team', 'other')
		await w.t.call('POST', '/api/teams', { key: other.key, body: { name: 'Elsewhere' } })
		expect((await w.t.call('GET', '/api/teams/crew/audit', { key: w.max.key })).status).toBe(403)
		expect((await w.t.call('GET', '/api/teams/crew/audit', { key: other.key })).status).toBe(404)
		const events = await ofTeam(w.t, w.ann)
		expect(events.every((e) => e.teamId === w.team.id)).toBe(true)
		expect(events.map((e) => e.type)).toEqual([
			'config.pushed',
			'config.pushed',
			'invitation.accepted',
			'invitation.sent',
			'invitation.accepted',
			'invitation.sent',
			'team.created'
		])
	})

	test('pages with limit and before; filters by type; bad queries are 400', async () => {
		const w = await world()
		const all = await mine(w.t, w.tom)
		const first = await mine(w.t, w.tom, '?limit=2')
		expect(first).toEqual(all.slice(0, 2))
		const next = await mine(w.t, w.tom, `?limit=2&before=${(first[1] as { id: string } & Event).id}`)
		expect(next).toEqual(all.slice(2, 4))
		expect((await mine(w.t, w.tom, '?type=config.pushed')).map((e) => e.type)).toEqual([
			'config.pushed',
			'config.pushed',
			'config.pushed'
		])
		for (const query of ['?limit=0', '?limit=1001', '?before=nope', '?type=everything']) {
			expect((await w.t.call('GET', `/api/audit${query}`, { key: w.tom.key })).status).toBe(400)
		}
	})
})

describe('audit log in pages (docs/api.md, "Pages")', () => {
	test('100 events by default; Link rel=next carries the cursor and the filter until the log ends', async () => {
		const w = await world()
		for (let i = 0; i < 110; i++) await w.t.call('POST', '/api/configs', { key: w.tom.key, body: { data: { i } } })
		const seen: Event[] = []
		let path: string | undefined = '/api/audit?type=config.pushed'
		let pages = 0
		while (path) {
			const page = await w.t.call('GET', path, { key: w.tom.key })
			expect(page.status).toBe(200)
			seen.push(...page.body)
			pages++
			path = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1]
		}
		expect(pages).toBe(2)
		expect(seen).toHaveLength(113)
		expect(new Set(seen.map((event) => (event as Event & { id: string }).id)).size).toBe(113)
		expect(seen.every((event) => event.type === 'config.pushed')).toBe(true)
		const team = await w.t.call('GET', '/api/teams/crew/audit?limit=1', { key: w.tom.key })
		expect(team.headers.get('link')).toMatch(/^<\/api\/teams\/crew\/audit\?limit=1&before=[0-9a-f-]{36}>; rel="next"$/)
		const exact = await w.t.call('GET', '/api/audit?type=team.created', { key: w.tom.key })
		expect(exact.body).toHaveLength(1)
		expect(exact.headers.get('link')).toBeNull()
	})
})

describe('audit log: coupled to the change it records', () => {
	test('a push that is refused or fails records nothing; an unchanged push records nothing', async () => {
		const w = await world()
		const before = (await w.t.store.audit.list({ limit: 1000 })).length
		// 412: the condition does not hold.
		expect(
			(
				await w.t.call('POST', '/api/configs', {
					key: w.tom.key,
					body: { name: 'mine', data: { v: 9 } },
					headers: { 'if-match': '"nope"' }
				})
			).status
		).toBe(412)
		// 403: a member may not push to the team.
		expect(
			(
				await w.t.call('POST', '/api/configs', {
					key: w.max.key,
					body: { name: 'shared', teamId: w.team.id, data: { v: 9 } }
				})
			).status
		).toBe(403)
		// noChange: nothing changed, nothing to record.
		expect(
			(
				await w.t.call('POST', '/api/configs', {
					key: w.tom.key,
					body: { name: 'mine', data: { s: SECRET_DATA, v: 1 } }
				})
			).body.noChange
		).toBe(true)
		expect((await w.t.store.audit.list({ limit: 1000 })).length).toBe(before)
	})

	test('an event that cannot be written undoes its change: a push whose event fails stores nothing', async () => {
		const t = testApp()
		const tom = await t.user('team', 'tom')
		const at = new Date(t.clock.now()).toISOString()
		const taken = {
			id: crypto.randomUUID(),
			at,
			type: 'config.pushed' as const,
			actor: { userId: tom.id, username: 'tom', address: null }
		}
		await t.store.audit.record(taken)
		const push = t.store.configs.push({
			owner: { userId: tom.id, teamId: null },
			name: 'x',
			tool: 'cursor',
			hash: 'h',
			newConfigId: crypto.randomUUID(),
			newVersionId: crypto.randomUUID(),
			at,
			seal: () => new Uint8Array(40),
			// Same id as an event already written: the insert fails after the config and version rows.
			audit: taken
		})
		await expect(push).rejects.toThrow()
		expect(await t.store.configs.listPersonal(tom.id)).toEqual([])
	})

	test('a change that fails after its event was written takes the event with it', async () => {
		const file = join(tempDir('audit-rollback'), 'cfgsync.db')
		// SQLite only: the failure is made with a trigger on the file; the rollback is the same transaction on both engines.
		const t = testApp({ store: openSqliteStore(file) })
		const zed = await t.user('free', 'zed')
		const raw = new Database(file)
		raw.run(
			"CREATE TRIGGER refuse_user_delete BEFORE DELETE ON users BEGIN SELECT RAISE(ABORT, 'refused by test'); END"
		)
		raw.close()
		const users = createUsersService({ store: t.store, clock: t.clock, passwords: fastPasswords })
		await expect(users.remove('zed')).rejects.toThrow('refused by test')
		expect(await t.store.audit.list({ userId: zed.id, limit: 10 })).toEqual([])
		expect(await t.store.users.findById(zed.id)).toBeDefined()
	})

	test('events never hold config data, keys or passwords', async () => {
		const w = await world()
		const login = await w.t.call('POST', '/api/auth/login', {
			body: { login: 'tom', password: w.tom.password, device: 'pc' }
		})
		await w.t.call('POST', '/api/auth/login', {
			body: { login: 'my secret password typed as login', password: 'x-password', device: 'pc' }
		})
		const everything = JSON.stringify(await w.t.store.audit.list({ limit: 1000 }))
		for (const secret of [SECRET_DATA, w.tom.key, login.body.apiKey, w.tom.password, 'my secret password'])
			expect(everything).not.toContain(secret)
	})

	test('housekeeping drops events older than the retention (365 days by default)', async () => {
		const w = await world()
		w.t.clock.advance(200 * DAY)
		await w.t.call('POST', '/api/configs', { key: w.tom.key, body: { name: 'later', data: {} } })
		w.t.clock.advance(200 * DAY)
		await housekeeping({ store: w.t.store, clock: w.t.clock, logger: silentLogger })
		expect((await mine(w.t, w.tom)).map((e) => e.type)).toEqual(['config.pushed'])
		await housekeeping({ store: w.t.store, clock: w.t.clock, logger: silentLogger, auditRetentionDays: 30 })
		expect(await mine(w.t, w.tom)).toEqual([])
	})
})

describe('audit retention in batches', () => {
	test('the prune removes old events a batch at a time, oldest first, and keeps the rest', async () => {
		const w = await world()
		const old = (await w.t.store.audit.list({ limit: 1000 })).length
		w.t.clock.advance(400 * DAY)
		await w.t.call('POST', '/api/configs', { key: w.tom.key, body: { name: 'kept', data: {} } })
		const floor = new Date(w.t.clock.now() - DAY).toISOString()
		const first = await w.t.store.audit.prune(floor, 3)
		expect(first).toBe(3)
		expect((await w.t.store.audit.list({ limit: 1000 })).length).toBe(old - 3 + 1)
		const batches: number[] = []
		const prune = w.t.store.audit.prune
		w.t.store.audit.prune = async (before, limit) => {
			const removed = await prune(before, limit)
			batches.push(removed)
			return removed
		}
		await housekeeping({ store: w.t.store, clock: w.t.clock, logger: silentLogger, batch: 2 })
		expect(batches.reduce((a, b) => a + b, 0)).toBe(old - 3)
		expect(batches.every((count) => count <= 2)).toBe(true)
		expect((await mine(w.t, w.tom)).map((e) => e.type)).toEqual(['config.pushed'])
	})
})

describe('audit log: the live feed numbers never restart', () => {
	test('a prune past every event keeps the newest, so the next event is numbered after every number given out before', async () => {
		const t = testApp()
		const ada = await t.user('pro', 'ada')
		await t.call('POST', '/api/configs', { key: ada.key, body: { name: 'feed', data: { v: 1 } } })
		const end = await t.store.audit.feedEnd()
		expect(end).toBeGreaterThan(0)
		// Retention reaching past every event (a server with no event for a year).
		await t.store.audit.prune(new Date(Date.now() + DAY).toISOString())
		await t.call('POST', '/api/configs', { key: ada.key, body: { name: 'feed', data: { v: 2 } } })
		const after = await t.store.audit.feed(end, 10)
		expect(after.length).toBeGreaterThan(0)
		expect(after.every((row) => row.seq > end)).toBe(true)
	})
})
