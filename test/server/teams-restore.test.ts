// Deleted teams can be restored by their owners until the purge (docs/api.md, docs/web.md); both engines.
import { describe, expect, test } from 'bun:test'
import { purgeDeletedTeams } from '../../src/server/jobs/purge'
import { silentLogger } from '../../src/server/lib/log'
import { testApp, type TestApp, type TestUser } from '../support/helpers'
import { readFrames } from '../support/sse'

const DAY = 24 * 60 * 60 * 1000

/** An open GET /api/events, read frame by frame. */
async function openStream(t: TestApp, user: TestUser) {
	const response = await t.app.handle(
		new Request('http://localhost/api/events', { headers: { authorization: `Bearer ${user.key}` } })
	)
	expect(response.status).toBe(200)
	return readFrames(response)
}

/** "Acme" with an owner, an admin and a member, a team config at version 2, then deleted by its owner. */
async function deletedAcme() {
	const t = testApp()
	const owner = await t.user('team', 'owner')
	const admin = await t.user('team', 'admin')
	const member = await t.user('pro', 'member')
	const outsider = await t.user('team', 'outsider')
	const team = (await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })).body as {
		id: string
		slug: string
	}
	await t.join(owner, 'acme', admin, 'admin')
	await t.join(owner, 'acme', member)
	const push = (v: number) =>
		t.call('POST', '/api/configs', {
			key: owner.key,
			body: { teamId: team.id, name: 'shared', tool: 'cursor', data: { v } }
		})
	const config = (await push(1)).body.id as string
	await push(2)
	const before = {
		team: (await t.call('GET', '/api/teams/acme', { key: owner.key })).body,
		config: (await t.call('GET', `/api/configs/${config}`, { key: member.key })).body
	}
	const deletedAt = t.clock.now()
	expect((await t.call('DELETE', '/api/teams/acme', { key: owner.key })).status).toBe(204)
	return { t, owner, admin, member, outsider, team, config, before, deletedAt }
}

describe('restoring a deleted team (POST /api/teams/:slug/restore)', () => {
	test('the owner brings it back with its members and configs as they were, and it is audited', async () => {
		const { t, owner, member, config, before } = await deletedAcme()
		expect((await t.call('GET', '/api/teams/acme', { key: owner.key })).status).toBe(404)
		t.clock.advance(3 * DAY)
		const restored = await t.call('POST', '/api/teams/acme/restore', { key: owner.key })
		expect(restored).toMatchObject({ status: 200, body: { name: 'Acme', slug: 'acme' } })
		expect((await t.call('GET', '/api/teams/acme', { key: owner.key })).body).toEqual(before.team)
		expect((await t.call('GET', `/api/configs/${config}`, { key: member.key })).body).toEqual(before.config)
		const listed = (await t.call('GET', '/api/teams', { key: member.key })).body as { slug: string }[]
		expect(listed.map((team) => team.slug)).toEqual(['acme'])
		const events = (await t.call('GET', '/api/audit?type=team.restored', { key: owner.key })).body as {
			type: string
			target: { name: string }
		}[]
		expect(events).toHaveLength(1)
		expect(events[0]).toMatchObject({ type: 'team.restored', target: { name: 'acme' } })
		// Restored once: a second restore finds no deleted team.
		expect((await t.call('POST', '/api/teams/acme/restore', { key: owner.key })).status).toBe(404)
	})

	test('owners only: its admins, members and anyone else get 404, and it stays deleted', async () => {
		const { t, owner, admin, member, outsider } = await deletedAcme()
		for (const who of [admin, member, outsider]) {
			const refused = await t.call('POST', '/api/teams/acme/restore', { key: who.key })
			expect({ who: who.username, status: refused.status, code: refused.body.code }).toEqual({
				who: who.username,
				status: 404,
				code: 'not_found'
			})
		}
		expect((await t.call('GET', '/api/teams/acme', { key: owner.key })).status).toBe(404)
		expect((await t.call('POST', '/api/teams/nothing-here/restore', { key: owner.key })).status).toBe(404)
	})

	test('a live team has nothing to restore (404)', async () => {
		const t = testApp()
		const owner = await t.user('team')
		await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Live' } })
		expect((await t.call('POST', '/api/teams/live/restore', { key: owner.key })).status).toBe(404)
	})

	test('until the purge only: 30 days after the deletion it can no longer be restored, purged or not', async () => {
		const { t, owner, deletedAt } = await deletedAcme()
		t.clock.set(deletedAt + 30 * DAY + 1000)
		expect((await t.call('POST', '/api/teams/acme/restore', { key: owner.key })).status).toBe(404)
		expect(await purgeDeletedTeams({ store: t.store, clock: t.clock, logger: silentLogger })).toBe(1)
		expect((await t.call('POST', '/api/teams/acme/restore', { key: owner.key })).status).toBe(404)
		expect((await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })).status).toBe(201)
	})

	test('re-creating its name says why the slug is taken, to its own members only', async () => {
		const { t, owner, admin, outsider, deletedAt } = await deletedAcme()
		const purgeDay = new Date(deletedAt + 30 * DAY).toISOString().slice(0, 10)
		const byOwner = await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })
		expect(byOwner).toMatchObject({ status: 409, body: { code: 'conflict' } })
		expect(byOwner.body.error).toContain('held by your deleted team Acme')
		expect(byOwner.body.error).toContain(purgeDay)
		expect(byOwner.body.error).toContain('you can restore it')
		const byAdmin = await t.call('POST', '/api/teams', { key: admin.key, body: { name: 'Other', slug: 'acme' } })
		expect(byAdmin.status).toBe(409)
		expect(byAdmin.body.error).toContain('its owners can restore it')
		expect(byAdmin.body.error).toContain('choose another slug')
		// Someone who was never in it learns only that the slug is taken, as for any team they are not in.
		const byOutsider = await t.call('POST', '/api/teams', { key: outsider.key, body: { name: 'Acme' } })
		expect(byOutsider.status).toBe(409)
		expect(byOutsider.body.error).toBe('The slug "acme" is already taken; choose another name.')
	})

	test("its members' event streams hear it as a membership again (removed: false); others hear nothing", async () => {
		const t = testApp({ events: { pollMs: 50, keepAliveMs: 100 } })
		const owner = await t.user('team', 'owner')
		const member = await t.user('pro', 'member')
		const outsider = await t.user('pro', 'outsider')
		await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })
		await t.join(owner, 'acme', member)
		expect((await t.call('DELETE', '/api/teams/acme', { key: owner.key })).status).toBe(204)
		const [members, outsiders] = [await openStream(t, member), await openStream(t, outsider)]
		expect((await t.call('POST', '/api/teams/acme/restore', { key: owner.key })).status).toBe(200)
		expect((await members.take(1)).map((frame) => [frame.event, frame.data])).toEqual([
			['membership', { teamSlug: 'acme', removed: false }]
		])
		expect(await outsiders.collect()).toEqual([])
		for (const stream of [members, outsiders]) await stream.cancel()
	})
})
