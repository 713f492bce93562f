import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { join } from 'node:path'
import { run as thisRun, TEST_DATABASE_URL } from '../../support/engine'
import { testApp } from '../../support/helpers'

/**
 * `npm test` on a PostgreSQL server that others share: the run keeps
 * few connections, so it passes with max_connections = 100 and 30 of them held
 * elsewhere. test/support/engine.ts gives each test store a small pool and closes it
 * when its test ends; test/support/engine-cleanup.ts fails a run that held more than
 * CFGSYNC_TEST_MAX_CONNECTIONS at once or left a connection open.
 */
const observer = new SQL({ url: TEST_DATABASE_URL, max: 1 })
afterAll(() => observer.close())
/** This process's test databases (test/support/engine.ts names them after its run) and the connections on each. */
const connectionsOfThisRun = async () =>
	Object.fromEntries(
		(
			(await observer.unsafe(
				`SELECT datname, count(*)::int AS n FROM pg_stat_activity WHERE left(datname, length($1) + 1) = $1 || '_' GROUP BY 1`,
				[thisRun]
			)) as {
				datname: string
				n: number
			}[]
		).map((row) => [row.datname, row.n])
	) as Record<string, number>

describe('the suite on a shared PostgreSQL server', () => {
	let usedByTheTestBefore: string[] = []

	test('a test store holds at most two connections, however many requests run at once', async () => {
		const t = testApp()
		const alice = await t.user()
		const answers = await Promise.all(Array.from({ length: 40 }, () => t.call('GET', '/api/me', { key: alice.key })))
		expect(answers.map((answer) => answer.status)).toEqual(Array(40).fill(200))
		const open = await connectionsOfThisRun()
		usedByTheTestBefore = Object.keys(open)
		expect(usedByTheTestBefore.length).toBeGreaterThan(0)
		for (const [database, count] of Object.entries(open))
			expect({ database, count: Math.min(count, 2) }).toEqual({ database, count })
	})

	test('the stores of a test that ended hold no connection', async () => {
		expect(usedByTheTestBefore.length).toBeGreaterThan(0)
		let open: Record<string, number> = {}
		// Closed when the test ended, not left to an idle timeout.
		for (const deadline = Date.now() + 300; Date.now() < deadline; await Bun.sleep(20)) {
			open = await connectionsOfThisRun()
			if (usedByTheTestBefore.every((database) => open[database] === undefined)) break
		}
		expect(usedByTheTestBefore.filter((database) => open[database] !== undefined)).toEqual([])
	})

	// The guard itself: a future test that leaks a pool, or holds too many connections, fails the run.
	const run = async (leak: 'pool' | 'burst') => {
		const child = Bun.spawn(
			[
				process.execPath,
				'test',
				'--timeout',
				'30000',
				join(import.meta.dir, '..', '..', 'support', 'fixtures', 'leaky-pool.ts')
			],
			{
				cwd: join(import.meta.dir, '..', '..', '..'),
				env: { ...process.env, CFGSYNC_TEST_ENGINE: 'postgres', CFGSYNC_TEST_MAX_CONNECTIONS: '5', LEAK: leak },
				stdout: 'pipe',
				stderr: 'pipe'
			}
		)
		const [out, err, code] = await Promise.all([
			new Response(child.stdout).text(),
			new Response(child.stderr).text(),
			child.exited
		])
		return { code, output: out + err }
	}

	test('a run where a test leaves a pool open fails, naming the test file', async () => {
		const { code, output } = await run('pool')
		expect(output).toContain('connections left open when the run ended')
		expect(output).toContain('leaky-pool.ts')
		expect(code).not.toBe(0)
	}, 60_000)

	test('a run that holds more connections at once than CFGSYNC_TEST_MAX_CONNECTIONS fails', async () => {
		const { code, output } = await run('burst')
		expect(
			Number(
				output.match(
					/this run held (\d+) PostgreSQL connections at once, above 5 \(CFGSYNC_TEST_MAX_CONNECTIONS\)/
				)?.[1]
			)
		).toBeGreaterThan(5)
		expect(code).not.toBe(0)
	}, 60_000)
})
