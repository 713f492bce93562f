// npm run bench:scale (docs/performance.md): does a request cost the same at 10k, 100k and 1M stored versions?
// Seeds each size through the store (bench/seed.ts: configs of 10 versions over 1,000 users, plus the
// bench user's hot configs), starts the compiled server on it and measures, one request at a time,
// each request's p50 and p99; then the jobs: a scheduled backup (with latest's p99 while it runs),
// `cfgsync-server backup`, and `db copy` into PostgreSQL (time and peak memory). Prints each figure
// at each size and its growth per ×10; a request whose answer does not grow that grows more than
// 1.5× fails the bench (exit 1).
//
// SCALE_SIZES=10000,100000 picks the sizes (default 10000,100000,1000000); SCALE_REQUESTS the
// requests per figure (default 300). PostgreSQL (db copy) is measured when it answers.
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SQL } from 'bun'
import { seed, type Seeded } from './seed'
import { listen, need, ROOT, rssBytes } from './servers'

const BINARY = process.env.BENCH_BINARY ?? join(ROOT, 'dist', 'cfgsync-server')
const SIZES = (process.env.SCALE_SIZES ?? '10000,100000,1000000').split(',').map(Number)
const REQUESTS = Number(process.env.SCALE_REQUESTS ?? 300)
const POSTGRES = process.env.CFGSYNC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
need(existsSync(BINARY), `no ${BINARY}: run npm run build`)

/** Figures at one size: name → milliseconds (or MB for memory). */
type Figures = Map<string, number>
/** Figures whose answer does not grow with the data: more than 1.5× per ×10 fails the bench. */
const FLAT = new Set<string>()

const percentile = (sorted: number[], p: number) =>
	sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN

async function timed(url: string, init: () => RequestInit, count = REQUESTS) {
	const times: number[] = []
	for (let i = 0; i < count; i++) {
		const started = performance.now()
		const response = await fetch(url, init())
		await response.arrayBuffer()
		if (response.status >= 400) throw new Error(`${url}: HTTP ${response.status}`)
		times.push(performance.now() - started)
	}
	times.sort((a, b) => a - b)
	return { p50: percentile(times, 0.5), p99: percentile(times, 0.99) }
}

async function measure(size: number): Promise<Figures> {
	const figures: Figures = new Map()
	const dir = join(tmpdir(), `cfgsync-scale-${size}`)
	rmSync(dir, { recursive: true, force: true })
	const seeded: Seeded = await seed(join(dir, 'data', 'cfgsync.db'), {
		configs: Math.max(1, Math.floor(size / 10)),
		versionsEach: 10
	})
	console.log(`  ${size.toLocaleString('en')} versions seeded in ${seeded.seconds.toFixed(1)} s`)
	const backups = join(dir, 'backups')
	const server = await listen(
		'cfgsync',
		[BINARY, 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', join(dir, 'data'), '--backup-dir', backups],
		// A backup every 20 s, so one falls inside the measurements below.
		{ CFGSYNC_MASTER_KEY: seeded.masterKey, CFGSYNC_BACKUP_SCHEDULE: '*/20 * * * * *' }
	)
	try {
		const auth = { authorization: `Bearer ${seeded.apiKey}` }
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
		const requests: [string, string, () => RequestInit][] = [
			['GET /api/me', '/api/me', get],
			['GET latest', '/api/configs/latest?name=hot&tool=claude-code', get],
			['GET a config', `/api/configs/${id('hot')}`, get],
			['GET one version', `/api/configs/${id('history')}/versions/${history[0]?.id}`, get],
			['GET versions (a page)', `/api/configs/${id('history')}/versions`, get],
			['GET /api/configs', '/api/configs', get],
			['GET /api/audit', '/api/audit', get]
		]
		for (const [name, path, init] of requests) {
			const { p50, p99 } = await timed(url(path), init)
			figures.set(`${name} p50`, p50)
			figures.set(`${name} p99`, p99)
			FLAT.add(`${name} p50`)
		}
		let n = 0
		const push = await timed(url('/api/configs'), () => ({
			method: 'POST',
			headers: { ...auth, 'content-type': 'application/json' },
			body: JSON.stringify({ name: 'push-1k', tool: 'cursor', data: { n: n++, pad: 'x'.repeat(1000) } })
		}))
		figures.set('POST a version p50', push.p50)
		FLAT.add('POST a version p50')
		// latest while the scheduled backup runs: requests until a backup file appears.
		const during: number[] = []
		const before = existsSync(backups) ? readdirSync(backups).length : 0
		const deadline = performance.now() + 120_000
		while (performance.now() < deadline && (existsSync(backups) ? readdirSync(backups).length : 0) <= before) {
			const started = performance.now()
			await (await fetch(url('/api/configs/latest?name=hot&tool=claude-code'), get())).arrayBuffer()
			during.push(performance.now() - started)
		}
		during.sort((a, b) => a - b)
		figures.set('latest p99 during a backup', percentile(during, 0.99))
		figures.set('idle RSS MB', rssBytes(server.pids()) / 1024 / 1024)
	} finally {
		await server.stop()
	}
	const run = async (args: string[]) => {
		const started = performance.now()
		const proc = Bun.spawn([BINARY, ...args, '--data-dir', join(dir, 'data')], {
			env: { ...process.env, CFGSYNC_MASTER_KEY: seeded.masterKey },
			stdout: 'ignore',
			stderr: 'pipe'
		})
		let peak = 0
		const sampler = setInterval(() => (peak = Math.max(peak, rssBytes([proc.pid]))), 50)
		const code = await proc.exited
		clearInterval(sampler)
		if (code !== 0) throw new Error(`${args.join(' ')}: ${await new Response(proc.stderr).text()}`)
		return { ms: performance.now() - started, peakMb: peak / 1024 / 1024 }
	}
	figures.set('backup command ms', (await run(['backup', join(dir, 'copy.db')])).ms)
	const admin = new SQL(POSTGRES, { max: 1 })
	const database = `cfgsync_scale_${size}_${process.pid}`
	try {
		await admin.unsafe(`CREATE DATABASE ${database}`)
		const copy = await run(['db', 'copy', '--to', POSTGRES.replace(/\/[^/]*$/, `/${database}`)])
		figures.set('db copy ms', copy.ms)
		figures.set('db copy peak RSS MB', copy.peakMb)
		await admin.unsafe(`DROP DATABASE ${database}`)
	} catch (error) {
		console.log(`  db copy not measured: ${(error as Error).message.split('\n')[0]}`)
	} finally {
		await admin.close()
	}
	return figures
}

const results: Figures[] = []
for (const size of SIZES) {
	console.log(`::: ${size.toLocaleString('en')} versions`)
	results.push(await measure(size))
}
const names = [...(results[0]?.keys() ?? [])]
const header = ['', ...SIZES.map((size) => size.toLocaleString('en')), 'growth per ×10']
const rows = names.map((name) => {
	const values = results.map((figures) => figures.get(name) ?? NaN)
	const growth = values.slice(1).map((value, i) => value / (values[i] as number))
	return { name, values, worst: Math.max(...growth) }
})
console.log(`\n${header.join(' | ')}`)
let failed = false
for (const { name, values, worst } of rows) {
	const over = FLAT.has(name) && worst > 1.5
	failed ||= over
	console.log(
		[
			name,
			...values.map((value) => value.toFixed(2)),
			`${Number.isFinite(worst) ? worst.toFixed(2) : '-'}${over ? ' FAIL' : ''}`
		].join(' | ')
	)
}
process.exit(failed ? 1 : 0)
