import { afterEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { emptyPostgresDatabase, newPostgresDatabase, postgresAnswers, TEST_DATABASE_URL } from '../../support/engine'
import {
	allPages,
	api,
	emptyDir,
	run,
	serversOfThisFile,
	startServer,
	userWithKey,
	type Server
} from '../../support/harness'

/**
 * docs/postgresql.md on the compiled binary: three `serve` processes on one database
 * behave as one server — on one PostgreSQL database, and on one SQLite file.
 */
const servers = serversOfThisFile()
// Each instance holds a pool of PostgreSQL connections: a test's servers go when it ends, so the
// next test's do not meet "too many clients" (max_connections is 100 by default).
afterEach(async () => {
	for (const server of servers.splice(0)) await server.stop('SIGKILL')
})
const KEY = randomBytes(32).toString('base64')

const postgres = await postgresAnswers()
if (!postgres && process.env.CI !== 'true')
	console.log(`skipped the PostgreSQL instances end-to-end: no PostgreSQL answers at ${TEST_DATABASE_URL}`)

/** Connections per server: several run at once on a PostgreSQL server that others may share. */
const POOL = '2'

interface Cluster {
	/** Environment for the servers and admin commands of this database. */
	env: Record<string, string>
	/** Where admin commands run (the data directory for SQLite). */
	dir: string
	/** Starts another instance on the same database. */
	start(): Promise<Server>
}

async function cluster(engine: 'sqlite' | 'postgres'): Promise<Cluster> {
	if (engine === 'sqlite') {
		const dir = emptyDir()
		const env = { CFGSYNC_MASTER_KEY: KEY }
		return { env, dir, start: () => startServer(dir, { env }) }
	}
	const env = {
		CFGSYNC_MASTER_KEY: KEY,
		CFGSYNC_DATABASE_URL: await newPostgresDatabase(),
		CFGSYNC_DATABASE_POOL: POOL
	}
	return { env, dir: emptyDir(), start: () => startServer(emptyDir(), { env }) }
}

async function three(engine: 'sqlite' | 'postgres') {
	const db = await cluster(engine)
	const started: Server[] = []
	for (let i = 0; i < 3; i++) started.push(await db.start())
	servers.push(...started)
	return { db, instances: started }
}

type Ack = { version: number; data: unknown }

/** A push through `server`; the version it acknowledged, or undefined when the server was gone. */
async function push(server: Server, key: string, data: unknown): Promise<Ack | undefined | 'error'> {
	try {
		const res = await api(server, 'POST', '/api/configs', key, { name: 'shared', tool: 'cursor', data })
		return res.status === 200 || res.status === 201 ? { version: res.body.version, data } : 'error'
	} catch {
		return undefined
	}
}

/** Versions 1..n, each once, each acknowledged push among them with its data. */
async function expectIntact(server: Server, key: string, acks: Ack[]) {
	const list = await api(server, 'GET', '/api/configs', key)
	const config = (list.body as { id: string; name: string }[]).find((c) => c.name === 'shared')
	expect(config).toBeDefined()
	const versions = await allPages<{ version: number; data: unknown }>(
		server,
		`/api/configs/${config?.id}/versions`,
		key
	)
	const numbers = versions.map((v) => v.version).sort((a, b) => a - b)
	expect(numbers).toEqual(Array.from({ length: numbers.length }, (_, i) => i + 1))
	const byVersion = new Map(versions.map((v) => [v.version, v.data]))
	for (const ack of acks) expect(byVersion.get(ack.version)).toEqual(ack.data)
	expect(new Set(acks.map((ack) => ack.version)).size).toBe(acks.length)
	return { configId: config?.id as string, count: versions.length }
}

for (const engine of ['postgres', 'sqlite'] as const) {
	describe.skipIf(engine === 'postgres' && !postgres && process.env.CI !== 'true')(
		`three instances on one ${engine === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}`,
		() => {
			test('pushes through all three at once make contiguous versions; each write is read through the others at once', async () => {
				const { db, instances } = await three(engine)
				const alice = await userWithKey(db.dir, 'alice', 'pro', db.env)
				const results = await Promise.all(
					Array.from({ length: 45 }, (_, i) => push(instances[i % 3] as Server, alice.key, { writer: i % 3, i }))
				)
				expect(results.filter((result) => result === undefined || result === 'error')).toEqual([])
				const { configId, count } = await expectIntact(instances[1] as Server, alice.key, results as Ack[])
				expect(count).toBe(45)
				const latest = await Promise.all(
					instances.map((server) => api(server, 'GET', `/api/configs/${configId}`, alice.key))
				)
				for (const read of latest)
					expect({ version: read.body.version, hash: read.body.hash }).toEqual({
						version: 45,
						hash: latest[0]?.body.hash
					})
				// Written through one, read through the next, every time.
				for (let i = 0; i < 6; i++) {
					const ack = (await push(instances[i % 3] as Server, alice.key, { step: i })) as Ack
					const read = await api(instances[(i + 1) % 3] as Server, 'GET', `/api/configs/${configId}`, alice.key)
					expect({ version: read.body.version, data: read.body.data }).toEqual({
						version: ack.version,
						data: { step: i }
					})
				}
			})

			test('a key revoked through one instance is refused by the others at once; failed logins count across all three', async () => {
				const { db, instances } = await three(engine)
				const bob = await userWithKey(db.dir, 'bob', 'pro', db.env)
				const [a, b, c] = instances as [Server, Server, Server]
				const login = await api(a, 'POST', '/api/auth/login', undefined, {
					login: 'bob',
					password: bob.password,
					device: 'spare'
				})
				expect(login.status).toBe(201)
				const spare = login.body.apiKey as string
				expect((await api(b, 'GET', '/api/me', spare)).status).toBe(200)
				expect((await api(c, 'POST', '/api/auth/logout', spare)).status).toBe(204)
				expect((await api(a, 'GET', '/api/me', spare)).status).toBe(401)
				expect((await api(b, 'GET', '/api/me', spare)).status).toBe(401)

				// docs/api.md: 10 failures per (login, address), counted in the database, so spread over three instances too.
				for (let i = 0; i < 10; i++) {
					expect(
						(
							await api(instances[i % 3] as Server, 'POST', '/api/auth/login', undefined, {
								login: 'bob',
								password: `wrong-${i}`,
								device: 'x'
							})
						).status
					).toBe(401)
				}
				for (const server of instances) {
					const refused = await api(server, 'POST', '/api/auth/login', undefined, {
						login: 'bob',
						password: bob.password,
						device: 'x'
					})
					expect(refused.status).toBe(429)
				}
				// The admin's unlock, run beside the servers, counts for all of them.
				expect((await run(db.dir, ['user', 'unlock', 'bob'], { env: db.env })).code).toBe(0)
				expect(
					(await api(b, 'POST', '/api/auth/login', undefined, { login: 'bob', password: bob.password, device: 'x' }))
						.status
				).toBe(201)
			})

			test('one instance killed (SIGKILL) while pushes run through all three: the others go on, nothing acknowledged is lost, a restarted instance serves it all', async () => {
				const { db, instances } = await three(engine)
				const carol = await userWithKey(db.dir, 'carol', 'pro', db.env)
				const acks: Ack[] = []
				let refusedByLive = 0
				const stopAt = Date.now() + 2500
				const victim = instances[2] as Server
				const killer = (async () => {
					await Bun.sleep(800)
					await victim.stop('SIGKILL')
				})()
				await Promise.all(
					instances.map(async (server, writer) => {
						for (let i = 0; Date.now() < stopAt; i++) {
							const result = await push(server, carol.key, { writer, i, pad: 'x'.repeat(500) })
							if (result === 'error') refusedByLive++
							else if (result) acks.push(result)
							else if (server !== victim) refusedByLive++
							else await Bun.sleep(20)
						}
					})
				)
				await killer
				expect(refusedByLive).toBe(0)
				expect(acks.length).toBeGreaterThan(20)
				const [a, b] = instances as [Server, Server]
				const { configId, count } = await expectIntact(a, carol.key, acks)
				// A push the victim stored but was killed before answering is kept too: nothing acknowledged
				// is lost, and at most that one push in flight on the victim was stored unacknowledged.
				expect(count - acks.length).toBeOneOf([0, 1])
				expect((await api(b, 'GET', '/api/me', carol.key)).status).toBe(200)
				const restarted = await db.start()
				servers.push(restarted)
				const again = await api(restarted, 'GET', `/api/configs/${configId}`, carol.key)
				expect(again.body.version).toBe(count)
				await expectIntact(restarted, carol.key, acks)
			})
		}
	)
}

describe.skipIf(!postgres && process.env.CI !== 'true')('first starts on an empty PostgreSQL database', () => {
	test('four instances started at the same moment all serve (the schema is made once); two with different master keys: exactly one starts', async () => {
		const env = {
			CFGSYNC_MASTER_KEY: KEY,
			CFGSYNC_DATABASE_URL: await emptyPostgresDatabase(),
			CFGSYNC_DATABASE_POOL: POOL
		}
		const four = await Promise.all(Array.from({ length: 4 }, () => startServer(emptyDir(), { env })))
		servers.push(...four)
		const alice = await userWithKey(emptyDir(), 'alice', 'pro', env)
		for (const server of four) expect((await api(server, 'GET', '/api/me', alice.key)).status).toBe(200)

		const url = await emptyPostgresDatabase()
		const keys = [randomBytes(32).toString('base64'), randomBytes(32).toString('base64')]
		const starts = await Promise.allSettled(
			keys.map((key) =>
				startServer(emptyDir(), {
					env: { CFGSYNC_MASTER_KEY: key, CFGSYNC_DATABASE_URL: url, CFGSYNC_DATABASE_POOL: POOL }
				})
			)
		)
		for (const start of starts) if (start.status === 'fulfilled') servers.push(start.value)
		expect(starts.filter((start) => start.status === 'fulfilled')).toHaveLength(1)
		const refused = starts.find((start) => start.status === 'rejected') as PromiseRejectedResult
		expect(String(refused.reason)).toContain('the master key does not match the database')
	})
})
