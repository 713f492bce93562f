import { SQL } from 'bun'

/** Where the tests find PostgreSQL (a server they may create and drop databases on): docs/postgresql.md, test/support/engine.ts. */
export const TEST_DATABASE_URL = process.env.CFGSYNC_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres'

/** True when PostgreSQL answers at CFGSYNC_TEST_DATABASE_URL. */
export async function postgresAnswers(): Promise<boolean> {
	const probe = new SQL({ url: TEST_DATABASE_URL, max: 1, connectionTimeout: 3 })
	try {
		await probe.unsafe('SELECT 1')
		return true
	} catch {
		return false
	} finally {
		await probe.close().catch(() => {})
	}
}

/**
 * Drops every database whose name starts with `prefix_` (a whole `npm test` PostgreSQL pass's: test/support/engine.ts),
 * clones before templates, eight at a time; WITH (FORCE) ends a connection a killed worker left. How many went.
 */
export async function dropDatabasesNamed(prefix: string): Promise<number> {
	const client = new SQL({ url: TEST_DATABASE_URL, max: 8, idleTimeout: 0 })
	try {
		const rows = (await client.unsafe(
			`SELECT datname FROM pg_database WHERE left(datname, length($1) + 1) = $1 || '_' ORDER BY datname LIKE '%\\_template' , datname`,
			[prefix]
		)) as { datname: string }[]
		const names = rows.map((row) => row.datname)
		const drop = (some: string[]) =>
			Promise.all(some.map((name) => client.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)))
		await drop(names.filter((name) => !name.endsWith('_template')))
		await drop(names.filter((name) => name.endsWith('_template')))
		return names.length
	} finally {
		await client.close().catch(() => {})
	}
}
