import { SQL } from 'bun'
import { drizzle } from 'drizzle-orm/bun-sql'
import * as schema from './schema'

export type PgDb = ReturnType<typeof drizzleFor>
/** A transaction, or the database itself: what a store helper reads and writes through. */
export type PgTx = PgDb | Parameters<Parameters<PgDb['transaction']>[0]>[0]

const drizzleFor = (client: SQL) => drizzle({ client, schema })
export const wrap = (client: SQL): PgDb => drizzleFor(client)

export interface ConnectOptions {
	/** Connections in this process's pool. */
	max?: number
	/** Seconds before an idle connection is closed (0: never). */
	idleTimeout?: number
}

/**
 * Bun's pool has no minimum: when it needs a connection and has none idle it opens up to `max` at
 * once. Closing those idle this long brings a server at rest back to the one or two it uses (its
 * heartbeat's and its jobs'; a LISTEN for open event streams is one more), as node-postgres does by
 * default (docs/postgresql.md).
 */
export const IDLE_CONNECTION_SECONDS = 10
/** How the server's connections are told apart in pg_stat_activity, unless the URL names another. */
export const APPLICATION_NAME = 'cfgsync-server'

/**
 * Opens a pool on Bun's built-in client (docs/postgresql.md). `?prepare=false` in the
 * URL turns off named prepared statements, which PgBouncer in transaction mode
 * cannot keep across transactions (docs/postgresql.md).
 */
export function connect(url: string, options: ConnectOptions = {}): SQL {
	const parsed = new URL(url)
	const prepare = parsed.searchParams.get('prepare') !== 'false'
	parsed.searchParams.delete('prepare')
	return new SQL({
		url: parsed.toString(),
		max: options.max ?? 10,
		idleTimeout: options.idleTimeout ?? IDLE_CONNECTION_SECONDS,
		prepare,
		...(parsed.searchParams.has('application_name') ? {} : { connection: { application_name: APPLICATION_NAME } })
	})
}

export { describeUrl, isPostgresUrl } from './url'
