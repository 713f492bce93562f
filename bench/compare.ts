// npm run bench:compare -- A B: server CPU per request of two builds, to tell a change of a few
// percent from noise. Run one after the other on a shared machine, two builds of the same code
// differ by more than most changes do. So both run at once: each server is pinned to CPU 1 and
// loaded by its own `wrk -t1` pinned to CPU 0, and whatever else the machine does hits both alike.
// Prints µs of server CPU per request for each build, round by round, and the mean ratio B / A.
// Compare a build with itself first to see the noise: for GET /api/me that read 0.995 ± 0.015.
// COMPARE_PATH (default /api/me), COMPARE_PUSH_BYTES (POST /api/configs with this much changed
// data instead), COMPARE_ROUNDS (5), COMPARE_SECONDS (4), COMPARE_CONNECTIONS (16).
import { existsSync } from 'node:fs'
import { cpus } from 'node:os'
import { join, resolve } from 'node:path'
import { seed, type Seeded } from './seed'
import { cpuTicks, listen, need, ROOT, TICK_US, type Server } from './servers'

const [binaryA, binaryB] = process.argv.slice(2).map((path) => resolve(path))
const PATH = process.env.COMPARE_PATH ?? '/api/me'
const PUSH_BYTES = process.env.COMPARE_PUSH_BYTES
const ROUNDS = Number(process.env.COMPARE_ROUNDS ?? 5)
const SECONDS = Number(process.env.COMPARE_SECONDS ?? 4)
const CONNECTIONS = Number(process.env.COMPARE_CONNECTIONS ?? 16)

need(binaryA !== undefined && binaryB !== undefined, 'usage: npm run bench:compare -- BINARY_A BINARY_B')
need(existsSync(binaryA) && existsSync(binaryB), `no such binary: ${existsSync(binaryA) ? binaryB : binaryA}`)
need(Bun.which('wrk') !== null, 'needs wrk: apt-get install wrk')
need(Bun.which('taskset') !== null, 'needs taskset (util-linux)')
need(cpus().length >= 2, 'needs two CPUs: the servers share one, the load generators the other')

/** Each build gets its own copy of the data, so pushes to one do not show in the other. */
async function start(label: string, binary: string): Promise<{ server: Server; seeded: Seeded }> {
	const seeded = await seed(join(ROOT, `bench/.data/compare-${label}/cfgsync.db`), { configs: 1000, versionsEach: 1 })
	const server = await listen(
		label,
		[
			'taskset',
			'-c',
			'1',
			binary,
			'serve',
			'--port',
			'0',
			'--host',
			'127.0.0.1',
			'--data-dir',
			join(seeded.file, '..')
		],
		{
			CFGSYNC_MASTER_KEY: seeded.masterKey,
			// The push benchmark stores thousands of versions a second from one key: past CFGSYNC_QUOTA_PUSHES_PER_MINUTE
			// it would time 429s. The storage check still runs (a cached count); docs/performance.md.
			CFGSYNC_QUOTA_PUSHES_PER_MINUTE: '0',
			CFGSYNC_QUOTA_BYTES: String(1024 ** 4)
		}
	)
	return { server, seeded }
}

/** One wrk run on CPU 0; resolves to the number of requests it completed. */
async function drive(target: { server: Server; seeded: Seeded }, seconds: number): Promise<number> {
	const args = [
		'taskset',
		'-c',
		'0',
		'wrk',
		'-t1',
		`-c${CONNECTIONS}`,
		`-d${seconds}s`,
		'-H',
		`Authorization: Bearer ${target.seeded.apiKey}`
	]
	const env: Record<string, string | undefined> = { ...process.env }
	if (PUSH_BYTES) {
		args.push('-s', join(import.meta.dir, 'push.lua'))
		Object.assign(env, { BENCH_KEY: target.seeded.apiKey, BENCH_NAME: 'push-1k', BENCH_BYTES: PUSH_BYTES })
	}
	args.push(`${target.server.url}${PUSH_BYTES ? '/api/configs' : PATH}`)
	const wrk = Bun.spawn(args, { env, stdout: 'pipe', stderr: 'inherit' })
	const out = await new Response(wrk.stdout).text()
	await wrk.exited
	const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
	// Thrown, not exited on: the servers are stopped on the way out.
	if (errors > 0) throw new Error(`${target.server.name}: ${errors} responses were not 2xx/3xx`)
	return Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
}

const a = await start('A', binaryA)
const b = await start('B', binaryB)
try {
	await Promise.all([drive(a, 1), drive(b, 1)]) // warm-up: let both JITs settle
	const ratios: number[] = []
	console.log(
		`${PUSH_BYTES ? `POST /api/configs, ${PUSH_BYTES} B changed data` : `GET ${PATH}`}, ${CONNECTIONS} connections, ${ROUNDS} × ${SECONDS} s`
	)
	console.log('round  A µs/req  B µs/req  B/A')
	for (let round = 1; round <= ROUNDS; round++) {
		const before = [cpuTicks(a.server.pids()), cpuTicks(b.server.pids())]
		const [requestsA, requestsB] = await Promise.all([drive(a, SECONDS), drive(b, SECONDS)])
		const usA = ((cpuTicks(a.server.pids()) - before[0]!) * TICK_US) / requestsA
		const usB = ((cpuTicks(b.server.pids()) - before[1]!) * TICK_US) / requestsB
		ratios.push(usB / usA)
		console.log(
			`${String(round).padStart(5)}  ${usA.toFixed(2).padStart(8)}  ${usB.toFixed(2).padStart(8)}  ${(usB / usA).toFixed(3)}`
		)
	}
	const mean = ratios.reduce((sum, r) => sum + r, 0) / ratios.length
	const spread = Math.sqrt(ratios.reduce((sum, r) => sum + (r - mean) ** 2, 0) / Math.max(1, ratios.length - 1))
	console.log(`B / A: ${mean.toFixed(3)} ± ${spread.toFixed(3)} (mean ± standard deviation of ${ROUNDS} rounds)`)
} finally {
	await a.server.stop()
	await b.server.stop()
}
