import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { copyFileSync, mkdirSync, readFileSync, statSync } from 'node:fs'
import { connect } from 'node:net'
import { join } from 'node:path'
import { contentHash } from '../../../src/shared/content-hash'
import { createSealer, parseMasterKey } from '../../../src/server/lib/crypto'
import { api, emptyDir, run, startServer, userWithKey, type Server } from '../../support/harness'

/**
 * The promises the running server makes, checked against the compiled binary:
 * nothing acknowledged is lost under concurrency, crashes or backups; hostile
 * transports get bounded answers; throttling holds; no secret reaches a log.
 */
const figures = { requests: 0, fiveHundreds: 0, kills: 0, badKeys: 0, versionChecks: 0 }
const acknowledged = new Set<string>()
const secrets = new Set<string>()
const allServers: Server[] = []

async function start(dir: string, env: Record<string, string> = {}) {
	const server = await startServer(dir, { env })
	allServers.push(server)
	return server
}

/** An API call that counts itself and never throws for a dropped connection. */
async function call(server: Server, method: string, path: string, key: string, body?: unknown) {
	figures.requests++
	try {
		const res = await api(server, method, path, key, body)
		if (res.status >= 500) figures.fiveHundreds++
		return res
	} catch {
		return { status: 0, headers: new Headers(), body: undefined }
	}
}

async function user(dir: string, name: string, plan = 'pro') {
	const created = await userWithKey(dir, name, plan)
	secrets.add(created.key)
	secrets.add(created.password)
	return created
}

type Ack = { configId: string; version: number; data?: unknown; hash?: string }

/** Opens the data dir's database with its master key and checks every config's invariants and every acknowledgement. */
function verifyStore(dataDir: string, acks: Ack[], deleted: Set<string> = new Set()) {
	const sealer = createSealer(parseMasterKey(readFileSync(join(dataDir, 'master.key'), 'utf8')))
	const db = new Database(join(dataDir, 'cfgsync.db'))
	try {
		expect(db.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
		expect(
			db.query('SELECT count(*) AS n FROM config_versions WHERE config_id NOT IN (SELECT id FROM configs)').get()
		).toEqual({ n: 0 })
		const configs = db
			.query<{ id: string; version: number; current_version_id: string; hash: string }, []>(
				'SELECT id, version, current_version_id, hash FROM configs'
			)
			.all()
		const byConfig = new Map<string, Map<number, { hash: string; data: unknown }>>()
		for (const config of configs) {
			const versions = db
				.query<{ id: string; version: number; hash: string; data: Uint8Array }, [string]>(
					'SELECT id, version, hash, data FROM config_versions WHERE config_id = ? ORDER BY version'
				)
				.all(config.id)
			expect(versions.map((v) => v.version)).toEqual(Array.from({ length: versions.length }, (_, i) => i + 1))
			expect(config.version).toBe(versions.length)
			const current = versions.filter((v) => v.id === config.current_version_id)
			expect(current).toHaveLength(1)
			expect(current[0]?.version).toBe(versions.length)
			expect(config.hash).toBe(current[0]?.hash as string)
			const decoded = new Map<number, { hash: string; data: unknown }>()
			for (const version of versions) {
				const data = JSON.parse(sealer.open(version.data, `${config.id}:${version.id}`))
				expect(contentHash(data)).toBe(version.hash)
				decoded.set(version.version, { hash: version.hash, data })
				figures.versionChecks++
			}
			byConfig.set(config.id, decoded)
		}
		for (const ack of acks) {
			if (deleted.has(ack.configId)) {
				expect(byConfig.has(ack.configId)).toBe(false)
				continue
			}
			const stored = byConfig.get(ack.configId)?.get(ack.version)
			expect({ ack: `${ack.configId} v${ack.version}`, present: stored !== undefined }).toEqual({
				ack: `${ack.configId} v${ack.version}`,
				present: true
			})
			if (ack.data !== undefined) expect(stored?.data).toEqual(ack.data as object)
			if (ack.hash !== undefined) expect(stored?.hash).toBe(ack.hash)
		}
		for (const ack of acks) acknowledged.add(`${ack.configId}:${ack.version}`)
		return byConfig
	} finally {
		db.close()
	}
}

const marker = (label: string) => {
	const value = `marker-${label}-${crypto.randomUUID().slice(0, 8)}`
	secrets.add(value)
	return value
}

describe('reliability of the running server', () => {
	test('concurrency: 12 clients on two server processes sharing one file; pushes, rollbacks and deletes mixed', async () => {
		const dir = emptyDir()
		const a = await start(dir)
		const b = await start(dir)
		const users = [await user(dir, 'u0'), await user(dir, 'u1'), await user(dir, 'u2')]
		const acks: Ack[] = []
		const deleted = new Set<string>()
		const random = (n: number) => Math.floor(Math.random() * n)

		const client = async (c: number) => {
			const owner = users[c % users.length]!
			const server = c % 2 === 0 ? a : b
			for (let seq = 0; seq < 30; seq++) {
				const roll = Math.random()
				if (roll < 0.5) {
					const data = { client: c, seq, note: marker('shared') }
					const res = await call(server, 'POST', '/api/configs', owner.key, { name: 'shared', tool: 'cursor', data })
					if ((res.status === 200 || res.status === 201) && !res.body.noChange)
						acks.push({ configId: res.body.id, version: res.body.version, data })
				} else if (roll < 0.7) {
					const data = { client: c, seq, own: true }
					const res = await call(server, 'POST', '/api/configs', owner.key, { name: `own-${c}`, tool: 'codex', data })
					if ((res.status === 200 || res.status === 201) && !res.body.noChange)
						acks.push({ configId: res.body.id, version: res.body.version, data })
				} else if (roll < 0.85) {
					const latest = await call(server, 'GET', '/api/configs/latest?name=shared&tool=cursor', owner.key)
					if (latest.status !== 200) continue
					const versions = await call(server, 'GET', `/api/configs/${latest.body.id}/versions`, owner.key)
					const target = versions.body[random(versions.body.length)]
					const res = await call(server, 'POST', `/api/configs/${latest.body.id}/rollback`, owner.key, {
						versionId: target.id
					})
					if (res.status === 200) acks.push({ configId: latest.body.id, version: res.body.version, hash: target.hash })
				} else {
					const created = await call(server, 'POST', '/api/configs', owner.key, {
						name: `doomed-${c}-${seq}`,
						tool: 'vscode',
						data: { seq }
					})
					await call(server, 'POST', '/api/configs', owner.key, {
						name: `doomed-${c}-${seq}`,
						tool: 'vscode',
						data: { seq, again: true }
					})
					const gone = await call(server, 'DELETE', `/api/configs/${created.body.id}`, owner.key)
					expect(gone.status).toBe(204)
					deleted.add(created.body.id)
				}
			}
		}
		await Promise.all(Array.from({ length: 12 }, (_, c) => client(c)))
		expect(figures.fiveHundreds).toBe(0)
		expect(acks.length).toBeGreaterThan(150)
		verifyStore(join(dir, 'data'), acks, deleted)
	}, 120_000)

	test('crash safety: SIGKILL at a random moment under continuous pushes loses nothing acknowledged; several rounds', async () => {
		const dir = emptyDir()
		let server = await start(dir)
		const writers = [await user(dir, 'w0'), await user(dir, 'w1')]
		const acks: Ack[] = []
		for (let round = 0; round < 5; round++) {
			let running = true
			const pusher = async (w: number) => {
				const owner = writers[w % writers.length]!
				let seq = 0
				while (running) {
					const data = { round, w, seq: seq++, pad: 'x'.repeat(200 + ((seq * 97) % 3000)) }
					const res = await call(server, 'POST', '/api/configs', owner.key, {
						name: w < 2 ? 'shared' : `solo-${w}`,
						tool: 'claude-code',
						data
					})
					if (res.status === 0) return
					if (res.status === 200 || res.status === 201)
						acks.push({ configId: res.body.id, version: res.body.version, data })
				}
			}
			const pushers = Array.from({ length: 4 }, (_, w) => pusher(w))
			await Bun.sleep(200 + Math.random() * 1000)
			server.proc.kill('SIGKILL')
			await server.proc.exited
			running = false
			await Promise.all(pushers)
			figures.kills++
			// The file survives the kill: integrity and every acknowledged push, before anything reopens it for writing.
			verifyStore(join(dir, 'data'), acks)
			server = await start(dir)
			const listed = await call(server, 'GET', '/api/configs', writers[0]!.key)
			expect(listed.status).toBe(200)
		}
		expect(acks.length).toBeGreaterThan(50)
	}, 120_000)

	test('hostile transport: 100 MiB bodies (declared or chunked) are refused without being read; RSS stays bounded; huge headers get a 4xx', async () => {
		const dir = emptyDir()
		const server = await start(dir)
		const port = Number(new URL(server.url).port)
		const rss = () =>
			Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
		const raw = (head: string, bodyBytes: number, chunked: boolean) =>
			new Promise<string>((resolve) => {
				const socket = connect(port, '127.0.0.1')
				let reply = ''
				socket.on('data', (chunk) => (reply += chunk.toString()))
				socket.on('close', () => resolve(reply))
				socket.on('error', () => resolve(reply))
				socket.write(head)
				const block = Buffer.alloc(1024 * 1024, 0x20)
				let sent = 0
				const pump = () => {
					while (sent < bodyBytes) {
						sent += block.length
						const ok = socket.write(
							chunked
								? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')])
								: block
						)
						if (!ok) return void socket.once('drain', pump)
					}
					if (chunked) socket.write('0\r\n\r\n')
					setTimeout(() => socket.end(), 200)
				}
				pump()
				setTimeout(() => socket.destroy(), 10_000)
			})
		const before = rss()
		const declared = await raw(
			'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 104857600\r\n\r\n',
			100 * 1024 * 1024,
			false
		)
		figures.requests++
		expect(declared).toStartWith('HTTP/1.1 413')
		expect(declared).toContain('"code":"payload_too_large"')
		const chunked = await raw(
			'POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
			100 * 1024 * 1024,
			true
		)
		figures.requests++
		expect(chunked).toStartWith('HTTP/1.1 413')
		expect(chunked).toContain('"code":"payload_too_large"')
		const grown = rss() - before
		console.log(
			`[reliability] RSS ${Math.round(before / 1048576)} MiB before two 100 MiB bodies, grew by ${Math.round(grown / 1048576)} MiB`
		)
		expect(grown).toBeLessThan(64 * 1024 * 1024)

		for (const size of [64 * 1024, 1024 * 1024]) {
			const reply = await raw(`GET /api/me HTTP/1.1\r\nHost: x\r\nX-Huge: ${'a'.repeat(size)}\r\n\r\n`, 0, false)
			figures.requests++
			const status = Number(reply.slice(9, 12))
			expect(status === 0 || (status >= 400 && status < 500)).toBe(true)
		}
		expect((await api(server, 'GET', '/healthz')).status).toBe(200)
	}, 60_000)

	test('login throttling: a burst of wrong passwords for one account is throttled while another account logs in', async () => {
		const dir = emptyDir()
		const server = await start(dir)
		const victim = await user(dir, 'victim')
		const bystander = await user(dir, 'bystander')
		const burst = await Promise.all(
			Array.from({ length: 25 }, () =>
				call(server, 'POST', '/api/auth/login', '', { login: 'victim', password: 'not-the-password', device: 'x' })
			)
		)
		const statuses = burst.map((r) => r.status)
		expect(statuses.filter((s) => s === 401)).toHaveLength(10)
		expect(statuses.filter((s) => s === 429)).toHaveLength(15)
		const locked = await call(server, 'POST', '/api/auth/login', '', {
			login: 'victim@example.test',
			password: victim.password,
			device: 'x'
		})
		expect(locked.status).toBe(429)
		expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(800)
		const fine = await call(server, 'POST', '/api/auth/login', '', {
			login: 'bystander',
			password: bystander.password,
			device: 'x'
		})
		expect(fine.status).toBe(201)
		secrets.add(fine.body.apiKey)
	}, 60_000)

	test('secrets at rest: master.key is 0600; another key, or none, refuses to start and changes nothing', async () => {
		const dir = emptyDir()
		const server = await start(dir)
		const owner = await user(dir, 'keeper')
		const secret = marker('at-rest')
		expect((await call(server, 'POST', '/api/configs', owner.key, { data: { secret } })).status).toBe(201)
		expect(await server.stop('SIGTERM')).toBe(0)
		const dataDir = join(dir, 'data')
		const keyFile = join(dataDir, 'master.key')
		expect(statSync(keyFile).mode & 0o777).toBe(0o600)
		const snapshot = () =>
			['cfgsync.db', 'master.key'].map((f) => readFileSync(join(dataDir, f)).toString('base64')).join()
		const before = snapshot()
		const other = await run(dir, ['serve', '--port', '0'], {
			env: { CFGSYNC_MASTER_KEY: Buffer.alloc(32, 9).toString('base64') }
		})
		figures.badKeys++
		expect(other.code).not.toBe(0)
		expect(other.stderr.trim().split('\n')).toHaveLength(1)
		expect(other.stderr).toContain('does not match')
		const malformed = await run(dir, ['serve', '--port', '0'], { env: { CFGSYNC_MASTER_KEY: 'c2hvcnQ=' } })
		expect(malformed.code).not.toBe(0)
		expect(snapshot()).toBe(before)
		copyFileSync(keyFile, `${keyFile}.bak`)
		await Bun.file(keyFile).delete()
		const missing = await run(dir, ['serve', '--port', '0'])
		figures.badKeys++
		expect(missing.code).not.toBe(0)
		expect(missing.stderr).toContain('no master key')
		copyFileSync(`${keyFile}.bak`, keyFile)
		const again = await start(dir)
		expect(
			(await call(again, 'GET', '/api/configs/latest?name=default&tool=claude-code', owner.key)).body.data.secret
		).toBe(secret)
		for (const file of ['cfgsync.db', 'cfgsync.db-wal']) {
			const path = join(dataDir, file)
			if (Bun.file(path).size > 0) expect(readFileSync(path).includes(Buffer.from(secret))).toBe(false)
		}
	}, 60_000)

	test('backups: a backup taken while pushes run is served by a fresh server with the same master key', async () => {
		const dir = emptyDir()
		const server = await start(dir)
		const writers = [await user(dir, 'b0'), await user(dir, 'b1', 'team')]
		const acks: (Ack & { at: number; key: string })[] = []
		let running = true
		const pusher = async (w: number) => {
			const owner = writers[w % 2]!
			let seq = 0
			while (running) {
				const data = { w, seq: seq++, secret: marker('backup') }
				const res = await call(server, 'POST', '/api/configs', owner.key, {
					name: `cfg-${w % 3}`,
					tool: 'gemini-cli',
					data
				})
				if (res.status === 200 || res.status === 201)
					acks.push({ configId: res.body.id, version: res.body.version, data, at: Date.now(), key: owner.key })
			}
		}
		const pushers = Array.from({ length: 4 }, (_, w) => pusher(w))
		await Bun.sleep(400)
		const backupFile = join(dir, 'backup.db')
		const startedAt = Date.now()
		const backup = await run(dir, ['backup', backupFile])
		expect(backup.code).toBe(0)
		await Bun.sleep(200)
		running = false
		await Promise.all(pushers)

		const restored = emptyDir()
		mkdirSync(join(restored, 'data'), { mode: 0o700 })
		copyFileSync(backupFile, join(restored, 'data', 'cfgsync.db'))
		copyFileSync(join(dir, 'data', 'master.key'), join(restored, 'data', 'master.key'))
		const fresh = await start(restored)
		const before = acks.filter((ack) => ack.at < startedAt)
		expect(before.length).toBeGreaterThan(10)
		verifyStore(join(restored, 'data'), before)
		for (const writer of writers) {
			const list = await call(fresh, 'GET', '/api/configs', writer.key)
			expect(list.status).toBe(200)
			for (const config of list.body) {
				const one = await call(fresh, 'GET', `/api/configs/${config.id}`, writer.key)
				expect(one.status).toBe(200)
				expect(one.body.data.secret).toStartWith('marker-backup-')
			}
		}
		expect(statSync(join(dir, 'data', 'master.key')).mode & 0o777).toBe(0o600)
	}, 60_000)
})

afterAll(async () => {
	for (const server of allServers) await server.stop('SIGKILL')
	// Secrets: nothing sent or issued during this whole suite appears in any server's log.
	const logs = allServers.map((server) => server.log()).join('\n')
	let leaks = 0
	for (const secret of secrets) if (logs.includes(secret)) leaks++
	console.log(
		`[reliability] running server: ${figures.requests} requests, ${figures.kills + figures.badKeys} faults injected (${figures.kills} SIGKILLs mid-write, ${figures.badKeys} starts with a wrong or missing master key), ${acknowledged.size} acknowledged writes found intact (${figures.versionChecks} decrypt-and-hash checks of stored versions), ${secrets.size} secrets checked against ${logs.split('\n').length} log lines, ${leaks} leaked, ${figures.fiveHundreds} 5xx`
	)
	expect(leaks).toBe(0)
	expect(figures.fiveHundreds).toBe(0)
})
