import { afterAll, afterEach, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { randomBytes } from 'node:crypto'
import { newPostgresDatabase, postgresAnswers, TEST_DATABASE_URL } from '../../support/engine'
import { api, emptyDir, run, serversOfThisFile, startServer, userWithKey } from '../../support/harness'

/**
 * CFGSYNC_DATABASE_POOL (docs/operations.md, "Configuration"): how many connections
 * one server process keeps to PostgreSQL at most, so several instances fit a
 * server whose max_connections others share too.
 */
const servers = serversOfThisFile()
afterEach(async () => {
	for (const server of servers.splice(0)) await server.stop('SIGKILL')
})
const available = await postgresAnswers()
if (!available && process.env.CI !== 'true')
	console.log(`skipped the PostgreSQL pool end-to-end: no PostgreSQL answers at ${TEST_DATABASE_URL}`)
const observer = new SQL({ url: TEST_DATABASE_URL, max: 1 })
afterAll(() => observer.close())

const KEY = randomBytes(32).toString('base64')
/** Idle connections close after 10 s (docs/postgresql.md); a little slack for a loaded machine. */
const IDLE_SECONDS_AT_MOST = 16
const connectionsTo = async (url: string) =>
	(
		(await observer.unsafe('SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = $1', [
			new URL(url).pathname.slice(1)
		])) as { n: number }[]
	)[0]?.n

describe.skipIf(!available && process.env.CI !== 'true')('the PostgreSQL pool of a server', () => {
	test('with CFGSYNC_DATABASE_POOL=2 a server holds at most two connections while 60 requests run at once, and answers them all', async () => {
		const url = await newPostgresDatabase()
		const env = { CFGSYNC_MASTER_KEY: KEY, CFGSYNC_DATABASE_URL: url, CFGSYNC_DATABASE_POOL: '2' }
		const server = await startServer(emptyDir(), { env })
		servers.push(server)
		const alice = await userWithKey(emptyDir(), 'alice', 'team', env)
		let most = 0
		let done = false
		const watching = (async () => {
			while (!done) {
				most = Math.max(most, (await connectionsTo(url)) ?? 0)
				await Bun.sleep(5)
			}
		})()
		const answers = await Promise.all(
			Array.from({ length: 60 }, (_, i) =>
				i % 2
					? api(server, 'GET', '/api/me', alice.key)
					: api(server, 'POST', '/api/configs', alice.key, { name: `c${i}`, tool: 'cursor', data: { i } })
			)
		)
		done = true
		await watching
		expect(answers.map((answer) => answer.status).filter((status) => status !== 200 && status !== 201)).toEqual([])
		most = Math.max(most, (await connectionsTo(url)) ?? 0)
		expect(most).toBeGreaterThan(0)
		expect(most).toBeLessThanOrEqual(2)
	})

	test('connections open as load asks: at most two at rest after the start, more under 20 requests at once, and back to at most two when idle', async () => {
		const url = await newPostgresDatabase()
		const env = { CFGSYNC_MASTER_KEY: KEY, CFGSYNC_DATABASE_URL: url }
		const server = await startServer(emptyDir(), { env })
		servers.push(server)
		const alice = await userWithKey(emptyDir(), 'alice', 'team', env)
		// Named, so an operator tells the server's connections apart in pg_stat_activity.
		const names = (await observer.unsafe(
			'SELECT DISTINCT application_name AS name FROM pg_stat_activity WHERE datname = $1',
			[new URL(url).pathname.slice(1)]
		)) as { name: string }[]
		expect(names.map((row) => row.name)).toEqual(['cfgsync-server'])
		const atRest = async () => {
			const deadline = Date.now() + IDLE_SECONDS_AT_MOST * 1000
			let n = (await connectionsTo(url)) ?? 0
			while (n > 2 && Date.now() < deadline) {
				await Bun.sleep(250)
				n = (await connectionsTo(url)) ?? 0
			}
			return n
		}
		expect(await atRest()).toBeLessThanOrEqual(2)

		let most = 0
		let done = false
		const watching = (async () => {
			while (!done) {
				most = Math.max(most, (await connectionsTo(url)) ?? 0)
				await Bun.sleep(5)
			}
		})()
		const answers = await Promise.all(
			Array.from({ length: 20 }, (_, i) =>
				api(server, 'POST', '/api/configs', alice.key, { name: `c${i}`, tool: 'cursor', data: { i } })
			)
		)
		done = true
		await watching
		expect(answers.map((answer) => answer.status).filter((status) => status !== 201)).toEqual([])
		expect(most).toBeGreaterThan(2)
		expect(most).toBeLessThanOrEqual(10)
		expect(await atRest()).toBeLessThanOrEqual(2)
		// Still serving (and its heartbeat still beating) on the connections it kept.
		expect((await api(server, 'GET', '/readyz')).status).toBe(200)
	}, 60_000)

	test('a pool size that is not a whole number from 1 to 1000 stops the start with one clear line', async () => {
		for (const pool of ['0', 'ten', '2.5']) {
			const result = await run(emptyDir(), ['serve', '--port', '0'], {
				env: {
					CFGSYNC_MASTER_KEY: KEY,
					CFGSYNC_DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nowhere',
					CFGSYNC_DATABASE_POOL: pool
				}
			})
			expect(result.code).not.toBe(0)
			expect(result.stderr).toContain('invalid setting CFGSYNC_DATABASE_POOL')
		}
	})
})
