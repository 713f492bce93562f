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
