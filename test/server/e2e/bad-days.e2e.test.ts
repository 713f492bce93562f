import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { until } from '../../support/eventually'
import { api, emptyDir, serversOfThisFile, startServer, userWithKey } from '../../support/harness'
import { newPostgresDatabase, postgresAnswers, TEST_DATABASE_URL } from '../../support/engine'

/** Issue 37 on the compiled binary: what only a real process shows on a bad day (docs/operations.md). */
const servers = serversOfThisFile()

describe('signals', () => {
	test('SIGHUP is logged and ignored; SIGTERM then drains and removes the pid file', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		servers.push(server)
		server.proc.kill('SIGHUP')
		await until(() => server.log().includes('SIGHUP'))
		expect((await api(server, 'GET', '/healthz')).status).toBe(200)
		expect(server.proc.exitCode).toBeNull()
		expect(await server.stop('SIGTERM')).toBe(0)
		expect(readdirSync(join(dir, 'data')).filter((name) => name.endsWith('.pid'))).toEqual([])
		expect(existsSync(join(dir, 'data', 'cfgsync.db'))).toBe(true)
	})
})

const postgres = await postgresAnswers()
const admin = postgres ? new SQL({ url: TEST_DATABASE_URL, max: 1 }) : undefined
afterAll(() => admin?.close())

describe.skipIf(!postgres)('a PostgreSQL outage (ALLOW_CONNECTIONS false) under a running server', () => {
	test('one error line naming the cause, every line JSON (the driver’s too), served again afterwards', async () => {
		const url = await newPostgresDatabase()
		const name = new URL(url).pathname.slice(1)
		const env = { CFGSYNC_MASTER_KEY: randomBytes(32).toString('base64'), CFGSYNC_DATABASE_URL: url }
		const server = await startServer(emptyDir(), { env })
		servers.push(server)
		const alice = await userWithKey(emptyDir(), 'alice', 'team', env)
		// An open event stream keeps a LISTEN connection, whose driver retries and says so.
		const stream = new AbortController()
		const events = await fetch(`${server.url}/api/events`, {
			headers: { authorization: `Bearer ${alice.key}` },
			signal: stream.signal
		})
		expect(events.status).toBe(200)
		await admin?.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`)
		await admin?.unsafe('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name])
		const statuses: number[] = []
		for (let i = 0; i < 30; i++) statuses.push((await api(server, 'GET', '/api/me', alice.key)).status)
		expect(statuses.filter((status) => status === 200)).toEqual([])
		await until(() => server.log().includes('the database does not answer'))
		await admin?.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`)
		expect(await until(async () => (await api(server, 'GET', '/api/me', alice.key)).status === 200, 30_000)).toBe(true)
		stream.abort()
		await server.stop('SIGTERM')
		const lines = server.log().trim().split('\n')
		const notJson = lines.filter((line) => {
			try {
				JSON.parse(line)
				return false
			} catch {
				return true
			}
		})
		expect(notJson).toEqual([])
		const errors = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((l) => l.level === 'error')
		expect(errors.map((line) => line.msg)).toEqual(['the database does not answer'])
		expect(server.log()).not.toContain('"stack"')
	}, 60_000)
})
