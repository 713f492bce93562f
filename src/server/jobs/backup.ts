import { chmodSync, existsSync, linkSync, mkdirSync, readdirSync, rmSync, unlinkSync } from 'node:fs'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Cron } from 'croner'
import type { Clock } from '../lib/clock'
import type { Sealer } from '../lib/crypto'
import type { Logger } from '../lib/log'
import { offThread } from '../store/sqlite/off-thread'
import { verifySqliteBackup } from '../store/sqlite/verify'
import type { Store } from '../store/types'
import { scheduleLeased } from './schedule'

/** Backups are named by the time they were taken; the names sort by age. */
const BACKUP_NAME = /^cfgsync-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:-\d{3})?Z\.db$/

export interface BackupDeps {
	store: Store
	sealer: Pick<Sealer, 'open'>
	clock: Clock
	logger: Logger
	dir: string
	keep: number
	/** Hears of every attempt, for the metrics and /readyz. */
	report?: (result: 'success' | 'failure', at: number, error?: string) => void
}

/**
 * docs/operations.md: one backup, written under a temporary name, checked
 * (integrity, schema, master key), then linked into place as
 * `cfgsync-<time>.db` (0600, never over a file or through a link); the oldest
 * beyond `keep` are then removed. Returns the file written.
 */
export async function writeVerifiedBackup(deps: BackupDeps): Promise<string> {
	const at = deps.clock.now()
	if (!existsSync(deps.dir)) mkdirSync(deps.dir, { recursive: true, mode: 0o700 })
	const name = `cfgsync-${new Date(at).toISOString().replace(/:/g, '-').replace('.', '-')}.db`
	const target = join(deps.dir, name)
	const temporary = join(deps.dir, `.${name}.${process.pid}-${randomBytes(4).toString('hex')}.verifying`)
	try {
		// Inside the try: a backup that fails half-way (a full disk) leaves no hidden partial file behind.
		await deps.store.backup(temporary)
		// The page-by-page check runs on its own thread; the schema and key checks read a few rows here.
		const integrity = await offThread({ kind: 'integrity-check', file: temporary })
		const problem = verifySqliteBackup(temporary, deps.sealer, { exact: true, integrity })
		if (problem !== undefined) throw new Error(`the backup failed its check: ${problem}`)
		chmodSync(temporary, 0o600)
		linkSync(temporary, target)
	} finally {
		rmSync(temporary, { force: true })
	}
	pruneBackups(deps.dir, deps.keep)
	return target
}

/** Removes the oldest backups beyond `keep`; returns the names removed. */
export function pruneBackups(dir: string, keep: number): string[] {
	const backups = readdirSync(dir)
		.filter((name) => BACKUP_NAME.test(name))
		.sort()
	const old = backups.slice(0, Math.max(0, backups.length - keep))
	for (const name of old) unlinkSync(join(dir, name))
	return old
}

/**
 * Scheduled backups: once per schedule slot across instances (docs/postgresql.md). A
 * failure is logged at error and reported, and never stops the server.
 */
export function scheduleBackups(deps: BackupDeps & { pattern: string }): Cron {
	return scheduleLeased({
		name: 'backup',
		pattern: deps.pattern,
		store: deps.store,
		logger: deps.logger,
		run: async () => {
			try {
				const file = await writeVerifiedBackup(deps)
				deps.report?.('success', deps.clock.now())
				deps.logger.info('backup written', { file })
			} catch (error) {
				const message = (error as Error).message
				deps.report?.('failure', deps.clock.now(), message)
				deps.logger.error('backup failed', { dir: deps.dir, errorMessage: message })
			}
		}
	})
}
