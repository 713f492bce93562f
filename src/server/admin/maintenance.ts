import { chmodSync, constants, copyFileSync, existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { PG_DUMP_ADVICE } from '../store/postgres'
import { DATABASE_FILE, ensureDataDir, liveServers, masterKeySource, readMasterKey } from '../boot'
import { loadConfig } from '../config'
import { createSealer } from '../lib/crypto'
import { ADMIN_COMMAND } from '../modules/audit/event'
import { openDatabase } from '../store/sqlite/client'
import { verifySqliteBackup } from '../store/sqlite/verify'
import { housekeeping } from '../jobs/purge'
import { giveToDataDirOwner } from '../lib/ownership'
import { LOCK_FILE, takeExclusiveLock } from '../lib/data-dir-lock'
import { CliError, parseCommand, usageError } from './io'
import { withAdmin } from './context'
import { OPTIONS } from './commands'
import { givenValue } from '../settings'

export async function purgeCommand(args: string[]) {
	const { values } = parseCommand(args, OPTIONS.purge)
	const count = await withAdmin(values['data-dir'], (admin) => housekeeping(admin))
	process.stdout.write(
		count === 0 ? 'nothing to purge\n' : `purged ${count} team${count === 1 ? '' : 's'} deleted more than 30 days ago\n`
	)
}

export async function backupCommand(args: string[]) {
	const { values, positionals } = parseCommand(args, OPTIONS.backup)
	if (positionals.length !== 1) throw usageError(`expected FILE`)
	const target = resolve(positionals[0]!)
	await withAdmin(values['data-dir'], async (admin) => {
		try {
			await admin.store.backup(target)
			giveToDataDirOwner(admin.config.dataDir, [target])
			await admin.store.audit.record(
				admin.event('backup.written', ADMIN_COMMAND, { target: { type: 'server', name: target } })
			)
		} catch (error) {
			throw new CliError(`backup to ${target} failed: ${(error as Error).message}`)
		}
	})
	process.stdout.write(
		`backup written to ${target} (the master key is not in it: keep master.key or CFGSYNC_MASTER_KEY safe separately)\n`
	)
}

/**
 * docs/operations.md: `restore` and `db copy` refuse while any server holds the data directory's lock (seen
 * across containers and PID namespaces); once taken, the lock keeps servers from starting until this
 * command ends. Pid files, where they name a live server, only make the message more precise.
 */
export function refuseWhileServed(dataDir: string, command: 'restore' | 'db copy') {
	const servers = liveServers(dataDir)
	const lock = takeExclusiveLock(dataDir)
	if (lock && servers.length === 0) return
	lock?.release()
	const who =
		servers.length > 0
			? `a server (pid ${servers.join(', ')})`
			: `a server (it holds ${join(dataDir, LOCK_FILE)}; perhaps in another container)`
	throw new CliError(
		`${who} is using ${dataDir}: stop it first, then run ${command} again${command === 'db copy' ? ', so the copy is of one moment' : ''}`
	)
}

/** For container HEALTHCHECKs on images without curl: exit 0 when /healthz answers 200. */
export async function healthcheckCommand(args: string[]) {
	const { values } = parseCommand(args, OPTIONS.healthcheck)
	const port = givenValue('port', undefined, process.env) ?? '8787'
	const url = values.url ?? `http://127.0.0.1:${port}/healthz`
	const response = await fetch(url, { signal: AbortSignal.timeout(3000) }).catch((error: Error) => {
		throw new CliError(`${url}: ${error.message}`)
	})
	if (response.status !== 200) throw new CliError(`${url} answered ${response.status}`)
	process.stdout.write('ok\n')
}

/**
 * docs/operations.md `restore FILE`: checks the backup (integrity, schema, the master
 * key opens it), refuses while a server uses the data directory, keeps the
 * replaced database as `cfgsync.db.before-restore-<time>`, then puts a copy
 * of the backup in its place (the backup file itself is left as it was).
 */
export async function restoreCommand(args: string[]) {
	const { values, positionals } = parseCommand(args, OPTIONS.restore)
	if (positionals.length !== 1) throw usageError('expected FILE')
	const backup = resolve(positionals[0]!)
	const config = loadConfig({ dataDir: values['data-dir'] })
	if (config.databaseUrl !== undefined)
		throw new CliError(`restore puts a SQLite backup in place, but ${PG_DUMP_ADVICE}; restore a dump with pg_restore`)
	if (!existsSync(backup)) throw new CliError(`${backup} does not exist`)
	// Held until this process ends, so no server starts on the data directory while the file is swapped.
	if (existsSync(config.dataDir)) refuseWhileServed(config.dataDir, 'restore')
	let key: Buffer | undefined
	try {
		key = readMasterKey(config)
	} catch (error) {
		throw new CliError((error as Error).message)
	}
	if (!key)
		throw new CliError(
			`no master key: set CFGSYNC_MASTER_KEY or put the key the backup was made with in ${masterKeySource(config)}`
		)
	const problem = verifySqliteBackup(backup, createSealer(key), { exact: false })
	if (problem !== undefined) {
		const older = existsSync(config.dataDir)
			? readdirSync(config.dataDir)
					.filter((name) => name.startsWith('master.key.before-rekey-'))
					.sort()
			: []
		const hint =
			problem.startsWith('the master key does not open it') && older.length > 0
				? `; if it was made before a key rotation, restore it with the old key: CFGSYNC_MASTER_KEY="$(cat ${join(config.dataDir, older[older.length - 1] as string)})" cfgsync-server restore ${backup}, and start the server with that key (or run rekey with it)`
				: ''
		throw new CliError(`${backup} cannot be restored: ${problem}; nothing was changed${hint}`)
	}

	ensureDataDir(config.dataDir)
	const database = join(config.dataDir, DATABASE_FILE)
	let kept: string | undefined
	if (existsSync(database)) {
		// Fold the WAL into the file first, so the kept copy is whole on its own.
		const current = openDatabase(database)
		current.run('PRAGMA wal_checkpoint(TRUNCATE)')
		current.close()
		kept = `${database}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`
		renameSync(database, kept)
		for (const companion of [`${database}-wal`, `${database}-shm`]) rmSync(companion, { force: true })
	}
	const temporary = `${database}.restoring-${process.pid}`
	copyFileSync(backup, temporary, constants.COPYFILE_EXCL)
	chmodSync(temporary, 0o600)
	giveToDataDirOwner(config.dataDir, [temporary])
	renameSync(temporary, database)
	// Opening applies any newer migrations; the restore is then recorded in the restored database.
	await withAdmin(
		values['data-dir'],
		async (admin) => {
			// The backup's heartbeats are of servers that ran when it was made; none runs now (restore refuses
			// then), and a key rotation's roll call must not wait a minute for them.
			await admin.store.instances.seenSince(Number.MAX_SAFE_INTEGER)
			await admin.store.audit.record(
				admin.event('backup.restored', ADMIN_COMMAND, {
					target: { type: 'server', name: basename(backup) },
					details: { kept: kept ? basename(kept) : null }
				})
			)
		},
		{},
		{ creates: true }
	)
	process.stdout.write(
		`restored ${backup} into ${database}${kept ? `; the database it replaced is kept as ${kept}` : ''}\n`
	)
}
