import { afterEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { newPostgresDatabase, postgresAnswers, TEST_DATABASE_URL } from '../../support/engine'
import { openEventStream } from '../../support/event-stream'
import { api, emptyDir, run, serversOfThisFile, startServer, userWithKey, type Server } from '../../support/harness'

/**
 * docs/api.md "Live changes" on the compiled binary: a push through one instance reaches a stream held
 * by another (how fast: `npm run bench`), on one SQLite file (PRAGMA data_version) and on one PostgreSQL database
 * (LISTEN/NOTIFY); an admin command's revocation or new key, made by another process, ends the stream too.
 */
const servers = serversOfThisFile()
afterEach(async () => {
	for (const server of servers.splice(0)) await server.stop('SIGKILL')
})
const KEY = randomBytes(32).toString('base64')
/**
 * How long a test waits for an event before calling it lost: generous, so a busy machine never fails it.
 * How fast events arrive (within a second, p99) is `npm run bench`'s to measure (bench/streams.ts); here
 * the delays are printed.
 */
const ARRIVES_MS = 15_000
const postgres = await postgresAnswers()
if (!postgres && process.env.CI !== 'true')
	console.log(`skipped the PostgreSQL live-changes end-to-end: no PostgreSQL answers at ${TEST_DATABASE_URL}`)

async function two(engine: 'sqlite' | 'postgres') {
	const dir = emptyDir()
	const env: Record<string, string> =
		engine === 'sqlite'
			? { CFGSYNC_MASTER_KEY: KEY }
			: { CFGSYNC_MASTER_KEY: KEY, CFGSYNC_DATABASE_URL: await newPostgresDatabase(), CFGSYNC_DATABASE_POOL: '2' }
	const start = () => startServer(engine === 'sqlite' ? dir : emptyDir(), { env })
	const pair = [await start(), await start()] as [Server, Server]
	servers.push(...pair)
	return { dir, env, pair }
}

for (const engine of ['sqlite', 'postgres'] as const) {
	describe.skipIf(engine === 'postgres' && !postgres && process.env.CI !== 'true')(
		`two instances on one ${engine === 'postgres' ? 'PostgreSQL database' : 'SQLite file'}`,
		() => {
			test('each push through one reaches a stream on the other within a second, once, in order; a revocation or a new key by an admin command ends it', async () => {
				const { dir, env, pair } = await two(engine)
				const [a, b] = pair
				const alice = await userWithKey(dir, 'alice', 'pro', env)
				const bob = await userWithKey(dir, 'bob', 'pro', env)
				const stream = await openEventStream(b.url, alice.key)
				const bobs = await openEventStream(a.url, bob.key)
				const delays: number[] = []
				for (let version = 1; version <= 8; version++) {
					const sent = performance.now()
					const pushed = await api(a, 'POST', '/api/configs', alice.key, {
						name: 'live',
						tool: 'cursor',
						data: { version }
					})
					expect(pushed.status).toBeLessThan(300)
					const frame = await stream.next(ARRIVES_MS)
					expect(frame?.event).toBe('config')
					expect(frame?.data).toMatchObject({ name: 'live', tool: 'cursor', version, deleted: false })
					delays.push((frame?.at ?? Number.POSITIVE_INFINITY) - sent)
				}
				console.log(
					`[events ${engine}] push through one instance → stream on the other: ${delays.map(Math.round).join(', ')} ms`
				)
				// Nothing twice, nothing of alice's to bob.
				expect(await stream.next(300)).toBeUndefined()
				expect(await bobs.next(10)).toBeUndefined()

				const revokedAt = performance.now()
				expect((await run(dir, ['user', 'revoke-keys', 'alice'], { env })).code).toBe(0)
				const revoked = await stream.next(ARRIVES_MS)
				expect(revoked).toMatchObject({ event: 'revoked', data: {} })
				console.log(
					`[events ${engine}] revoke-keys → revoked on the stream: ${Math.round((revoked?.at ?? 0) - revokedAt)} ms`
				)
				await Bun.sleep(50)
				expect(stream.isEnded()).toBe(true)
				// The other user's stream is untouched.
				expect(bobs.isEnded()).toBe(false)
				// A new key for bob's device (the admin's `key issue`, another process) replaces the one his stream
				// was opened with: that stream ends too (docs/api.md "Live changes").
				const replacedAt = performance.now()
				expect((await run(dir, ['key', 'issue', 'bob', '--device', 'e2e'], { env })).code).toBe(0)
				const replaced = await bobs.next(ARRIVES_MS)
				expect(replaced).toMatchObject({ event: 'revoked', data: {} })
				console.log(
					`[events ${engine}] key issue → revoked on the old key's stream: ${Math.round((replaced?.at ?? 0) - replacedAt)} ms`
				)
				await Bun.sleep(50)
				expect(bobs.isEnded()).toBe(true)
				// The stream's access-log line comes when it closes, with its duration.
				await Bun.sleep(100)
				expect(b.log()).toMatch(/"route":"\/api\/events","status":200,"ms":[0-9.]+,"stream":true/)
			})
		}
	)
}

test('--workers 2: a push reaches streams held by either process within a second', async () => {
	const dir = emptyDir()
	const env = { CFGSYNC_MASTER_KEY: KEY }
	const server = await startServer(dir, { env, args: ['--workers', '2'] })
	servers.push(server)
	const alice = await userWithKey(dir, 'alice', 'pro', env)
	// Connections are dealt over the processes by the kernel: eight streams reach both in all likelihood.
	const streams = await Promise.all(Array.from({ length: 8 }, () => openEventStream(server.url, alice.key)))
	const delays: number[] = []
	for (let version = 1; version <= 3; version++) {
		const sent = performance.now()
		expect(
			(await api(server, 'POST', '/api/configs', alice.key, { name: 'w', tool: 'cursor', data: { version } })).status
		).toBeLessThan(300)
		const frames = await Promise.all(streams.map((stream) => stream.next(ARRIVES_MS)))
		for (const frame of frames) {
			expect(frame?.data).toMatchObject({ name: 'w', version })
			delays.push((frame?.at ?? Number.POSITIVE_INFINITY) - sent)
		}
	}
	console.log(`[events --workers 2] push → each of 8 streams: ${delays.map(Math.round).join(', ')} ms`)
	for (const stream of streams) stream.close()
})
