import { DATABASE_FILE, openStore, readMasterKey } from '../boot'
import { giveToDataDirOwner } from '../lib/ownership'
import { join } from 'node:path'
import { CliError } from './io'
import { loadConfig, type Config, type ConfigFlags } from '../config'
import { systemClock } from '../lib/clock'
import { createLogger } from '../lib/log'
import { createPasswordHasher } from '../lib/passwords'
import { createAuditEvents } from '../modules/audit/event'
import { createKeyIssuer } from '../modules/auth/service'
import { createUsersService } from '../modules/users/service'
import { createSignupService } from '../modules/signup/service'
import type { Store } from '../store/types'

/**
 * What admin commands work with: the same store and services as the HTTP
 * server, on the same file, safe while the server runs (WAL,
 * immediate transactions, busy timeout).
 */
const ADMIN_POOL = 2

export async function withAdmin<T>(
	dataDir: string | undefined,
	body: (admin: ReturnType<typeof adminServices>) => Promise<T>,
	flags: Omit<ConfigFlags, 'dataDir'> = {},
	{ creates = false }: { creates?: boolean } = {}
): Promise<T> {
	// One command, one statement at a time: two connections are plenty, and leave the fleet's share to the servers.
	const configured = loadConfig({ ...flags, dataDir })
	const config = { ...configured, databasePool: Math.min(configured.databasePool, ADMIN_POOL) }
	refuseMalformedKey(config)
	const store = await openStore(config, (file) => {
		// docs/operations.md: only serve, user add, invite create and restore make a database; a misspelt --data-dir is an error elsewhere.
		if (!creates)
			throw new CliError(
				`no database at ${file}: check --data-dir (or CFGSYNC_DATA_DIR, now ${config.dataDir}); nothing was created`
			)
		process.stderr.write(
			`cfgsync-server: no database at ${file}: creating a new one (pass --data-dir to use another)\n`
		)
	})
	const files = databaseFiles(config)
	giveToDataDirOwner(config.dataDir, files)
	try {
		return await body(adminServices(store, config))
	} finally {
		store.close()
		giveToDataDirOwner(config.dataDir, files)
	}
}

/** The SQLite files an admin command may create in the data directory (none on PostgreSQL). */
export function databaseFiles(config: Config): string[] {
	if (config.databaseUrl !== undefined) return []
	const database = join(config.dataDir, DATABASE_FILE)
	return [database, `${database}-wal`, `${database}-shm`]
}

/** docs/operations.md: a malformed CFGSYNC_MASTER_KEY (or master.key) is refused by every command, even one that needs no key. */
export function refuseMalformedKey(config: Config) {
	try {
		readMasterKey(config)
	} catch (error) {
		throw new CliError((error as Error).message)
	}
}

function adminServices(store: Store, config: Config) {
	// Admin output is for a person on stdout; the job log goes to stderr so it never mixes in.
	const logger = createLogger({ level: config.logLevel, write: (chunk) => void process.stderr.write(chunk) })
	const deps = { store, clock: systemClock, passwords: createPasswordHasher(), logger }
	return {
		store,
		logger,
		clock: systemClock,
		auditRetentionDays: config.auditRetentionDays,
		config,
		users: createUsersService(deps),
		signups: createSignupService(deps),
		issueKey: createKeyIssuer(deps),
		event: createAuditEvents(systemClock)
	}
}
