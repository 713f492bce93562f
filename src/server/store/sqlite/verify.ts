import { Database } from 'bun:sqlite'
import type { Sealer } from '../../lib/crypto'
import { KEY_CHECK, opensKeyCheck } from '../../lib/key-check'
import { migrations } from './migrations'

/** Why a file is not a usable backup of this server's database, or undefined when it is one. */
export type BackupProblem = string | undefined

/**
 * Checks a SQLite copy before it is trusted (docs/operations.md): the file is
 * intact (`PRAGMA integrity_check`), its migrations are this binary's (all of
 * them with `exact`, else a prefix: an older backup is migrated when opened),
 * and the master key opens its check value, so its sealed data can be read.
 */
export function verifySqliteBackup(
	file: string,
	sealer: Pick<Sealer, 'open'>,
	options: {
		exact: boolean
		/** The copy's `PRAGMA integrity_check` rows when they were read already, on another thread (off-thread.ts). */
		integrity?: string[]
	}
): BackupProblem {
	let db: Database
	try {
		db = new Database(file, { readonly: true, strict: true })
	} catch (error) {
		return `cannot open it as a SQLite database (${(error as Error).message})`
	}
	try {
		const integrity =
			options.integrity ??
			db
				.query<{ integrity_check: string }, []>('PRAGMA integrity_check')
				.all()
				.map((row) => row.integrity_check)
		if (integrity.length !== 1 || integrity[0] !== 'ok')
			return `it is damaged (integrity check: ${integrity.slice(0, 3).join('; ')})`
		const hasTable = (name: string) =>
			db
				.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = ?")
				.get(name)?.n === 1
		if (!hasTable('__drizzle_migrations') || !hasTable('meta')) return 'it is not a cfgsync database'
		const applied = db
			.query<{ hash: string }, []>('SELECT hash FROM __drizzle_migrations ORDER BY created_at')
			.all()
			.map((row) => row.hash)
		const known = migrations.map((migration) => migration.hash)
		if (applied.length > known.length || applied.some((hash, i) => hash !== known[i]))
			return 'it was made by another version of cfgsync (its schema is not one this binary knows)'
		if (options.exact && applied.length !== known.length)
			return `its schema is ${applied.length} migrations old, this binary's is ${known.length}`
		const check = db
			.query<{ value: string }, [string]>('SELECT value FROM meta WHERE key = ?')
			.get(KEY_CHECK.meta)?.value
		if (check === undefined) return 'it has no master-key check value (it was never opened by a server)'
		if (!opensKeyCheck(sealer, check)) return 'the master key does not open it (it was made under another key)'
		return undefined
	} catch (error) {
		return `it cannot be read (${(error as Error).message})`
	} finally {
		db.close()
	}
}
