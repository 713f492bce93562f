import { Database } from 'bun:sqlite'
import { chmodSync, closeSync, constants, existsSync, mkdirSync, openSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { schemaOf } from '../../build-info'
import { migrations } from './migrations'

/** The copy before an upgrade could not be written; nothing was changed (its `cause` says why). */
export class PreUpgradeBackupError extends Error {}

/**
 * docs/operations.md, "Rolling back": when the SQLite database `file` has migrations this build would apply, a
 * copy of it as it was, `pre-upgrade-<old schema>-<time>.db` in `dir`, 0600, made with VACUUM INTO (whole or not
 * at all). Undefined when there is nothing to migrate or no database yet; else the copy's path.
 */
export function backUpSqliteBeforeUpgrade(file: string, dir: string): string | undefined {
	if (!existsSync(file)) return undefined
	const newestKnown = migrations[migrations.length - 1]?.folderMillis ?? 0
	const database = new Database(file, { readonly: true })
	try {
		// Another instance may be creating or migrating it this moment (two first starts at once): wait as the store does.
		database.run('PRAGMA busy_timeout = 5000')
		const table = database
			.query<{ name: string }, []>(
				"SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'"
			)
			.get()
		if (table === null) return undefined
		const recorded = database
			.query<{ n: number; newest: number | null }, []>(
				'SELECT count(*) AS n, max(created_at) AS newest FROM __drizzle_migrations'
			)
			.get()
		if (!recorded || recorded.newest === null || Number(recorded.newest) >= newestKnown) return undefined
		if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 })
		const target = join(
			dir,
			`pre-upgrade-${schemaOf('sqlite', recorded.n)}-${new Date().toISOString().replace(/[:.]/g, '-')}.db`
		)
		closeSync(openSync(target, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600))
		try {
			database.run('VACUUM INTO ?', [target])
		} catch (error) {
			rmSync(target, { force: true })
			throw new PreUpgradeBackupError((error as Error).message, { cause: error })
		}
		chmodSync(target, 0o600)
		return target
	} finally {
		database.close()
	}
}
