// SQLite only: PostgreSQL has no WAL file for its clients to checkpoint. Background steps (the purge's,
// the audit prune's) commit with no checkpoint on the server's thread and have another thread checkpoint
// after them (docs/performance.md#purge: the checkpoint's fsync inside a step stalled requests).
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { DAY_MS } from '../../../src/shared/constants'
import { purgeDeletedTeams } from '../../../src/server/jobs/purge'
import { silentLogger } from '../../../src/server/lib/log'
import { openSqliteStore } from '../../../src/server/store/sqlite'
import { openDatabase } from '../../../src/server/store/sqlite/client'
import { walCheckpoints } from '../../../src/server/store/sqlite/wal-checkpoints'
import { testApp } from '../../support/helpers'
import { tempDir } from '../../support/temp'

/**
 * The WAL's frames and how many of them are copied into the database file, from the shared-memory
 * index SQLite keeps beside it (its header's mxFrame, and nBackfill after the two header copies).
 */
function walState(file: string) {
	const shm = readFileSync(`${file}-shm`)
	return { frames: shm.readUInt32LE(16), copied: shm.readUInt32LE(96) }
}

/** Writes about `pages` pages into the WAL with no checkpoint, through a connection of its own. */
function fillWal(file: string, pages: number) {
	const other = new Database(file)
	other.run('PRAGMA wal_autocheckpoint = 0')
	other.run('CREATE TABLE IF NOT EXISTS filler (data BLOB)')
	other.run('INSERT INTO filler VALUES (randomblob(?))', [pages * 4096])
	other.close()
}

describe('WAL checkpoints of background steps (SQLite)', () => {
	test("a step's commit checkpoints nothing on the server's thread, even past the threshold; another thread then copies the whole WAL", async () => {
		const file = join(tempDir('wal-step'), 'cfgsync.db')
		const sqlite = openDatabase(file)
		sqlite.run('CREATE TABLE steps (n INTEGER)')
		// Past SQLite's own threshold (1,000 pages): a commit on this connection would checkpoint it all.
		fillWal(file, 1200)
		const before = walState(file)
		expect(before.frames).toBeGreaterThan(1000)
		expect(before.copied).toBeLessThan(before.frames)
		const checkpoints = walCheckpoints(sqlite, file)
		const step = checkpoints.afterStep(() => {
			sqlite.run('INSERT INTO steps VALUES (1)')
			return 7
		})
		// The step's transaction has committed synchronously; its checkpoint runs elsewhere meanwhile.
		const atCommit = walState(file)
		expect(await step).toBe(7)
		expect(atCommit.copied).toBe(before.copied)
		expect(atCommit.frames).toBeGreaterThan(before.frames)
		const after = walState(file)
		expect(after.copied).toBe(after.frames)
		// The connection's own threshold is back for the requests' commits.
		expect((sqlite.query('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(
			1000
		)
		checkpoints.end()
		sqlite.close()
	})

	test('a step that fails keeps its error, and the connection its threshold', async () => {
		const file = join(tempDir('wal-step'), 'cfgsync.db')
		const sqlite = openDatabase(file)
		const checkpoints = walCheckpoints(sqlite, file)
		await expect(
			checkpoints.afterStep(() => {
				throw new Error('constraint failed')
			})
		).rejects.toThrow('constraint failed')
		expect((sqlite.query('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint).toBe(
			1000
		)
		checkpoints.end()
		sqlite.close()
	})

	test("after each purge step and each prune step the team's and the log's deletions are in the database file, not left in the WAL", async () => {
		const file = join(tempDir('wal-purge'), 'cfgsync.db')
		const store = openSqliteStore(file)
		const t = testApp({ store })
		const owner = await t.user('team')
		const team = (await t.call('POST', '/api/teams', { key: owner.key, body: { name: 'Acme' } })).body
		for (let i = 0; i < 12; i++) {
			const push = await t.call('POST', '/api/configs', {
				key: owner.key,
				body: { teamId: team.id, name: `shared-${i % 4}`, tool: 'cursor', data: { i } }
			})
			expect(push.status).toBe(i < 4 ? 201 : 200)
		}
		expect((await t.call('DELETE', '/api/teams/acme', { key: owner.key })).status).toBe(204)
		t.clock.advance(31 * DAY_MS)
		const states: ReturnType<typeof walState>[] = []
		const purgeStep = store.teams.purgeStep
		store.teams.purgeStep = async (teamId, limit) => {
			const removed = await purgeStep(teamId, limit)
			states.push(walState(file))
			return removed
		}
		const prune = store.audit.prune
		store.audit.prune = async (before, limit) => {
			const removed = await prune(before, limit)
			states.push(walState(file))
			return removed
		}
		expect(await purgeDeletedTeams({ store, clock: t.clock, logger: silentLogger, batch: 3 })).toBe(1)
		await store.audit.prune(new Date(t.clock.now() + DAY_MS).toISOString(), 5)
		// A handful of small steps: each far under the 1,000 pages at which a commit would checkpoint.
		expect(states.length).toBeGreaterThanOrEqual(5)
		for (const state of states) expect(state.copied).toBe(state.frames)
		store.close()
	})
})
