import { expect, test } from 'bun:test'
import { getTableConfig as pgTableConfig, type PgTable } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteTableConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import { is, SQL, Table } from 'drizzle-orm'
import pgJournal from '../../../drizzle-postgres/meta/_journal.json' with { type: 'json' }
import * as pgSchema from '../../../src/server/store/postgres/schema'
import { embeddedSql as pgEmbedded } from '../../../src/server/store/postgres/migrations'
import * as sqliteSchema from '../../../src/server/store/sqlite/schema'

/**
 * docs/postgresql.md: one schema per engine, and they cannot drift. Both are reduced to
 * the same description (tables, columns, nullability, defaults, primary keys,
 * indexes with their columns, uniqueness and partial conditions, foreign keys);
 * column types differ by engine on purpose and are left out.
 */
type Description = Record<string, unknown>

const whereText = (where: unknown) =>
	where instanceof SQL
		? JSON.stringify(
				where.queryChunks.map((chunk) =>
					is(chunk, Table)
						? 'table'
						: typeof chunk === 'object' && chunk && 'name' in chunk
							? (chunk as { name: string }).name
							: chunk
				)
			)
		: null

function describeTable(config: ReturnType<typeof pgTableConfig> | ReturnType<typeof sqliteTableConfig>): Description {
	return {
		columns: Object.fromEntries(
			config.columns.map((column) => [
				column.name,
				{
					notNull: column.notNull,
					primary: column.primary,
					hasDefault: column.hasDefault && column.columnType !== 'PgBigSerial64'
				}
			])
		),
		indexes: Object.fromEntries(
			config.indexes.map((index) => [
				index.config.name,
				{
					unique: index.config.unique,
					columns: index.config.columns.map((column) => (column as { name: string }).name),
					where: whereText(index.config.where)
				}
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

const tablesOf = <T>(
	schema: Record<string, unknown>,
	describe: (table: T) => ReturnType<typeof describeTable> extends infer D ? D : never
) =>
	Object.fromEntries(
		Object.values(schema)
			.filter((value) => is(value, Table))
			.map((table) => [
				(table as unknown as { [key: symbol]: string })[Symbol.for('drizzle:Name')],
				describe(table as T)
			])
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
		expect(Object.keys(sqliteTableConfig(table as SQLiteTable).columns.map((c) => c.name)).length).toBe(
			pgTableConfig((pgSchema as Record<string, PgTable>)[key] as PgTable).columns.length
		)
	}
})

test('every PostgreSQL migration drizzle-kit wrote is embedded, and nothing else', () => {
	expect(Object.keys(pgEmbedded).sort()).toEqual(pgJournal.entries.map((entry) => entry.tag).sort())
})
