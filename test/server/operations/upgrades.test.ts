import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { openWithMasterKey } from '../../../src/server/boot'
import { SCHEMA } from '../../../src/server/build-info'
import { loadConfig } from '../../../src/server/config'
import { systemClock } from '../../../src/server/lib/clock'
import { ADMIN_COMMAND, createAuditEvents } from '../../../src/server/modules/audit/event'
import { openSqliteStore } from '../../../src/server/store/sqlite'
import { applyMigrations } from '../../../src/server/store/sqlite/migrate'
import { migrations } from '../../../src/server/store/sqlite/migrations'
import { newPostgresDatabase, TEST_ENGINE } from '../../support/engine'
import { serverCli } from '../../support/source-cli'
import { tempDir } from '../../support/temp'

/** docs/operations.md and issue 37.3: no downgrade writes; a backup before every upgrade; clean db copy failures. */
const KEY = Buffer.alloc(32, 5).toString('base64')
const event = createAuditEvents(systemClock)

/** A data directory, or a PostgreSQL database, as `serve` left it: migrated, with its key check. */
async function startedOnce() {
	const dataDir = tempDir('upgrade')
	const databaseUrl = TEST_ENGINE === 'postgres' ? await newPostgresDatabase() : undefined
	const config = { ...loadConfig({ dataDir }), databaseUrl, masterKey: KEY, databasePool: 2 }
	const opened = await openWithMasterKey(config)
	return { config, store: opened.store, dataDir }
}

/** Runs one statement on the database under test, beside the store. */
async function execute(config: { dataDir: string; databaseUrl?: string }, statement: string) {
	if (config.databaseUrl === undefined) {
		const database = new Database(join(config.dataDir, 'cfgsync.db'))
		database.run(statement)
		database.close()
		return
	}
	const client = new SQL({ url: config.databaseUrl, max: 1 })
	await client.unsafe(statement)
	await client.close()
}

describe('a database whose schema is newer than this binary', () => {
	test('is refused at start, with one line naming both schemas, and nothing is written', async () => {
		const { config, store } = await startedOnce()
		store.close()
		const newest = migrations[migrations.length - 1]?.folderMillis ?? 0
		await execute(
			config,
			`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-the-future', ${newest + 1000})`
		)
		const refused = await openWithMasterKey(config).then(
			(opened) => {
				opened.store.close()
				return undefined
			},
			(error: Error) => error.message
		)
		expect(refused).toContain(`schema is ${SCHEMA + 1}, newer than this binary's ${SCHEMA}`)
		expect(refused?.split('\n')).toHaveLength(1)
	})

	test.skipIf(TEST_ENGINE === 'postgres')(
		'every admin command refuses it too (SQLite, from the terminal)',
		async () => {
			const { config, store } = await startedOnce()
			store.close()
			const newest = migrations[migrations.length - 1]?.folderMillis ?? 0
			await execute(
				config,
				`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-the-future', ${newest + 1})`
			)
			const add = ['user', 'add', '--email', 'a@example.test', '--username', 'a', '--password', 'password-a']
			for (const args of [add, ['user', 'list'], ['invite', 'create'], ['serve', '--port', '0']]) {
				const result = await serverCli([...args, '--data-dir', config.dataDir], { CFGSYNC_MASTER_KEY: KEY })
				expect({ args, code: result.code, lines: result.stderr.trim().split('\n').length }).toEqual({
					args,
					code: 1,
					lines: 1
				})
				expect(result.stderr).toContain('newer than this binary')
			}
			const database = new Database(join(config.dataDir, 'cfgsync.db'), { readonly: true })
			expect(database.query('SELECT count(*) AS n FROM users').get()).toEqual({ n: 0 })
			database.close()
		},
		30_000
	)
})

describe.skipIf(TEST_ENGINE === 'postgres')('before an existing SQLite database is migrated', () => {
	test('a pre-upgrade-<old schema>-<time>.db backup is written (0600), in the backup dir when there is one', async () => {
		for (const backupDir of [undefined, 'backups']) {
			const dataDir = tempDir('pre-upgrade')
			const older = new Database(join(dataDir, 'cfgsync.db'), { create: true })
			applyMigrations(older, migrations.slice(0, migrations.length - 1))
			older.close()
			const where = backupDir === undefined ? dataDir : join(dataDir, backupDir)
			const config = { ...loadConfig({ dataDir }), masterKey: KEY, backupDir: backupDir && where }
			const opened = await openWithMasterKey(config)
			opened.store.close()
			const made = readdirSync(where).filter((name) => name.startsWith('pre-upgrade-'))
			expect(made).toHaveLength(1)
			expect(made[0]).toMatch(new RegExp(`^pre-upgrade-${SCHEMA - 1}-\\d{4}-\\d{2}-\\d{2}T[\\d-]+Z\\.db$`))
			expect(statSync(join(where, made[0] as string)).mode & 0o777).toBe(0o600)
			const kept = new Database(join(where, made[0] as string), { readonly: true })
			expect(kept.query('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: SCHEMA - 1 })
			kept.close()
			// A start on the migrated database makes none.
			;(await openWithMasterKey(config)).store.close()
			expect(readdirSync(where).filter((name) => name.startsWith('pre-upgrade-'))).toHaveLength(1)
		}
	})
})

describe('audit rows without a feed number (written by an older release after a downgrade)', () => {
	test('are numbered at start, after the others, in the order they were written', async () => {
		const { config, store } = await startedOnce()
		for (const name of ['one', 'two', 'three', 'four'])
			await store.audit.record(event('backup.written', ADMIN_COMMAND, { target: { type: 'server', name } }))
		const numbered = async () =>
			(await store.audit.feed(0, 100)).map((row) => [row.seq, (row as { targetName?: string }).targetName])
		const before = await numbered()
		expect(before).toHaveLength(4)
		store.close()
		await execute(config, `UPDATE audit_events SET seq = NULL WHERE target_name IN ('three', 'four')`)
		const again = await openWithMasterKey(config)
		const rows = (await again.store.audit.feed(0, 100)).map((row) => row.seq)
		expect(rows).toHaveLength(4)
		expect(new Set(rows).size).toBe(4)
		again.store.close()
	})
})

describe('db copy that fails half-way', () => {
	test('says why in one line, without row contents, and leaves the target empty', async () => {
		const dir = tempDir('copy-fails')
		const data = join(dir, 'data')
		const add = ['user', 'add', '--email', 'secret-person@example.test', '--username', 'secretperson']
		expect((await serverCli([...add, '--password', 'password-s', '--data-dir', data])).code).toBe(0)
		let target: string
		let countRows: () => Promise<number>
		if (TEST_ENGINE === 'postgres') {
			target = await newPostgresDatabase()
			await execute(
				{ dataDir: dir, databaseUrl: target },
				`CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'could not extend file: No space left on device'; END $$ LANGUAGE plpgsql; CREATE TRIGGER refuse BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION refuse()`
			)
			countRows = async () => {
				const client = new SQL({ url: target, max: 1 })
				const [row] = (await client.unsafe('SELECT (SELECT count(*) FROM users)::int AS n')) as { n: number }[]
				await client.close()
				return row?.n ?? -1
			}
		} else {
			target = join(dir, 'copy', 'cfgsync.db')
			mkdirSync(join(dir, 'copy'))
			openSqliteStore(target).close()
			await execute(
				{ dataDir: join(dir, 'copy') },
				`CREATE TRIGGER refuse BEFORE INSERT ON audit_events BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`
			)
			countRows = async () => {
				const database = new Database(target, { readonly: true })
				const row = database.query('SELECT count(*) AS n FROM users').get() as { n: number }
				database.close()
				return row.n
			}
		}
		const copy = await serverCli(['db', 'copy', '--to', target, '--data-dir', data])
		expect(copy.code).toBe(1)
		expect(copy.stderr.trim().split('\n')).toHaveLength(1)
		expect(copy.stderr).toContain('audit_events')
		expect(copy.stderr).toContain('emptied')
		expect(copy.stderr).not.toContain('secret')
		expect(copy.stderr).not.toContain('insert into')
		expect(await countRows()).toBe(0)
	}, 30_000)
})
