import { describe, expect, test } from 'bun:test'
import { testApp } from '../../support/helpers'

describe('sealed records and stats (for key rotation and metrics)', () => {
	test('sealedPage walks every version in id order; reseal replaces only records that still hold what was read', async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		for (let i = 0; i < 5; i++)
			await t.call('POST', '/api/configs', { key: alice.key, body: { name: `c${i % 2}`, data: { i } } })
		const all = []
		let after: string | null = null
		for (;;) {
			const page = await t.store.configs.sealedPage(after, 2)
			if (page.length === 0) break
			all.push(...page)
			after = page[page.length - 1]!.id
		}
		expect(all).toHaveLength(5)
		expect(all.map((r) => r.id)).toEqual([...all.map((r) => r.id)].sort())
		const [first, second] = all as [(typeof all)[0], (typeof all)[0]]
		const replaced = await t.store.configs.reseal([
			{ id: first.id, from: first.sealed, to: new Uint8Array([1, 2, 3]) },
			// A stale read (the record changed since) is left alone.
			{ id: second.id, from: new Uint8Array([9]), to: new Uint8Array([4, 5, 6]) }
		])
		expect(replaced).toBe(1)
		const again = await t.store.configs.sealedPage(null, 10)
		expect(Array.from(again.find((r) => r.id === first.id)!.sealed)).toEqual([1, 2, 3])
		expect(Buffer.from(again.find((r) => r.id === second.id)!.sealed).equals(Buffer.from(second.sealed))).toBe(true)
	})

	test('stats count users, configs and versions', async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		await t.user('free', 'bob')
		await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'a', data: { v: 1 } } })
		await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'a', data: { v: 2 } } })
		expect(await t.store.stats()).toMatchObject({ users: 2, configs: 1, versions: 2 })
		expect((await t.store.stats()).databaseBytes).toBeGreaterThan(0)
	})
})
