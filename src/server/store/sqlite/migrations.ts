import journal from '../../../../drizzle/meta/_journal.json' with { type: 'json' }
import m0000 from '../../../../drizzle/0000_init.sql' with { type: 'text' }
import m0001 from '../../../../drizzle/0001_invitations.sql' with { type: 'text' }
import m0002 from '../../../../drizzle/0002_sessions_audit_leases.sql' with { type: 'text' }
import m0003 from '../../../../drizzle/0003_server_instances.sql' with { type: 'text' }
import m0004 from '../../../../drizzle/0004_signup_links.sql' with { type: 'text' }
import m0005 from '../../../../drizzle/0005_audit_feed_seq.sql' with { type: 'text' }
import m0006 from '../../../../drizzle/0006_key_scope_and_stored_bytes.sql' with { type: 'text' }
import m0007 from '../../../../drizzle/0007_audit_actor_key.sql' with { type: 'text' }

/**
 * Every migration drizzle-kit generated, embedded so the compiled binary needs
 * no files beside it. One line per migration; the test suite checks
 * this list against drizzle/meta/_journal.json.
 */
export const embeddedSql: Record<string, string> = {
	'0000_init': m0000,
	'0001_invitations': m0001,
	'0002_sessions_audit_leases': m0002,
	'0003_server_instances': m0003,
	'0004_signup_links': m0004,
	'0005_audit_feed_seq': m0005,
	'0006_key_scope_and_stored_bytes': m0006,
	'0007_audit_actor_key': m0007
}

export interface Migration {
	tag: string
	/** drizzle-kit's `when`: drizzle orders and skips migrations by it. */
	folderMillis: number
	hash: string
	statements: string[]
}

export const migrations: Migration[] = journal.entries.map((entry) => {
	const sql = embeddedSql[entry.tag]
	if (sql === undefined) throw new Error(`migration ${entry.tag} is in the journal but not embedded`)
	return {
		tag: entry.tag,
		folderMillis: entry.when,
		// Same hash as drizzle's readMigrationFiles, so drizzle's migrate() agrees with ours.
		hash: new Bun.CryptoHasher('sha256').update(sql).digest('hex'),
		statements: sql.split('--> statement-breakpoint')
	}
})
