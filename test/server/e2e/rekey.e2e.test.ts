import { SQL } from 'bun'
import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import { createSealer, masterKeyId, openPendingKey, parseMasterKey } from '../../../src/server/lib/crypto'
import { newPostgresDatabase, postgresAnswers, TEST_DATABASE_URL } from '../../support/engine'
import {
	allPages,
	api,
	BINARY,
	emptyDir,
	run,
	serversOfThisFile,
	startServer,
	userWithKey
} from '../../support/harness'

const servers = serversOfThisFile()

/** Every version in the file: how many open under `key`, and how many under `other`. */
function countOpening(file: string, key: Buffer, other: Buffer) {
	const db = new Database(file, { readonly: true })
	const rows = db
		.query<{ id: string; config_id: string; data: Uint8Array }, []>('SELECT id, config_id, data FROM config_versions')
		.all()
	db.close()
	const opens = (k: Buffer, row: (typeof rows)[0]) => {
		try {
			createSealer(k).openBytes(row.data, `${row.config_id}:${row.id}`)
			return true
		} catch {
			return false
		}
	}
	return {
		total: rows.length,
		underKey: rows.filter((r) => opens(key, r)).length,
		underOther: rows.filter((r) => opens(other, r)).length
	}
}

/**
 * Everything in a database the key opens: each version under its row's ids, and each `meta` value
 * under the additional data its row would use (the check value, a pending rotation key, anything else).
 */
function openedBy(
	key: Buffer,
	rows: { versions: { id: string; config_id: string; data: Uint8Array }[]; meta: { key: string; value: string }[] }
): string[] {
	const sealer = createSealer(key)
	const opened: string[] = []
	for (const row of rows.versions) {
		try {
			sealer.openBytes(row.data, `${row.config_id}:${row.id}`)
			opened.push(`version ${row.id}`)
		} catch {}
	}
	for (const row of rows.meta) {
		try {
			sealer.openBytes(Buffer.from(row.value, 'base64'), `meta:${row.key}`)
			opened.push(`meta ${row.key}`)
		} catch {}
	}
	return opened
}

function sqliteRows(file: string) {
	const db = new Database(file, { readonly: true })
	const versions = db
		.query<{ id: string; config_id: string; data: Uint8Array }, []>('SELECT id, config_id, data FROM config_versions')
		.all()
	const meta = db.query<{ key: string; value: string }, []>('SELECT key, value FROM meta').all()
	db.close()
	return { versions, meta }
}

async function seeded(versions: number) {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const alice = await userWithKey(dir, 'alice', 'pro')
	for (let i = 1; i <= versions; i++)
		await api(server, 'POST', '/api/configs', alice.key, { name: `c${i % 10}`, data: { i, pad: 'p'.repeat(200) } })
	return { dir, server, alice, originalKey: parseMasterKey(readFileSync(join(dir, 'data', 'master.key'), 'utf8')) }
}

describe('master key rotation on the compiled binary', () => {
	test('rekey while the server runs: every read and push succeeds throughout; afterwards all versions open under the new key only', async () => {
		const { dir, server, alice, originalKey } = await seeded(200)
		let stop = false
		const errors: string[] = []
		let pushes = 0
		const traffic = (async () => {
			while (!stop) {
				const pushed = await api(server, 'POST', '/api/configs', alice.key, { name: 'live', data: { n: ++pushes } })
				if (pushed.status >= 300) errors.push(`push ${pushed.status}`)
				for (let c = 0; c < 10; c++) {
					const read = await api(server, 'GET', `/api/configs/latest?name=c${c}&tool=claude-code`, alice.key)
					if (read.status !== 200) errors.push(`read ${read.status} ${JSON.stringify(read.body)}`)
				}
			}
		})()
		const rekey = await run(dir, ['rekey', '--batch', '7'])
		stop = true
		await traffic
		expect(rekey.code).toBe(0)
		expect(rekey.stdout).toMatch(/re-encrypted \d+ records under the new master key/)
		expect(errors).toEqual([])
		expect(pushes).toBeGreaterThan(5)
		// The running server, still holding the old key, reads and writes on.
		expect((await api(server, 'GET', '/api/configs/latest?name=live&tool=claude-code', alice.key)).body.data).toEqual({
			n: pushes
		})
		const newKey = parseMasterKey(readFileSync(join(dir, 'data', 'master.key'), 'utf8'))
		expect(newKey.equals(originalKey)).toBe(false)
		expect(statSync(join(dir, 'data', 'master.key')).mode & 0o777).toBe(0o600)
		const kept = readdirSync(join(dir, 'data')).filter((name) => name.startsWith('master.key.before-rekey-'))
		expect(kept).toHaveLength(1)
		expect(parseMasterKey(readFileSync(join(dir, 'data', kept[0] as string), 'utf8')).equals(originalKey)).toBe(true)
		await api(server, 'POST', '/api/configs', alice.key, { name: 'after', data: { ok: true } })
		await server.stop()
		const counts = countOpening(join(dir, 'data', 'cfgsync.db'), newKey, originalKey)
		expect(counts).toEqual({ total: counts.total, underKey: counts.total, underOther: 0 })
		// Nothing in the database opens under the old key: not a version, not the check value, not the new key.
		const rows = sqliteRows(join(dir, 'data', 'cfgsync.db'))
		expect(openedBy(originalKey, rows)).toEqual([])
		expect(openedBy(newKey, rows)).toContain('meta master_key_check')
		// Nor does a backup made now.
		expect((await run(dir, ['backup', join(dir, 'after.db')])).code).toBe(0)
		expect(openedBy(originalKey, sqliteRows(join(dir, 'after.db')))).toEqual([])
		// Restarted on the new key, every version of every config reads.
		const again = await startServer(dir)
		servers.push(again)
		const list = (await api(again, 'GET', '/api/configs', alice.key)).body as { id: string }[]
		let read = 0
		for (const config of list) {
			// Every page of its history opens (allPages fails on anything but 200).
			read += (await allPages(again, `/api/configs/${config.id}/versions`, alice.key)).length
		}
		expect(read).toBe(counts.total)
		expect((await api(again, 'GET', '/readyz')).status).toBe(200)
		expect(again.log()).not.toContain('was not saved')
	}, 90_000)

	test('SIGKILL at random points, then finished: every version opens under the final key and none under the original', async () => {
		const { dir, server, originalKey } = await seeded(300)
		await server.stop()
		const kills: number[] = []
		for (let round = 0; round < 6; round++) {
			const proc = Bun.spawn([BINARY, 'rekey', '--batch', '5'], {
				cwd: dir,
				env: { PATH: process.env.PATH ?? '' },
				stdout: 'pipe',
				stderr: 'pipe'
			})
			const delay = 40 + Math.floor(Math.random() * 400)
			kills.push(delay)
			await Bun.sleep(delay)
			proc.kill('SIGKILL')
			await proc.exited
			// At every moment each record opens under exactly one of the keys in play: the saved one, or the pending one.
			const saved = parseMasterKey(readFileSync(join(dir, 'data', 'master.key'), 'utf8'))
			const db = new Database(join(dir, 'data', 'cfgsync.db'), { readonly: true })
			const pending = db
				.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'master_key_next'")
				.get()?.value
			db.close()
			const next = pending === undefined ? undefined : openPendingKey(createSealer(saved), pending)
			const counts = countOpening(join(dir, 'data', 'cfgsync.db'), saved, next ?? saved)
			if (next === undefined || next.equals(saved)) expect(counts.underKey).toBe(300)
			else expect(counts.underKey + counts.underOther).toBe(300)
		}
		const finish = await run(dir, ['rekey'])
		expect(finish.code).toBe(0)
		const finalKey = parseMasterKey(readFileSync(join(dir, 'data', 'master.key'), 'utf8'))
		const counts = countOpening(join(dir, 'data', 'cfgsync.db'), finalKey, originalKey)
		expect(counts).toEqual({ total: 300, underKey: 300, underOther: 0 })
		const again = await startServer(dir)
		servers.push(again)
		expect((await api(again, 'GET', '/readyz')).status).toBe(200)
		console.log(`[rekey] killed after ${kills.join(', ')} ms, then finished`)
	}, 90_000)

	test('with CFGSYNC_MASTER_KEY the new key is printed; a server started afterwards with the old variable refuses, saying the key was rotated', async () => {
		const dir = emptyDir()
		const oldKey = Buffer.alloc(32, 7).toString('base64')
		const env = { CFGSYNC_MASTER_KEY: oldKey }
		const server = await startServer(dir, { env })
		const bob = await userWithKey(dir, 'bob', 'pro', env)
		await api(server, 'POST', '/api/configs', bob.key, { name: 'c', data: { v: 1 } })
		await server.stop()
		const rekey = await run(dir, ['rekey'], { env })
		expect(rekey.code).toBe(0)
		const printed = rekey.stdout.split('\n').find((line) => /^[A-Za-z0-9+/]{43}=$/.test(line)) as string
		expect(printed).toBeDefined()
		expect(existsSync(join(dir, 'data', 'master.key'))).toBe(false)
		const stale = await run(dir, ['serve', '--port', '0'], { env })
		expect(stale.code).not.toBe(0)
		expect(stale.stderr).toContain('the master key was rotated')
		const again = await run(dir, ['rekey'], { env })
		expect(again.code).toBe(1)
		expect(again.stderr).toContain('was rotated on')
		const fresh = await startServer(dir, { env: { CFGSYNC_MASTER_KEY: printed } })
		servers.push(fresh)
		expect((await api(fresh, 'GET', '/api/configs/latest?name=c&tool=claude-code', bob.key)).body.data).toEqual({
			v: 1
		})
		expect(fresh.log()).not.toContain('was not saved')
		// A wrong --new-key-file is refused with one line; nothing changes.
		const keyFile = join(dir, 'same.key')
		writeFileSync(keyFile, `${printed}\n`)
		const same = await run(dir, ['rekey', '--new-key-file', keyFile], { env: { CFGSYNC_MASTER_KEY: printed } })
		expect(same.code).toBe(1)
		expect(same.stderr).toContain('the new key is the current key')
	}, 60_000)
})

const postgres = await postgresAnswers()
if (!postgres && process.env.CI !== 'true')
	console.log(`skipped the PostgreSQL key rotation end-to-end: no PostgreSQL answers at ${TEST_DATABASE_URL}`)

describe('key rotation with several instances (docs/operations.md)', () => {
	test.each(['sqlite', 'postgres'] as const)(
		'%s: two instances under load switch without a failed request; afterwards the old key opens nothing',
		async (engine) => {
			if (engine === 'postgres' && !postgres) throw new Error(`PostgreSQL does not answer at ${TEST_DATABASE_URL}`)
			const oldKey = randomBytes(32)
			const dir = emptyDir()
			const url = engine === 'postgres' ? await newPostgresDatabase() : undefined
			const env: Record<string, string> = {
				CFGSYNC_MASTER_KEY: oldKey.toString('base64'),
				...(url ? { CFGSYNC_DATABASE_URL: url, CFGSYNC_DATABASE_POOL: '2' } : {})
			}
			const a = await startServer(dir, { env })
			const b = await startServer(dir, { env })
			servers.push(a, b)
			const carol = await userWithKey(dir, 'carol', 'pro', env)
			for (let i = 0; i < 40; i++)
				await api(i % 2 ? a : b, 'POST', '/api/configs', carol.key, { name: `c${i % 8}`, data: { i } })
			let stop = false
			const errors: string[] = []
			let n = 0
			const load = [a, b].map(async (server, which) => {
				while (!stop) {
					const pushed = await api(server, 'POST', '/api/configs', carol.key, {
						name: `live-${which}`,
						data: { n: ++n }
					})
					if (pushed.status >= 300) errors.push(`push ${pushed.status} ${JSON.stringify(pushed.body)}`)
					const read = await api(server, 'GET', `/api/configs/latest?name=c${n % 8}&tool=claude-code`, carol.key)
					if (read.status !== 200) errors.push(`read ${read.status} ${JSON.stringify(read.body)}`)
				}
			})
			const rekey = await run(dir, ['rekey', '--batch', '5'], { env })
			// Writes after the rotation, through both.
			await Bun.sleep(300)
			stop = true
			await Promise.all(load)
			expect(rekey.stderr).toBe('')
			expect(rekey.code).toBe(0)
			expect(errors).toEqual([])
			const newKey = Buffer.from(
				rekey.stdout.split('\n').find((line) => /^[A-Za-z0-9+/]{43}=$/.test(line)) as string,
				'base64'
			)
			expect(newKey.length).toBe(32)
			for (const server of [a, b]) expect((await api(server, 'GET', '/readyz')).status).toBe(200)
			await a.stop()
			await b.stop()

			const rows = url ? await postgresRows(url) : sqliteRows(join(dir, 'data', 'cfgsync.db'))
			expect(rows.versions.length).toBeGreaterThan(40)
			expect(openedBy(oldKey, rows)).toEqual([])
			expect(openedBy(newKey, rows).length).toBe(rows.versions.length + 1)
			const stale = await run(dir, ['serve', '--port', '0'], { env })
			expect(stale.code).not.toBe(0)
			expect(stale.stderr).toContain('the master key was rotated')
		},
		90_000
	)

	test('a frozen instance (SIGSTOP) stops rekey before anything is re-encrypted, named; resumed, the rotation finishes', async () => {
		const dir = emptyDir()
		const oldKey = randomBytes(32)
		const env = { CFGSYNC_MASTER_KEY: oldKey.toString('base64') }
		const a = await startServer(dir, { env })
		const paused = await startServer(dir, { env })
		servers.push(a, paused)
		const dave = await userWithKey(dir, 'dave', 'pro', env)
		for (let v = 1; v <= 5; v++)
			expect((await api(a, 'POST', '/api/configs', dave.key, { name: 'c', data: { v } })).status).toBeLessThan(300)
		paused.proc.kill('SIGSTOP')
		const refused = await run(dir, ['rekey', '--wait-seconds', '3'], { env })
		expect(refused.code).toBe(1)
		expect(refused.stderr.trim().split('\n')).toHaveLength(1)
		// Named so an operator finds it: its host, pid and build, and how long ago it was last heard from.
		expect(refused.stderr).toContain(`instance on ${hostname()} (pid ${paused.proc.pid}, cfgsync-server `)
		expect(refused.stderr).toMatch(/last heartbeat \d+ s ago/)
		expect(refused.stderr).not.toContain(`pid ${a.proc.pid}`)
		expect(refused.stderr).toContain('nothing was re-encrypted')
		// Every version stored before still opens under the old key: none was re-encrypted.
		const before = countOpening(join(dir, 'data', 'cfgsync.db'), oldKey, oldKey)
		expect(before).toMatchObject({ total: 5, underKey: 5 })

		paused.proc.kill('SIGCONT')
		const finished = await run(dir, ['rekey'], { env })
		expect(finished.stderr).toContain('finishing a key rotation that was interrupted')
		expect(finished.code).toBe(0)
		for (const server of [a, paused])
			expect((await api(server, 'GET', '/api/configs/latest?name=c&tool=claude-code', dave.key)).body.data).toEqual({
				v: 5
			})
		const newKey = Buffer.from(
			finished.stdout.split('\n').find((line) => /^[A-Za-z0-9+/]{43}=$/.test(line)) as string,
			'base64'
		)
		expect(countOpening(join(dir, 'data', 'cfgsync.db'), newKey, oldKey)).toEqual({
			total: 5,
			underKey: 5,
			underOther: 0
		})
	}, 60_000)
})

describe.skipIf(!postgres && process.env.CI !== 'true')('rekey with an older release running (PostgreSQL)', () => {
	/**
	 * An instance of an older release on the same database, emulated through the real table: every second
	 * it writes its heartbeat row as such a release does (a bare random id, no host, pid or build; the id of
	 * the key it seals with), and it never takes a rotation's new key. A current instance runs beside it.
	 */
	test('rekey exits 1 naming it and re-encrypts nothing; once it has stopped, rekey finishes', async () => {
		const oldKey = randomBytes(32)
		const url = await newPostgresDatabase()
		const env = { CFGSYNC_MASTER_KEY: oldKey.toString('base64'), CFGSYNC_DATABASE_URL: url, CFGSYNC_DATABASE_POOL: '2' }
		const dir = emptyDir()
		const current = await startServer(dir, { env })
		servers.push(current)
		const erin = await userWithKey(dir, 'erin', 'pro', env)
		for (let v = 1; v <= 5; v++)
			expect((await api(current, 'POST', '/api/configs', erin.key, { name: 'c', data: { v } })).status).toBeLessThan(
				300
			)

		const older = new SQL({ url, max: 1 })
		const olderId = crypto.randomUUID()
		let beating = true
		const beat = () =>
			older.unsafe(
				'INSERT INTO server_instances (id, key_id, seen_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET key_id = excluded.key_id, seen_at = excluded.seen_at',
				[olderId, masterKeyId(oldKey), Date.now()]
			)
		await beat()
		const heartbeats = (async () => {
			while (beating) {
				await Bun.sleep(1000)
				if (beating) await beat()
			}
		})()
		try {
			const refused = await run(dir, ['rekey', '--wait-seconds', '3'], { env })
			expect(refused.code).toBe(1)
			expect(refused.stderr.trim().split('\n')).toHaveLength(1)
			expect(refused.stderr).toContain(`instance ${olderId} (reports no host, pid or version`)
			expect(refused.stderr).toContain('nothing was re-encrypted')
			// The current instance took the new key: it is not the one named.
			expect(refused.stderr).not.toContain(`pid ${current.proc.pid}`)
			const rows = await postgresRows(url)
			expect(rows.versions).toHaveLength(5)
			expect(openedBy(oldKey, rows).filter((what) => what.startsWith('version '))).toHaveLength(5)
			expect((await api(current, 'GET', '/api/configs/latest?name=c&tool=claude-code', erin.key)).body.data).toEqual({
				v: 5
			})
		} finally {
			beating = false
			await heartbeats
			// It stops as such a release does: its row goes with it.
			await older.unsafe('DELETE FROM server_instances WHERE id = $1', [olderId])
			await older.close()
		}
		const finished = await run(dir, ['rekey'], { env })
		expect(finished.stderr).toContain('finishing a key rotation that was interrupted')
		expect(finished.code).toBe(0)
		const after = await postgresRows(url)
		expect(openedBy(oldKey, after)).toEqual([])
		expect((await api(current, 'GET', '/api/configs/latest?name=c&tool=claude-code', erin.key)).body.data).toEqual({
			v: 5
		})
	}, 60_000)
})

async function postgresRows(url: string) {
	const sql = new SQL({ url, max: 1 })
	try {
		const versions = (await sql`SELECT id, config_id, data FROM config_versions`) as {
			id: string
			config_id: string
			data: Uint8Array
		}[]
		const meta = (await sql`SELECT key, value FROM meta`) as { key: string; value: string }[]
		return { versions: [...versions], meta: [...meta] }
	} finally {
		await sql.close()
	}
}
