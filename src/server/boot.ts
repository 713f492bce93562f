import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Config } from './config'
import { createSealer, generateMasterKey, openPendingKey, parseMasterKey, type Sealer } from './lib/crypto'
import {
	KEY_CHECK,
	opensKeyCheck,
	parseRetiredKeys,
	PENDING_KEY_META,
	RETIRED_KEYS_META,
	sealKeyCheck
} from './lib/key-check'
import { describeUrl } from './store/postgres/url'
import { backUpSqliteBeforeUpgrade, PreUpgradeBackupError } from './store/sqlite/pre-upgrade'
import { giveToDataDirOwner } from './lib/ownership'
import { openSqliteStore } from './store/sqlite'
import type { OpenOptions, Store } from './store/types'
import { processAlive } from '../shared/process'

export const DATABASE_FILE = 'cfgsync.db'
export const MASTER_KEY_FILE = 'master.key'

/** A start-up failure with a message meant to be printed as is. */
export class BootError extends Error {}

/** Creates the data directory (private to this user) if it is missing. */
export function ensureDataDir(dataDir: string) {
	if (!existsSync(dataDir)) mkdirSync(dataDir, { recursive: true, mode: 0o700 })
}

/**
 * For admin commands that touch no config data: just the store. `onCreate`
 * hears of it before a new database is made (docs/operations.md: a command run from
 * the wrong directory must be noticed).
 */
export async function openStore(
	config: Config,
	onCreate: (file: string) => void = () => {},
	options: OpenOptions = {}
): Promise<Store> {
	if (config.databaseUrl !== undefined) return openConfigured(config, options)
	const file = join(config.dataDir, DATABASE_FILE)
	// Asked before the directory is made: a command that may not create a database throws here, leaving nothing behind.
	if (!existsSync(file)) onCreate(file)
	ensureDataDir(config.dataDir)
	const kept = backUpBeforeUpgrade(config)
	if (kept !== undefined) process.stderr.write(`cfgsync-server: backed up the database before upgrading it: ${kept}\n`)
	return openSqliteStore(file, options)
}

/** The configured database (docs/postgresql.md): PostgreSQL at the URL, else SQLite in the data directory. */
async function openConfigured(config: Config, options: OpenOptions = {}): Promise<Store> {
	if (config.databaseUrl === undefined) return openSqliteStore(join(config.dataDir, DATABASE_FILE), options)
	try {
		// Loaded only here: an SQLite server or admin command never loads PostgreSQL's driver and schema.
		const { openPostgresStore } = await import('./store/postgres')
		return await openPostgresStore(config.databaseUrl, { ...options, max: config.databasePool })
	} catch (error) {
		if (error instanceof BootError) throw error
		throw new BootError(
			(error as Error).message.startsWith('cannot connect')
				? (error as Error).message
				: `the PostgreSQL database ${describeUrl(config.databaseUrl)}: ${(error as Error).message}`
		)
	}
}

/**
 * docs/operations.md: before an existing SQLite database is migrated, a copy of it as it was:
 * `pre-upgrade-<old schema>-<time>.db` in the backup directory (else the data directory), 0600,
 * made with VACUUM INTO (whole or not at all). The way back after an upgrade (docs/operations.md,
 * "Rolling back"). Nothing when there is nothing to migrate, or no database yet. Returns the file.
 */
export function backUpBeforeUpgrade(config: Config): string | undefined {
	if (config.databaseUrl !== undefined) return undefined
	const file = join(config.dataDir, DATABASE_FILE)
	try {
		const target = backUpSqliteBeforeUpgrade(file, config.backupDir ?? config.dataDir)
		if (target !== undefined) giveToDataDirOwner(config.dataDir, [target])
		return target
	} catch (error) {
		if (!(error instanceof PreUpgradeBackupError)) throw error
		throw new BootError(
			`could not back up ${file} before upgrading it (${error.message}); nothing was changed: free some space or set --backup-dir, then start again`
		)
	}
}

/** Where the data is, for messages: the SQLite file or the PostgreSQL URL (password masked). */
export const databaseName = (config: Config): string =>
	config.databaseUrl !== undefined ? describeUrl(config.databaseUrl) : join(config.dataDir, DATABASE_FILE)

/**
 * docs/operations.md: the master key comes from CFGSYNC_MASTER_KEY, else from
 * `<data-dir>/master.key`, created (0600) on first start. A malformed key, or
 * a key that does not open the database's key check, stops the start before
 * anything is migrated or written. The check is read, or made on a new
 * database, in the transaction that applies the migrations: two first starts
 * at once run it one after the other, so the second finds the first's check
 * and refuses a different key.
 */
export async function openWithMasterKey(config: Config): Promise<{
	store: Store
	sealer: Sealer
	createdKeyFile: boolean
	createdDatabase: boolean
	rotatedKeyNotSaved: boolean
	preUpgradeBackup: string | undefined
}> {
	ensureDataDir(config.dataDir)
	const preUpgradeBackup = backUpBeforeUpgrade(config)
	const keyFile = join(config.dataDir, MASTER_KEY_FILE)
	const keySource = masterKeySource(config)
	const readKey = () => readMasterKey(config)
	const initial = readKey()
	let sealer = initial ? createSealer(initial) : undefined
	let createdKeyFile = false
	let rotatedKeyNotSaved = false
	let createdDatabase = config.databaseUrl === undefined && !existsSync(join(config.dataDir, DATABASE_FILE))
	const where =
		config.databaseUrl !== undefined ? `the PostgreSQL database ${describeUrl(config.databaseUrl)}` : config.dataDir
	const store = await openConfigured(config, {
		withinMigration(meta) {
			const check = meta.get(KEY_CHECK.meta)
			if (check === undefined) {
				if (config.databaseUrl !== undefined) createdDatabase = true
				if (!sealer) {
					sealer = createSealer(createKeyFile(keyFile))
					createdKeyFile = true
				}
				meta.set(KEY_CHECK.meta, sealKeyCheck(sealer))
				return
			}
			// A first start beside this one may have written the key file after we looked.
			if (!sealer) {
				const late = readKey()
				sealer = late && createSealer(late)
			}
			if (!sealer) {
				throw new BootError(
					`the database in ${where} is encrypted, but there is no master key: set CFGSYNC_MASTER_KEY or restore ${keyFile}`
				)
			}
			if (!opensKeyCheck(sealer, check)) {
				// A rotation that re-sealed the check but was stopped before saving its new key (docs/operations.md):
				// the new key is in the database, sealed under this one.
				const pending = meta.get(PENDING_KEY_META)
				const next = pending === undefined ? undefined : openPendingKey(sealer, pending)
				if (next && opensKeyCheck(createSealer(next), check)) {
					sealer = createSealer(next)
					rotatedKeyNotSaved = true
					return
				}
				const retired = parseRetiredKeys(meta.get(RETIRED_KEYS_META)).find((entry) => entry.id === sealer?.keyId())
				if (retired) {
					throw new BootError(
						`the master key was rotated on ${retired.rotatedAt}: ${keySource} holds the old key, which opens nothing in ${where} any more; start with the new key (${config.masterKey !== undefined ? 'rekey printed it: set CFGSYNC_MASTER_KEY to it' : `rekey saved it in ${keyFile}`}); refusing to start`
					)
				}
				throw new BootError(
					`the master key does not match the database in ${where} (${keySource} is not the key it was created with); refusing to start`
				)
			}
		}
	})
	return { store, sealer: sealer as Sealer, createdKeyFile, createdDatabase, rotatedKeyNotSaved, preUpgradeBackup }
}

/** Where the master key comes from: the variable, or the data directory's key file. */
export const masterKeySource = (config: Config): string =>
	config.masterKey !== undefined ? 'CFGSYNC_MASTER_KEY' : join(config.dataDir, MASTER_KEY_FILE)

/** The configured master key, or undefined when there is none yet; a malformed one is a BootError. */
export function readMasterKey(config: Config): Buffer | undefined {
	if (config.masterKey !== undefined) return parseOrFail(config.masterKey, 'CFGSYNC_MASTER_KEY')
	const keyFile = join(config.dataDir, MASTER_KEY_FILE)
	return existsSync(keyFile) ? parseOrFail(readFileSync(keyFile, 'utf8'), keyFile) : undefined
}

/** Writes a fresh key, mode 0600; if another process just wrote one, uses that instead. */
function createKeyFile(keyFile: string): Buffer {
	const fresh = generateMasterKey()
	try {
		// 'wx': never overwrite an existing key file.
		writeFileSync(keyFile, `${fresh.toString('base64')}\n`, { mode: 0o600, flag: 'wx' })
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
		return parseOrFail(readFileSync(keyFile, 'utf8'), keyFile)
	}
	chmodSync(keyFile, 0o600)
	return fresh
}

function parseOrFail(text: string, source: string): Buffer {
	try {
		return parseMasterKey(text)
	} catch (error) {
		throw new BootError(
			`${source}: ${(error as Error).message} (expected base64 of 32 random bytes, e.g. from \`openssl rand -base64 32\`)`
		)
	}
}

/**
 * Which servers use a data directory, so `restore` can refuse while one runs
 * (docs/operations.md). Each `serve` process leaves `cfgsync-server.<pid>.pid` with
 * its start time (a reused pid is told apart) and removes it when it stops; a
 * file left by a killed server names a process that is gone, and is ignored.
 */
export function registerServer(dataDir: string): () => void {
	const file = join(dataDir, `cfgsync-server.${process.pid}.pid`)
	writeFileSync(file, `${process.pid} ${processStart(process.pid) ?? ''}\n`, { mode: 0o600 })
	const remove = () => rmSync(file, { force: true })
	process.on('exit', remove)
	return remove
}

/** Pids of servers running now on this data directory. */
export function liveServers(dataDir: string): number[] {
	if (!existsSync(dataDir)) return []
	const live: number[] = []
	for (const name of readdirSync(dataDir)) {
		const match = name.match(/^cfgsync-server\.(\d+)\.pid$/)
		if (!match) continue
		const [pidText = '', started = ''] = readFileSync(join(dataDir, name), 'utf8').trim().split(' ')
		const pid = Number(pidText)
		if (pid === process.pid || !processAlive(pid)) continue
		if (started !== '' && processStart(pid) !== undefined && processStart(pid) !== started) continue
		live.push(pid)
	}
	return live
}

/** A process's start time in clock ticks since boot (Linux), to tell a reused pid from the server that wrote the file. */
function processStart(pid: number): string | undefined {
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
		return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]
	} catch {
		return undefined
	}
}
