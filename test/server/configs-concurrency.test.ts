import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createApp } from '../../src/server/app'
import { systemClock } from '../../src/server/lib/clock'
import { contentHash } from '../../src/shared/content-hash'
import { createSealer, generateApiKey, generateMasterKey, sha256Hex } from '../../src/server/lib/crypto'
import { newId } from '../../src/server/lib/ids'
import { silentLogger } from '../../src/server/lib/log'
import { sharedTestDatabase } from '../support/engine'
import { fastPasswords } from '../support/helpers'

const WORKER = join(import.meta.dir, '..', 'support', 'fixtures', 'push-worker.ts')

/** A database (a SQLite file, or a PostgreSQL database: test/support/engine.ts) with one pro user, shared by several processes. */
async function sharedDatabase() {
	const shared = await sharedTestDatabase()
	const file = shared.location
	const masterKey = generateMasterKey()
	const store = await shared.open()
	const userId = newId()
	await store.users.create({
		id: userId,
		email: 'r@example.test',
		username: 'racer',
		passwordHash: null,
		plan: 'pro',
		isAdmin: false,
		createdAt: new Date().toISOString()
	})
	const apiKey = generateApiKey()
	await store.keys.issue({
		id: newId(),
		userId,
		device: 'race',
		keyHash: sha256Hex(apiKey),
		createdAt: new Date().toISOString(),
		lastUsedAt: null
	})
	const sealer = createSealer(masterKey)
	const app = createApp({ store, sealer, clock: systemClock, logger: silentLogger, passwords: fastPasswords })
	return { file, masterKey, store, app, apiKey, userId, sealer }
}

type PushResult = { status: number; body: { id: string; version?: number; noChange?: boolean }; data: unknown }

async function runWorkers(
	db: Awaited<ReturnType<typeof sharedDatabase>>,
	workers: number,
	name: string,
	each: number
): Promise<PushResult[]> {
	const startAt = Date.now() + 1500
	const procs = Array.from({ length: workers }, (_, w) =>
		Bun.spawn(
			[
				process.execPath,
				WORKER,
				db.file,
				db.masterKey.toString('base64'),
				db.apiKey,
				String(startAt),
				name,
				String(each),
				`w${w}`
			],
			{
				stdout: 'pipe',
				stderr: 'pipe'
			}
		)
	)
	const outputs = await Promise.all(
		procs.map(async (proc) => {
			const [out, err, code] = await Promise.all([
				new Response(proc.stdout).text(),
				new Response(proc.stderr).text(),
				proc.exited
			])
			if (code !== 0) throw new Error(`worker failed: ${err}`)
			return JSON.parse(out) as PushResult[]
		})
	)
	return outputs.flat()
}

/** Every version contiguous from 1, exactly one current (the highest), each hash matching its decrypted data. */
async function expectConsistent(db: Awaited<ReturnType<typeof sharedDatabase>>, configId: string) {
	const config = await db.store.configs.findMetaById(configId)
	const versions = await db.store.configs.listVersions(configId)
	expect(versions.map((v) => v.version)).toEqual(Array.from({ length: versions.length }, (_, i) => versions.length - i))
	expect(config?.version).toBe(versions.length)
	expect(versions.filter((v) => v.id === config?.currentVersionId)).toHaveLength(1)
	expect(versions[0]?.id).toBe(config?.currentVersionId)
	for (const version of versions) {
		const data = JSON.parse(db.sealer.open(version.sealed, `${configId}:${version.id}`))
		expect(contentHash(data)).toBe(version.hash)
	}
	return versions
}

describe('concurrent pushes against one database file (versioning, docs/api.md)', () => {
	test('20 pushes of different data from 4 processes at once: all succeed with contiguous, distinct versions', async () => {
		const db = await sharedDatabase()
		const first = await db.app.handle(
			new Request('http://localhost/api/configs', {
				method: 'POST',
				headers: { authorization: `Bearer ${db.apiKey}` },
				body: JSON.stringify({ name: 'shared', data: { seed: true } })
			})
		)
		const configId = ((await first.json()) as { id: string }).id
		const results = await runWorkers(db, 4, 'shared', 5)
		expect(results).toHaveLength(20)
		for (const result of results) expect(result.status).toBe(200)
		const numbers = results.map((r) => r.body.version).sort((a, b) => (a ?? 0) - (b ?? 0))
		expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 2))
		const versions = await expectConsistent(db, configId)
		expect(versions).toHaveLength(21)
		// Every acknowledged push is stored under the version it was told.
		for (const result of results) {
			const stored = versions.find((v) => v.version === result.body.version)
			expect(JSON.parse(db.sealer.open(stored!.sealed, `${configId}:${stored!.id}`))).toEqual(result.data as object)
		}
		db.store.close()
	}, 30_000)

	test('10 first pushes of one new (name, tool) from 10 processes make exactly one config', async () => {
		const db = await sharedDatabase()
		const results = await runWorkers(db, 10, 'brand-new', 1)
		expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
		expect(new Set(results.map((r) => r.body.id)).size).toBe(1)
		const configs = await db.store.configs.listPersonal(db.userId)
		expect(configs).toHaveLength(1)
		const versions = await expectConsistent(db, configs[0]!.id)
		expect(versions).toHaveLength(10)
		db.store.close()
	}, 30_000)

	test('in one process, 20 pushes and 10 first pushes through Promise.all behave the same', async () => {
		const db = await sharedDatabase()
		const send = (name: string, data: unknown) =>
			db.app.handle(
				new Request('http://localhost/api/configs', {
					method: 'POST',
					headers: { authorization: `Bearer ${db.apiKey}` },
					body: JSON.stringify({ name, data })
				})
			)
		const firsts = await Promise.all(Array.from({ length: 10 }, () => send('same', { same: true })))
		expect(firsts.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 201])
		const many = await Promise.all(Array.from({ length: 20 }, (_, i) => send('many', { i })))
		const bodies = (await Promise.all(many.map((r) => r.json()))) as { id: string; version: number }[]
		expect(bodies.map((b) => b.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1))
		await expectConsistent(db, bodies[0]!.id)
		db.store.close()
	})
})
