import { describe, expect, test } from 'bun:test'
import { newId } from '../../../src/server/lib/ids'
import type { Store } from '../../../src/server/store/types'
import { sharedTestDatabase, TEST_ENGINE } from '../../support/engine'

/**
 * The key lookup every request makes (`keys.findCaller`) answers from memory on SQLite while
 * nothing was committed since (docs/performance.md). Whatever changes a key or its user, through
 * this connection or another process's, is seen by the very next lookup: a revoked key fails at once.
 */
const at = () => new Date().toISOString()

async function withKey(store: Store, name: string) {
	const userId = newId()
	await store.users.create({
		id: userId,
		email: `${name}@example.test`,
		username: name,
		passwordHash: null,
		plan: 'pro',
		isAdmin: false,
		createdAt: at()
	})
	const key = { id: newId(), userId, device: 'laptop', createdAt: at(), lastUsedAt: null, keyHash: `hash-${newId()}` }
	await store.keys.issue(key)
	return { userId, key }
}

describe(`the caller lookup on ${TEST_ENGINE}`, () => {
	test('a key revoked through another connection fails the next lookup', async () => {
		const shared = await sharedTestDatabase()
		const [here, elsewhere] = [await shared.open(), await shared.open()]
		const { userId, key } = await withKey(here, 'ada')
		for (let i = 0; i < 3; i++) expect((await here.keys.findCaller(key.keyHash))?.userId).toBe(userId)
		expect(await elsewhere.keys.revoke(userId, key.id)).toBe(true)
		expect(await here.keys.findCaller(key.keyHash)).toBeUndefined()
	})

	test('a key revoked through the same connection fails the next lookup', async () => {
		const shared = await sharedTestDatabase()
		const store = await shared.open()
		const { key } = await withKey(store, 'bea')
		for (let i = 0; i < 3; i++) expect(await store.keys.findCaller(key.keyHash)).toBeDefined()
		await store.keys.revokeByHash(key.keyHash)
		expect(await store.keys.findCaller(key.keyHash)).toBeUndefined()
	})

	test('a user removed elsewhere takes their keys with them; a new key is found at once', async () => {
		const shared = await sharedTestDatabase()
		const [here, elsewhere] = [await shared.open(), await shared.open()]
		const { userId, key } = await withKey(here, 'cy')
		const other = await withKey(here, 'dee')
		for (let i = 0; i < 3; i++) expect(await here.keys.findCaller(key.keyHash)).toBeDefined()
		expect(await here.keys.findCaller('hash-not-yet')).toBeUndefined()
		expect(await elsewhere.users.remove(userId)).toBe(true)
		expect(await here.keys.findCaller(key.keyHash)).toBeUndefined()
		expect((await here.keys.findCaller(other.key.keyHash))?.username).toBe('dee')
		await elsewhere.keys.issue({ ...other.key, id: newId(), device: 'desk', keyHash: 'hash-not-yet' })
		expect((await here.keys.findCaller('hash-not-yet'))?.username).toBe('dee')
	})

	test('a key revoked before, between or beside pushes through this connection fails the next lookup', async () => {
		const shared = await sharedTestDatabase()
		const [here, elsewhere] = [await shared.open(), await shared.open()]
		const push = (userId: string, hash: string) =>
			here.configs.push({
				owner: { userId, teamId: null },
				name: 'main',
				tool: 'cursor',
				hash,
				seal: () => new Uint8Array([1, 2, 3]),
				newConfigId: newId(),
				newVersionId: newId(),
				at: at()
			})
		// Revoked here, then a push before the next lookup: the push must not vouch for the revoked key.
		const ivy = await withKey(here, 'ivy')
		expect(await here.keys.findCaller(ivy.key.keyHash)).toBeDefined()
		await push(ivy.userId, 'a')
		expect(await here.keys.findCaller(ivy.key.keyHash)).toBeDefined()
		await here.keys.revokeByHash(ivy.key.keyHash)
		await push(ivy.userId, 'b')
		expect(await here.keys.findCaller(ivy.key.keyHash)).toBeUndefined()
		// Revoked elsewhere while pushes run here.
		const jo = await withKey(here, 'jo')
		for (const hash of ['c', 'd']) {
			expect(await here.keys.findCaller(jo.key.keyHash)).toBeDefined()
			await push(jo.userId, hash)
		}
		expect(await elsewhere.keys.revoke(jo.userId, jo.key.id)).toBe(true)
		await push(jo.userId, 'e')
		expect(await here.keys.findCaller(jo.key.keyHash)).toBeUndefined()
	})

	test('a key made read-only elsewhere is read-only at the next lookup', async () => {
		const shared = await sharedTestDatabase()
		const [here, elsewhere] = [await shared.open(), await shared.open()]
		const { userId, key } = await withKey(here, 'eve')
		for (let i = 0; i < 3; i++) expect(Boolean((await here.keys.findCaller(key.keyHash))?.readOnly)).toBe(false)
		// Issuing for the same device replaces the key: the old hash is gone, the new one read-only.
		await elsewhere.keys.issue({ ...key, id: newId(), keyHash: `${key.keyHash}-ro`, readOnly: true })
		expect(await here.keys.findCaller(key.keyHash)).toBeUndefined()
		expect(Boolean((await here.keys.findCaller(`${key.keyHash}-ro`))?.readOnly)).toBe(true)
		expect((await here.keys.findCaller(`${key.keyHash}-ro`))?.userId).toBe(userId)
	})
})

describe(`the latest-version read on ${TEST_ENGINE}`, () => {
	const push = (store: Store, userId: string, hash: string) =>
		store.configs.push({
			owner: { userId, teamId: null },
			name: 'main',
			tool: 'cursor',
			hash,
			seal: () => new Uint8Array([1, 2, 3, hash.length]),
			newConfigId: newId(),
			newVersionId: newId(),
			at: at()
		})

	test('a version pushed or a config deleted through another connection is what the next read sees', async () => {
		const shared = await sharedTestDatabase()
		const [here, elsewhere] = [await shared.open(), await shared.open()]
		const { userId } = await withKey(here, 'fay')
		const owner = { userId, teamId: null }
		await push(here, userId, 'first')
		for (let i = 0; i < 3; i++) expect((await here.configs.findByKey(owner, 'main', 'cursor'))?.hash).toBe('first')
		await push(elsewhere, userId, 'second')
		const second = await here.configs.findByKey(owner, 'main', 'cursor')
		expect([second?.hash, second?.version]).toEqual(['second', 2])
		expect((await here.configs.findByKey(owner, 'main', 'cursor'))?.hash).toBe('second')
		expect(await elsewhere.configs.remove(second?.id as string)).toBe(true)
		expect(await here.configs.findByKey(owner, 'main', 'cursor')).toBeUndefined()
	})

	test('a version pushed through the same connection is what the next read sees', async () => {
		const shared = await sharedTestDatabase()
		const store = await shared.open()
		const { userId } = await withKey(store, 'gil')
		const owner = { userId, teamId: null }
		await push(store, userId, 'first')
		for (let i = 0; i < 3; i++) expect((await store.configs.findByKey(owner, 'main', 'cursor'))?.hash).toBe('first')
		await push(store, userId, 'second')
		expect((await store.configs.findByKey(owner, 'main', 'cursor'))?.hash).toBe('second')
	})
})
