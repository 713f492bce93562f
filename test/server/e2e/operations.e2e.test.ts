import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { parsePrometheus } from '../../support/prometheus'
import { api, emptyDir, run, serversOfThisFile, startServer, userWithKey } from '../../support/harness'

const servers = serversOfThisFile()
const KEY = randomBytes(32).toString('base64')
const env = { CFGSYNC_MASTER_KEY: KEY }

describe('operations on the compiled binary', () => {
	test('backups every second under continuous pushes: verified, 0600, the newest N kept, and each restores into a fresh directory that serves it', async () => {
		const dir = emptyDir()
		const backups = join(dir, 'backups')
		const server = await startServer(dir, {
			env,
			args: ['--backup-dir', backups, '--backup-schedule', '* * * * * *', '--backup-keep', '3']
		})
		servers.push(server)
		const alice = await userWithKey(dir, 'alice', 'pro', env)
		const pushed: number[] = []
		const deadline = Date.now() + 4500
		let n = 0
		while (Date.now() < deadline) {
			const res = await api(server, 'POST', '/api/configs', alice.key, {
				name: 'busy',
				data: { n: ++n, pad: 'x'.repeat(2000) }
			})
			expect(res.status).toBeOneOf([200, 201])
			pushed.push(n)
		}
		await Bun.sleep(1200)
		await server.stop()
		const files = readdirSync(backups).sort()
		expect(files).toHaveLength(3)
		expect(server.log().match(/"msg":"backup written"/g)?.length ?? 0).toBeGreaterThanOrEqual(4)
		expect(server.log()).not.toContain('backup failed')
		for (const file of files) {
			expect(file).toMatch(/^cfgsync-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z\.db$/)
			expect(statSync(join(backups, file)).mode & 0o777).toBe(0o600)
			const copy = new Database(join(backups, file), { readonly: true })
			expect(copy.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
			copy.close()
		}
		// Each backup restores into an empty data directory and serves what it held.
		for (const file of files) {
			const fresh = emptyDir()
			const restored = await run(fresh, ['restore', join(backups, file)], { env })
			expect(restored.code).toBe(0)
			expect(restored.stdout).toContain('restored ')
			const copy = await startServer(fresh, { env })
			servers.push(copy)
			const latest = await api(copy, 'GET', '/api/configs/latest?name=busy&tool=claude-code', alice.key)
			expect(latest.status).toBe(200)
			expect(pushed).toContain(latest.body.data.n)
			expect(latest.body.version).toBe(latest.body.data.n)
			expect((await api(copy, 'GET', '/readyz')).status).toBe(200)
			await copy.stop()
		}
	}, 60_000)

	test('restore refuses while a server uses the data directory, and refuses a backup the master key does not open; then replaces, keeping the old database', async () => {
		const dir = emptyDir()
		const server = await startServer(dir, { env })
		servers.push(server)
		const bob = await userWithKey(dir, 'bob', 'pro', env)
		await api(server, 'POST', '/api/configs', bob.key, { name: 'c', data: { v: 'before backup' } })
		const file = join(dir, 'manual.db')
		expect((await run(dir, ['backup', file], { env })).code).toBe(0)
		await api(server, 'POST', '/api/configs', bob.key, { name: 'c', data: { v: 'after backup' } })

		const busy = await run(dir, ['restore', file], { env })
		expect(busy.code).toBe(1)
		expect(busy.stderr).toMatch(/a server \(pid \d+\) is using .*: stop it first/)
		await server.stop()

		const wrongKey = await run(dir, ['restore', file], {
			env: { CFGSYNC_MASTER_KEY: randomBytes(32).toString('base64') }
		})
		expect(wrongKey.code).toBe(1)
		expect(wrongKey.stderr).toContain(
			'the master key does not open it (it was made under another key); nothing was changed'
		)
		const garbage = join(dir, 'garbage.db')
		writeFileSync(garbage, 'not a database')
		expect((await run(dir, ['restore', garbage], { env })).code).toBe(1)
		expect(readdirSync(join(dir, 'data')).filter((name) => name.includes('before-restore'))).toEqual([])

		const restored = await run(dir, ['restore', file], { env })
		expect(restored.code).toBe(0)
		const kept = readdirSync(join(dir, 'data')).filter((name) => name.startsWith('cfgsync.db.before-restore-'))
		expect(kept).toHaveLength(1)
		const old = new Database(join(dir, 'data', kept[0] as string), { readonly: true })
		expect(old.query('SELECT max(version) AS v FROM config_versions').get()).toEqual({ v: 2 })
		old.close()
		const again = await startServer(dir, { env })
		servers.push(again)
		expect((await api(again, 'GET', '/api/configs/latest?name=c&tool=claude-code', bob.key)).body.data).toEqual({
			v: 'before backup'
		})
		expect(existsSync(file)).toBe(true)
	}, 30_000)

	test('/readyz turns 503 when the database file is broken under a running server; /healthz is liveness', async () => {
		const dir = emptyDir()
		const server = await startServer(dir, { env })
		servers.push(server)
		expect((await api(server, 'GET', '/readyz')).body).toMatchObject({ status: 'ready' })
		truncateSync(join(dir, 'data', 'cfgsync.db'), 0)
		writeFileSync(join(dir, 'data', 'cfgsync.db'), randomBytes(8192))
		const broken = await api(server, 'GET', '/readyz')
		expect(broken.status).toBe(503)
		expect(broken.body).toMatchObject({ status: 'unavailable', checks: { database: 'failed' } })
	})

	test('/metrics scraped while requests run parses as Prometheus text and counts them', async () => {
		const dir = emptyDir()
		const token = randomBytes(24).toString('hex')
		const server = await startServer(dir, { env: { ...env, CFGSYNC_METRICS_TOKEN: token } })
		servers.push(server)
		const carol = await userWithKey(dir, 'carol', 'pro', env)
		expect((await fetch(`${server.url}/metrics`)).status).toBe(401)
		const load = Promise.all(
			Array.from({ length: 8 }, async (_, worker) => {
				for (let i = 0; i < 40; i++)
					await api(server, 'POST', '/api/configs', carol.key, { name: `w${worker}`, data: { i } })
			})
		)
		const scrapes: string[] = []
		while (scrapes.length < 10) {
			const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })
			expect(res.status).toBe(200)
			scrapes.push(await res.text())
		}
		await load
		const last = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text()
		for (const text of [...scrapes, last]) parsePrometheus(text)
		const { samples } = parsePrometheus(last)
		const pushes = samples.filter((s) => s.name === 'cfgsync_pushes_total').reduce((sum, s) => sum + s.value, 0)
		expect(pushes).toBe(320)
		expect(samples.find((s) => s.name === 'cfgsync_configs')?.value).toBe(8)
	}, 30_000)
})
