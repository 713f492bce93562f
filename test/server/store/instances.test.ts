import { describe, expect, test } from 'bun:test'
import { newId } from '../../../src/server/lib/ids'
import type { Store } from '../../../src/server/store/types'
import { sharedTestDatabase, TEST_ENGINE } from '../../support/engine'

/**
 * docs/postgresql.md: several instances on one database behave as one server. Each
 * store here is another instance's connection to the same database (a SQLite
 * file, or a PostgreSQL database: test/support/engine.ts), and the rules SQLite gets
 * from its single writer must hold when they race.
 */
const at = () => new Date().toISOString()
const seal = () => new Uint8Array([0, 1, 2, 255])

async function instances(count: number): Promise<Store[]> {
	const shared = await sharedTestDatabase()
	const stores: Store[] = []
	for (let i = 0; i < count; i++) stores.push(await shared.open())
	return stores
}

async function user(store: Store, name: string, plan: 'pro' | 'team' = 'team') {
	const id = newId()
	expect(
		await store.users.create({
			id,
			email: `${name}@example.test`,
			username: name,
			passwordHash: null,
			plan,
			isAdmin: false,
			createdAt: at()
		})
	).toBe(true)
	return id
}

describe(`several instances on one ${TEST_ENGINE} database`, () => {
	test('concurrent first pushes of one (owner, name, tool) through three instances make one config with contiguous versions', async () => {
		const stores = await instances(3)
		const userId = await user(stores[0]!, 'racer')
		const results = await Promise.all(
			Array.from({ length: 12 }, (_, i) =>
				stores[i % 3]!.configs.push({
					owner: { userId, teamId: null },
					name: 'shared',
					tool: 'cursor',
					hash: `hash-${i}`,
					seal,
					newConfigId: newId(),
					newVersionId: newId(),
					at: at()
				})
			)
		)
		const ids = new Set(results.map((result) => ('config' in result ? result.config.id : undefined)))
		expect(ids.size).toBe(1)
		expect(results.filter((result) => result.kind === 'created')).toHaveLength(1)
		const configId = [...ids][0] as string
		const versions = await stores[1]!.configs.listVersions(configId)
		expect(versions.map((v) => v.version)).toEqual(Array.from({ length: 12 }, (_, i) => 12 - i))
		expect((await stores[2]!.configs.findMetaById(configId))?.version).toBe(12)
		// The sealed bytes come back exactly (bytea on PostgreSQL, blob on SQLite), zero bytes and all.
		expect(Array.from((await stores[2]!.configs.findById(configId))!.sealed)).toEqual([0, 1, 2, 255])
	})

	test('login failures are counted across instances: a burst at the limit lets exactly the limit through', async () => {
		const stores = await instances(3)
		const now = Date.now()
		const limits = { perLoginAddress: 5, perAddress: 30, perLogin: 100 }
		const results = await Promise.all(
			Array.from({ length: 15 }, (_, i) =>
				stores[i % 3]!.loginFailures.reserve({
					loginKey: 'victim',
					address: '192.0.2.1',
					at: now + i,
					since: now - 60_000,
					limits
				})
			)
		)
		expect(results.filter((result) => result.ok)).toHaveLength(5)
	})

	test('two owners demoting each other at once through two instances: the team keeps an owner', async () => {
		const stores = await instances(2)
		const [a, b] = [await user(stores[0]!, 'owner-a'), await user(stores[0]!, 'owner-b')]
		const teamId = newId()
		expect(
			await stores[0]!.teams.create(
				{ id: teamId, name: 'Crew', slug: 'crew', createdAt: at(), deletedAt: null },
				{ membershipId: newId(), userId: a, joinedAt: at() },
				at()
			)
		).toBe(true)
		expect(
			await stores[0]!.teams.invite(
				{
					id: newId(),
					teamId,
					userId: b,
					role: 'admin',
					invitedBy: a,
					createdAt: at(),
					expiresAt: new Date(Date.now() + 86_400_000).toISOString()
				},
				at()
			)
		).toMatchObject({ userId: b })
		expect(await stores[1]!.teams.acceptInvitation('crew', b, at(), { id: newId(), joinedAt: at() })).toMatchObject({
			role: 'admin'
		})
		expect(await stores[1]!.teams.setRole(teamId, b, 'owner')).toMatchObject({ role: 'owner' })
		for (let round = 0; round < 5; round++) {
			const results = await Promise.all([
				stores[0]!.teams.setRole(teamId, a, 'member'),
				stores[1]!.teams.setRole(teamId, b, 'member')
			])
			expect(results.filter((result) => result === 'last_owner')).toHaveLength(1)
			const owners = (await stores[0]!.teams.members(teamId)).filter((member) => member.role === 'owner')
			expect(owners).toHaveLength(1)
			await stores[0]!.teams.setRole(teamId, owners[0]!.userId === a ? b : a, 'owner')
		}
	})

	test('one device logging in through two instances at once keeps exactly one key', async () => {
		const stores = await instances(2)
		const userId = await user(stores[0]!, 'twin')
		await Promise.all(
			Array.from({ length: 6 }, (_, i) =>
				stores[i % 2]!.keys.issue({
					id: newId(),
					userId,
					device: 'laptop',
					keyHash: `hash-${i}-${newId()}`,
					createdAt: at(),
					lastUsedAt: null
				})
			)
		)
		expect(await stores[1]!.keys.listForUser(userId)).toHaveLength(1)
	})

	test('a key revoked through one instance is unknown to the others at once', async () => {
		const stores = await instances(2)
		const userId = await user(stores[0]!, 'revoker')
		const keyId = newId()
		await stores[0]!.keys.issue({
			id: keyId,
			userId,
			device: 'phone',
			keyHash: 'revoked-hash',
			createdAt: at(),
			lastUsedAt: null
		})
		expect(await stores[1]!.keys.findCaller('revoked-hash')).toMatchObject({ userId })
		expect(await stores[0]!.keys.revoke(userId, keyId)).toBe(true)
		expect(await stores[1]!.keys.findCaller('revoked-hash')).toBeUndefined()
	})

	test('a job slot is claimed by exactly one instance, and the next slot again by one', async () => {
		const stores = await instances(3)
		// Slots are epoch milliseconds: beyond 32 bits, as every real one is.
		const slot = Date.now()
		const first = await Promise.all(stores.map((store) => store.jobs.claim('purge', slot)))
		expect(first.filter(Boolean)).toHaveLength(1)
		expect(await Promise.all(stores.map((store) => store.jobs.claim('purge', slot)))).toEqual([false, false, false])
		const next = await Promise.all(stores.map((store) => store.jobs.claim('purge', slot + 3_600_000)))
		expect(next.filter(Boolean)).toHaveLength(1)
	})

	test('a slug taken through one instance while another creates it at once: one team', async () => {
		const stores = await instances(2)
		const [a, b] = [await user(stores[0]!, 'slug-a'), await user(stores[1]!, 'slug-b')]
		const results = await Promise.all(
			[a, b].map((userId, i) =>
				stores[i]!.teams.create(
					{ id: newId(), name: 'Same', slug: 'same', createdAt: at(), deletedAt: null },
					{ membershipId: newId(), userId, joinedAt: at() },
					at()
				)
			)
		)
		expect(results.filter(Boolean)).toHaveLength(1)
	})
})
