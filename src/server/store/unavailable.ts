import { DatabaseDownError } from '../lib/errors'

// How an error is told to mean that the database does not answer, whichever engine raised it: engine knowledge,
// so it lives in store/ (docs/architecture.md); plugins/errors.ts logs such failures once per 10 s, not as bugs.

/**
 * SQLite result codes that mean the database file cannot be used now (locked,
 * unreadable, full, gone), as opposed to a statement of ours that is wrong.
 */
const SQLITE_UNAVAILABLE =
	/^SQLITE_(BUSY|LOCKED|IOERR|CORRUPT|NOTADB|FULL|CANTOPEN|READONLY|PROTOCOL|PERM|NOMEM|NOLCK|INTERRUPT)/
/** PostgreSQL SQLSTATE classes of an unreachable server: connection exception, shutdown, out of resources, refused login. */
const POSTGRES_UNAVAILABLE = /^(08|57P0[1-3]|53|28)/
/** SQLSTATEs that say the server does not answer; 55000 only as `ALLOW_CONNECTIONS false` words it (elsewhere it is a bug). */
const postgresUnavailable = (state: string, message: string) =>
	POSTGRES_UNAVAILABLE.test(state) || (state === '55000' && /accepting connections/.test(message))
/** Bun.SQL's codes for a connection that failed, closed or timed out. */
const postgresConnectionCode = (code: string) =>
	code.startsWith('ERR_POSTGRES_CONNECTION') ||
	code === 'ERR_POSTGRES_IDLE_TIMEOUT' ||
	code === 'ERR_POSTGRES_LIFETIME_TIMEOUT'
const SYSCALL_UNAVAILABLE = new Set([
	'ECONNREFUSED',
	'ECONNRESET',
	'ETIMEDOUT',
	'EPIPE',
	'EHOSTUNREACH',
	'ENOTFOUND',
	'EAI_AGAIN'
])

/**
 * `code: message` when `error` (or an error it wraps, as Drizzle does) says
 * the database does not answer: SQLite's SQLITE_* codes, Bun.SQL's
 * ERR_POSTGRES_CONNECTION_* codes and connection-class SQLSTATEs. Otherwise undefined.
 */
export function databaseFailure(error: unknown): string | undefined {
	let current = error
	for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
		if (current instanceof DatabaseDownError) return current.message
		const { code, errno, sqlState, driverCode } = current as {
			code?: unknown
			errno?: unknown
			sqlState?: unknown
			driverCode?: unknown
		}
		const named = (label: unknown) => `${String(label)}: ${current instanceof Error ? current.message : ''}`
		// The store's PostgresStoreError keeps the SQLSTATE and the driver's code, not the driver's error.
		if (typeof sqlState === 'string' && postgresUnavailable(sqlState, current.message)) return named(sqlState)
		if (typeof driverCode === 'string' && postgresConnectionCode(driverCode)) return named(driverCode)
		if (typeof code === 'string') {
			if (SQLITE_UNAVAILABLE.test(code)) return named(code)
			if (postgresConnectionCode(code)) return named(code)
			if (
				code === 'ERR_POSTGRES_SERVER_ERROR' &&
				typeof errno === 'string' &&
				postgresUnavailable(errno, current.message)
			)
				return named(errno)
			if (SYSCALL_UNAVAILABLE.has(code)) return named(code)
		}
		current = current.cause
	}
	return undefined
}
