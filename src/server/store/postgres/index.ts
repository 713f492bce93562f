import { sql } from 'drizzle-orm'
import type { OpenOptions, Store } from '../types'
import { postgresAudit } from './audit'
import { connect, describeUrl, wrap, type ConnectOptions } from './client'
import { postgresConfigs } from './configs'
import { withCleanErrors } from './errors'
import { postgresFindCaller } from './keys'
import { postgresExecutor } from './executor'
import { applyMigrations } from './migrate'
import { migrations } from './migrations'
import { postgresTeams } from './teams'
import { postgresUserCount } from './user-count'
import * as schema from './schema'
import { tableAccess } from '../tables'
import { auditList } from '../rows/audit-log'
import { keyStore } from '../rows/keys'
import { loginFailureStore } from '../rows/login-failures'
import { instanceStore, jobStore, metaStore } from '../rows/meta'
import { sessionStore } from '../rows/sessions'
import { signupStore } from '../rows/signups'
import { userStore } from '../rows/users'

/** Why `backup` and scheduled backups do not apply here (docs/postgresql.md). */
/** What a failed ping means on PostgreSQL (`Store.downReason`). */
export const POSTGRES_DOWN_REASON = 'the PostgreSQL database does not answer'

export const PG_DUMP_ADVICE =
	'the database is PostgreSQL: back it up with pg_dump (for example `pg_dump --format=custom --file cfgsync.dump "$CFGSYNC_DATABASE_URL"`), and keep the master key beside it'

/**
 * Connects to a PostgreSQL database and migrates it (docs/postgresql.md). Fails with
 * one clear line when the database does not answer.
 */
export async function openPostgresStore(url: string, options: OpenOptions & ConnectOptions = {}): Promise<Store> {
	const client = connect(url, options)
	try {
		await applyMigrations(client, migrations, options.withinMigration)
	} catch (error) {
		await client.close().catch(() => {})
		const code = (error as { code?: string }).code
		if (typeof code === 'string' && code.startsWith('ERR_POSTGRES_') && code !== 'ERR_POSTGRES_SERVER_ERROR') {
			throw new Error(
				`cannot connect to ${describeUrl(url)} (${(error as Error).message}); check that PostgreSQL runs there and the URL`
			)
		}
		throw error
	}
	const db = wrap(client)
	const rows = postgresExecutor(db)
	return {
		engine: 'postgres',
		users: withCleanErrors({ ...userStore(rows), count: postgresUserCount(db) }),
		keys: withCleanErrors(keyStore(rows, postgresFindCaller(db, client))),
		sessions: withCleanErrors(sessionStore(rows)),
		signups: withCleanErrors(signupStore(rows)),
		loginFailures: withCleanErrors(loginFailureStore(rows)),
		configs: withCleanErrors(postgresConfigs(db, client)),
		teams: withCleanErrors(postgresTeams(db)),
		audit: withCleanErrors(postgresAudit(db, auditList(rows))),
		jobs: withCleanErrors(jobStore(rows)),
		meta: withCleanErrors(metaStore(rows)),
		instances: withCleanErrors(instanceStore(rows)),
		// Rows copied in keep their ids; the login-failure and audit feed sequences then go on after the highest.
		tables: tableAccess(schema, db, async () => {
			await client.unsafe(
				`SELECT setval(pg_get_serial_sequence('login_failures', 'id'), COALESCE((SELECT max(id) FROM login_failures), 0) + 1, false)`
			)
			await client.unsafe(
				`SELECT setval('audit_events_seq', COALESCE((SELECT max(seq) FROM audit_events), 0) + 1, false)`
			)
		}),
		async ping() {
			try {
				return (await client.unsafe('SELECT 1 AS ok'))[0]?.ok === 1
			} catch {
				return false
			}
		},
		downReason: POSTGRES_DOWN_REASON,
		findsCallerSynchronously: false,
		async stats() {
			const [row] = await db.execute<{ users: number; configs: number; versions: number; bytes: number }>(sql`
				SELECT (SELECT count(*)::int FROM users) AS users, (SELECT count(*)::int FROM configs) AS configs,
				       (SELECT count(*)::int FROM config_versions) AS versions, pg_database_size(current_database())::float8 AS bytes`)
			return {
				users: row?.users ?? 0,
				configs: row?.configs ?? 0,
				versions: row?.versions ?? 0,
				databaseBytes: row?.bytes ?? 0
			}
		},
		backup: async () => {
			throw new Error(PG_DUMP_ADVICE)
		},
		changeSignal: {
			engine: 'postgres',
			async listen(onNotify, onListen) {
				const subscription = await client.listen('cfgsync_events', () => onNotify(), onListen)
				return () => subscription.unlisten()
			}
		},
		close: () => void client.close().catch(() => {})
	}
}
