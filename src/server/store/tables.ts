import { asc, count, gt, is, Table, type Column } from 'drizzle-orm'

/**
 * Whole tables, engine-blind, for `db copy` (docs/operations.md, docs/postgresql.md): rows as plain
 * objects keyed by the schema's field names, which are the same on both
 * engines (test/server/store/schema-parity.test.ts), so a row read from one inserts
 * into the other unchanged, sealed data included.
 */
export interface TableAccess {
	/** Every table, parents before the tables that refer to them. */
	readonly names: readonly string[]
	count(table: string): Promise<number>
	/** Rows in primary-key order after the key `after` (null: from the start), at most `limit`. */
	page(table: string, after: string | number | null, limit: number): Promise<Record<string, unknown>[]>
	/** The primary-key value of a row of `table` (to page on from it). */
	keyOf(table: string, row: Record<string, unknown>): string | number
	insert(table: string, rows: Record<string, unknown>[]): Promise<void>
	/** After rows were inserted with their own ids: what the engine needs to go on from them. */
	finish(): Promise<void>
	/** Deletes every copied row again (a `db copy` that failed leaves its target empty), children first. */
	clear(): Promise<void>
}

/** Insert order: a table comes after every table its foreign keys name. */
export const TABLE_ORDER = [
	'users',
	'teams',
	'team_members',
	'team_invitations',
	'team_slug_reservations',
	'api_keys',
	'sessions',
	'signup_links',
	'configs',
	'config_versions',
	'meta',
	'audit_events',
	'login_failures',
	'job_leases'
] as const

/** Tables of running servers' state (heartbeats), not data: never copied, and a target may hold rows in them. */
export const RUNTIME_TABLES = ['server_instances'] as const

/** The primary key's field of each table. */
const KEYS: Record<(typeof TABLE_ORDER)[number], string> = {
	users: 'id',
	teams: 'id',
	team_members: 'id',
	team_invitations: 'id',
	team_slug_reservations: 'slug',
	api_keys: 'id',
	sessions: 'idHash',
	signup_links: 'id',
	configs: 'id',
	config_versions: 'id',
	meta: 'key',
	audit_events: 'id',
	login_failures: 'id',
	job_leases: 'name'
}

const tableName = (table: Table) => (table as unknown as Record<symbol, string>)[Symbol.for('drizzle:Name')] as string

/** Rows per insert statement: under both engines' parameter limits (SQLite 32,766; PostgreSQL 65,535). */
const INSERT_ROWS = 200

/**
 * Builds the access from an engine's schema module and its Drizzle database.
 * Both engines' query builders are awaitable, so one implementation serves both
 * (`db` is either engine's Drizzle database: they share no declared type).
 */
export function tableAccess(
	schema: Record<string, unknown>,
	// biome-ignore lint/suspicious/noExplicitAny: either engine's Drizzle database; they share no declared type
	db: any,
	finish: () => Promise<void> = async () => {}
): TableAccess {
	const tables = new Map<string, Table>()
	for (const value of Object.values(schema)) if (is(value, Table)) tables.set(tableName(value), value)
	for (const name of TABLE_ORDER) if (!tables.has(name)) throw new Error(`table ${name} is missing from the schema`)
	if (tables.size !== TABLE_ORDER.length + RUNTIME_TABLES.length)
		throw new Error(`tables.ts does not know every table: ${[...tables.keys()].join(', ')}`)
	const table = (name: string) => {
		const found = tables.get(name)
		if (!found) throw new Error(`unknown table ${name}`)
		return found
	}
	const keyColumn = (name: string) =>
		(table(name) as unknown as Record<string, Column>)[KEYS[name as keyof typeof KEYS]] as Column
	return {
		names: TABLE_ORDER,
		async count(name) {
			const [row] = await db.select({ n: count() }).from(table(name))
			return Number(row?.n ?? 0)
		},
		page: async (name, after, limit) =>
			db
				.select()
				.from(table(name))
				.where(after === null ? undefined : gt(keyColumn(name), after))
				.orderBy(asc(keyColumn(name)))
				.limit(limit),
		keyOf: (name, row) => row[KEYS[name as keyof typeof KEYS]] as string | number,
		async insert(name, rows) {
			for (let i = 0; i < rows.length; i += INSERT_ROWS)
				await db.insert(table(name)).values(rows.slice(i, i + INSERT_ROWS))
		},
		async clear() {
			for (const name of [...TABLE_ORDER].reverse()) await db.delete(table(name))
		},
		finish
	}
}
