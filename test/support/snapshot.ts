import { Database } from 'bun:sqlite'
import { createHash } from 'node:crypto'

/**
 * A digest of everything stored that a rejected request must not change.
 * Left out by design: login_failures (failed logins are recorded on purpose)
 * and api_keys.last_used_at (bookkeeping written by the auth gate).
 */
export function storedDigest(file: string): string {
	const db = new Database(file, { readonly: true })
	try {
		const hash = createHash('sha256')
		const tables: [string, string][] = [
			['users', '*'],
			['api_keys', 'id, user_id, device, key_hash, created_at'],
			['teams', '*'],
			['team_members', '*'],
			['configs', '*'],
			['config_versions', 'id, config_id, version, hash, hex(data), created_at']
		]
		for (const [table, columns] of tables) {
			hash.update(table)
			for (const row of db.query(`SELECT ${columns} FROM ${table} ORDER BY 1`).values())
				hash.update(JSON.stringify(row))
		}
		return hash.digest('hex')
	} finally {
		db.close()
	}
}
