import { existsSync } from 'node:fs'
import type { Store } from '../types'
import { openDatabase, peekMeta, wrap } from './client'
import { sqliteConfigs } from './configs'
import { sqliteKeys } from './keys'
import { sqliteLoginFailures } from './login-failures'
import { sqliteMeta } from './meta'
import { applyMigrations } from './migrate'
import { migrations } from './migrations'
import { sqliteTeams } from './teams'
import { sqliteUsers } from './users'

export interface OpenOptions {
	/**
	 * Runs before any migration with a reader of the `meta` table (undefined
	 * values on a new database); throwing leaves the file as it was.
	 */
	beforeMigrate?: (readMeta: (key: string) => string | undefined) => void
}

/** Opens (creating if needed) and migrates the embedded SQLite store. `:memory:` for tests. */
export function openSqliteStore(file: string, options: OpenOptions = {}): Store {
	const sqlite = openDatabase(file)
	try {
		options.beforeMigrate?.((key) => peekMeta(sqlite, key))
		applyMigrations(sqlite, migrations)
	} catch (error) {
		sqlite.close()
		throw error
	}
	const db = wrap(sqlite)
	const ping = sqlite.query<{ ok: number }, []>('SELECT 1 AS ok')
	return {
		users: sqliteUsers(db, sqlite),
		keys: sqliteKeys(db, sqlite),
		loginFailures: sqliteLoginFailures(db, sqlite),
		configs: sqliteConfigs(db, sqlite),
		teams: sqliteTeams(db, sqlite),
		meta: sqliteMeta(db),
		ping: async () => ping.get()?.ok === 1,
		async backup(target) {
			if (existsSync(target)) throw new Error(`${target} already exists`)
			// VACUUM INTO reads one snapshot, so the copy is consistent while writers carry on.
			sqlite.run('VACUUM INTO ?', [target])
		},
		close: () => sqlite.close()
	}
}
