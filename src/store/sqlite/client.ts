import { Database } from 'bun:sqlite'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import * as schema from './schema'

export type SqliteDb = ReturnType<typeof drizzleFor>

const drizzleFor = (sqlite: Database) => drizzle({ client: sqlite, schema })

/**
 * Opens the database file with the pragmas every connection needs (STYLE §8):
 * WAL so readers never wait for the writer, foreign keys for cascades, and a
 * busy timeout so a server and an admin command on one file wait instead of failing.
 */
export function openDatabase(file: string): Database {
	const sqlite = new Database(file, { create: true, strict: true })
	sqlite.run('PRAGMA busy_timeout = 5000')
	if (file !== ':memory:') sqlite.run('PRAGMA journal_mode = WAL')
	// In WAL mode a killed process loses no commit; only a power cut can lose the last few, never corrupting the file.
	sqlite.run('PRAGMA synchronous = NORMAL')
	sqlite.run('PRAGMA foreign_keys = ON')
	return sqlite
}

export const wrap = (sqlite: Database): SqliteDb => drizzleFor(sqlite)

/** Reads one `meta` value without migrating; undefined on a new database. */
export function peekMeta(sqlite: Database, key: string): string | undefined {
	const table = sqlite.query<{ name: string }, [string]>("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get('meta')
	if (!table) return undefined
	return sqlite.query<{ value: string }, [string]>('SELECT value FROM meta WHERE key = ?').get(key)?.value
}
