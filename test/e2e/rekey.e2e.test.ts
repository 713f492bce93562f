import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createSealer, openPendingKey, parseMasterKey } from '../../src/lib/crypto'
import { api, BINARY, emptyDir, run, serversOfThisFile, startServer, userWithKey } from './harness'

const servers = serversOfThisFile()

/** Every version in the file: how many open under `key`, and how many under `other`. */
function countOpening(file: string, key: Buffer, other: Buffer) {
	const db = new Database(file, { readonly: true })
	const rows = db.query<{ id: string; config_id: string; data: Uint8Array }, []>('SELECT id, config_id, data FROM config_versions').all()
	db.close()
	const opens = (k: Buffer, row: (typeof rows)[0]) => {
		try {
			createSealer(k).openBytes(row.data, `${row.config_id}:${row.id}`)
			return true
		} catch {
			return false
		}
	}
	return { total: rows.length, underKey: rows.filter((r) => opens(key, r)).length, underOther: rows.filter((r) => opens(other, r)).length }
}

async function seeded(versions: number) {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const alice = await userWithKey(dir, 'alice', 'pro')
	for (let i = 1; i <= versions; i++) await api(server, 'POST', '/api/configs', alice.key, { name: `c${i % 10}`, data: { i, pad: 'p'.repeat(200) } })
	return { dir, server, alice, originalKey: parseMasterKey(readFileSync(join(dir, 'data', 'master.key'), 'utf8')) }
}

describe('master key rotation on the compiled binary (issue 19)', () => {
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
		expect((await api(server, 'GET', '/api/configs/latest?name=live&tool=claude-code', alice.key)).body.data).toEqual({ n: pushes })
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
		// Restarted on the new key, every version of every config reads.
		const again = await startServer(dir)
		servers.push(again)
		const list = (await api(again, 'GET', '/api/configs', alice.key)).body as { id: string }[]
		let read = 0
		for (const config of list) {
			const versions = await api(again, 'GET', `/api/configs/${config.id}/versions`, alice.key)
			expect(versions.status).toBe(200)
			read += versions.body.length
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
			const proc = Bun.spawn([BINARY, 'rekey', '--batch', '5'], { cwd: dir, env: { PATH: process.env.PATH ?? '' }, stdout: 'pipe', stderr: 'pipe' })
			const delay = 40 + Math.floor(Math.random() * 400)
			kills.push(delay)
			await Bun.sleep(delay)
			proc.kill('SIGKILL')
			await proc.exited
			// At every moment each record opens under exactly one of the keys in play: the saved one, or the pending one.
			const saved = parseMasterKey(readFileSync(join(dir, 'data', 'master.key'), 'utf8'))
			const db = new Database(join(dir, 'data', 'cfgsync.db'), { readonly: true })
			const pending = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'master_key_next'").get()?.value
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

	test('with CFGSYNC_MASTER_KEY the new key is printed; a server started with the old variable still starts, warning to finish', async () => {
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
		const stale = await startServer(dir, { env })
		servers.push(stale)
		expect(stale.log()).toContain('was not saved where this one came from')
		expect((await api(stale, 'GET', '/api/configs/latest?name=c&tool=claude-code', bob.key)).body.data).toEqual({ v: 1 })
		await stale.stop()
		const fresh = await startServer(dir, { env: { CFGSYNC_MASTER_KEY: printed } })
		servers.push(fresh)
		expect((await api(fresh, 'GET', '/api/configs/latest?name=c&tool=claude-code', bob.key)).body.data).toEqual({ v: 1 })
		expect(fresh.log()).not.toContain('was not saved')
		// A wrong --new-key-file is refused with one line; nothing changes.
		const keyFile = join(dir, 'same.key')
		writeFileSync(keyFile, `${printed}\n`)
		const same = await run(dir, ['rekey', '--new-key-file', keyFile], { env: { CFGSYNC_MASTER_KEY: printed } })
		expect(same.code).toBe(1)
		expect(same.stderr).toContain('the new key is the current key')
	}, 60_000)
})
