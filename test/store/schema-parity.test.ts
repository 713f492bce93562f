import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { SQL as BunSQL } from 'bun'
import { getTableConfig as pgTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { is, SQL, Table } from 'drizzle-orm'
import pgJournal from '../../drizzle-postgres/meta/_journal.json' with { type: 'json' }
import * as pgSchema from '../../src/store/postgres/schema'
import { embeddedSql as pgEmbedded } from '../../src/store/postgres/migrations'
import * as sqliteSchema from '../../src/store/sqlite/schema'
import { applyMigrations as applySqliteMigrations } from '../../src/store/sqlite/migrate'
import { migrations as sqliteMigrations } from '../../src/store/sqlite/migrations'
import { newPostgresDatabase, TEST_ENGINE } from '../engine'

/**
 * CONTRACT §9: one schema per engine, and they cannot drift. Both are reduced to
 * the same description (tables, columns, nullability, defaults, primary keys,
 * indexes with their columns, uniqueness and partial conditions, foreign keys);
 * column types differ by engine on purpose and are left out.
 */
type Description = Record<string, unknown>

const whereText = (where: unknown) => (where instanceof SQL ? JSON.stringify(where.queryChunks.map((chunk) => (is(chunk, Table) ? 'table' : typeof chunk === 'object' && chunk && 'name' in chunk ? (chunk as { name: string }).name : chunk))) : null)

function describeTable(config: ReturnType<typeof pgTableConfig> | ReturnType<typeof sqliteTableConfig>): Description {
	return {
		columns: Object.fromEntries(
			config.columns.map((column) => [column.name, { notNull: column.notNull, primary: column.primary, hasDefault: column.hasDefault && column.columnType !== 'PgBigSerial64' }])
		),
		indexes: Object.fromEntries(
			config.indexes.map((index) => [
				index.config.name,
				{ unique: index.config.unique, columns: index.config.columns.map((column) => (column as { name: string }).name), where: whereText(index.config.where) }
			])
		),
		foreignKeys: config.foreignKeys
			.map((fk) => {
				const reference = fk.reference()
				return `${reference.columns.map((c) => c.name).join(',')} -> ${(reference.foreignTable as unknown as { [key: symbol]: string })[Symbol.for('drizzle:Name')]}(${reference.foreignColumns.map((c) => c.name).join(',')}) on delete ${fk.onDelete}`
			})
			.sort()
	}
}

const tablesOf = <T>(schema: Record<string, unknown>, describe: (table: T) => ReturnType<typeof describeTable> extends infer D ? D : never) =>
	Object.fromEntries(
		Object.values(schema)
			.filter((value) => is(value, Table))
			.map((table) => [(table as unknown as { [key: symbol]: string })[Symbol.for('drizzle:Name')], describe(table as T)])
	)

test('the SQLite and PostgreSQL schemas have the same tables, columns, nullability, indexes and foreign keys', () => {
	const sqlite = tablesOf<SQLiteTable>(sqliteSchema, (table) => describeTable(sqliteTableConfig(table)))
	const postgres = tablesOf<PgTable>(pgSchema, (table) => describeTable(pgTableConfig(table)))
	expect(Object.keys(postgres).sort()).toEqual(Object.keys(sqlite).sort())
	for (const name of Object.keys(sqlite)) expect({ [name]: postgres[name] }).toEqual({ [name]: sqlite[name] })
	// Row types: every store row is keyed by the schema's field names, which must match for `db copy`.
	for (const key of Object.keys(sqliteSchema)) {
		const table = (sqliteSchema as Record<string, unknown>)[key]
		if (!is(table, Table)) continue
		expect(Object.keys((pgSchema as Record<string, Table>)[key] ?? {}).length).toBeGreaterThan(0)
		expect(Object.keys(sqliteTableConfig(table as SQLiteTable).columns.map((c) => c.name)).length).toBe(pgTableConfig((pgSchema as Record<string, PgTable>)[key] as PgTable).columns.length)
	}
})

test('every PostgreSQL migration drizzle-kit wrote is embedded, and nothing else', () => {
	expect(Object.keys(pgEmbedded).sort()).toEqual(pgJournal.entries.map((entry) => entry.tag).sort())
})

/**
 * The same comparison on the databases the embedded migrations make, so a
 * migration that drifts from its schema file (or from the other engine) fails
 * too. Needs PostgreSQL: in npm test's PostgreSQL pass.
 */
describe.if(TEST_ENGINE === 'postgres')('migrated databases', () => {
	test('a migrated SQLite database and a migrated PostgreSQL database have the same tables, columns, nullability and indexes', async () => {
		const sqlite = new Database(':memory:')
		applySqliteMigrations(sqlite, sqliteMigrations)
		const fromSqlite: Record<string, unknown> = {}
		const tables = sqlite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name").all()
		for (const { name } of tables) {
			const columns = sqlite.query<{ name: string; notnull: number; pk: number }, []>(`PRAGMA table_info("${name}")`).all()
			const indexes = sqlite
				.query<{ name: string; unique: number; origin: string; partial: number }, []>(`PRAGMA index_list("${name}")`)
				.all()
				.filter((index) => index.origin === 'c')
			fromSqlite[name] = {
				columns: Object.fromEntries(columns.map((column) => [column.name, column.notnull === 1 || column.pk === 1])),
				indexes: Object.fromEntries(
					indexes.map((index) => [
						index.name,
						{ unique: index.unique === 1, partial: index.partial === 1, columns: sqlite.query<{ name: string }, []>(`PRAGMA index_info("${index.name}")`).all().map((c) => c.name) }
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
			const columns = (await client.unsafe('SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2', ['public', name])) as {
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
				indexes: Object.fromEntries(indexes.map((index) => [index.name, { unique: index.unique, partial: index.partial, columns: [...index.columns] }]))
			}
		}
		await client.close()
		expect(Object.keys(fromPostgres).sort()).toEqual(Object.keys(fromSqlite).sort())
		for (const name of Object.keys(fromSqlite)) expect({ [name]: fromPostgres[name] }).toEqual({ [name]: fromSqlite[name] })
	})
})
