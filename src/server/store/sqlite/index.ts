import type { Database } from 'bun:sqlite'
import {
	closeSync,
	constants,
	fstatSync,
	linkSync,
	openSync,
	readdirSync,
	readlinkSync,
	readSync,
	statSync,
	unlinkSync
} from 'node:fs'
import { randomBytes } from 'node:crypto'
import type { OpenOptions, Store } from '../types'
import { auditWriter, sqliteAudit } from './audit'
import { openDatabase, rawMeta, wrap } from './client'
import { sqliteConfigs } from './configs'
import { sqliteFindCaller } from './keys'
import { sqliteExecutor } from './executor'
import { applyMigrations } from './migrate'
import { migrations } from './migrations'
import { sqliteTeams } from './teams'
import { sqliteUserCount } from './user-count'
import * as schema from './schema'
import { tableAccess } from '../tables'
import { offThread } from './off-thread'
import { walCheckpoints } from './wal-checkpoints'
import { auditList } from '../rows/audit-log'
import { keyStore } from '../rows/keys'
import { loginFailureStore } from '../rows/login-failures'
import { instanceStore, jobStore, metaStore } from '../rows/meta'
import { sessionStore } from '../rows/sessions'
import { signupStore } from '../rows/signups'
import { userStore } from '../rows/users'

/** Opens (creating if needed) and migrates the embedded SQLite store. `:memory:` for tests. */
export function openSqliteStore(file: string, options: OpenOptions = {}): Store {
	const sqlite = openDatabase(file)
	try {
		const meta = rawMeta(sqlite)
		applyMigrations(sqlite, migrations, options.withinMigration && (() => options.withinMigration?.(meta)))
	} catch (error) {
		sqlite.close()
		throw error
	}
	if (options.secureDelete) sqlite.run('PRAGMA secure_delete = ON')
	const db = wrap(sqlite)
	const ping = sqlite.query<{ ok: number }, []>('SELECT 1 AS ok')
	const dataVersion = sqlite.query<{ data_version: number }, []>('PRAGMA data_version')
	const fileAtOpen = file === ':memory:' ? undefined : statSync(file)
	const audit = auditWriter(db)
	const rows = sqliteExecutor(db, sqlite, audit)
	const findCaller = sqliteFindCaller(db, sqlite)
	const checkpoints = walCheckpoints(sqlite, file)
	return {
		engine: 'sqlite',
		users: { ...userStore(rows), count: sqliteUserCount(db) },
		keys: keyStore(rows, findCaller),
		sessions: sessionStore(rows),
		signups: signupStore(rows),
		loginFailures: loginFailureStore(rows),
		configs: sqliteConfigs(db, sqlite, audit, findCaller),
		teams: sqliteTeams(db, sqlite, audit, checkpoints),
		audit: sqliteAudit(db, audit, auditList(rows), checkpoints),
		jobs: jobStore(rows),
		meta: metaStore(rows),
		instances: instanceStore(rows),
		tables: tableAccess(schema, db),
		// SQLite answers small reads from its page cache, so a file broken or replaced under a running
		// server would go unnoticed: the file itself must still start like a database and be the one opened.
		ping: async () => ping.get()?.ok === 1 && (fileAtOpen === undefined || fileIsIntact(file, fileAtOpen)),
		downReason: 'the SQLite file is gone, replaced or damaged',
		findsCallerSynchronously: true,
		async stats() {
			const count = (table: string) =>
				sqlite.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0
			const pages = sqlite
				.query<{ size: number }, []>(
					'SELECT page_count * page_size AS size FROM pragma_page_count(), pragma_page_size()'
				)
				.get()
			return {
				users: count('users'),
				configs: count('configs'),
				versions: count('config_versions'),
				databaseBytes: pages?.size ?? 0
			}
		},
		backup: (target) => backupTo(file === ':memory:' ? sqlite : file, target),
		changeSignal: { engine: 'sqlite', dataVersion: () => dataVersion.get()?.data_version ?? 0 },
		close: () => {
			checkpoints.end()
			sqlite.close()
		}
	}
}

/**
 * docs/operations.md: a consistent copy, 0600, that never replaces an existing file
 * and is never written through a symbolic link. VACUUM INTO reads one
 * snapshot (writers carry on) into an empty file made exclusively beside the
 * target; the finished copy is then hard-linked to the target name, which
 * fails if anything (a file or a link) is there, so the target appears whole or not at all.
 */
export async function backupTo(
	source: Database | string,
	target: string,
	options: { immutable?: boolean } = {}
): Promise<void> {
	const temporary = `${target}.${process.pid}-${randomBytes(4).toString('hex')}.partial`
	closeSync(
		openSync(temporary, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY | constants.O_NOFOLLOW, 0o600)
	)
	try {
		// Off the request path (docs/performance.md); a database in memory (tests) has no file another thread can open.
		if (typeof source !== 'string') source.run('VACUUM INTO ?', [temporary])
		else await offThread({ kind: 'vacuum-into', source, target: temporary, immutable: options.immutable })
		linkSync(temporary, target)
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EEXIST')
			throw new Error(`${target} already exists; backups never replace a file`)
		throw error
	} finally {
		unlinkSync(temporary)
	}
}

const HEADER = Buffer.from('SQLite format 3\0')

/**
 * The database file still begins with SQLite's header and is the file (inode) that was opened.
 * Never by opening the file: closing any descriptor of it would drop every POSIX lock this process
 * holds on it, SQLite's included, and the next SQLite client to close (the sqlite3 shell, say) would
 * then checkpoint and delete the WAL under the server. The path is only stat'ed; the header is read
 * with pread on a descriptor SQLite itself holds (found through /proc/self/fd, which opens nothing);
 * where there is no /proc the inode check alone answers.
 */
function fileIsIntact(file: string, opened: { dev: number; ino: number }): boolean {
	try {
		const now = statSync(file)
		if (now.ino !== opened.ino || now.dev !== opened.dev) return false
		const fd = descriptorOf(opened)
		if (fd === undefined) return true
		const head = Buffer.alloc(HEADER.length)
		return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(HEADER)
	} catch {
		return false
	}
}

/** A descriptor this process holds on this file (device and inode), without opening anything. */
function descriptorOf(file: { dev: number; ino: number }): number | undefined {
	let names: string[]
	try {
		names = readdirSync('/proc/self/fd')
	} catch {
		return undefined
	}
	for (const name of names) {
		const fd = Number(name)
		try {
			const stats = fstatSync(fd)
			if (
				stats.ino === file.ino &&
				stats.dev === file.dev &&
				!readlinkSync(`/proc/self/fd/${name}`).endsWith('(deleted)')
			)
				return fd
		} catch {}
	}
	return undefined
}
