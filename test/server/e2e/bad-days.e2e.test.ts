import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { Database } from 'bun:sqlite'
import { randomBytes } from 'node:crypto'
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { until } from '../../support/eventually'
import { api, BINARY, emptyDir, serversOfThisFile, startServer, userWithKey } from '../../support/harness'
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

/** Runs the binary as `nobody` when this process is root (root writes anywhere: the test would see nothing). */
async function runAsDataDirUser(cwd: string, args: string[], env: Record<string, string>) {
	const asNobody = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []
	const proc = Bun.spawn([...asNobody, BINARY, ...args], {
		cwd,
		env: { PATH: process.env.PATH ?? '', ...env },
		stdout: 'pipe',
		stderr: 'pipe'
	})
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited
	])
	return { code, stdout, stderr }
}

describe('backup from a read-only data directory', () => {
	test('with the directory 0555 and the database 0644 (not ours to chmod), backup writes the copy elsewhere and changes nothing there', async () => {
		const dir = emptyDir()
		const env = { CFGSYNC_MASTER_KEY: randomBytes(32).toString('base64') }
		const server = await startServer(dir, { env })
		const alice = await userWithKey(dir, 'alice', 'pro', env)
		expect((await api(server, 'POST', '/api/configs', alice.key, { name: 'c', data: { v: 1 } })).status).toBe(201)
		expect(await server.stop('SIGTERM')).toBe(0)
		const data = join(dir, 'data')
		const out = join(dir, 'out')
		mkdirSync(out)
		// Readable by anyone, writable by no one but root: as a data directory mounted read-only, or another user's.
		chmodSync(join(data, 'cfgsync.db'), 0o644)
		chmodSync(data, 0o555)
		chmodSync(dir, 0o755)
		if (process.getuid?.() === 0) chownSync(out, 65534, 65534)
		const before = readdirSync(data).sort()
		const backup = await runAsDataDirUser(dir, ['backup', join(out, 'copy.db'), '--data-dir', data], env)
		chmodSync(data, 0o700)
		expect(backup.stderr).not.toContain('chmod')
		expect(backup.code).toBe(0)
		expect(backup.stdout).toContain('backup written')
		expect(backup.stderr).toContain('read-only')
		expect(readdirSync(data).sort()).toEqual(before)
		expect(statSync(join(data, 'cfgsync.db')).mode & 0o777).toBe(0o644)
		expect(statSync(join(out, 'copy.db')).mode & 0o777).toBe(0o600)
		const copy = new Database(join(out, 'copy.db'), { readonly: true })
		expect(copy.query<{ n: number }, []>('SELECT count(*) AS n FROM config_versions').get()?.n).toBe(1)
		copy.close()
	}, 30_000)
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
