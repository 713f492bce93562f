import type { Database } from 'bun:sqlite'
import type { Migration } from './migrations'
import { refuseNewerSchema } from '../schema-check'

const TABLE = '__drizzle_migrations'

/**
 * Applies pending migrations in one immediate transaction, recording them in
 * drizzle's own table with drizzle's rule (a migration is pending when its
 * `when` is newer than the last one recorded). Immediate, so a server and an
 * admin command starting together cannot both apply the same migration.
 * `then` runs inside the same transaction, after the migrations (the
 * master-key check: docs/operations.md); throwing rolls everything back.
 * Returns the tags applied.
 */
export function applyMigrations(sqlite: Database, migrations: Migration[], then?: () => void): string[] {
	const applied: string[] = []
	sqlite
		.transaction(() => {
			sqlite.run(`CREATE TABLE IF NOT EXISTS ${TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`)
			const last = sqlite
				.query<{ created_at: number }, []>(`SELECT created_at FROM ${TABLE} ORDER BY created_at DESC LIMIT 1`)
				.get()
			const count = sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${TABLE}`).get()?.n ?? 0
			refuseNewerSchema('sqlite', migrations, { count, newest: last ? Number(last.created_at) : undefined })
			for (const migration of migrations) {
				if (last && Number(last.created_at) >= migration.folderMillis) continue
				for (const statement of migration.statements) {
					if (statement.trim() !== '') sqlite.run(statement)
				}
				sqlite.run(`INSERT INTO ${TABLE} (hash, created_at) VALUES (?, ?)`, [migration.hash, migration.folderMillis])
				applied.push(migration.tag)
			}
			numberUnnumberedAuditRows(sqlite)
			then?.()
		})
		.immediate()
	return applied
}

/**
 * Audit rows written without a feed number (by a release older than the feed, run on this database
 * after an upgrade: a rollback and a re-upgrade) get the next numbers, in the order they were written,
 * so `/api/events` and replays reach them (issue 37.3). Nothing happens when every row has one.
 */
function numberUnnumberedAuditRows(sqlite: Database) {
	const table = sqlite.query<{ name: string }, []>(
		"SELECT name FROM pragma_table_info('audit_events') WHERE name = 'seq'"
	)
	if (table.get() === null) return
	if (sqlite.query<{ id: string }, []>('SELECT id FROM audit_events WHERE seq IS NULL LIMIT 1').get() === null) return
	const end =
		sqlite
			.query<{ end: number }, []>(
				"SELECT MAX(COALESCE((SELECT MAX(seq) FROM audit_events), 0), COALESCE((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'audit_feed_end'), 0)) AS end"
			)
			.get()?.end ?? 0
	sqlite.run(
		'UPDATE audit_events SET seq = ? + numbered.n FROM (SELECT id AS nid, row_number() OVER (ORDER BY at, id) AS n FROM audit_events WHERE seq IS NULL) AS numbered WHERE audit_events.id = numbered.nid',
		[end]
	)
}
