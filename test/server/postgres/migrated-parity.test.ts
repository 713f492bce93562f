import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL as BunSQL } from 'bun'
import { applyMigrations as applySqliteMigrations } from '../../../src/server/store/sqlite/migrate'
import { migrations as sqliteMigrations } from '../../../src/server/store/sqlite/migrations'
import { newPostgresDatabase } from '../../support/engine'

// Tests that need PostgreSQL itself, whatever the test engine: npm test runs test/server/postgres/ in its
// PostgreSQL pass only (scripts/test.ts), so they are never reported as skipped.

/**
 * The same comparison on the databases the embedded migrations make, so a
 * migration that drifts from its schema file (or from the other engine) fails
 * too. Needs PostgreSQL: in npm test's PostgreSQL pass.
 */
describe('migrated databases', () => {
	test('a migrated SQLite database and a migrated PostgreSQL database have the same tables, columns, nullability and indexes', async () => {
		const sqlite = new Database(':memory:')
		applySqliteMigrations(sqlite, sqliteMigrations)
		const fromSqlite: Record<string, unknown> = {}
		const tables = sqlite
			.query<{ name: string }, []>(
				"SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name"
			)
			.all()
		for (const { name } of tables) {
			const columns = sqlite
				.query<{ name: string; notnull: number; pk: number }, []>(`PRAGMA table_info("${name}")`)
				.all()
			const indexes = sqlite
				.query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list("${name}")`)
				.all()
				.filter((index) => index.origin === 'c')
			fromSqlite[name] = {
				columns: Object.fromEntries(columns.map((column) => [column.name, column.notnull === 1 || column.pk === 1])),
				indexes: Object.fromEntries(
					indexes.map((index) => [
						index.name,
						{
							unique: index.unique === 1,
							partial: index.partial === 1,
							columns: sqlite
								.query<{ name: string }, []>(`PRAGMA index_info("${index.name}")`)
								.all()
								.map((c) => c.name)
						}
					])
				)
			}
		}
		sqlite.close()

		const client = new BunSQL({ url: await newPostgresDatabase(), max: 1 })
		const fromPostgres: Record<string, unknown> = {}
		const pgTables = (await client.unsafe(
			"SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> '__drizzle_migrations' ORDER BY table_name"
		)) as { name: string }[]
		for (const { name } of pgTables) {
			const columns = (await client.unsafe(
				'SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
				['public', name]
			)) as {
				name: string
				nullable: string
			}[]
			const indexes = (await client.unsafe(
				`SELECT i.relname AS name, x.indisunique AS unique, x.indpred IS NOT NULL AS partial,
				        array(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(n, o) JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n ORDER BY k.o)::text[] AS columns
				 FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
				 WHERE t.relname = $1 AND NOT x.indisprimary`,
				[name]
			)) as { name: string; unique: boolean; partial: boolean; columns: string[] }[]
			fromPostgres[name] = {
				columns: Object.fromEntries(columns.map((column) => [column.name, column.nullable === 'NO'])),
				indexes: Object.fromEntries(
					indexes.map((index) => [
						index.name,
						{ unique: index.unique, partial: index.partial, columns: [...index.columns] }
					])
				)
			}
		}
		await client.close()
		expect(Object.keys(fromPostgres).sort()).toEqual(Object.keys(fromSqlite).sort())
		for (const name of Object.keys(fromSqlite))
			expect({ [name]: fromPostgres[name] }).toEqual({ [name]: fromSqlite[name] })
	})
})
