import type { Database } from 'bun:sqlite'
import type { Migration } from './migrations'

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
			for (const migration of migrations) {
				if (last && Number(last.created_at) >= migration.folderMillis) continue
				for (const statement of migration.statements) {
					if (statement.trim() !== '') sqlite.run(statement)
				}
				sqlite.run(`INSERT INTO ${TABLE} (hash, created_at) VALUES (?, ?)`, [migration.hash, migration.folderMillis])
				applied.push(migration.tag)
			}
			then?.()
		})
		.immediate()
	return applied
}
