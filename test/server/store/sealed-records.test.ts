import { describe, expect, test } from 'bun:test'
import { newId } from '../../../src/server/lib/ids'
import type { VersionWithData } from '../../../src/server/store/types'
import { testApp } from '../../support/helpers'

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill)
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))

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

	test('reseal over many records: stale ones are left alone and not counted, wherever they fall in the batch', async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		expect(await t.store.configs.reseal([])).toBe(0)
		// More records than one PostgreSQL statement swaps (docs/performance.md, "Rekey on PostgreSQL").
		const configId = newId()
		const at = new Date().toISOString()
		const versions: VersionWithData[] = Array.from({ length: 1203 }, (_, i) => ({
			id: newId(),
			configId,
			version: i + 1,
			hash: `h${i}`,
			createdAt: at,
			sealed: new TextEncoder().encode(`old-${i}`)
		}))
		const last = versions[versions.length - 1]!
		await t.store.configs.importMany([
			{
				config: {
					id: configId,
					userId: alice.id,
					teamId: null,
					name: 'many',
					tool: 'cursor',
					version: last.version,
					hash: last.hash,
					currentVersionId: last.id,
					createdAt: at,
					updatedAt: at
				},
				versions
			}
		])
		const stale = new Set([0, 499, 500, 777, 1202])
		const swaps = versions.map((version, i) => ({
			id: version.id,
			from: stale.has(i) ? new TextEncoder().encode(`changed-${i}`) : version.sealed,
			to: new TextEncoder().encode(`new-${i}`)
		}))
		expect(await t.store.configs.reseal(swaps)).toBe(1203 - stale.size)
		const after = new Map((await t.store.configs.sealedPage(null, 2000)).map((r) => [r.id, r.sealed]))
		versions.forEach((version, i) => {
			const want = stale.has(i) ? `old-${i}` : `new-${i}`
			expect(new TextDecoder().decode(after.get(version.id)!)).toBe(want)
		})
		// Large records: more bytes in one call than a statement binds; one stale among them (the first still holds old-0).
		const big = versions.slice(0, 40).map((version, i) => ({
			id: version.id,
			from: new TextEncoder().encode(`new-${i}`),
			to: bytes(512 * 1024, i)
		}))
		expect(await t.store.configs.reseal(big)).toBe(39)
		const afterBig = new Map((await t.store.configs.sealedPage(null, 40)).map((r) => [r.id, r.sealed]))
		expect(new TextDecoder().decode(afterBig.get(versions[0]!.id)!)).toBe('old-0')
		for (let i = 1; i < 40; i++) expect(same(afterBig.get(versions[i]!.id)!, bytes(512 * 1024, i))).toBe(true)
	})

	test('reseal takes records in order: a later one for the same id compares against what the earlier wrote', async () => {
		const t = testApp()
		const alice = await t.user('pro', 'alice')
		await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { i: 1 } } })
		const [record] = await t.store.configs.sealedPage(null, 1)
		const { id, sealed } = record!
		const b = bytes(8, 2)
		const c = bytes(8, 3)
		expect(
			await t.store.configs.reseal([
				{ id, from: sealed, to: b },
				{ id, from: b, to: c }
			])
		).toBe(2)
		expect(same((await t.store.configs.sealedPage(null, 1))[0]!.sealed, c)).toBe(true)
		expect(
			await t.store.configs.reseal([
				{ id, from: c, to: b },
				{ id, from: c, to: bytes(8, 4) }
			])
		).toBe(1)
		expect(same((await t.store.configs.sealedPage(null, 1))[0]!.sealed, b)).toBe(true)
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
