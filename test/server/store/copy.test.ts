import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { copyDatabase, digest } from '../../../src/server/store/copy'
import { openSqliteStore } from '../../../src/server/store/sqlite'
import { openTestStore } from '../../support/engine'
import { testApp } from '../../support/helpers'
import { tempDir } from '../../support/temp'

/**
 * `db copy` in bounded memory (docs/performance.md: under 300 MB whatever the database's size): pages of large
 * versions shrink to about 8 MiB, and a table's digest is one running sum, not a list of every row's hash.
 */
describe('db copy in bounded memory', () => {
	test('versions of 400 KB are read at most about 20 at a time; the copy is whole and its digests match', async () => {
		const source = openSqliteStore(join(tempDir('copy-src'), 'cfgsync.db'))
		const t = testApp({ store: source })
		const alice = await t.user('pro', 'alice')
		// Random text: stored versions are compressed, and only what does not compress weighs its length.
		for (let i = 0; i < 45; i++)
			await t.call('POST', '/api/configs', {
				key: alice.key,
				body: { data: { i, text: randomBytes(300_000).toString('base64') } }
			})
		const limits: number[] = []
		const page = source.tables.page
		source.tables.page = (table, after, limit) => {
			if (table === 'config_versions') limits.push(limit)
			return page(table, after, limit)
		}
		const target = openTestStore()
		const figures = await copyDatabase(source, target)
		const versions = figures.find((figure) => figure.table === 'config_versions')
		expect(versions).toMatchObject({ sourceRows: 45, targetRows: 45 })
		for (const figure of figures) expect(figure.targetDigest).toBe(figure.sourceDigest)
		// Pages start at 16 rows and grow only as far as about 8 MiB of versions: 20 of these.
		expect(limits[0]).toBe(16)
		expect(Math.max(...limits)).toBeLessThanOrEqual(21)
	})

	test('a digest is the same for the same rows and differs when one row does', async () => {
		const store = openTestStore()
		const t = testApp({ store })
		const alice = await t.user('pro', 'alice')
		for (let i = 0; i < 3; i++)
			await t.call('POST', '/api/configs', { key: alice.key, body: { name: `c${i}`, data: { i } } })
		const before = await digest(store, 'configs')
		expect(await digest(store, 'configs')).toEqual(before)
		await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c0', data: { changed: true } } })
		expect((await digest(store, 'configs')).digest).not.toBe(before.digest)
	})
})
