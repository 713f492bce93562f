import journal from '../../../../drizzle-postgres/meta/_journal.json' with { type: 'json' }
import m0000 from '../../../../drizzle-postgres/0000_init.sql' with { type: 'text' }
import m0001 from '../../../../drizzle-postgres/0001_server_instances.sql' with { type: 'text' }
import m0002 from '../../../../drizzle-postgres/0002_signup_links.sql' with { type: 'text' }
import m0003 from '../../../../drizzle-postgres/0003_audit_feed_seq.sql' with { type: 'text' }
import m0004 from '../../../../drizzle-postgres/0004_key_scope_and_stored_bytes.sql' with { type: 'text' }
import m0005 from '../../../../drizzle-postgres/0005_audit_actor_key.sql' with { type: 'text' }
import type { Migration } from '../sqlite/migrations'

/**
 * Every PostgreSQL migration drizzle-kit generated (drizzle-postgres.config.ts),
 * embedded so the compiled binary needs no files beside it. One line per
 * migration; test/server/migrations.test.ts checks this list against the journal.
 */
export const embeddedSql: Record<string, string> = {
	'0000_init': m0000,
	'0001_server_instances': m0001,
	'0002_signup_links': m0002,
	'0003_audit_feed_seq': m0003,
	'0004_key_scope_and_stored_bytes': m0004,
	'0005_audit_actor_key': m0005
}

export const migrations: Migration[] = journal.entries.map((entry) => {
	const sql = embeddedSql[entry.tag]
	if (sql === undefined) throw new Error(`PostgreSQL migration ${entry.tag} is in the journal but not embedded`)
	return {
		tag: entry.tag,
		folderMillis: entry.when,
		hash: new Bun.CryptoHasher('sha256').update(sql).digest('hex'),
		statements: sql.split('--> statement-breakpoint')
	}
})
