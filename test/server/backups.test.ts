import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pruneBackups, writeVerifiedBackup } from '../../src/server/jobs/backup'
import { createSealer, generateMasterKey } from '../../src/server/lib/crypto'
import { KEY_CHECK, sealKeyCheck } from '../../src/server/lib/key-check'
import { silentLogger } from '../../src/server/lib/log'
import { openSqliteStore } from '../../src/server/store/sqlite'
import { verifySqliteBackup } from '../../src/server/store/sqlite/verify'
import { testApp } from '../support/helpers'
import { tempDir } from '../support/temp'

async function serverData() {
	const dir = tempDir('backup-src')
	// SQLite only: backups are SQLite files (PostgreSQL is backed up with pg_dump).
	const file = join(dir, 'cfgsync.db')
	const store = openSqliteStore(file)
	const t = testApp({ store })
	await store.meta.set(KEY_CHECK.meta, sealKeyCheck(t.sealer))
	const alice = await t.user('pro', 'alice')
	await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v: 1 } } })
	return { t, store, alice, file }
}

describe('scheduled backups (docs/operations.md)', () => {
	test('a backup is checked, then appears whole under its time as 0600; the oldest beyond keep are removed', async () => {
		const { t, store } = await serverData()
		const dir = join(tempDir('backups'), 'nested')
		const written: string[] = []
		for (let i = 0; i < 4; i++) {
			written.push(
				await writeVerifiedBackup({ store, sealer: t.sealer, clock: t.clock, logger: silentLogger, dir, keep: 3 })
			)
			t.clock.advance(1000)
		}
		const names = readdirSync(dir)
		expect(names.sort()).toEqual(
			written
				.slice(1)
				.map((file) => file.slice(dir.length + 1))
				.sort()
		)
		for (const name of names) {
			expect(name).toMatch(/^cfgsync-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/)
			expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600)
			expect(verifySqliteBackup(join(dir, name), t.sealer, { exact: true })).toBeUndefined()
		}
		expect(existsSync(written[0] as string)).toBe(false)
		expect(statSync(dir).mode & 0o777).toBe(0o700)
	})

	test('a backup that fails its check is not kept and is reported; nothing half-written is left', async () => {
		const { t, store } = await serverData()
		const dir = tempDir('backups-bad')
		const otherKey = createSealer(generateMasterKey())
		await expect(
			writeVerifiedBackup({ store, sealer: otherKey, clock: t.clock, logger: silentLogger, dir, keep: 3 })
		).rejects.toThrow('the backup failed its check: the master key does not open it')
		expect(readdirSync(dir)).toEqual([])
	})

	test('verification refuses damaged files, files that are not cfgsync databases, and another key', async () => {
		const { t, store } = await serverData()
		const dir = tempDir('verify')
		const good = join(dir, 'good.db')
		await store.backup(good)
		expect(verifySqliteBackup(good, t.sealer, { exact: true })).toBeUndefined()
		expect(verifySqliteBackup(good, createSealer(generateMasterKey()), { exact: true })).toContain(
			'the master key does not open it'
		)
		const garbage = join(dir, 'garbage.db')
		writeFileSync(garbage, 'this is not a database at all, just text '.repeat(200))
		expect(verifySqliteBackup(garbage, t.sealer, { exact: true })).toMatch(/cannot|damaged|not a cfgsync/)
		const other = join(dir, 'other.db')
		new Database(other).run('CREATE TABLE notes (x)')
		expect(verifySqliteBackup(other, t.sealer, { exact: true })).toBe('it is not a cfgsync database')
		// Every page after the first gets a page type no b-tree has: caught by the integrity check or by reading.
		const damaged = join(dir, 'damaged.db')
		const bytes = await Bun.file(good).bytes()
		const pageSize = ((bytes[16] as number) << 8) | (bytes[17] as number)
		for (let page = pageSize; page < bytes.length; page += pageSize) bytes[page] = 0x42
		writeFileSync(damaged, bytes)
		expect(verifySqliteBackup(damaged, t.sealer, { exact: true })).toBeDefined()
	})

	test('pruning keeps only backup files: anything else in the directory is left alone', () => {
		const dir = tempDir('prune')
		for (const name of [
			'cfgsync-2026-01-01T03-00-00-000Z.db',
			'cfgsync-2026-01-02T03-00-00-000Z.db',
			'cfgsync-2026-01-03T03-00-00-000Z.db',
			'notes.txt',
			'cfgsync.db'
		]) {
			writeFileSync(join(dir, name), 'x')
		}
		expect(pruneBackups(dir, 1)).toEqual(['cfgsync-2026-01-01T03-00-00-000Z.db', 'cfgsync-2026-01-02T03-00-00-000Z.db'])
		expect(readdirSync(dir).sort()).toEqual(['cfgsync-2026-01-03T03-00-00-000Z.db', 'cfgsync.db', 'notes.txt'])
	})
})

describe('a backup never stops the server (docs/operations.md, "Backups and restore")', () => {
	test('requests are answered while a backup copies and checks a database of 40 MB', async () => {
		const { t, store, alice, file } = await serverData()
		// Big enough that copying and checking it takes far longer than answering a request (tens of ms or more).
		const raw = new Database(file, { strict: true })
		raw.run('CREATE TABLE IF NOT EXISTS ballast (b BLOB)')
		const insert = raw.prepare('INSERT INTO ballast (b) VALUES (randomblob(1048576))')
		raw.transaction(() => {
			for (let i = 0; i < 40; i++) insert.run()
		})()
		raw.close()
		const dir = tempDir('backups-busy')
		let backupDone = false
		const backup = writeVerifiedBackup({
			store,
			sealer: t.sealer,
			clock: t.clock,
			logger: silentLogger,
			dir,
			keep: 3
		}).then((file) => {
			backupDone = true
			return file
		})
		const answered: boolean[] = []
		for (let i = 0; i < 3; i++) {
			const me = await t.call('GET', '/api/me', { key: alice.key })
			expect(me.status).toBe(200)
			answered.push(!backupDone)
		}
		// On the server's own thread the copy and the check ran before any of these requests could start.
		expect(answered).toEqual([true, true, true])
		expect(verifySqliteBackup(await backup, t.sealer, { exact: true })).toBeUndefined()
	})
})
