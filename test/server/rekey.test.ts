import { describe, expect, test } from 'bun:test'
import { createSealer, generateMasterKey, openPendingKey, sealPendingKey } from '../../src/server/lib/crypto'
import { PENDING_KEY_META } from '../../src/server/lib/key-check'
import { testApp } from '../support/helpers'

describe('key rotation in the sealer and the configs service (docs/operations.md)', () => {
	test('a pending key sealed under the current one is learned; writes then seal under it, reads open either', () => {
		const oldKey = generateMasterKey()
		const newKey = generateMasterKey()
		const old = createSealer(oldKey)
		const pending = sealPendingKey(old, newKey)
		expect(openPendingKey(old, pending)?.equals(newKey)).toBe(true)
		expect(openPendingKey(createSealer(generateMasterKey()), pending)).toBeUndefined()
		const sealedUnderNew = old.seal('hello', 'aad', pending)
		expect(() => createSealer(oldKey).openBytes(sealedUnderNew, 'aad')).toThrow()
		expect(createSealer(newKey).open(sealedUnderNew, 'aad')).toBe('hello')
		expect(old.open(sealedUnderNew, 'aad')).toBe('hello')
		// A pending value this key cannot open (a server already on the new key, after the rotation) changes nothing.
		const fresh = createSealer(newKey)
		expect(fresh.learn(pending)).toBe(false)
		expect(createSealer(newKey).open(fresh.seal('x', 'a', pending), 'a')).toBe('x')
	})

	test('a server holding the old key reads versions sealed under the new one by learning it from the database, and writes under it', async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		const first = await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v: 1 } } })
		// Another process (rekey) starts a rotation and re-seals the current version under the new key.
		const newKey = generateMasterKey()
		await t.store.meta.set(PENDING_KEY_META, sealPendingKey(t.sealer, newKey))
		const next = createSealer(newKey)
		const [record] = await t.store.configs.sealedPage(null, 10)
		const aad = `${record!.configId}:${record!.id}`
		expect(
			await t.store.configs.reseal([
				{ id: record!.id, from: record!.sealed, to: next.seal(t.sealer.openBytes(record!.sealed, aad), aad) }
			])
		).toBe(1)
		const read = await t.call('GET', `/api/configs/${first.body.id}`, { key: alice.key })
		expect(read).toMatchObject({ status: 200, body: { data: { v: 1 } } })
		await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v: 2 } } })
		const records = await t.store.configs.sealedPage(null, 10)
		for (const r of records) expect(next.open(r.sealed, `${r.configId}:${r.id}`)).toBeDefined()
		expect(
			(await t.call('GET', `/api/configs/${first.body.id}/versions`, { key: alice.key })).body.map(
				(v: { data: unknown }) => v.data
			)
		).toEqual([{ v: 2 }, { v: 1 }])
	})
})
