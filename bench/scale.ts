// npm run bench:scale (docs/performance.md#scale): does a request cost the same at 10k, 100k and 1M stored
// versions, and do the jobs grow no faster than the data and leave requests alone while they run?
//
// Each size is seeded (bench/seed.ts: configs of 10 versions over 1,000 users, the bench user's hot
// configs, and a team deleted 31 days ago holding a tenth as many versions again, for the purge), then
// the compiled server is started on it, one size after the other, and each server is left running:
//   - the purge: the server starts it at boot; its time (from the spawn, so start-up included) and
//     latest's p99 while it runs (one server starting at a time, so the purge is measured alone);
// Then, with every size's server up, side by side:
//   - each request's p50 and p99, then a push, then each server's idle memory. The requests go round
//     robin over the sizes (request i to every size in turn, the first size rotating), one at a time,
//     so whatever the machine does meanwhile falls on every size alike, not on the one measured then.
//     The counted requests are cut into ROUNDS rounds in time; a size's figure is the median over the
//     rounds of each round's p50 (p99), so one stall moves one round's p99, not the figure.
// Then each size in turn, its server stopped when its jobs are done:
//   - `rekey` and `cfgsync-server backup` run beside the serving server: time, peak RSS, latest's p99;
//   - a second start with a backup every 10 s: the scheduled backup's time and latest's p99 meanwhile;
//   - with the server stopped: `restore` of that backup and `db copy` into a fresh PostgreSQL database.
// PostgreSQL (SCALE_POSTGRES, default 100000): the same seed copied into a fresh database with `db copy`,
// the server started on it, the same requests (its one size alone), purge and rekey, and `db copy` back
// to a SQLite file.
//
// Every figure has a bound, checked per ×10 of data (or absolute), printed ✓/✗; any ✗ exits 1.
// SCALE_SIZES=10000,100000 picks the SQLite sizes; SCALE_REQUESTS the requests per figure (600, in 5 rounds,
// after 100 not counted); SCALE_POSTGRES=0 skips PostgreSQL; SCALE_ONLY=purge,requests measures only those
// parts (of purge, requests, rekey, backup, scheduled, restore, copy), to re-measure a figure without the
// whole run.
import { Database } from 'bun:sqlite'
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { seed, type Seeded } from './seed'
import { listen, need, ROOT, rssBytes, type Server } from './servers'

const BINARY = process.env.BENCH_BINARY ?? join(ROOT, 'dist', 'cfgsync-server')
const SIZES = (process.env.SCALE_SIZES ?? '10000,100000,1000000').split(',').filter(Boolean).map(Number)
const POSTGRES_SIZE = Number(process.env.SCALE_POSTGRES ?? 100_000)
const REQUESTS = Number(process.env.SCALE_REQUESTS ?? 600)
/**
 * Sent first and not counted: a server just started (after the boot purge, on a file the OS has not read
 * yet) answers its first requests from a cold cache, which says nothing about how a request grows with
 * the data. Sub-millisecond p50s measured cold moved 2-3x between runs of the same size.
 */
const WARM_UP = 100
/**
 * The counted requests of a figure are cut into this many rounds in time, and a size's p50 and p99 are the
 * median over the rounds of each round's p50 and p99: a stall, or a minute of a busy machine, lands in one
 * round of every size rather than in the one figure measured then.
 */
const ROUNDS = 5
const PER_ROUND = Math.max(1, Math.ceil(REQUESTS / ROUNDS))
const PARTS = ['purge', 'requests', 'rekey', 'backup', 'scheduled', 'restore', 'copy'] as const
const ONLY = new Set((process.env.SCALE_ONLY ?? PARTS.join(',')).split(',').filter(Boolean))
for (const part of ONLY)
	need((PARTS as readonly string[]).includes(part), `SCALE_ONLY: no part "${part}" (${PARTS.join(', ')})`)
const wants = (part: (typeof PARTS)[number]) => ONLY.has(part)
const POSTGRES = process.env.CFGSYNC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
need(existsSync(BINARY), `no ${BINARY}: run npm run build`)

/** A figure's bound: its growth per ×10 of data, or a ceiling at every size. */
type Bound = { growth: number } | { under: number }
const MB = 1024 * 1024
const FLAT: Bound = { growth: 1.5 }
// p99 of a few hundred requests on a shared machine moves with one stall: twice the flat bound.
const FLAT_P99: Bound = { growth: 3 }
// A job's work grows with the data: at most a little worse than linear.
const JOB: Bound = { growth: 12 }
// docs/performance.md: requests while a job runs keep latest's p99 under 50 ms.
const DURING: Bound = { under: 50 }
const MEMORY: Bound = { under: 300 }
// docs/api.md#pages: while one client reads large lists in a loop, other requests' p99 stays under 10 ms.
const BESIDE_LISTS: Bound = { under: 10 }
/** How long latest is measured beside the client reading lists. */
const LIST_LOOP_MS = 3000

/** name → [value, bound], in the order measured. */
type Figures = Map<string, { value: number; bound: Bound; unit: string }>

const percentile = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN

const median = (values: number[]) =>
	percentile(
		[...values].sort((a, b) => a - b),
		0.5
	)

async function once(url: string, init: RequestInit) {
	const started = performance.now()
	const response = await fetch(url, init)
	await response.arrayBuffer()
	if (response.status >= 400) throw new Error(`${url}: HTTP ${response.status}`)
	return performance.now() - started
}

/**
 * The same request to every server, round robin (request i to each in turn, the first one rotating with
 * i), WARM_UP not counted then ROUNDS × PER_ROUND counted: per server, the median over the rounds of each
 * round's p50 and p99.
 */
async function interleaved(targets: { url: string; init: () => RequestInit }[]) {
	const rounds = targets.map(() => Array.from({ length: ROUNDS }, () => [] as number[]))
	for (let i = -WARM_UP; i < ROUNDS * PER_ROUND; i++)
		for (let k = 0; k < targets.length; k++) {
			const t = (k + Math.max(0, i)) % targets.length
			const target = targets[t] as (typeof targets)[number]
			const ms = await once(target.url, target.init())
			if (i >= 0) rounds[t]?.[Math.floor(i / PER_ROUND)]?.push(ms)
		}
	return rounds.map((perRound) => {
		const sorted = perRound.map((times) => times.sort((a, b) => a - b))
		return {
			p50: median(sorted.map((times) => percentile(times, 0.5))),
			p99: median(sorted.map((times) => percentile(times, 0.99)))
		}
	})
}

/** GET latest in a loop until stopped; each request's wall-clock start and end. */
function latestLoop(url: string, apiKey: string) {
	const samples: { start: number; end: number }[] = []
	let running = true
	const done = (async () => {
		while (running) {
			const start = Date.now()
			const t = performance.now()
			await (
				await fetch(`${url}/api/configs/latest?name=hot&tool=claude-code`, {
					headers: { authorization: `Bearer ${apiKey}` }
				})
			).arrayBuffer()
			samples.push({ start, end: start + (performance.now() - t) })
		}
	})()
	return {
		/** p99 (ms) of the requests that overlapped [from, to] (wall clock), NaN under 20 of them. */
		async stop(from: number, to: number) {
			running = false
			await done
			const within = samples
				.filter((sample) => sample.end >= from && sample.start <= to)
				.map((sample) => sample.end - sample.start)
				.sort((a, b) => a - b)
			return within.length < 20 ? Number.NaN : percentile(within, 0.99)
		}
	}
}

/** Runs an admin command of the binary to its end: time, peak RSS. */
async function command(args: string[], env: Record<string, string>) {
	const started = performance.now()
	const proc = Bun.spawn([BINARY, ...args], { env: { ...process.env, ...env }, stdout: 'ignore', stderr: 'pipe' })
	let peak = 0
	const sampler = setInterval(() => (peak = Math.max(peak, rssBytes([proc.pid]))), 25)
	const code = await proc.exited
	clearInterval(sampler)
	if (code !== 0) throw new Error(`${args.join(' ')}: ${await new Response(proc.stderr).text()}`)
	return { ms: performance.now() - started, peakMb: peak / MB }
}

/** A command beside the serving server: its time, peak RSS, and latest's p99 meanwhile. */
async function beside(server: Server, apiKey: string, args: string[], env: Record<string, string>) {
	const loop = latestLoop(server.url, apiKey)
	const from = Date.now()
	const result = await command(args, env)
	return { ...result, p99: await loop.stop(from, Date.now()) }
}

async function createDatabase(name: string) {
	const admin = new SQL(POSTGRES, { max: 1 })
	try {
		await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`)
		await admin.unsafe(`CREATE DATABASE ${name}`)
	} finally {
		await admin.close()
	}
	return POSTGRES.replace(/\/[^/]*$/, `/${name}`)
}

async function dropDatabase(name: string) {
	const admin = new SQL(POSTGRES, { max: 1 })
	try {
		await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
	} finally {
		await admin.close()
	}
}

/** A size being measured: its seed, its data, its running server (until its jobs are done), its figures. */
interface Run {
	engine: 'sqlite' | 'postgres'
	size: number
	dir: string
	dataDir: string
	seeded: Seeded
	env: Record<string, string>
	serve: string[]
	server?: Server
	figures: Figures
	set: (name: string, value: number, bound: Bound, unit?: string) => void
	close: () => Promise<void>
}

/** Seeds a size, starts its server and measures the purge it runs at boot; the server is left running. */
async function start(engine: 'sqlite' | 'postgres', size: number, runs: Run[]) {
	const figures: Figures = new Map()
	const dir = join(tmpdir(), `cfgsync-scale-${engine}-${size}`)
	rmSync(dir, { recursive: true, force: true })
	const dataDir = join(dir, 'data')
	const database = `cfgsync_scale_${size}`
	const seeded: Seeded = await seed(join(dataDir, 'cfgsync.db'), {
		configs: Math.max(1, Math.floor(size / 10)),
		versionsEach: 10,
		deletedTeamConfigs: Math.max(1, Math.floor(size / 100))
	})
	let closeProbe = async () => {}
	let closed = false
	const run: Run = {
		engine,
		size,
		dir,
		dataDir,
		seeded,
		// 700 pushes from one key in well under a minute: past the pushes-a-minute quota they would time 429s (as bench/run.ts).
		env: { CFGSYNC_QUOTA_PUSHES_PER_MINUTE: '0' },
		serve: ['serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir],
		figures,
		set: (name, value, bound, unit = 'ms') => figures.set(name, { value, bound, unit }),
		async close() {
			if (closed) return
			closed = true
			await run.server?.stop()
			run.server = undefined
			await closeProbe().catch(() => {})
			if (engine === 'postgres') await dropDatabase(database)
			rmSync(dir, { recursive: true, force: true })
		}
	}
	// Pushed first, so that whatever fails below still stops the server and removes the data.
	runs.push(run)
	console.log(`  ${seeded.versions.toLocaleString('en')} versions seeded in ${seeded.seconds.toFixed(1)} s`)
	run.set('seed (s)', seeded.seconds, JOB, 's')
	// The key in the data directory, not the environment: rekey replaces the file and every later step reads it.
	writeFileSync(join(dataDir, 'master.key'), `${seeded.masterKey}\n`, { mode: 0o600 })
	delete process.env.CFGSYNC_MASTER_KEY
	let teamGone: () => Promise<boolean>
	if (engine === 'postgres') {
		const url = await createDatabase(database)
		const copy = await command(['db', 'copy', '--to', url, '--data-dir', dataDir], run.env)
		console.log(`  copied into PostgreSQL in ${(copy.ms / 1000).toFixed(1)} s`)
		rmSync(join(dataDir, 'cfgsync.db'), { force: true })
		run.env.CFGSYNC_DATABASE_URL = url
		const probe = new SQL(url, { max: 1 })
		teamGone = async () => (await probe`SELECT 1 FROM teams WHERE id = ${seeded.deletedTeamId}`).length === 0
		closeProbe = () => probe.close()
	} else {
		const probe = new Database(join(dataDir, 'cfgsync.db'), { readonly: true })
		const query = probe.prepare('SELECT 1 FROM teams WHERE id = ?')
		teamGone = async () => query.get(seeded.deletedTeamId ?? '') === null
		closeProbe = async () => probe.close()
	}
	const spawned = performance.now()
	const server = await listen('cfgsync', [BINARY, ...run.serve], run.env)
	run.server = server
	// The purge started at boot: latest meanwhile, until the team is gone.
	const loop = latestLoop(server.url, seeded.apiKey)
	const from = Date.now()
	while (!(await teamGone())) await Bun.sleep(10)
	const purged = performance.now() - spawned
	const meanwhile = await loop.stop(from, Date.now())
	if (wants('purge')) {
		run.set('purge, from the spawn (incl. start-up)', purged, JOB)
		run.set('purge: latest p99 meanwhile', meanwhile, DURING)
	}
	await closeProbe()
	closeProbe = async () => {}
}

/** Each request's p50 and p99, then a push, then each server's idle memory: every size side by side. */
async function requestFigures(runs: Run[]) {
	const targets = await Promise.all(
		runs.map(async (run) => {
			const server = run.server as Server
			const auth = { authorization: `Bearer ${run.seeded.apiKey}` }
			const get = () => ({ headers: auth })
			const url = (path: string) => `${server.url}${path}`
			const configs = (await (await fetch(url('/api/configs?limit=1000'), get())).json()) as {
				id: string
				name: string
			}[]
			const id = (name: string) => configs.find((config) => config.name === name)?.id as string
			const history = (await (await fetch(url(`/api/configs/${id('history')}/versions?limit=1`), get())).json()) as {
				id: string
			}[]
			let n = 0
			const push = () => ({
				method: 'POST',
				headers: { ...auth, 'content-type': 'application/json' },
				body: JSON.stringify({ name: 'push-1k', tool: 'cursor', data: { n: n++, pad: 'x'.repeat(1000) } })
			})
			return { url, get, id, history, push }
		})
	)
	const requests: [string, (target: (typeof targets)[number]) => string][] = [
		['GET /api/me', () => '/api/me'],
		['GET latest', () => '/api/configs/latest?name=hot&tool=claude-code'],
		['GET a config', (t) => `/api/configs/${t.id('hot')}`],
		['GET one version', (t) => `/api/configs/${t.id('history')}/versions/${t.history[0]?.id}`],
		['GET versions (a page of 100 × 64 KiB)', (t) => `/api/configs/${t.id('history')}/versions`],
		['GET /api/configs', () => '/api/configs'],
		['GET /api/audit', () => '/api/audit']
	]
	for (const [name, path] of requests) {
		const figures = await interleaved(targets.map((t) => ({ url: t.url(path(t)), init: t.get })))
		runs.forEach((run, i) => {
			run.set(`${name} p50`, figures[i]?.p50 ?? Number.NaN, FLAT)
			run.set(`${name} p99`, figures[i]?.p99 ?? Number.NaN, FLAT_P99)
		})
	}
	const pushes = await interleaved(targets.map((t) => ({ url: t.url('/api/configs'), init: t.push })))
	runs.forEach((run, i) => {
		run.set('POST a version (1 KiB) p50', pushes[i]?.p50 ?? Number.NaN, FLAT)
		run.set('POST a version (1 KiB) p99', pushes[i]?.p99 ?? Number.NaN, FLAT_P99)
	})
	for (const run of runs) run.set('idle RSS (MB)', rssBytes((run.server as Server).pids()) / MB, FLAT, 'MB')
	// docs/api.md#pages: one client reading the largest list in a loop must not hold up the others.
	for (const [i, run] of runs.entries()) {
		const target = targets[i] as (typeof targets)[number]
		// The reading client is a process of its own, as a real one is: in this process its megabytes
		// would keep the bench's own event loop from timing latest.
		const reader = Bun.spawn(
			[
				process.execPath,
				'-e',
				`for (;;) await (await fetch(${JSON.stringify(target.url(`/api/configs/${target.id('history')}/versions`))}, { headers: { authorization: ${JSON.stringify(`Bearer ${run.seeded.apiKey}`)} } })).arrayBuffer()`
			],
			{ stdout: 'ignore', stderr: 'inherit' }
		)
		await Bun.sleep(300)
		const loop = latestLoop((run.server as Server).url, run.seeded.apiKey)
		const from = Date.now()
		await Bun.sleep(LIST_LOOP_MS)
		const p99 = await loop.stop(from, Date.now())
		reader.kill()
		await reader.exited
		run.set('latest p99 while a client reads versions pages in a loop', p99, BESIDE_LISTS)
	}
}

/** A size's jobs beside its running server, which is then stopped; then the jobs with no server. */
async function jobs(run: Run) {
	const { engine, size, dir, dataDir, seeded, env, serve, set } = run
	const server = run.server as Server
	if (wants('rekey')) {
		const rekey = await beside(server, seeded.apiKey, ['rekey', '--data-dir', dataDir], env)
		set('rekey', rekey.ms, JOB)
		set('rekey peak RSS (MB)', rekey.peakMb, MEMORY, 'MB')
		set('rekey: latest p99 meanwhile', rekey.p99, DURING)
	}
	if (engine === 'sqlite' && wants('backup')) {
		const backup = await beside(server, seeded.apiKey, ['backup', join(dir, 'backup.db'), '--data-dir', dataDir], env)
		set('`backup` command', backup.ms, JOB)
		set('`backup` peak RSS (MB)', backup.peakMb, MEMORY, 'MB')
		set('`backup`: latest p99 meanwhile', backup.p99, DURING)
	}
	await server.stop()
	run.server = undefined

	if (engine === 'sqlite' && wants('scheduled')) {
		// A second start, with a backup every 10 s: the first one is measured, then the server stops.
		const backups = join(dir, 'backups')
		const second = await listen('cfgsync', [BINARY, ...serve, '--backup-dir', backups], {
			...env,
			CFGSYNC_BACKUP_SCHEDULE: '*/10 * * * * *'
		})
		try {
			const loop = latestLoop(second.url, seeded.apiKey)
			let peak = 0
			const written = () => (existsSync(backups) ? readdirSync(backups).filter((f) => !f.startsWith('.')) : [])
			while (written().length === 0) {
				peak = Math.max(peak, rssBytes(second.pids()))
				await Bun.sleep(25)
			}
			const end = Date.now()
			// The file is named by when the backup started (jobs/backup.ts): cfgsync-2026-01-01T00-00-00-000Z.db.
			const stamp = /cfgsync-(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})-(\d{3})Z/.exec(written()[0] as string)
			const start = stamp ? Date.parse(`${stamp[1]}T${stamp[2]}:${stamp[3]}:${stamp[4]}.${stamp[5]}Z`) : end
			set('scheduled backup (with its check)', end - start, JOB)
			set('scheduled backup: server peak RSS (MB)', peak / MB, MEMORY, 'MB')
			set('scheduled backup: latest p99 meanwhile', await loop.stop(start, end), DURING)
		} finally {
			await second.stop()
		}
		rmSync(backups, { recursive: true, force: true })
	}
	if (engine === 'sqlite' && existsSync(join(dir, 'backup.db')) && wants('restore')) {
		const restore = await command(['restore', join(dir, 'backup.db'), '--data-dir', dataDir], env)
		set('`restore`', restore.ms, JOB)
		set('`restore` peak RSS (MB)', restore.peakMb, MEMORY, 'MB')
		for (const name of readdirSync(dataDir))
			if (name.includes('before-restore')) rmSync(join(dataDir, name), { force: true })
	}
	rmSync(join(dir, 'backup.db'), { force: true })
	if (engine === 'sqlite' && wants('copy')) {
		const target = `cfgsync_scale_copy_${size}`
		const to = await createDatabase(target)
		try {
			const copy = await command(['db', 'copy', '--to', to, '--data-dir', dataDir], env)
			set('`db copy` to PostgreSQL', copy.ms, JOB)
			set('`db copy` peak RSS (MB)', copy.peakMb, MEMORY, 'MB')
		} finally {
			await dropDatabase(target)
		}
	} else if (engine === 'postgres' && wants('copy')) {
		const copy = await command(['db', 'copy', '--to', join(dir, 'copy.db'), '--data-dir', dataDir], env)
		set('`db copy` to SQLite', copy.ms, JOB)
		set('`db copy` peak RSS (MB)', copy.peakMb, MEMORY, 'MB')
	}
}

/** Every size of one engine: seeded and started one after the other, requests side by side, then the jobs. */
async function measure(engine: 'sqlite' | 'postgres', sizes: number[]): Promise<Figures[]> {
	const label = engine === 'sqlite' ? 'SQLite' : 'PostgreSQL'
	const runs: Run[] = []
	try {
		for (const size of sizes) {
			console.log(`::: ${label}, ${size.toLocaleString('en')} versions: seed, start, purge`)
			await start(engine, size, runs)
		}
		if (wants('requests')) {
			console.log(`::: ${label}: requests, ${sizes.map((size) => size.toLocaleString('en')).join(', ')} side by side`)
			await requestFigures(runs)
		}
		for (const run of runs) {
			console.log(`::: ${label}, ${run.size.toLocaleString('en')} versions: jobs`)
			await jobs(run)
			await run.close()
		}
	} finally {
		for (const run of runs) await run.close()
	}
	return runs.map((run) => run.figures)
}

const format = (value: number) =>
	!Number.isFinite(value) ? '–' : value >= 100 ? Math.round(value).toLocaleString('en') : value.toFixed(2)
const describe = (bound: Bound) => ('growth' in bound ? `≤ ${bound.growth}× per ×10` : `< ${bound.under}`)

/** A Markdown table: each figure at each size, its worst growth per ×10, its bound, ✓ or ✗. */
function table(columns: string[], results: Figures[], sizes: number[]): { lines: string[]; failed: boolean } {
	let failed = false
	const names = [...new Set(results.flatMap((figures) => [...figures.keys()]))]
	const lines = [
		`| figure | ${columns.join(' | ')} | growth per ×10 | bound | |`,
		`|---|${columns.map(() => '---:').join('|')}|---:|---|---|`
	]
	for (const name of names) {
		const entries = results.map((figures) => figures.get(name))
		const { bound, unit } = entries.find(Boolean) as { bound: Bound; unit: string }
		const values = entries.map((entry) => entry?.value ?? Number.NaN)
		const growths = values
			.slice(1)
			.map(
				(value, i) =>
					(value / (values[i] as number)) ** (1 / Math.log10((sizes[i + 1] as number) / (sizes[i] as number)))
			)
			.filter(Number.isFinite)
		const worst = growths.length > 0 ? Math.max(...growths) : Number.NaN
		// A figure with no value (a job that ended before 20 requests overlapped it) is not a failure.
		const ok =
			'growth' in bound
				? !Number.isFinite(worst) || worst <= bound.growth
				: values.every((value) => !Number.isFinite(value) || value < bound.under)
		failed ||= !ok
		const mark = 'growth' in bound && !Number.isFinite(worst) ? '–' : ok ? '✓' : '✗'
		const label = unit === 'ms' ? `${name} (ms)` : name
		lines.push(
			`| ${label} | ${values.map(format).join(' | ')} | ${Number.isFinite(worst) ? `${worst.toFixed(2)}×` : '–'} | ${describe(bound)}${'under' in bound ? ` ${unit}` : ''} | ${mark} |`
		)
	}
	return { lines, failed }
}

const started = new Date()
const results = await measure('sqlite', SIZES)
let postgres: Figures | undefined
if (POSTGRES_SIZE > 0) {
	try {
		postgres = (await measure('postgres', [POSTGRES_SIZE]))[0]
	} catch (error) {
		console.log(`  PostgreSQL not measured: ${(error as Error).message.split('\n')[0]}`)
	}
}
console.log(
	`\nnpm run bench:scale, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC: requests side by side over the sizes, ${WARM_UP} not counted then ${ROUNDS} rounds of ${PER_ROUND}; p50 and p99 are the medians over the rounds\n`
)
const sqlite = table(
	SIZES.map((size) => `SQLite ${size.toLocaleString('en')}`),
	results,
	SIZES
)
for (const line of sqlite.lines) console.log(line)
let failed = sqlite.failed
if (postgres) {
	console.log('')
	const pg = table([`PostgreSQL ${POSTGRES_SIZE.toLocaleString('en')}`], [postgres], [POSTGRES_SIZE])
	for (const line of pg.lines) console.log(line)
	failed ||= pg.failed
}
process.exit(failed ? 1 : 0)
