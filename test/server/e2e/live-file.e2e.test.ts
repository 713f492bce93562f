import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { readdirSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { api, emptyDir, run, serversOfThisFile, startServer, userWithKey, type Server } from '../../support/harness'

// What operators do around a running server must never lose an acknowledged write: health checks
// polled, the sqlite3 shell or Python reading the live file, admin commands, a second instance
// stopped cleanly. (Closing any descriptor of a file drops the process's POSIX locks on it, SQLite's
// included; a server that did so let the next SQLite client delete the WAL under it.)

const servers = serversOfThisFile()
const env = { CFGSYNC_MASTER_KEY: randomBytes(32).toString('base64') }
const SQLITE3 = Bun.which('sqlite3')
const PYTHON = Bun.which('python3')

/** The server's open descriptors that point at a file deleted from under it. */
function deletedFilesHeldBy(pid: number): string[] {
	return readdirSync(`/proc/${pid}/fd`)
		.map((fd) => {
			try {
				return readlinkSync(`/proc/${pid}/fd/${fd}`)
			} catch {
				return ''
			}
		})
		.filter((target) => target.endsWith('(deleted)'))
}

/** What operators run against the live file: the sqlite3 shell (a clean close of another SQLite client) and Python's sqlite3. */
async function readLiveFileLikeAnOperator(file: string) {
	if (!SQLITE3 || !PYTHON) throw new Error('these checks need the sqlite3 shell and python3 (.ci/run installs sqlite3)')
	const shell = Bun.spawnSync([SQLITE3, file, 'PRAGMA integrity_check;'])
	expect(shell.stdout.toString().trim()).toBe('ok')
	const python = Bun.spawnSync([
		PYTHON,
		'-c',
		`import sqlite3; c = sqlite3.connect(${JSON.stringify(file)}); print(c.execute('select count(*) from configs').fetchone()[0]); c.close()`
	])
	expect(python.exitCode).toBe(0)
}

const latestVersion = async (server: Server, key: string, name: string) =>
	(await api(server, 'GET', `/api/configs/latest?name=${name}&tool=claude-code`, key)).body?.version as
		| number
		| undefined

describe('the live SQLite file around a running server', () => {
	test('health checks, then the sqlite3 shell and Python on the live file: later pushes are kept, backed up, survive kill -9, and a revocation is seen at once', async () => {
		const dir = emptyDir()
		const file = join(dir, 'data', 'cfgsync.db')
		let server = await startServer(dir, { env })
		servers.push(server)
		const alice = await userWithKey(dir, 'alice', 'pro', env)
		expect((await api(server, 'POST', '/api/configs', alice.key, { name: 'c', data: { v: 1 } })).status).toBe(201)
		for (let i = 0; i < 3; i++) {
			expect((await api(server, 'GET', '/healthz')).status).toBe(200)
			expect((await api(server, 'GET', '/readyz')).status).toBe(200)
		}
		await readLiveFileLikeAnOperator(file)
		expect((await api(server, 'POST', '/api/configs', alice.key, { name: 'c', data: { v: 2 } })).body.version).toBe(2)
		expect(deletedFilesHeldBy(server.proc.pid)).toEqual([])

		const backup = join(dir, 'after-v2.db')
		expect((await run(dir, ['backup', backup], { env })).code).toBe(0)
		const inBackup = Bun.spawnSync([SQLITE3 as string, backup, 'SELECT max(version) FROM config_versions;'])
			.stdout.toString()
			.trim()
		expect(inBackup).toBe('2')

		expect((await run(dir, ['user', 'revoke-keys', 'alice'], { env })).code).toBe(0)
		expect((await api(server, 'GET', '/api/me', alice.key)).status).toBe(401)

		const bob = await userWithKey(dir, 'bob', 'pro', env)
		expect((await api(server, 'POST', '/api/configs', bob.key, { name: 'b', data: { v: 1 } })).status).toBe(201)
		await server.stop('SIGKILL')
		server = await startServer(dir, { env })
		servers.push(server)
		expect(await latestVersion(server, bob.key, 'b')).toBe(1)
		const again = await userWithKey(dir, 'alice2', 'pro', env)
		expect((await api(server, 'GET', '/api/me', again.key)).status).toBe(200)
		expect(
			Bun.spawnSync([
				SQLITE3 as string,
				file,
				"SELECT max(config_versions.version) FROM config_versions JOIN configs ON configs.id = config_id WHERE configs.name = 'c';"
			])
				.stdout.toString()
				.trim()
		).toBe('2')
	}, 60_000)

	test('two instances on one file behind health checks: one stopped with SIGTERM under load, the other killed, then restarted: every acknowledged push is there', async () => {
		const dir = emptyDir()
		const file = join(dir, 'data', 'cfgsync.db')
		const first = await startServer(dir, { env })
		servers.push(first)
		const second = await startServer(dir, { env })
		servers.push(second)
		const carol = await userWithKey(dir, 'carol', 'pro', env)
		let polling = true
		const healthChecks = (async () => {
			while (polling) {
				await Promise.all([
					fetch(`${first.url}/healthz`).catch(() => {}),
					fetch(`${second.url}/healthz`).catch(() => {}),
					fetch(`${second.url}/readyz`).catch(() => {})
				])
				await Bun.sleep(25)
			}
		})()
		const acknowledged: number[] = []
		const load = (async () => {
			for (let n = 1; n <= 60; n++) {
				const via = n % 2 === 0 ? first : second
				const res = await fetch(`${via.url}/api/configs`, {
					method: 'POST',
					headers: { authorization: `Bearer ${carol.key}`, 'content-type': 'application/json' },
					body: JSON.stringify({ name: `n${n}`, data: { n } })
				}).catch(() => undefined)
				if (res?.status === 201) acknowledged.push(n)
				if (n === 20) {
					Bun.spawnSync([SQLITE3 as string, file, 'PRAGMA integrity_check;'])
				}
				if (n === 30) void first.stop('SIGTERM')
			}
		})()
		await load
		polling = false
		await healthChecks
		expect(acknowledged.length).toBeGreaterThanOrEqual(40)
		expect(deletedFilesHeldBy(second.proc.pid)).toEqual([])
		await second.stop('SIGKILL')
		const restarted = await startServer(dir, { env })
		servers.push(restarted)
		const list = await api(restarted, 'GET', '/api/configs', carol.key)
		const kept = new Set((list.body as { name: string }[]).map((config) => config.name))
		expect(acknowledged.filter((n) => !kept.has(`n${n}`))).toEqual([])
	}, 60_000)
})
