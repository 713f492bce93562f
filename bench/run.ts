// npm run bench: cfgsync's compiled binary against a bare Bun.serve (the floor)
// and a hand-written Bun + bun:sqlite server doing the same hot paths (the
// ceiling), all driven by wrk on 127.0.0.1 in the same run. Prints one table.
// BENCH_SECONDS (default 5) bounds every load run; BENCH_ONLY=regex picks scenarios.
import { type Subprocess } from 'bun'
import { existsSync, readFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { seed, type Seeded } from './seed'

const ROOT = resolve(import.meta.dir, '..')
const BINARY = join(ROOT, 'dist', 'cfgsync-server')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined
const BUN = process.execPath
const TICK_US = 10_000 // /proc CPU times are in 1/100 s

function need(ok: boolean, message: string) {
	if (!ok) {
		console.error(message)
		process.exit(1)
	}
}
need(Bun.which('wrk') !== null, 'bench needs wrk: apt-get install wrk')
if (!existsSync(BINARY)) Bun.spawnSync(['npm', 'run', 'build'], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
need(existsSync(BINARY), `no ${BINARY}: run npm run build`)

interface Server {
	name: string
	proc: Subprocess
	url: string
	pids: () => number[]
	stop: () => Promise<void>
}

async function listen(name: string, cmd: string[], env: Record<string, string> = {}): Promise<Server> {
	const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' })
	const reader = proc.stdout.getReader()
	let text = ''
	let port: number | undefined
	const deadline = Date.now() + 30_000
	while (port === undefined) {
		const { value, done } = await reader.read()
		if (done || Date.now() > deadline) throw new Error(`${name} did not start: ${text}`)
		text += new TextDecoder().decode(value)
		const match = text.match(/"(?:port|url)":"?(?:http:\/\/[^:]+:)?(\d+)/)
		if (match) port = Number(match[1])
	}
	// Keep draining stdout (the access log) so the server never blocks on a full pipe.
	void (async () => {
		while (!(await reader.read()).done);
	})()
	const url = `http://127.0.0.1:${port}`
	return {
		name,
		proc,
		url,
		pids: () => [proc.pid, ...childPids(proc.pid)],
		async stop() {
			proc.kill('SIGTERM')
			await proc.exited
		}
	}
}

function childPids(pid: number): number[] {
	try {
		const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
		return children ? children.split(/\s+/).map(Number).flatMap((child) => [child, ...childPids(child)]) : []
	} catch {
		return []
	}
}

const cpuTicks = (pids: number[]) =>
	pids.reduce((sum, pid) => {
		try {
			const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
			return sum + Number(fields[11]) + Number(fields[12])
		} catch {
			return sum
		}
	}, 0)

const rssBytes = (pids: number[]) =>
	pids.reduce((sum, pid) => {
		try {
			return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
		} catch {
			return sum
		}
	}, 0)

interface Result {
	scenario: string
	server: string
	connections: number
	rps: number
	p50ms: number
	p99ms: number
	cpuUsPerRequest: number
	peakRssMb: number
	errors: number
}

const results: Result[] = []
let peakRss = 0

const toMs = (value: string, unit: string) => Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1)

async function load(scenario: string, server: Server, options: { path: string; connections: number; script?: string; env?: Record<string, string>; key: string }) {
	if (ONLY && !ONLY.test(scenario)) return
	const args = ['wrk', '-t2', `-c${options.connections}`, `-d${SECONDS}s`, '--latency', '--timeout', '10s', '-H', `Authorization: Bearer ${options.key}`]
	if (options.script) args.push('-s', join(import.meta.dir, options.script))
	args.push(`${server.url}${options.path}`)
	const pids = server.pids()
	const cpuBefore = cpuTicks(pids)
	let peak = 0
	const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(server.pids()))), 100)
	const wrk = Bun.spawn(args, { env: { ...process.env, ...options.env }, stdout: 'pipe', stderr: 'pipe' })
	const out = await new Response(wrk.stdout).text()
	await wrk.exited
	clearInterval(sampler)
	const cpu = cpuTicks(pids) - cpuBefore
	const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0)
	const p50 = /50%\s+([\d.]+)(us|ms|s)/.exec(out)
	const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out)
	const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
	const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
	const errors = non2xx + (socketErrors ? socketErrors.slice(1).reduce((n, v) => n + Number(v), 0) : 0)
	peakRss = Math.max(peakRss, peak)
	const result: Result = {
		scenario,
		server: server.name,
		connections: options.connections,
		rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
		p50ms: p50 ? toMs(p50[1]!, p50[2]!) : NaN,
		p99ms: p99 ? toMs(p99[1]!, p99[2]!) : NaN,
		cpuUsPerRequest: requests > 0 ? (cpu * TICK_US) / requests : NaN,
		peakRssMb: peak / 1048576,
		errors
	}
	results.push(result)
	console.error(`  ${scenario.padEnd(28)} ${server.name.padEnd(10)} c=${String(options.connections).padEnd(3)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50ms.toFixed(2)} ms  p99 ${result.p99ms.toFixed(2)} ms${errors ? `  ${errors} errors` : ''}`)
}

async function startCfgsync(seeded: Seeded, name = 'cfgsync', args: string[] = []) {
	const dataDir = join(seeded.file, '..')
	return listen(name, [BINARY, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...args], { CFGSYNC_MASTER_KEY: seeded.masterKey })
}

/** ms from spawn to the first 200 from /healthz. */
async function startupMs(seeded: Seeded): Promise<number> {
	const started = performance.now()
	const proc = Bun.spawn([BINARY, 'serve', '--port', '18999', '--host', '127.0.0.1', '--data-dir', join(seeded.file, '..')], {
		env: { ...process.env, CFGSYNC_MASTER_KEY: seeded.masterKey },
		stdout: 'ignore',
		stderr: 'inherit'
	})
	let ms = NaN
	while (performance.now() - started < 10_000) {
		const ok = await fetch('http://127.0.0.1:18999/healthz').then((r) => r.status === 200).catch(() => false)
		if (ok) {
			ms = performance.now() - started
			break
		}
		await Bun.sleep(2)
	}
	proc.kill('SIGTERM')
	await proc.exited
	return ms
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN

async function main() {
	const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 1073741824)} GiB, Bun ${Bun.version}`
	console.error(`cfgsync bench — ${machine}; each run ${SECONDS} s, wrk -t2`)
	console.error('seeding a 1,000-config database and a 100,000-config / 1,000,000-version database …')
	const small = await seed(join(ROOT, 'bench/.data/small/cfgsync.db'), { configs: 1000, versionsEach: 1 })
	const needsLarge = !ONLY || ONLY.test('100k configs') || ONLY.test('startup')
	const large = needsLarge ? await seed(join(ROOT, 'bench/.data/large/cfgsync.db'), { configs: 100_000, versionsEach: 10 }) : small
	console.error(`  seeded in ${small.seconds.toFixed(1)} s and ${large.seconds.toFixed(1)} s`)

	const baseline = await listen('bare Bun', [BUN, join(import.meta.dir, 'baseline-server.ts'), '0'])
	await load('constant JSON', baseline, { path: '/', connections: 16, key: 'x' })
	await load('constant JSON', baseline, { path: '/', connections: 64, key: 'x' })
	await baseline.stop()

	const reference = await listen('reference', [BUN, join(import.meta.dir, 'reference-server.ts'), '0', small.file, small.masterKey])
	const cfgsync = await startCfgsync(small)
	await Bun.sleep(300)
	const idleRss = rssBytes(cfgsync.pids())
	const latest = '/api/configs/latest?name=hot&tool=claude-code'
	for (const server of [reference, cfgsync]) {
		await load('latest 1 KiB', server, { path: latest, connections: 16, key: small.apiKey })
		await load('latest 1 KiB', server, { path: latest, connections: 64, key: small.apiKey })
		await load('me', server, { path: '/api/me', connections: 16, key: small.apiKey })
		for (const [label, name, bytes] of [
			['push 1 KiB', 'push-1k', 1024],
			['push 64 KiB', 'push-64k', 64 * 1024],
			['push 500 KiB', 'push-500k', 500 * 1024]
		] as const) {
			await load(label, server, { path: '/api/configs', connections: 16, script: 'push.lua', key: small.apiKey, env: { BENCH_KEY: small.apiKey, BENCH_NAME: name, BENCH_BYTES: String(bytes) } })
		}
		await load('latest 512 KiB', server, { path: '/api/configs/latest?name=big&tool=claude-code', connections: 16, key: small.apiKey })
	}
	await reference.stop()
	const historyId = ((await (await fetch(`${cfgsync.url}/api/configs/latest?name=history&tool=vscode`, { headers: { authorization: `Bearer ${small.apiKey}` } })).json()) as { id: string }).id
	await load('versions 200 × 64 KiB', cfgsync, { path: `/api/configs/${historyId}/versions`, connections: 16, key: small.apiKey })
	await cfgsync.stop()

	if (needsLarge) {
		const big = await startCfgsync(large, 'cfgsync')
		await load('latest 1 KiB, 100k configs', big, { path: latest, connections: 16, key: large.apiKey })
		await load('push 1 KiB, 100k configs', big, { path: '/api/configs', connections: 16, script: 'push.lua', key: large.apiKey, env: { BENCH_KEY: large.apiKey, BENCH_NAME: 'push-1k', BENCH_BYTES: '1024' } })
		await big.stop()
	}

	const startups = []
	if (!ONLY || ONLY.test('startup')) for (let i = 0; i < 5; i++) startups.push(await startupMs(large))

	for (const workers of !ONLY || ONLY.test('workers') ? [1, 2] : []) {
		const server = await startCfgsync(small, `${workers} worker${workers > 1 ? 's' : ''}`, ['--workers', String(workers)])
		await Bun.sleep(500)
		await load('workers: latest 1 KiB', server, { path: latest, connections: 64, key: small.apiKey })
		await load('workers: push 1 KiB', server, { path: '/api/configs', connections: 64, script: 'push.lua', key: small.apiKey, env: { BENCH_KEY: small.apiKey, BENCH_NAME: 'push-1k', BENCH_BYTES: '1024' } })
		await server.stop()
	}

	report(machine, idleRss, startups)
}

function report(machine: string, idleRss: number, startups: number[]) {
	const floor = (connections: number) => results.find((r) => r.server === 'bare Bun' && r.connections === connections)
	const ref = (r: Result) => results.find((x) => x.server === 'reference' && x.scenario === r.scenario.replace(/, 100k configs$/, '') && x.connections === r.connections)
	const rows = results.map((r) => {
		const base = floor(r.connections >= 64 ? 64 : 16)
		const against = r.server === 'reference' ? undefined : ref(r)
		return [
			r.scenario,
			r.server,
			String(r.connections),
			r.rps.toFixed(0),
			r.p50ms.toFixed(2),
			r.p99ms.toFixed(2),
			r.cpuUsPerRequest.toFixed(0),
			base ? `${(r.rps / base.rps).toFixed(2)}×` : '',
			against ? `${((100 * r.rps) / against.rps).toFixed(0)}% / p99 ${(r.p99ms / against.p99ms).toFixed(2)}×` : '',
			r.errors ? String(r.errors) : ''
		]
	})
	const header = ['scenario', 'server', 'conns', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/req', 'vs bare Bun', 'vs reference (req/s, p99)', 'errors']
	const line = (cells: string[]) => `| ${cells.join(' | ')} |`
	console.log(`\n${machine}; ${SECONDS} s per run, wrk -t2 on the same machine\n`)
	console.log(line(header))
	console.log(line(header.map(() => '---')))
	for (const row of rows) console.log(line(row))
	const smallLatest = results.find((r) => r.server === 'cfgsync' && r.scenario === 'latest 1 KiB' && r.connections === 16)
	const largeLatest = results.find((r) => r.scenario === 'latest 1 KiB, 100k configs')
	const smallPush = results.find((r) => r.server === 'cfgsync' && r.scenario === 'push 1 KiB')
	const largePush = results.find((r) => r.scenario === 'push 1 KiB, 100k configs')
	const w1 = results.find((r) => r.server === '1 worker' && r.scenario === 'workers: latest 1 KiB')
	const w2 = results.find((r) => r.server === '2 workers' && r.scenario === 'workers: latest 1 KiB')
	const w1p = results.find((r) => r.server === '1 worker' && r.scenario === 'workers: push 1 KiB')
	const w2p = results.find((r) => r.server === '2 workers' && r.scenario === 'workers: push 1 KiB')
	console.log('')
	if (smallLatest && largeLatest) console.log(`scale, latest: p50 ${(largeLatest.p50ms / smallLatest.p50ms).toFixed(2)}×, p99 ${(largeLatest.p99ms / smallLatest.p99ms).toFixed(2)}× with 100,000 configs / 1,000,000 versions vs 1,000 configs`)
	if (smallPush && largePush) console.log(`scale, push:   p50 ${(largePush.p50ms / smallPush.p50ms).toFixed(2)}×, p99 ${(largePush.p99ms / smallPush.p99ms).toFixed(2)}×`)
	if (w1 && w2) console.log(`workers: 2 vs 1 — latest ${(w2.rps / w1.rps).toFixed(2)}×${w1p && w2p ? `, push ${(w2p.rps / w1p.rps).toFixed(2)}×` : ''}`)
	console.log(`memory: idle RSS ${(idleRss / 1048576).toFixed(0)} MB; peak RSS under load ${(peakRss / 1048576).toFixed(0)} MB (sampled every 100 ms)`)
	if (startups.length) console.log(`start to first healthy /healthz with the 100,000-config database: median ${median(startups).toFixed(0)} ms of ${startups.length}`)
}

await main()
