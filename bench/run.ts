// Over 500 lines: every scenario of the benchmark and the one table they make, so a run reads top to bottom.
// npm run bench: cfgsync's compiled binary against a bare Bun.serve (the floor)
// and a hand-written Bun + bun:sqlite server doing the same hot paths (the
// ceiling), all driven by wrk on 127.0.0.1 in the same run. Prints one table.
// BENCH_SECONDS (default 5) bounds every load run; BENCH_ONLY=regex picks scenarios ('web pages': the web
// application's time to first byte, BENCH_PAGE_REQUESTS per page).
import { existsSync, readFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join } from 'node:path'
import { seed, type Seeded } from './seed'
import { SQL } from 'bun'
import { cpuTicks, group, listen, need, ROOT, rssBytes, TICK_US, type Server } from './servers'
import { describeStreams, streamsScenario, type StreamFigures } from './streams'

// BENCH_BINARY compares another build of the server against the same baseline and reference.
const BINARY = process.env.BENCH_BINARY ?? join(ROOT, 'dist', 'cfgsync-server')
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const ONLY = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined
const BUN = process.execPath

need(Bun.which('wrk') !== null, 'bench needs wrk: apt-get install wrk')
if (!existsSync(BINARY)) Bun.spawnSync(['npm', 'run', 'build'], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
need(existsSync(BINARY), `no ${BINARY}: run npm run build`)

interface Result {
	scenario: string
	server: string
	connections: number
	rps: number
	p50ms: number
	p99ms: number
	cpuUsPerRequest: number
	/** PostgreSQL rows: the CPU of PostgreSQL's backends on the bench database (NaN elsewhere). */
	databaseCpuUsPerRequest: number
	peakRssMb: number
	/** Share of the whole machine's CPU time that was busy during the run (all processes, not only the servers). */
	machineBusy: number
	errors: number
}

const results: Result[] = []

const toMs = (value: string, unit: string) => Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1)

/** What one wrk run printed. */
function parseWrk(out: string) {
	const p50 = /50%\s+([\d.]+)(us|ms|s)/.exec(out)
	const p99 = /99%\s+([\d.]+)(us|ms|s)/.exec(out)
	const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0)
	const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out)
	return {
		requests: Number(/(\d+) requests in/.exec(out)?.[1] ?? 0),
		rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
		p50ms: p50 ? toMs(p50[1]!, p50[2]!) : NaN,
		p99ms: p99 ? toMs(p99[1]!, p99[2]!) : NaN,
		errors: non2xx + (socketErrors ? socketErrors.slice(1).reduce((n, v) => n + Number(v), 0) : 0)
	}
}

/** The first `total` connections dealt over `count` instances: 16 over 3 is 6, 5, 5. */
const split = (total: number, count: number) =>
	Array.from({ length: count }, (_, i) => Math.floor(total / count) + (i < total % count ? 1 : 0))

async function load(
	scenario: string,
	server: Server,
	options: { path: string; connections: number; script?: string; env?: Record<string, string>; key: string },
	seconds = SECONDS
): Promise<Result | undefined> {
	// Several instances (server.urls): one wrk -t1 each, all at once, the connections dealt over them.
	const urls = server.urls ?? [server.url]
	const shares = split(options.connections, urls.length)
	const command = (url: string, connections: number) => {
		const args = [
			'wrk',
			`-t${urls.length > 1 ? 1 : 2}`,
			`-c${connections}`,
			`-d${seconds}s`,
			'--latency',
			'--timeout',
			'10s',
			'-H',
			`Authorization: Bearer ${options.key}`
		]
		if (options.script) args.push('-s', join(import.meta.dir, options.script))
		args.push(`${url}${options.path}`)
		return args
	}
	const pids = server.pids()
	const cpuBefore = cpuTicks(pids)
	const databaseBefore = server.databasePids ? ticksOf(await server.databasePids()) : undefined
	const machineBefore = machineTicks()
	let peak = 0
	const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(server.pids()))), 100)
	// Push scripts take the bearer key from the environment; each server has its own database and key.
	const env = options.env ? { ...options.env, BENCH_KEY: options.key } : {}
	const outputs = await Promise.all(
		urls.map(async (url, i) => {
			const wrk = Bun.spawn(command(url, shares[i] as number), {
				env: { ...process.env, ...env },
				stdout: 'pipe',
				stderr: 'pipe'
			})
			const out = await new Response(wrk.stdout).text()
			await wrk.exited
			return parseWrk(out)
		})
	)
	clearInterval(sampler)
	const cpu = cpuTicks(pids) - cpuBefore
	const machineAfter = machineTicks()
	// PostgreSQL's backends on this database (they outlive the run: pools keep them), new ones counted whole.
	let databaseCpu = NaN
	if (server.databasePids && databaseBefore) {
		const after = ticksOf(await server.databasePids())
		databaseCpu = [...after].reduce((sum, [pid, ticks]) => sum + ticks - (databaseBefore.get(pid) ?? 0), 0)
	}
	const requests = outputs.reduce((n, o) => n + o.requests, 0)
	const result: Result = {
		scenario,
		server: server.name,
		connections: options.connections,
		rps: outputs.reduce((n, o) => n + o.rps, 0),
		// Over several instances: the median of their medians, and the worst p99.
		p50ms: median(outputs.map((o) => o.p50ms)),
		p99ms: Math.max(...outputs.map((o) => o.p99ms)),
		cpuUsPerRequest: requests > 0 ? (cpu * TICK_US) / requests : NaN,
		databaseCpuUsPerRequest: requests > 0 ? (databaseCpu * TICK_US) / requests : NaN,
		peakRssMb: peak / 1048576,
		machineBusy: 1 - (machineAfter.idle - machineBefore.idle) / (machineAfter.total - machineBefore.total),
		errors: outputs.reduce((n, o) => n + o.errors, 0)
	}
	const database = Number.isNaN(result.databaseCpuUsPerRequest)
		? ''
		: ` + ${result.databaseCpuUsPerRequest.toFixed(0)} PostgreSQL`
	console.error(
		`  ${scenario.padEnd(28)} ${server.name.padEnd(10)} c=${String(options.connections).padEnd(3)} ${result.rps.toFixed(0).padStart(7)} req/s  p50 ${result.p50ms.toFixed(2)} ms  p99 ${result.p99ms.toFixed(2)} ms  ${result.cpuUsPerRequest.toFixed(0)}${database} µs CPU/req  machine ${(100 * result.machineBusy).toFixed(0)}% busy${result.errors ? `  ${result.errors} errors` : ''}`
	)
	return result
}

/** Each process's CPU ticks so far. */
const ticksOf = (pids: number[]) => new Map(pids.map((pid) => [pid, cpuTicks([pid])]))

/** The machine's CPU ticks so far, all cores: idle (and waiting for I/O) and in all. */
function machineTicks() {
	const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1, 9).map(Number)
	return { idle: (fields[3] ?? 0) + (fields[4] ?? 0), total: fields.reduce((sum, n) => sum + n, 0) }
}

async function startCfgsync(seeded: Seeded, name = 'cfgsync', args: string[] = []) {
	const dataDir = join(seeded.file, '..')
	return listen(name, [BINARY, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...args], {
		CFGSYNC_MASTER_KEY: seeded.masterKey,
		// The push benchmark stores thousands of versions a second from one key: past CFGSYNC_QUOTA_PUSHES_PER_MINUTE
		// it would time 429s. The storage check still runs (a cached count); docs/performance.md.
		CFGSYNC_QUOTA_PUSHES_PER_MINUTE: '0',
		CFGSYNC_QUOTA_BYTES: String(1024 ** 4)
	})
}

/** ms from spawn to the first 200 from /healthz. */
async function startupMs(seeded: Seeded): Promise<number> {
	const started = performance.now()
	const proc = Bun.spawn(
		[BINARY, 'serve', '--port', '18999', '--host', '127.0.0.1', '--data-dir', join(seeded.file, '..')],
		{
			env: { ...process.env, CFGSYNC_MASTER_KEY: seeded.masterKey },
			stdout: 'ignore',
			stderr: 'inherit'
		}
	)
	let ms = NaN
	while (performance.now() - started < 10_000) {
		const ok = await fetch('http://127.0.0.1:18999/healthz')
			.then((r) => r.status === 200)
			.catch(() => false)
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

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)

interface Case {
	scenario: string
	connections: number
	path: string
	script?: string
	env?: Record<string, string>
}

/**
 * Runs each case ROUNDS times, alternating between the servers, and keeps the median of each.
 * `warmUp` first loads each server for that many seconds, unrecorded (servers just started:
 * pools still to open, statements still to prepare, code still to compile).
 */
async function interleaved(servers: { server: Server; key: string; label?: string }[], cases: Case[], warmUp = 0) {
	for (const c of cases) {
		if (ONLY && !ONLY.test(c.scenario)) continue
		for (const { server, key } of warmUp > 0 ? servers : []) await load('warm-up', server, { ...c, key }, warmUp)
		const runs = new Map<string, Result[]>()
		for (let round = 0; round < ROUNDS; round++) {
			for (const { server, key, label } of servers) {
				const result = await load(label ?? c.scenario, server, { ...c, key })
				if (!result) continue
				const list = runs.get(result.server + result.scenario) ?? []
				list.push(result)
				runs.set(result.server + result.scenario, list)
			}
		}
		for (const list of runs.values()) results.push(medianResult(list))
	}
}

function medianResult(list: Result[]): Result {
	const pick = (key: keyof Result) => median(list.map((r) => r[key] as number))
	const first = list[0] as Result
	return {
		...first,
		rps: pick('rps'),
		p50ms: pick('p50ms'),
		p99ms: pick('p99ms'),
		cpuUsPerRequest: pick('cpuUsPerRequest'),
		databaseCpuUsPerRequest: pick('databaseCpuUsPerRequest'),
		peakRssMb: Math.max(...list.map((r) => r.peakRssMb)),
		machineBusy: pick('machineBusy'),
		errors: list.reduce((n, r) => n + r.errors, 0)
	}
}

async function main() {
	const machine = `${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, ${Math.round(totalmem() / 1073741824)} GiB, Bun ${Bun.version}`
	console.error(`cfgsync bench — ${machine}; each run ${SECONDS} s, wrk -t2, median of ${ROUNDS} interleaved rounds`)
	console.error('seeding a 1,000-config database and a 100,000-config / 1,000,000-version database …')
	const small = await seed(join(ROOT, 'bench/.data/small/cfgsync.db'), { configs: 1000, versionsEach: 1 })
	const needsLarge = !ONLY || ONLY.test('100k configs') || ONLY.test('startup')
	const large = needsLarge
		? await seed(join(ROOT, 'bench/.data/large/cfgsync.db'), { configs: 100_000, versionsEach: 10 })
		: small
	console.error(`  seeded in ${small.seconds.toFixed(1)} s and ${large.seconds.toFixed(1)} s`)

	const baseline = await listen('bare Bun', [BUN, join(import.meta.dir, 'baseline-server.ts'), '0'])
	const reference = await listen('reference', [
		BUN,
		join(import.meta.dir, 'reference-server.ts'),
		'0',
		small.file,
		small.masterKey
	])
	const cfgsync = await startCfgsync(small)
	await Bun.sleep(500)
	const idleRss = rssBytes(cfgsync.pids())
	const latest = '/api/configs/latest?name=hot&tool=claude-code'
	const push = (name: string, bytes: number) => ({
		path: '/api/configs',
		script: 'push.lua',
		env: { BENCH_KEY: small.apiKey, BENCH_NAME: name, BENCH_BYTES: String(bytes) }
	})

	await interleaved(
		[{ server: baseline, key: 'x' }],
		[
			{ scenario: 'constant JSON', connections: 16, path: '/' },
			{ scenario: 'constant JSON', connections: 64, path: '/' }
		]
	)
	await baseline.stop()
	const pair = [
		{ server: reference, key: small.apiKey },
		{ server: cfgsync, key: small.apiKey }
	]
	await interleaved(pair, [
		{ scenario: 'latest 1 KiB', connections: 16, path: latest },
		{ scenario: 'latest 1 KiB', connections: 64, path: latest },
		{ scenario: 'me', connections: 16, path: '/api/me' },
		{ scenario: 'push 1 KiB', connections: 16, ...push('push-1k', 1024) },
		{ scenario: 'push 1 KiB', connections: 64, ...push('push-1k', 1024) },
		{ scenario: 'push 64 KiB', connections: 16, ...push('push-64k', 64 * 1024) },
		{ scenario: 'push 500 KiB', connections: 16, ...push('push-500k', 500 * 1024) },
		{ scenario: 'latest 512 KiB', connections: 16, path: '/api/configs/latest?name=big&tool=claude-code' }
	])
	await reference.stop()
	const historyId = (
		(await (
			await fetch(`${cfgsync.url}/api/configs/latest?name=history&tool=vscode`, {
				headers: { authorization: `Bearer ${small.apiKey}` }
			})
		).json()) as { id: string }
	).id
	await interleaved(
		[{ server: cfgsync, key: small.apiKey }],
		[{ scenario: 'versions 200 × 64 KiB', connections: 16, path: `/api/configs/${historyId}/versions` }]
	)
	const pages = !ONLY || ONLY.test('web pages') ? await webPages(cfgsync, small) : []

	if (needsLarge) {
		const big = await startCfgsync(large, 'cfgsync 100k')
		await interleaved(
			[
				{ server: cfgsync, key: small.apiKey, label: 'scale: latest 1 KiB' },
				{ server: big, key: large.apiKey, label: 'scale: latest 1 KiB' }
			],
			[{ scenario: '100k configs latest', connections: 16, path: latest }]
		)
		await interleaved(
			[
				{ server: cfgsync, key: small.apiKey, label: 'scale: push 1 KiB' },
				{ server: big, key: large.apiKey, label: 'scale: push 1 KiB' }
			],
			[
				{
					scenario: '100k configs push',
					connections: 16,
					path: '/api/configs',
					script: 'push.lua',
					env: { BENCH_KEY: '', BENCH_NAME: 'push-1k', BENCH_BYTES: '1024' }
				}
			]
		)
		await big.stop()
	}
	await cfgsync.stop()

	await postgresRows(small)

	const startups = []
	if (!ONLY || ONLY.test('startup')) for (let i = 0; i < 5; i++) startups.push(await startupMs(large))
	const streams = !ONLY || ONLY.test('streams') ? await streamsScenario(BINARY) : undefined

	if (!ONLY || ONLY.test('workers')) {
		const one = await startCfgsync(small, '1 worker', ['--workers', '1'])
		const two = await startCfgsync(small, '2 workers', ['--workers', '2'])
		await Bun.sleep(500)
		const both = [
			{ server: one, key: small.apiKey },
			{ server: two, key: small.apiKey }
		]
		await interleaved(both, [
			{ scenario: 'workers: latest 1 KiB', connections: 64, path: latest },
			{ scenario: 'workers: push 1 KiB', connections: 64, ...push('push-1k', 1024) }
		])
		await one.stop()
		await two.stop()
	}

	report(machine, idleRss, startups, streams, pages)
}

/** One web page's time to first byte, one request at a time (docs/performance.md). */
interface PageFigure {
	page: string
	requests: number
	p50ms: number
	p99ms: number
}

/** docs/web.md's page budget: an ordinary signed-in page's first byte within 5 ms (p50). */
const PAGE_TTFB_P50_MS = 5
const PAGE_REQUESTS = Number(process.env.BENCH_PAGE_REQUESTS ?? 400)
const PAGE_WARM_UP = 50

/**
 * "web pages": the ordinary signed-in pages of the web application (Configs, a config's page, Account, Teams,
 * Activity) as the bench user sees them after the API scenarios (so Activity holds their pushes), signed in
 * through the sign-in form. One request at a time on one kept-alive connection, as a person's browser asks;
 * the time to first byte is from sending the request to the response's headers (the body is read after,
 * uncounted). Each page is asked PAGE_WARM_UP times unrecorded, then the pages take turns, PAGE_REQUESTS each.
 */
async function webPages(server: Server, seeded: Seeded): Promise<PageFigure[]> {
	const password = 'bench web pages password'
	const set = Bun.spawnSync(
		[BINARY, 'user', 'passwd', 'bench', '--password-stdin', '--data-dir', join(seeded.file, '..')],
		{
			env: { ...process.env, CFGSYNC_MASTER_KEY: seeded.masterKey },
			stdin: new TextEncoder().encode(`${password}\n`),
			stdout: 'ignore',
			stderr: 'pipe'
		}
	)
	need(set.exitCode === 0, `web pages: user passwd failed: ${set.stderr.toString()}`)
	const signIn = await fetch(`${server.url}/sign-in`, {
		method: 'POST',
		redirect: 'manual',
		headers: {
			'content-type': 'application/x-www-form-urlencoded',
			origin: server.url,
			'sec-fetch-site': 'same-origin'
		},
		body: new URLSearchParams({ login: 'bench', password })
	})
	const session = /cfgsync_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1]
	need(signIn.status === 303 && session !== undefined, `web pages: signing in answered ${signIn.status}`)
	const hot = (await (
		await fetch(`${server.url}/api/configs/latest?name=hot&tool=claude-code`, {
			headers: { authorization: `Bearer ${seeded.apiKey}` }
		})
	).json()) as { id: string }
	const pages: [string, string][] = [
		['Configs', '/configs'],
		["a config's page (1 KiB)", `/configs/${hot.id}`],
		['Account', '/account'],
		['Teams', '/teams'],
		['Activity', '/activity']
	]
	const headers = { cookie: `cfgsync_session=${session}`, 'accept-encoding': 'gzip, br' }
	const ask = async (path: string) => {
		const started = performance.now()
		const response = await fetch(`${server.url}${path}`, { headers, redirect: 'manual' })
		const ms = performance.now() - started
		await response.arrayBuffer()
		need(response.status === 200, `web pages: ${path} answered ${response.status}`)
		return ms
	}
	for (const [, path] of pages) for (let i = 0; i < PAGE_WARM_UP; i++) await ask(path)
	const times = new Map(pages.map(([name]) => [name, [] as number[]]))
	for (let i = 0; i < PAGE_REQUESTS; i++) for (const [name, path] of pages) times.get(name)?.push(await ask(path))
	const quantile = (values: number[], q: number) =>
		[...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? NaN
	return pages.map(([name]) => {
		const list = times.get(name) ?? []
		const figure = { page: name, requests: list.length, p50ms: quantile(list, 0.5), p99ms: quantile(list, 0.99) }
		console.error(
			`  web pages: ${name.padEnd(24)} p50 ${figure.p50ms.toFixed(2)} ms  p99 ${figure.p99ms.toFixed(2)} ms (time to first byte)`
		)
		return figure
	})
}

/**
 * docs/postgresql.md: the same paths with the data in PostgreSQL, on the server at
 * CFGSYNC_BENCH_DATABASE_URL (default the local one; the bench creates and drops
 * its databases there). The small database is moved over once with `db copy` into
 * a template; each scenario then runs on a fresh copy of it (CREATE DATABASE …
 * TEMPLATE), so no scenario reads the rows and dead tuples an earlier one left,
 * and dropped after it. Per scenario: the Bun.SQL reference, cfgsync as one
 * instance, and cfgsync as three instances on the same database with the load
 * dealt over them. Skipped with one line when PostgreSQL does not answer.
 */
async function postgresRows(small: Seeded) {
	const latest = '/api/configs/latest?name=hot&tool=claude-code'
	const push = {
		path: '/api/configs',
		script: 'push.lua',
		env: { BENCH_KEY: small.apiKey, BENCH_NAME: 'push-1k', BENCH_BYTES: '1024' }
	}
	const cases: Case[] = [
		{ scenario: 'postgres: me', connections: 16, path: '/api/me' },
		{ scenario: 'postgres: me', connections: 64, path: '/api/me' },
		{ scenario: 'postgres: latest 1 KiB', connections: 16, path: latest },
		{ scenario: 'postgres: latest 1 KiB', connections: 64, path: latest },
		{ scenario: 'postgres: push 1 KiB', connections: 16, ...push },
		{ scenario: 'postgres: push 1 KiB', connections: 64, ...push }
	].filter((c) => !ONLY || ONLY.test(c.scenario))
	if (cases.length === 0) return
	const adminUrl = process.env.CFGSYNC_BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
	const shown = adminUrl.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@')
	const admin = new SQL({ url: adminUrl, max: 1, connectionTimeout: 3, idleTimeout: 0 })
	const answers = await admin`SELECT 1`.then(
		() => true,
		(error: Error) => (
			console.error(
				`skipped the PostgreSQL rows: no PostgreSQL answers at ${shown} (${error.message}); set CFGSYNC_BENCH_DATABASE_URL`
			),
			false
		)
	)
	if (!answers) return void (await admin.close().catch(() => {}))
	const urlOf = (database: string) => {
		const url = new URL(adminUrl)
		url.pathname = `/${database}`
		return url.toString()
	}
	const prefix = `cfgsync_bench_${process.pid}`
	const template = `${prefix}_seed`
	const made: string[] = []
	const create = async (database: string, from?: string) => {
		await admin.unsafe(`CREATE DATABASE "${database}"${from ? ` TEMPLATE "${from}"` : ''}`)
		made.push(database)
	}
	const drop = async (database: string) => {
		await admin.unsafe(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
		made.splice(made.indexOf(database), 1)
	}
	try {
		const started = performance.now()
		const creates = await create(template).then(
			() => true,
			(error: Error) => (
				console.error(`skipped the PostgreSQL rows: could not create a database at ${shown} (${error.message})`), false
			)
		)
		if (!creates) return
		const copied = Bun.spawnSync(
			[BINARY, 'db', 'copy', '--data-dir', join(small.file, '..'), '--to', urlOf(template)],
			{
				env: { ...process.env, CFGSYNC_MASTER_KEY: small.masterKey },
				stdout: 'ignore',
				stderr: 'pipe'
			}
		)
		need(copied.exitCode === 0, `db copy into PostgreSQL failed: ${copied.stderr.toString()}`)
		const [{ version }] = (await admin`SELECT current_setting('server_version') AS version`) as [{ version: string }]
		console.error(
			`  PostgreSQL ${version} at ${shown}: the small database copied in ${((performance.now() - started) / 1000).toFixed(1)} s; a fresh copy per scenario`
		)
		for (const [i, c] of cases.entries()) {
			const database = `${prefix}_${i}`
			await create(database, template)
			const url = urlOf(database)
			// Every backend on this database, autovacuum included; the admin connection is on another.
			const databasePids = async () =>
				((await admin`SELECT pid FROM pg_stat_activity WHERE datname = ${database}`) as { pid: number }[]).map(
					(row) => row.pid
				)
			const env = { CFGSYNC_MASTER_KEY: small.masterKey, CFGSYNC_DATABASE_URL: url }
			const serve = (label: string) =>
				listen(
					label,
					[BINARY, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', join(small.file, '..')],
					env
				)
			const servers = [
				await listen('reference', [
					BUN,
					join(import.meta.dir, 'reference-server-postgres.ts'),
					'0',
					url,
					small.masterKey
				]),
				await serve('cfgsync'),
				group('cfgsync ×3', [await serve('cfgsync a'), await serve('cfgsync b'), await serve('cfgsync c')])
			]
			try {
				await interleaved(
					servers.map((server) => ({ server: { ...server, databasePids }, key: small.apiKey })),
					[c],
					Math.min(2, SECONDS)
				)
			} finally {
				await Promise.all(servers.map((server) => server.stop()))
				await drop(database)
			}
		}
	} finally {
		for (const database of [...made].reverse()) await drop(database).catch(() => {})
		await admin.close()
	}
}

function report(
	machine: string,
	idleRss: number,
	startups: number[],
	streams?: StreamFigures,
	pages: PageFigure[] = []
) {
	const floor = (connections: number) => results.find((r) => r.server === 'bare Bun' && r.connections === connections)
	const ref = (r: Result) =>
		results.find((x) => x.server === 'reference' && x.scenario === r.scenario && x.connections === r.connections)
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
			r.cpuUsPerRequest.toFixed(0) +
				(Number.isNaN(r.databaseCpuUsPerRequest) ? '' : ` + ${r.databaseCpuUsPerRequest.toFixed(0)}`),
			r.peakRssMb.toFixed(0),
			base ? `${(r.rps / base.rps).toFixed(2)}×` : '',
			against ? `${((100 * r.rps) / against.rps).toFixed(0)}% / ${(r.p99ms / against.p99ms).toFixed(2)}×` : '',
			r.errors ? String(r.errors) : ''
		]
	})
	const header = [
		'scenario',
		'server',
		'conns',
		'req/s',
		'p50 ms',
		'p99 ms',
		'CPU µs/req',
		'peak RSS MB',
		'vs bare Bun',
		'vs reference: req/s, p99',
		'errors'
	]
	const line = (cells: string[]) => `| ${cells.join(' | ')} |`
	console.log(
		`\n${machine}; ${SECONDS} s per run, wrk -t2 on the same machine, median of ${ROUNDS} interleaved rounds\n`
	)
	// BENCH_ONLY='web pages' runs no load scenario: no empty table.
	if (rows.length > 0) {
		console.log(line(header))
		console.log(line(header.map(() => '---')))
		for (const row of rows) console.log(line(row))
	}
	const find = (server: string, scenario: string) => results.find((r) => r.server === server && r.scenario === scenario)
	if (results.some((r) => !Number.isNaN(r.databaseCpuUsPerRequest))) {
		console.log(
			"\nPostgreSQL rows: CPU µs/req is the server's (all three processes' for ×3) + PostgreSQL's backends' on the bench database; ×3 is one wrk -t1 per instance, the connections dealt over them"
		)
	}
	const total = (r: Result) => r.cpuUsPerRequest + r.databaseCpuUsPerRequest
	for (const r of results.filter((x) => x.server === 'cfgsync ×3')) {
		const single = results.find(
			(x) => x.server === 'cfgsync' && x.scenario === r.scenario && x.connections === r.connections
		)
		if (single) {
			console.log(
				`${r.scenario} at ${r.connections} connections: three instances ${(r.rps / single.rps).toFixed(2)}× one instance's req/s; CPU per request (servers + PostgreSQL) ${total(r).toFixed(0)} µs against ${total(single).toFixed(0)}; machine ${(100 * r.machineBusy).toFixed(0)}% and ${(100 * single.machineBusy).toFixed(0)}% busy`
			)
		}
	}
	const pairs: [string, Result | undefined, Result | undefined][] = [
		[
			'scale, latest (100,000 configs / 1,000,000 versions vs 1,000 configs)',
			find('cfgsync', 'scale: latest 1 KiB'),
			find('cfgsync 100k', 'scale: latest 1 KiB')
		],
		['scale, push', find('cfgsync', 'scale: push 1 KiB'), find('cfgsync 100k', 'scale: push 1 KiB')]
	]
	console.log('')
	for (const [label, before, after] of pairs) {
		if (before && after)
			console.log(
				`${label}: p50 ${(after.p50ms / before.p50ms).toFixed(2)}×, p99 ${(after.p99ms / before.p99ms).toFixed(2)}×`
			)
	}
	const w1 = find('1 worker', 'workers: latest 1 KiB')
	const w2 = find('2 workers', 'workers: latest 1 KiB')
	const w1p = find('1 worker', 'workers: push 1 KiB')
	const w2p = find('2 workers', 'workers: push 1 KiB')
	if (w1 && w2)
		console.log(
			`workers, 2 vs 1: latest ${(w2.rps / w1.rps).toFixed(2)}×${w1p && w2p ? `, push ${(w2p.rps / w1p.rps).toFixed(2)}×` : ''}`
		)
	// One process on SQLite (the PostgreSQL rows' ×3 sums three).
	const peakOneWorker = Math.max(
		0,
		...results
			.filter(
				(r) => !r.server.includes('worker') && r.server.startsWith('cfgsync') && !r.scenario.startsWith('postgres:')
			)
			.map((r) => r.peakRssMb)
	)
	if (peakOneWorker > 0)
		console.log(
			`memory: idle RSS ${(idleRss / 1048576).toFixed(0)} MB; peak RSS under load ${peakOneWorker.toFixed(0)} MB (one process, sampled every 100 ms)`
		)
	if (startups.length)
		console.log(
			`start to first healthy /healthz with the 100,000-config database: median ${median(startups).toFixed(0)} ms of ${startups.length}`
		)
	if (streams) console.log(describeStreams(streams))
	if (pages.length > 0) {
		console.log(
			`\nweb pages, time to first byte: one request at a time, signed in, ${PAGE_WARM_UP} unrecorded then ${PAGE_REQUESTS} each\n`
		)
		console.log(line(['page', 'requests', 'p50 ms', 'p99 ms', 'target', '']))
		console.log(line(['---', '---', '---', '---', '---', '---']))
		for (const figure of pages) {
			const met = figure.p50ms < PAGE_TTFB_P50_MS
			console.log(
				line([
					figure.page,
					String(figure.requests),
					figure.p50ms.toFixed(2),
					figure.p99ms.toFixed(2),
					`p50 < ${PAGE_TTFB_P50_MS} ms`,
					met ? '✓' : '✗'
				])
			)
		}
	}
}

await main()
