import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { readFileSync, statSync, existsSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { migrations } from '../../../src/server/store/sqlite/migrations'
import { serverVersionLine } from '../../support/build'
import { api, emptyDir, run, startServer, userWithKey, serversOfThisFile } from '../../support/harness'

const servers = serversOfThisFile()

describe('the compiled binary from an empty directory', () => {
	test('--help and --version answer; unknown commands fail with one line', async () => {
		const dir = emptyDir()
		const help = await run(dir, ['--help'])
		expect(help.code).toBe(0)
		expect(help.stdout).toContain('cfgsync-server user add')
		expect((await run(dir, ['--version'])).stdout).toBe(serverVersionLine())
		const bogus = await run(dir, ['frobnicate'])
		expect(bogus.code).not.toBe(0)
		expect(bogus.stderr.trim().split('\n')).toHaveLength(1)
		expect(existsSync(join(dir, 'data'))).toBe(false)
	})

	test('first start: data dir, 0600 master key, migrated database, healthy; admin commands work while it runs', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		servers.push(server)
		expect(statSync(join(dir, 'data', 'master.key')).mode & 0o777).toBe(0o600)
		const db = new Database(join(dir, 'data', 'cfgsync.db'), { readonly: true })
		expect(db.query('SELECT count(*) AS n FROM __drizzle_migrations').get()).toEqual({ n: migrations.length })
		expect(db.query("SELECT name FROM sqlite_master WHERE name = 'config_versions'").get()).toBeTruthy()
		db.close()

		const alice = await userWithKey(dir, 'alice')
		expect(alice.id).toMatch(/^[0-9a-f-]{36}$/)
		expect(alice.key).toMatch(/^cs_[0-9a-f]{64}$/)
		expect(await api(server, 'GET', '/api/me', alice.key)).toMatchObject({
			status: 200,
			body: { email: 'alice@example.test', username: 'alice' }
		})
		// Behind a reverse proxy that keeps a short Host (http://nas/), routes still match.
		for (const path of ['/docs', '/healthz'])
			expect((await fetch(`${server.url}${path}`, { headers: { host: 'nas' } })).status).toBe(200)
		expect(await api(server, 'GET', '/api/me', alice.key, undefined, { host: 'nas' })).toMatchObject({
			status: 200,
			body: { username: 'alice' }
		})

		const login = await api(server, 'POST', '/api/auth/login', undefined, {
			login: 'alice',
			password: alice.password,
			device: 'laptop'
		})
		expect(login.status).toBe(201)
		const list = await run(dir, ['user', 'list'])
		expect(list.stdout).toContain('alice@example.test')
		expect((await run(dir, ['user', 'set-plan', 'alice', 'free'])).code).toBe(0)
		expect((await run(dir, ['purge'])).stdout).toContain('nothing to purge')

		const backup = join(dir, 'backup.db')
		expect((await run(dir, ['backup', backup])).code).toBe(0)
		const copy = new Database(backup, { readonly: true })
		expect(copy.query('SELECT username FROM users').all()).toEqual([{ username: 'alice' }])
		expect(copy.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
		copy.close()
		const again = await run(dir, ['backup', backup])
		expect(again.code).toBe(1)
		expect(again.stderr).toContain('already exists')

		const dup = await run(dir, [
			'user',
			'add',
			'--email',
			'ALICE@example.test',
			'--username',
			'alice2',
			'--password',
			'long enough'
		])
		expect(dup.code).toBe(1)
		expect(dup.stderr.trim().split('\n')).toHaveLength(1)

		// Nothing secret in the log or the database file.
		const files = ['cfgsync.db', 'cfgsync.db-wal'].map((f) => join(dir, 'data', f)).filter(existsSync)
		const stored = files.map((f) => readFileSync(f).toString('latin1')).join('')
		for (const secret of [alice.key, alice.password, login.body.apiKey]) {
			expect(server.log()).not.toContain(secret)
			expect(stored).not.toContain(secret)
		}
	})

	test('a bunfig.toml or .env in the working directory is not loaded (no preload code runs)', async () => {
		const dir = emptyDir()
		await Bun.write(join(dir, 'bunfig.toml'), 'preload = ["./evil.ts"]\n')
		await Bun.write(join(dir, 'evil.ts'), 'console.log("PRELOAD RAN")\n')
		await Bun.write(join(dir, '.env'), 'CFGSYNC_DATA_DIR=from-dotenv\n')
		const version = await run(dir, ['--version'])
		expect(version.stdout + version.stderr).not.toContain('PRELOAD RAN')
		const server = await startServer(dir)
		servers.push(server)
		expect(server.log()).not.toContain('PRELOAD RAN')
		expect(existsSync(join(dir, 'data', 'cfgsync.db'))).toBe(true)
		expect(existsSync(join(dir, 'from-dotenv'))).toBe(false)
	})

	test('a 100 MiB declared body gets a JSON 413 without being read', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		servers.push(server)
		const { port } = new URL(server.url)
		const reply = await new Promise<string>((resolve, reject) => {
			const socket = connect(Number(port), '127.0.0.1')
			let data = ''
			socket.on('data', (chunk) => {
				data += chunk.toString()
				if (data.includes('}')) {
					socket.destroy()
					resolve(data)
				}
			})
			socket.on('error', reject)
			socket.write(
				'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n{"login":'
			)
		})
		expect(reply).toStartWith('HTTP/1.1 413')
		expect(reply).toContain('"code":"payload_too_large"')
		expect((await api(server, 'GET', '/healthz')).status).toBe(200)
	})

	test('SIGTERM stops it cleanly and a restart serves the same data', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		const bob = await userWithKey(dir, 'bob')
		expect(await server.stop('SIGTERM')).toBe(0)
		expect(server.log()).toContain('"msg":"stopped"')
		const restarted = await startServer(dir)
		servers.push(restarted)
		expect((await api(restarted, 'GET', '/api/me', bob.key)).status).toBe(200)
	})
})
