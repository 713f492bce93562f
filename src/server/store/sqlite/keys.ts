import type { Database } from 'bun:sqlite'
import { eq, sql } from 'drizzle-orm'
import type { CallerRow } from '../types'
import { aliased } from '../shared'
import type { SqliteDb } from './client'
import { hotRows } from './rows'
import { apiKeys, users } from './schema'

/** Keys remembered at most; past it the memory starts again (a flood of distinct keys cannot grow it). */
const REMEMBERED_MAX = 10_000

/**
 * Every authenticated request runs this: one indexed lookup joined to the user, three columns and the
 * key's scope, answered synchronously (the rest of the key store is ../rows/keys.ts).
 *
 * Found callers are remembered while nothing at all is committed to the database: not by this
 * connection (`total_changes()`, which every INSERT, UPDATE and DELETE moves) nor by any other,
 * another process's included (`PRAGMA data_version`, which moves on each of their commits). Both
 * are read before the lookup they vouch for, so a commit between them only forgets more. A revoked
 * key, a removed user or a changed scope is therefore seen by the next request, as without the
 * memory; a key is remembered only by its hash. The two checks cost about a sixth of the lookup
 * they save (docs/performance.md). A write forgets everything, so a push pays one cheap check more.
 */
export function sqliteFindCaller(db: SqliteDb, sqlite: Database) {
	const findCaller = hotRows<CallerRow>(
		sqlite,
		db
			.select(
				aliased({ userId: apiKeys.userId, email: users.email, username: users.username, readOnly: apiKeys.readOnly })
			)
			.from(apiKeys)
			.innerJoin(users, eq(users.id, apiKeys.userId))
			.where(eq(apiKeys.keyHash, sql.placeholder('keyHash')))
	)
	const ownChanges = sqlite.prepare<{ n: number }, []>('SELECT total_changes() AS n')
	const othersCommits = sqlite.prepare<{ data_version: number }, []>('PRAGMA data_version')
	const remembered = new Map<string, CallerRow>()
	// What the remembered rows were read after; -1: nothing to vouch for them yet.
	let seenChanges = -1
	let seenVersion = -1
	return (keyHash: string): CallerRow | undefined => {
		const changes = (ownChanges.get() as { n: number }).n
		if (changes !== seenChanges) {
			// This connection wrote (a push, a key's last use): forget, and look up without remembering, so a
			// stream of writes pays no more than the lookup; the next request with no write between starts again.
			remembered.clear()
			seenChanges = changes
			seenVersion = -1
			return findCaller.get({ keyHash })
		}
		const version = (othersCommits.get() as { data_version: number }).data_version
		if (version !== seenVersion) {
			remembered.clear()
			seenVersion = version
		}
		const known = remembered.get(keyHash)
		if (known !== undefined) return known
		const row = findCaller.get({ keyHash })
		if (row !== undefined) {
			if (remembered.size >= REMEMBERED_MAX) remembered.clear()
			remembered.set(keyHash, row)
		}
		return row
	}
}
