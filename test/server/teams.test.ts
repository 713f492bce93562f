import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { housekeeping, purgeDeletedTeams } from '../../src/server/jobs/purge'
import { openSqliteStore } from '../../src/server/store/sqlite'
import { applyMigrations } from '../../src/server/store/sqlite/migrate'
import { migrations } from '../../src/server/store/sqlite/migrations'
import { systemClock } from '../../src/server/lib/clock'
import { silentLogger } from '../../src/server/lib/log'
import { createUsersService } from '../../src/server/modules/users/service'
import { fastPasswords, testApp, type TestApp, type TestUser } from '../support/helpers'
import { tempDir } from '../support/temp'

const DAY = 24 * 60 * 60 * 1000
const keys = (value: object) => Object.keys(value).sort()

/** A team "acme" with an owner, an admin, a member, a free-plan member, and an outsider. */
async function acme() {
	const t = testApp()
	const owner = await t.user('team', 'owner')
	const admin = await t.user('pro', 'admin')
	const member = await t.user('pro', 'member')
	const freeMember = await t.user('free', 'freemember')
	const outsider = await t.user('team', 'outsider')
	const created = await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })
	const team = created.body as { id: string; name: string; slug: string }
	await t.join(owner, team.slug, admin, 'admin')
	await t.join(owner, team.slug, member)
	await t.join(owner, team.slug, freeMember)
	return { t, owner, admin, member, freeMember, outsider, team }
}

const teamPush = (t: TestApp, user: TestUser, teamId: string, body: object = {}) =>
	t.call('POST', '/api/configs', {
		key: user.key,
		body: { teamId, name: 'shared', tool: 'cursor', data: { v: Math.random() }, ...body }
	})

/**
 * A deleted team due for the purge: "big" with 9 versions and 6 configs of one, 22 rows (configs and versions). Watches the
 * purge's store calls: how many of those rows (configs and versions) each removed.
 */
async function purgeWatch(t: TestApp, teamId: string, owner: TestUser) {
	const configIds = new Set<string>()
	for (let i = 0; i < 9; i++) configIds.add((await teamPush(t, owner, teamId, { name: 'big' })).body.id)
	for (let i = 0; i < 6; i++) configIds.add((await teamPush(t, owner, teamId, { name: `small-${i}` })).body.id)
	await t.call('DELETE', '/api/teams/acme', { key: owner.key })
	t.clock.advance(31 * DAY)
	const remaining = async () => {
		let rows = 0
		for (const id of configIds) {
			if (await t.store.configs.findMetaById(id)) rows++
			rows += (await t.store.configs.listVersions(id, { limit: 1000 })).length
		}
		return rows
	}
	expect(await remaining()).toBe(22)
	const removed: { call: 'purgeStep' | 'purge'; rows: number }[] = []
	const watch =
		<Args extends unknown[], Result>(call: 'purgeStep' | 'purge', run: (...args: Args) => Promise<Result>) =>
		async (...args: Args) => {
			const before = await remaining()
			const result = await run(...args)
			removed.push({ call, rows: before - (await remaining()) })
			return result
		}
	t.store.teams.purgeStep = watch('purgeStep', t.store.teams.purgeStep)
	t.store.teams.purge = watch('purge', t.store.teams.purge)
	return { configIds, remaining, removed }
}

describe('teams (/api/teams, docs/api.md)', () => {
	test('create: Team plan only; the creator is owner; slug from the name; 409 when taken', async () => {
		const t = testApp()
		const owner = await t.user('team')
		const pro = await t.user('pro')
		const res = await t.call('POST', '/api/teams', { key: owner.key, body: { name: '  Café Crème  ' } })
		expect(res.status).toBe(201)
		expect(keys(res.body)).toEqual(['id', 'name', 'slug'])
		expect(res.body).toMatchObject({ name: 'Café Crème', slug: 'cafe-creme' })
		const denied = await t.call('POST', '/api/teams', { key: pro.key, body: { name: 'Mine' } })
		// The body names the plan that would do, so a client need not read the sentence.
		expect(denied).toMatchObject({ status: 403, body: { code: 'plan_required', plan: 'team' } })
		const taken = await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'cafe creme!' } })
		expect(taken).toMatchObject({ status: 409, body: { code: 'conflict' } })
		const detail = await t.call('GET', '/api/teams/cafe-creme', { key: owner.key })
		expect(detail.body.userRole).toBe('owner')
	})

	test('create with a chosen slug (optional; the slug rule applies; 409 when taken, also by a reserved one)', async () => {
		const t = testApp()
		const owner = await t.user('team')
		const chosen = await t.call('POST', '/api/teams', { key: owner.key, body: { name: '日本語チーム', slug: 'jp' } })
		expect(chosen).toMatchObject({ status: 201, body: { name: '日本語チーム', slug: 'jp' } })
		for (const slug of ['', 'Upper', 'a--b', '-a', 'x'.repeat(51), 7]) {
			const res = await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Any', slug } })
			expect({ slug, status: res.status, code: res.body.code }).toEqual({ slug, status: 400, code: 'invalid_request' })
		}
		const taken = await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Other', slug: 'jp' } })
		expect(taken).toMatchObject({
			status: 409,
			body: { code: 'conflict', error: 'The slug "jp" is already taken; choose another slug.' }
		})
		expect((await t.call('PATCH', '/api/teams/jp', { key: owner.key, body: { slug: 'japan' } })).status).toBe(200)
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Third', slug: 'jp' } })).status).toBe(
			409
		)
	})

	test('create: names are 1-50 characters after trimming and must yield a slug', async () => {
		const t = testApp()
		const owner = await t.user('team')
		for (const name of ['', '   ', 'x'.repeat(51), '日本語', '!!!', 42, 'a\u0000b', 'tab\tname']) {
			const res = await t.call('POST', '/api/teams', { key: owner.key, body: { name } })
			expect({ name, status: res.status }).toEqual({ name, status: 400 })
			expect(res.body.code).toBe('invalid_request')
		}
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: {} })).status).toBe(400)
		const fifty = await t.call('POST', '/api/teams', { key: owner.key, body: { name: `${'é'.repeat(49)}🎉` } })
		expect(fifty.status).toBe(201)
		expect(fifty.body.slug).toBe('e'.repeat(49))
	})

	test('list: id, name, slug, role, createdAt of your live teams only', async () => {
		const { t, owner, admin, outsider } = await acme()
		const res = await t.call('GET', '/api/teams', { key: admin.key })
		expect(res.status).toBe(200)
		expect(res.body).toHaveLength(1)
		expect(keys(res.body[0])).toEqual(['createdAt', 'id', 'name', 'role', 'slug'])
		expect(res.body[0]).toMatchObject({ name: 'Acme', slug: 'acme', role: 'admin' })
		expect((await t.call('GET', '/api/teams', { key: outsider.key })).body).toEqual([])
		expect((await t.call('GET', '/api/teams', { key: owner.key })).body[0].role).toBe('owner')
	})

	test('get: id, name, slug, createdAt, userRole, members (id, userId, email, username, role, joinedAt); 404 for non-members', async () => {
		const { t, owner, member, outsider } = await acme()
		const res = await t.call('GET', '/api/teams/acme', { key: member.key })
		expect(res.status).toBe(200)
		expect(keys(res.body)).toEqual(['createdAt', 'id', 'members', 'name', 'slug', 'userRole'])
		expect(res.body.userRole).toBe('member')
		expect(res.body.members).toHaveLength(4)
		for (const m of res.body.members) expect(keys(m)).toEqual(['email', 'id', 'joinedAt', 'role', 'userId', 'username'])
		expect(res.body.members[0]).toMatchObject({
			userId: owner.id,
			email: owner.email,
			username: owner.username,
			role: 'owner'
		})
		expect((await t.call('GET', '/api/teams/acme', { key: outsider.key })).status).toBe(404)
		expect((await t.call('GET', '/api/teams/no-such-team', { key: owner.key })).status).toBe(404)
		expect((await t.call('GET', '/api/teams/NOT%20A%20SLUG', { key: owner.key })).status).toBe(404)
	})

	test('patch: owner or admin; changes only the fields given; slug rule; 409 when taken', async () => {
		const { t, owner, admin, member, outsider } = await acme()
		await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Other' } })
		expect((await t.call('PATCH', '/api/teams/acme', { key: member.key, body: { name: 'X' } })).status).toBe(403)
		expect((await t.call('PATCH', '/api/teams/acme', { key: outsider.key, body: { name: 'X' } })).status).toBe(404)
		const renamed = await t.call('PATCH', '/api/teams/acme', { key: admin.key, body: { name: 'Acme Corp' } })
		expect(renamed).toMatchObject({ status: 200, body: { name: 'Acme Corp', slug: 'acme' } })
		expect(keys(renamed.body)).toEqual(['id', 'name', 'slug'])
		for (const slug of ['Bad', 'two--dashes', '-lead', 'sp ace', 'x'.repeat(51), '']) {
			expect((await t.call('PATCH', '/api/teams/acme', { key: owner.key, body: { slug } })).status).toBe(400)
		}
		expect((await t.call('PATCH', '/api/teams/acme', { key: owner.key, body: { name: 'x'.repeat(51) } })).status).toBe(
			400
		)
		expect((await t.call('PATCH', '/api/teams/acme', { key: owner.key, body: { slug: 'other' } })).status).toBe(409)
		const moved = await t.call('PATCH', '/api/teams/acme', { key: owner.key, body: { slug: 'acme-corp' } })
		expect(moved.body).toMatchObject({ name: 'Acme Corp', slug: 'acme-corp' })
		expect((await t.call('GET', '/api/teams/acme', { key: owner.key })).status).toBe(404)
		expect((await t.call('GET', '/api/teams/acme-corp', { key: member.key })).status).toBe(200)
	})

	test('delete: owner 204; admin and member 403; non-member 404', async () => {
		const { t, owner, admin, member, outsider } = await acme()
		expect((await t.call('DELETE', '/api/teams/acme', { key: admin.key })).body.code).toBe('forbidden')
		expect((await t.call('DELETE', '/api/teams/acme', { key: member.key })).status).toBe(403)
		expect((await t.call('DELETE', '/api/teams/acme', { key: outsider.key })).status).toBe(404)
		const res = await t.call('DELETE', '/api/teams/acme', { key: owner.key })
		expect(res.status).toBe(204)
		expect(res.text).toBe('')
	})
})

describe('members (docs/api.md)', () => {
	test('invite: owner invites admins and members, admin invites members only; unknown user 404; already a member or invited 409', async () => {
		const { t, owner, admin, member, outsider } = await acme()
		const newbie = await t.user('free', 'newbie')
		await t.user('free', 'other')
		expect(
			(await t.call('POST', '/api/teams/acme/members', { key: admin.key, body: { login: 'newbie', role: 'admin' } }))
				.status
		).toBe(403)
		expect(
			(await t.call('POST', '/api/teams/acme/members', { key: member.key, body: { login: 'newbie', role: 'member' } }))
				.status
		).toBe(403)
		expect(
			(
				await t.call('POST', '/api/teams/acme/members', {
					key: outsider.key,
					body: { login: 'newbie', role: 'member' }
				})
			).status
		).toBe(404)
		const invited = await t.call('POST', '/api/teams/acme/members', {
			key: admin.key,
			body: { login: 'NEWBIE@example.test', role: 'member' }
		})
		expect(invited.status).toBe(201)
		expect(keys(invited.body)).toEqual([
			'createdAt',
			'expiresAt',
			'invitedBy',
			'role',
			'status',
			'teamName',
			'teamSlug',
			'userId',
			'username'
		])
		expect(invited.body).toEqual({
			teamSlug: 'acme',
			teamName: 'Acme',
			userId: newbie.id,
			username: 'newbie',
			role: 'member',
			invitedBy: admin.username,
			createdAt: '2026-11-22T10:00:00.000Z',
			expiresAt: '2026-11-29T10:00:00.000Z',
			status: 'invited'
		})
		expect(JSON.stringify(invited.body)).not.toContain(newbie.email)
		expect(
			(await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'other', role: 'admin' } }))
				.body.role
		).toBe('admin')
		expect(
			(await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'ghost', role: 'member' } }))
				.status
		).toBe(404)
		expect(
			(await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'newbie', role: 'member' } }))
				.status
		).toBe(409)
		expect(
			(
				await t.call('POST', '/api/teams/acme/members', {
					key: owner.key,
					body: { login: member.username, role: 'member' }
				})
			).status
		).toBe(409)
		expect(
			(await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'x', role: 'owner' } })).status
		).toBe(400)
	})

	test('change role: owner only; a team always keeps an owner', async () => {
		const { t, owner, admin, member, outsider } = await acme()
		const path = (user: TestUser) => `/api/teams/acme/members/${user.id}`
		expect((await t.call('PATCH', path(member), { key: admin.key, body: { role: 'admin' } })).status).toBe(403)
		expect((await t.call('PATCH', path(member), { key: outsider.key, body: { role: 'admin' } })).status).toBe(404)
		expect((await t.call('PATCH', path(owner), { key: owner.key, body: { role: 'admin' } })).status).toBe(409)
		const promoted = await t.call('PATCH', path(admin), { key: owner.key, body: { role: 'owner' } })
		expect(promoted).toMatchObject({ status: 200, body: { userId: admin.id, role: 'owner' } })
		expect((await t.call('PATCH', path(owner), { key: owner.key, body: { role: 'member' } })).body.role).toBe('member')
		// The former owner is now a member and cannot change roles any more.
		expect((await t.call('PATCH', path(admin), { key: owner.key, body: { role: 'member' } })).status).toBe(403)
		expect((await t.call('PATCH', path(admin), { key: admin.key, body: { role: 'member' } })).status).toBe(409)
		expect((await t.call('PATCH', path(outsider), { key: admin.key, body: { role: 'member' } })).status).toBe(404)
		expect((await t.call('PATCH', path(member), { key: admin.key, body: { role: 'boss' } })).status).toBe(400)
	})

	test('remove and leave: owner removes anyone, admin removes members, anyone leaves; the last owner cannot leave', async () => {
		const { t, owner, admin, member, freeMember, outsider } = await acme()
		const path = (user: TestUser) => `/api/teams/acme/members/${user.id}`
		expect((await t.call('DELETE', path(member), { key: freeMember.key })).status).toBe(403)
		expect((await t.call('DELETE', path(owner), { key: admin.key })).status).toBe(403)
		expect((await t.call('DELETE', path(member), { key: outsider.key })).status).toBe(404)
		expect((await t.call('DELETE', path(owner), { key: owner.key })).status).toBe(409)
		expect((await t.call('DELETE', path(member), { key: admin.key })).status).toBe(204)
		expect((await t.call('GET', '/api/teams/acme', { key: member.key })).status).toBe(404)
		expect((await t.call('DELETE', path(freeMember), { key: freeMember.key })).status).toBe(204)
		expect((await t.call('DELETE', path(admin), { key: owner.key })).status).toBe(204)
		expect((await t.call('DELETE', path(admin), { key: owner.key })).status).toBe(404)
		const members = (await t.call('GET', '/api/teams/acme', { key: owner.key })).body.members
		expect(members.map((m: { userId: string }) => m.userId)).toEqual([owner.id])
	})
})

describe('invitations (docs/api.md: nobody joins without saying yes)', () => {
	test('a pending invitee sees the invitation and nothing of the team until they accept', async () => {
		const { t, owner } = await acme()
		const pushed = await teamPush(t, owner, (await t.call('GET', '/api/teams/acme', { key: owner.key })).body.id)
		const newbie = await t.user('free', 'newbie')
		await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'newbie', role: 'admin' } })
		const teamId = pushed.body.id as string
		expect((await t.call('GET', '/api/teams', { key: newbie.key })).body).toEqual([])
		expect((await t.call('GET', '/api/teams/acme', { key: newbie.key })).status).toBe(404)
		expect((await t.call('GET', `/api/configs/${teamId}`, { key: newbie.key })).status).toBe(404)
		const mine = await t.call('GET', '/api/invitations', { key: newbie.key })
		expect(mine.body).toHaveLength(1)
		expect(mine.body[0]).toMatchObject({ teamSlug: 'acme', role: 'admin', invitedBy: 'owner', status: 'invited' })
		expect((await t.call('GET', '/api/invitations', { key: owner.key })).body).toEqual([])

		const joined = await t.call('POST', '/api/invitations/acme/accept', { key: newbie.key })
		expect(joined.status).toBe(200)
		expect(keys(joined.body)).toEqual(['email', 'id', 'joinedAt', 'role', 'userId', 'username'])
		expect(joined.body).toMatchObject({ userId: newbie.id, role: 'admin' })
		expect((await t.call('GET', '/api/teams', { key: newbie.key })).body[0]).toMatchObject({
			slug: 'acme',
			role: 'admin'
		})
		expect((await t.call('GET', `/api/configs/${teamId}`, { key: newbie.key })).status).toBe(200)
		expect((await t.call('GET', '/api/invitations', { key: newbie.key })).body).toEqual([])
		expect((await t.call('POST', '/api/invitations/acme/accept', { key: newbie.key })).status).toBe(404)
	})

	test('decline removes it; an invitation expires after 7 days; none to accept is 404', async () => {
		const { t, owner } = await acme()
		const a = await t.user('free', 'a')
		const b = await t.user('free', 'b')
		await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'a' } })
		await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'b' } })
		expect((await t.call('DELETE', '/api/invitations/acme', { key: a.key })).status).toBe(204)
		expect((await t.call('DELETE', '/api/invitations/acme', { key: a.key })).status).toBe(404)
		expect((await t.call('POST', '/api/invitations/acme/accept', { key: a.key })).status).toBe(404)
		expect(
			(await t.call('GET', '/api/teams/acme', { key: owner.key })).body.invitations.map(
				(i: { username: string }) => i.username
			)
		).toEqual(['b'])
		t.clock.advance(7 * DAY + 1)
		expect((await t.call('GET', '/api/invitations', { key: b.key })).body).toEqual([])
		expect((await t.call('POST', '/api/invitations/acme/accept', { key: b.key })).status).toBe(404)
		// An expired invitation can be sent again.
		expect((await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'b' } })).status).toBe(201)
		expect((await t.call('POST', '/api/invitations/nowhere/accept', { key: b.key })).status).toBe(404)
	})

	test('owners and admins see pending invitations in the team; members do not', async () => {
		const { t, owner, admin, member } = await acme()
		await t.user('free', 'newbie')
		await t.call('POST', '/api/teams/acme/members', { key: admin.key, body: { login: 'newbie' } })
		for (const who of [owner, admin]) {
			const team = (await t.call('GET', '/api/teams/acme', { key: who.key })).body
			expect(team.invitations).toHaveLength(1)
			expect(team.invitations[0]).toMatchObject({
				username: 'newbie',
				role: 'member',
				invitedBy: 'admin',
				status: 'invited'
			})
			expect(team.members.map((m: { username: string }) => m.username)).not.toContain('newbie')
		}
		expect((await t.call('GET', '/api/teams/acme', { key: member.key })).body.invitations).toBeUndefined()
	})

	test('the member endpoints act on invitations: the owner changes their role; cancelling follows the removal rules', async () => {
		const { t, owner, admin, member } = await acme()
		const a = await t.user('free', 'a')
		const b = await t.user('free', 'b')
		await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'a', role: 'member' } })
		await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'b', role: 'admin' } })
		expect(
			(await t.call('PATCH', `/api/teams/acme/members/${a.id}`, { key: admin.key, body: { role: 'admin' } })).status
		).toBe(403)
		const changed = await t.call('PATCH', `/api/teams/acme/members/${a.id}`, {
			key: owner.key,
			body: { role: 'admin' }
		})
		expect(changed).toMatchObject({ status: 200, body: { userId: a.id, role: 'admin', status: 'invited' } })
		expect(
			(await t.call('PATCH', `/api/teams/acme/members/${a.id}`, { key: owner.key, body: { role: 'owner' } })).status
		).toBe(400)
		expect(
			(await t.call('PATCH', `/api/teams/acme/members/${a.id}`, { key: owner.key, body: { role: 'member' } })).body.role
		).toBe('member')
		// An admin cancels a member's invitation, not an admin's; a member cancels none.
		expect((await t.call('DELETE', `/api/teams/acme/members/${a.id}`, { key: member.key })).status).toBe(403)
		expect((await t.call('DELETE', `/api/teams/acme/members/${b.id}`, { key: admin.key })).status).toBe(403)
		expect((await t.call('DELETE', `/api/teams/acme/members/${a.id}`, { key: admin.key })).status).toBe(204)
		expect((await t.call('DELETE', `/api/teams/acme/members/${b.id}`, { key: owner.key })).status).toBe(204)
		expect((await t.call('DELETE', `/api/teams/acme/members/${b.id}`, { key: owner.key })).status).toBe(404)
		expect((await t.call('GET', '/api/invitations', { key: a.key })).body).toEqual([])
		expect((await t.call('POST', '/api/invitations/acme/accept', { key: b.key })).status).toBe(404)
	})

	test('an invitation to a team deleted meanwhile cannot be accepted', async () => {
		const { t, owner } = await acme()
		const a = await t.user('free', 'a')
		await t.call('POST', '/api/teams/acme/members', { key: owner.key, body: { login: 'a' } })
		await t.call('DELETE', '/api/teams/acme', { key: owner.key })
		expect((await t.call('GET', '/api/invitations', { key: a.key })).body).toEqual([])
		expect((await t.call('POST', '/api/invitations/acme/accept', { key: a.key })).status).toBe(404)
	})

	test('a slug given up by a rename stays reserved for 30 days: 409 for anyone else, the team may take it back', async () => {
		const { t, owner } = await acme()
		const stranger = await t.user('team', 'stranger')
		expect((await t.call('PATCH', '/api/teams/acme', { key: owner.key, body: { slug: 'acme-corp' } })).status).toBe(200)
		expect((await t.call('POST', '/api/teams', { key: stranger.key, body: { name: 'Acme' } })).status).toBe(409)
		await t.call('POST', '/api/teams', { key: stranger.key, body: { name: 'Mine' } })
		expect((await t.call('PATCH', '/api/teams/mine', { key: stranger.key, body: { slug: 'acme' } })).status).toBe(409)
		t.clock.advance(29 * DAY)
		expect((await t.call('POST', '/api/teams', { key: stranger.key, body: { name: 'Acme' } })).status).toBe(409)
		// The team itself can go back to its old slug; the one it leaves is then reserved in turn.
		expect((await t.call('PATCH', '/api/teams/acme-corp', { key: owner.key, body: { slug: 'acme' } })).body.slug).toBe(
			'acme'
		)
		expect((await t.call('POST', '/api/teams', { key: stranger.key, body: { name: 'Acme Corp' } })).status).toBe(409)
		t.clock.advance(30 * DAY + 1)
		expect((await t.call('POST', '/api/teams', { key: stranger.key, body: { name: 'Acme Corp' } })).status).toBe(201)
	})

	test('memberships made before invitations existed stay as they are (the migration adds, never removes)', async () => {
		const dir = tempDir('migrate-members')
		const file = join(dir, 'cfgsync.db')
		const old = new Database(file)
		old.run('PRAGMA foreign_keys = ON')
		applyMigrations(old, migrations.slice(0, 1))
		old.run("INSERT INTO users VALUES ('u1','a@x.test','a@x.test','a','a',NULL,'team','2026-01-01T00:00:00.000Z')")
		old.run("INSERT INTO teams VALUES ('t1','Old','old','2026-01-01T00:00:00.000Z',NULL)")
		old.run("INSERT INTO team_members VALUES ('m1','t1','u1','owner','2026-01-01T00:00:00.000Z')")
		old.close()
		// SQLite only: a database made by the first release, before invitations, exists only on SQLite.
		const store = openSqliteStore(file)
		expect(await store.teams.members('t1')).toMatchObject([{ userId: 'u1', role: 'owner' }])
		store.close()
	})
})

describe('team configs: the team column of docs/api.md', () => {
	type Who = 'owner' | 'admin' | 'member' | 'freeMember' | 'outsider'
	const everyone: Who[] = ['owner', 'admin', 'member', 'freeMember', 'outsider']

	// Expected status per caller for each action on a config of team acme.
	const matrix: { action: string; expect: Record<Who, number> }[] = [
		{ action: 'list', expect: { owner: 200, admin: 200, member: 200, freeMember: 200, outsider: 404 } },
		{ action: 'latest', expect: { owner: 200, admin: 200, member: 200, freeMember: 200, outsider: 404 } },
		{ action: 'get', expect: { owner: 200, admin: 200, member: 200, freeMember: 200, outsider: 404 } },
		{ action: 'push', expect: { owner: 200, admin: 200, member: 403, freeMember: 403, outsider: 404 } },
		{ action: 'delete', expect: { owner: 204, admin: 204, member: 403, freeMember: 403, outsider: 404 } },
		{ action: 'versions', expect: { owner: 200, admin: 200, member: 200, freeMember: 403, outsider: 404 } },
		{ action: 'version', expect: { owner: 200, admin: 200, member: 200, freeMember: 403, outsider: 404 } },
		{ action: 'rollback', expect: { owner: 200, admin: 200, member: 403, freeMember: 403, outsider: 404 } }
	]

	for (const row of matrix) {
		test(`${row.action}: ${everyone.map((who) => `${who} ${row.expect[who]}`).join(', ')}`, async () => {
			const setup = await acme()
			const { t, team, owner } = setup
			for (const who of everyone) {
				const caller = setup[who]
				// A fresh config per caller, so a delete by one does not hide the next caller's answer.
				const name = `c-${who}`
				const created = await teamPush(t, owner, team.id, { name })
				await teamPush(t, owner, team.id, { name })
				const id = created.body.id as string
				const versionId = (await t.call('GET', `/api/configs/${id}/versions`, { key: owner.key })).body[1].id as string
				const request: Record<string, () => ReturnType<TestApp['call']>> = {
					list: () => t.call('GET', `/api/configs?teamId=${team.id}`, { key: caller.key }),
					latest: () =>
						t.call('GET', `/api/configs/latest?name=${name}&tool=cursor&teamId=${team.id}`, { key: caller.key }),
					get: () => t.call('GET', `/api/configs/${id}`, { key: caller.key }),
					push: () => teamPush(t, caller, team.id, { name }),
					delete: () => t.call('DELETE', `/api/configs/${id}`, { key: caller.key }),
					versions: () => t.call('GET', `/api/configs/${id}/versions`, { key: caller.key }),
					version: () => t.call('GET', `/api/configs/${id}/versions/${versionId}`, { key: caller.key }),
					rollback: () => t.call('POST', `/api/configs/${id}/rollback`, { key: caller.key, body: { versionId } })
				}
				const res = await (request[row.action] as () => ReturnType<TestApp['call']>)()
				expect({ who, status: res.status }).toEqual({ who, status: row.expect[who] })
				if (res.status === 403)
					expect(res.body.code).toBe(
						who === 'freeMember' && ['versions', 'version', 'rollback'].includes(row.action)
							? 'plan_required'
							: 'forbidden'
					)
			}
		})
	}

	test('a team push creates a team config: not among personal configs, userId is the pusher, teamId set', async () => {
		const { t, team, admin } = await acme()
		const created = await teamPush(t, admin, team.id, { name: 'team-only' })
		expect(created.status).toBe(201)
		expect((await t.call('GET', '/api/configs', { key: admin.key })).body).toEqual([])
		const full = await t.call('GET', `/api/configs/${created.body.id}`, { key: admin.key })
		expect(full.body).toMatchObject({ userId: admin.id, teamId: team.id })
		// A personal config of the same name and tool is a different config.
		const personal = await t.call('POST', '/api/configs', {
			key: admin.key,
			body: { name: 'team-only', tool: 'cursor', data: {} }
		})
		expect(personal.status).toBe(201)
		expect(personal.body.id).not.toBe(created.body.id)
	})

	test('teamId must be a UUID (400); an unknown team is 404', async () => {
		const { t, owner } = await acme()
		expect((await t.call('GET', '/api/configs?teamId=acme', { key: owner.key })).status).toBe(400)
		expect((await t.call('GET', '/api/configs/latest?name=a&tool=cursor&teamId=nope', { key: owner.key })).status).toBe(
			400
		)
		expect((await teamPush(t, owner, 'not-a-uuid')).status).toBe(400)
		expect((await teamPush(t, owner, '01890000-0000-7000-8000-000000000000')).status).toBe(404)
	})
})

describe('soft delete and purge (docs/api.md)', () => {
	test('a deleted team vanishes at once with its configs; its slug stays taken until purged', async () => {
		const { t, team, owner, member } = await acme()
		const config = (await teamPush(t, owner, team.id, { name: 'kept' })).body.id
		expect((await t.call('DELETE', '/api/teams/acme', { key: owner.key })).status).toBe(204)
		expect((await t.call('GET', '/api/teams', { key: member.key })).body).toEqual([])
		expect((await t.call('GET', '/api/teams/acme', { key: owner.key })).status).toBe(404)
		expect((await t.call('GET', `/api/configs/${config}`, { key: owner.key })).status).toBe(404)
		expect((await t.call('GET', `/api/configs?teamId=${team.id}`, { key: owner.key })).status).toBe(404)
		expect(
			(await t.call('GET', `/api/configs/latest?name=kept&tool=cursor&teamId=${team.id}`, { key: owner.key })).status
		).toBe(404)
		expect((await teamPush(t, owner, team.id)).status).toBe(404)
		expect((await t.call('DELETE', '/api/teams/acme', { key: owner.key })).status).toBe(404)
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'ACME' } })).status).toBe(409)
	})

	test('the purge removes a team 30 days after deletion with memberships, configs and versions; not before', async () => {
		const { t, team, owner } = await acme()
		const config = (await teamPush(t, owner, team.id, { name: 'doomed' })).body.id
		await teamPush(t, owner, team.id, { name: 'doomed' })
		const deletedAt = t.clock.now()
		await t.call('DELETE', '/api/teams/acme', { key: owner.key })
		const purge = () => purgeDeletedTeams({ store: t.store, clock: t.clock, logger: silentLogger })

		t.clock.set(deletedAt + 29 * DAY)
		expect(await purge()).toBe(0)
		expect(await t.store.configs.findMetaById(config)).toBeDefined()
		expect(await t.store.teams.members(team.id)).toHaveLength(4)

		t.clock.set(deletedAt + 30 * DAY + 1)
		expect(await purge()).toBe(1)
		expect(await t.store.configs.findMetaById(config)).toBeUndefined()
		expect(await t.store.configs.listVersions(config)).toEqual([])
		expect(await t.store.teams.members(team.id)).toEqual([])
		expect(await purge()).toBe(0)
		// The slug is free again.
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })).status).toBe(201)
	})

	test('a large team is purged in short steps: none removes more than the batch, the last only the team; requests are answered meanwhile (docs/performance.md#purge)', async () => {
		const { t, team, owner, member } = await acme()
		const w = await purgeWatch(t, team.id, owner)
		let purgeDone = false
		const purge = purgeDeletedTeams({ store: t.store, clock: t.clock, logger: silentLogger, batch: 4 }).then(
			(count) => {
				purgeDone = true
				return count
			}
		)
		const answered: boolean[] = []
		for (let i = 0; i < 2; i++) {
			expect((await t.call('GET', '/api/me', { key: member.key })).status).toBe(200)
			answered.push(!purgeDone)
		}
		expect(await purge).toBe(1)
		expect(answered).toEqual([true, true])
		// "big" with 9 versions and 6 configs of one version: 22 rows, at most 4 a step.
		const steps = w.removed.filter((step) => step.call === 'purgeStep')
		expect(steps.length).toBeGreaterThanOrEqual(6)
		expect(steps.map((step) => step.rows).filter((rows) => rows > 4)).toEqual([])
		expect(steps.reduce((sum, step) => sum + step.rows, 0)).toBe(22)
		// The team's own row goes last, with no config or version left to cascade.
		expect(w.removed.at(-1)).toEqual({ call: 'purge', rows: 0 })
		expect(await w.remaining()).toBe(0)
		expect(await t.store.teams.members(team.id)).toEqual([])
	})

	test('a purge that stops midway leaves every remaining config whole, and the next run finishes it', async () => {
		const { t, team, owner } = await acme()
		const w = await purgeWatch(t, team.id, owner)
		const purgeStep = t.store.teams.purgeStep
		let calls = 0
		t.store.teams.purgeStep = async (teamId, limit) => {
			if (++calls === 3) throw new Error('the process died')
			return purgeStep(teamId, limit)
		}
		const purge = () => purgeDeletedTeams({ store: t.store, clock: t.clock, logger: silentLogger, batch: 4 })
		await expect(purge()).rejects.toThrow('the process died')
		const left = await w.remaining()
		expect(left).toBeGreaterThan(0)
		expect(left).toBeLessThan(22)
		expect((await t.call('GET', '/api/teams/acme', { key: owner.key })).status).toBe(404)
		for (const id of w.configIds) {
			const meta = await t.store.configs.findMetaById(id)
			if (!meta) continue
			// Whatever is left of a config keeps its current version.
			const versions = await t.store.configs.listVersions(id, { limit: 1000 })
			expect(versions.map((version) => version.version)).toContain(meta.version)
		}
		expect(await purge()).toBe(1)
		expect(await w.remaining()).toBe(0)
		expect(await t.store.teams.members(team.id)).toEqual([])
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })).status).toBe(201)
	})

	test('a team deleted 29 days ago stays and one deleted 31 days ago goes', async () => {
		const t = testApp()
		const owner = await t.user('team')
		const start = t.clock.now()
		for (const name of ['Old', 'Recent']) await t.call('POST', '/api/teams', { key: owner.key, body: { name } })
		await t.call('DELETE', '/api/teams/old', { key: owner.key })
		t.clock.set(start + 2 * DAY)
		await t.call('DELETE', '/api/teams/recent', { key: owner.key })
		t.clock.set(start + 31 * DAY)
		expect(await purgeDeletedTeams({ store: t.store, clock: t.clock, logger: silentLogger })).toBe(1)
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Old' } })).status).toBe(201)
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Recent' } })).status).toBe(409)
	})
})

test('the scheduled housekeeping also drops failed logins older than the 15-minute window', async () => {
	const file = join(tempDir('housekeeping'), 'h.db')
	// SQLite only: it counts the rows in the file itself.
	const t = testApp({ store: openSqliteStore(file) })
	const count = () => {
		const db = new Database(file, { readonly: true })
		const n = (db.query('SELECT count(*) AS n FROM login_failures').get() as { n: number }).n
		db.close()
		return n
	}
	for (let i = 0; i < 3; i++)
		await t.call('POST', '/api/auth/login', { body: { login: 'ghost', password: 'wrong-password', device: 'x' } })
	t.clock.advance(16 * 60 * 1000)
	await t.call('POST', '/api/auth/login', { body: { login: 'ghost', password: 'wrong-password', device: 'x' } })
	expect(count()).toBe(4)
	await housekeeping({ store: t.store, clock: t.clock, logger: silentLogger })
	expect(count()).toBe(1)
	t.store.close()
})

describe('removing users who are in teams (docs/operations.md)', () => {
	test('refused while the user is the last owner of a team with other members, naming the team', async () => {
		const { t, owner } = await acme()
		const users = createUsersService({ store: t.store, clock: systemClock, passwords: fastPasswords })
		await expect(users.remove(owner.username)).rejects.toThrow('Acme (acme)')
		expect(await t.store.users.findById(owner.id)).toBeDefined()
	})

	test('otherwise their memberships go, and team configs they pushed stay with the team', async () => {
		const { t, team, owner, admin } = await acme()
		const config = (await teamPush(t, admin, team.id, { name: 'by-admin' })).body.id
		const users = createUsersService({ store: t.store, clock: systemClock, passwords: fastPasswords })
		await users.remove(admin.username)
		const members = (await t.call('GET', '/api/teams/acme', { key: owner.key })).body.members
		expect(members.map((m: { username: string }) => m.username)).not.toContain('admin')
		const kept = await t.call('GET', `/api/configs/${config}`, { key: owner.key })
		expect(kept).toMatchObject({ status: 200, body: { teamId: team.id, userId: owner.id } })
	})

	test('a team whose only member is removed goes with them', async () => {
		const t = testApp()
		const solo = await t.user('team', 'solo')
		const team = (await t.call('POST', '/api/teams', { key: solo.key, body: { name: 'Solo' } })).body
		const config = (await teamPush(t, solo, team.id, { name: 'x' })).body.id
		await createUsersService({ store: t.store, clock: systemClock, passwords: fastPasswords }).remove('solo')
		expect(await t.store.configs.findMetaById(config)).toBeUndefined()
		const other = await t.user('team')
		expect((await t.call('POST', '/api/teams', { key: other.key, body: { name: 'Solo' } })).status).toBe(201)
	})
})

describe("a team's members in pages (docs/api.md, Pages)", () => {
	test('GET /api/teams/:slug carries the first 100; GET …/members pages through all of them with Link', async () => {
		const { t, owner, member, outsider, team } = await acme()
		for (let i = 0; i < 98; i++) await t.join(owner, team.slug, await t.user('pro', `m${String(i).padStart(3, '0')}`))
		// 102 members: the owner, an admin, a member, a free member and 98 more.
		const detail = await t.call('GET', `/api/teams/${team.slug}`, { key: member.key })
		expect(detail.body.members).toHaveLength(100)
		const seen: string[] = []
		let path: string | undefined = `/api/teams/${team.slug}/members?limit=40`
		let pages = 0
		while (path) {
			const page = await t.call('GET', path, { key: member.key })
			expect(page.status).toBe(200)
			seen.push(...page.body.map((m: { username: string }) => m.username))
			pages++
			path = /^<([^>]+)>; rel="next"$/.exec(page.headers.get('link') ?? '')?.[1]
		}
		expect(pages).toBe(3)
		expect(seen).toHaveLength(102)
		expect(new Set(seen).size).toBe(102)
		expect(seen.slice(0, 100)).toEqual(detail.body.members.map((m: { username: string }) => m.username))
		const all = await t.call('GET', `/api/teams/${team.slug}/members`, { key: member.key })
		expect(all.body).toHaveLength(100)
		expect(all.headers.get('link')).toMatch(/^<\/api\/teams\/acme\/members\?limit=100&after=[^>]+>; rel="next"$/)
		expect((await t.call('GET', `/api/teams/${team.slug}/members`, { key: outsider.key })).status).toBe(404)
		for (const bad of ['limit=0', 'limit=1001', 'after=nope'])
			expect((await t.call('GET', `/api/teams/${team.slug}/members?${bad}`, { key: member.key })).status).toBe(400)
	})
})
