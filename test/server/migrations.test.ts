import { expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migrate } from 'drizzle-orm/bun-sqlite/migrator'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import journal from '../../drizzle/meta/_journal.json'
import { applyMigrations } from '../../src/server/store/sqlite/migrate'
import { embeddedSql, migrations } from '../../src/server/store/sqlite/migrations'

const drizzleDir = join(import.meta.dir, '..', '..', 'drizzle')

test('every migration drizzle-kit wrote is embedded, and nothing else', () => {
	const onDisk = readdirSync(drizzleDir)
		.filter((file) => file.endsWith('.sql'))
		.map((file) => file.replace(/\.sql$/, ''))
	expect(Object.keys(embeddedSql).sort()).toEqual(journal.entries.map((entry) => entry.tag).sort())
	expect(onDisk.sort()).toEqual(journal.entries.map((entry) => entry.tag).sort())
})

test("drizzle's own migrator agrees with ours: it finds nothing left to apply", () => {
	const sqlite = new Database(':memory:')
	expect(applyMigrations(sqlite, migrations)).toEqual(journal.entries.map((entry) => entry.tag))
	const tables = () =>
		sqlite.query<{ n: number }, []>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()?.n
	const before = tables()
	migrate(drizzle({ client: sqlite }), { migrationsFolder: drizzleDir })
	expect(tables()).toBe(before)
	expect(sqlite.query('SELECT hash FROM __drizzle_migrations').all()).toHaveLength(journal.entries.length)
	expect(applyMigrations(sqlite, migrations)).toEqual([])
})

test('a database migrated by drizzle is accepted by ours as up to date', () => {
	const sqlite = new Database(':memory:')
	migrate(drizzle({ client: sqlite }), { migrationsFolder: drizzleDir })
	expect(applyMigrations(sqlite, migrations)).toEqual([])
})
