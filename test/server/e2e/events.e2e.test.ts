import { afterEach, describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { newPostgresDatabase, postgresAnswers, TEST_DATABASE_URL } from '../../support/engine'
import { openEventStream } from '../../support/event-stream'
import { api, emptyDir, run, serversOfThisFile, startServer, userWithKey, type Server } from '../../support/harness'

/**
 * docs/api.md "Live changes" on the compiled binary: a push through one instance reaches a stream held
 * by another within a second, on one SQLite file (PRAGMA data_version) and on one PostgreSQL database
 * (LISTEN/NOTIFY); an admin command's revocation, made by another process, ends the stream too.
 */
const servers = serversOfThisFile()
afterEach(async () => {
	for (const server of servers.splice(0)) await server.stop('SIGKILL')
})
const KEY = randomBytes(32).toString('base64')
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
			test('each push through one reaches a stream on the other within a second, once, in order; a revocation by an admin command ends it', async () => {
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
					const frame = await stream.next(3_000)
					expect(frame?.event).toBe('config')
					expect(frame?.data).toMatchObject({ name: 'live', tool: 'cursor', version, deleted: false })
					delays.push((frame?.at ?? Number.POSITIVE_INFINITY) - sent)
				}
				console.log(
					`[events ${engine}] push through one instance → stream on the other: ${delays.map(Math.round).join(', ')} ms`
				)
				expect(Math.max(...delays)).toBeLessThan(1_000)
				// Nothing twice, nothing of alice's to bob.
				expect(await stream.next(300)).toBeUndefined()
				expect(await bobs.next(10)).toBeUndefined()

				const revokedAt = performance.now()
				expect((await run(dir, ['user', 'revoke-keys', 'alice'], { env })).code).toBe(0)
				const revoked = await stream.next(3_000)
				expect(revoked).toMatchObject({ event: 'revoked', data: {} })
				expect((revoked?.at ?? Number.POSITIVE_INFINITY) - revokedAt).toBeLessThan(1_500)
				await Bun.sleep(50)
				expect(stream.isEnded()).toBe(true)
				// The other user's stream is untouched.
				expect(bobs.isEnded()).toBe(false)
				bobs.close()
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
	for (let version = 1; version <= 3; version++) {
		const sent = performance.now()
		expect(
			(await api(server, 'POST', '/api/configs', alice.key, { name: 'w', tool: 'cursor', data: { version } })).status
		).toBeLessThan(300)
		const frames = await Promise.all(streams.map((stream) => stream.next(3_000)))
		for (const frame of frames) {
			expect(frame?.data).toMatchObject({ name: 'w', version })
			expect((frame?.at ?? Number.POSITIVE_INFINITY) - sent).toBeLessThan(1_000)
		}
	}
	for (const stream of streams) stream.close()
})
