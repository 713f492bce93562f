import type { SQL as BunSQL } from 'bun'
import type { Migration } from '../sqlite/migrations'
import type { MetaAccess } from '../types'
import { refuseNewerSchema } from '../schema-check'

const TABLE = '__drizzle_migrations'
/** The advisory lock every starting instance takes before it looks at the schema ("cfgsync" in ASCII). */
// biome-ignore lint/correctness/noPrecisionLoss: the rounded value is the lock id every released version takes; changing it would let two versions migrate at once
export const MIGRATION_LOCK = 0x63667973796e63

/**
 * Applies pending migrations in one transaction that first takes an advisory
 * lock (docs/postgresql.md): instances starting together take turns, and each one
 * after the first finds nothing left to do. drizzle's own PostgreSQL migrate()
 * takes no lock, and concurrent starts then fail on half-made tables.
 * `then` runs in the same transaction after the migrations (the master-key
 * check, docs/operations.md) on a synchronous view of `meta`, whose writes are made
 * before the commit; throwing rolls everything back. Returns the tags applied.
 */
export async function applyMigrations(
	client: BunSQL,
	migrations: Migration[],
	then?: (meta: MetaAccess) => void
): Promise<string[]> {
	return client.begin(async (tx) => {
		await tx.unsafe(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`)
		await tx.unsafe(
			`CREATE TABLE IF NOT EXISTS ${TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at bigint)`
		)
		const [last] = (await tx.unsafe(`SELECT created_at FROM ${TABLE} ORDER BY created_at DESC LIMIT 1`)) as {
			created_at: string
		}[]
		const [recorded] = (await tx.unsafe(`SELECT count(*)::int AS n FROM ${TABLE}`)) as { n: number }[]
		refuseNewerSchema('postgres', migrations, {
			count: recorded?.n ?? 0,
			newest: last ? Number(last.created_at) : undefined
		})
		const applied: string[] = []
		for (const migration of migrations) {
			if (last && Number(last.created_at) >= migration.folderMillis) continue
			for (const statement of migration.statements) {
				if (statement.trim() !== '') await tx.unsafe(statement)
			}
			await tx.unsafe(`INSERT INTO ${TABLE} (hash, created_at) VALUES ($1, $2)`, [
				migration.hash,
				migration.folderMillis
			])
			applied.push(migration.tag)
		}
		// Rows written without a feed number (issue 37.3; the commit trigger numbers every row since 0003) get the next ones.
		const numbered = (await tx.unsafe(
			"SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'audit_events' AND column_name = 'seq'"
		)) as unknown[]
		if (numbered.length > 0)
			await tx.unsafe(
				`UPDATE audit_events SET seq = nextval('audit_events_seq') WHERE id IN (SELECT id FROM audit_events WHERE seq IS NULL ORDER BY at, id)`
			)
		if (then) {
			const values = new Map(
				((await tx.unsafe('SELECT key, value FROM meta')) as { key: string; value: string }[]).map((row) => [
					row.key,
					row.value
				])
			)
			const writes = new Map<string, string>()
			then({
				get: (key) => values.get(key),
				set: (key, value) => {
					values.set(key, value)
					writes.set(key, value)
				}
			})
			for (const [key, value] of writes) {
				await tx.unsafe(
					'INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
					[key, value]
				)
			}
		}
		return applied
	})
}
