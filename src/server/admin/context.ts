import { openStore } from '../boot'
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
export async function withAdmin<T>(
	dataDir: string | undefined,
	body: (admin: ReturnType<typeof adminServices>) => Promise<T>,
	flags: Omit<ConfigFlags, 'dataDir'> = {}
): Promise<T> {
	const config = loadConfig({ ...flags, dataDir })
	const store = await openStore(config, (file) =>
		process.stderr.write(
			`cfgsync-server: no database at ${file}: creating a new one (pass --data-dir to use another)\n`
		)
	)
	try {
		return await body(adminServices(store, config))
	} finally {
		store.close()
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
