// `npm test`: the suite in three passes — the in-process and unit tests on SQLite, the browser tests
// (Chromium driving the compiled server), then every test that reaches the store again on PostgreSQL
// (docs/postgresql.md; test/support/engine.ts). Without PostgreSQL or Chromium their pass is skipped with
// one line, except under CI=true, where that is a failure. Extra arguments go to every pass.
//
// Test files run side by side in worker processes (`bun test --parallel`): most of a test's time is spent
// waiting on a server, a browser or PostgreSQL, so two or three at once on two cores finish in about half
// the time (docs/architecture.md, "Where CI time goes"). CFGSYNC_TEST_PARALLEL sets how many (1: one at a time).
// A worker keeps its modules from one file to the next (--no-isolate), as a single `bun test` always did:
// loading the server's modules again for every file cost a fifth of the pass.
//
// With CFGSYNC_TEST_TIMINGS=DIR each pass writes its files' durations to DIR/<pass>.json and the time the pass
// took to DIR/passes.txt (.ci/run prints them); test/timings/<pass>.json, the durations of a recent run (copied
// from such a DIR), lets each pass start its slowest files first.
import { appendFileSync, copyFileSync, existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { ensureBinary } from '../test/support/binary'
import { dropDatabasesNamed, postgresAnswers, TEST_DATABASE_URL } from '../test/support/postgres-url'

const extra = process.argv.slice(2)
const IN_CI = process.env.CI === 'true' || process.env.CI === '1'
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const workers = Number(process.env.CFGSYNC_TEST_PARALLEL || Math.max(2, availableParallelism()))
const timingsDir = process.env.CFGSYNC_TEST_TIMINGS
const RECENT = join(import.meta.dir, '..', 'test', 'timings')

/** Keeps a PostgreSQL pass under 30 connections in all (a shared server has others): split over its workers. */
const POSTGRES_CONNECTIONS = 28

const common = ['test', '--path-ignore-patterns', '**/*.e2e.test.ts']
/**
 * A test's time limit: 30 s in process; 120 s for a browser flow, which walks a dozen pages and on a busy
 * machine (two suites at once) takes several times its usual 5-10 s.
 */
const timeout = (ms: number) => ['--timeout', String(ms)]
const ignore = (...patterns: string[]) => patterns.flatMap((pattern) => ['--path-ignore-patterns', pattern])
// Not on PostgreSQL: the client's own tests, pure library tests, the browser tests (they drive
// the compiled server on SQLite) and the deployment files' checks never touch the store, so a
// second run would test nothing new.
const storeless = [
	'test/client/**',
	'test/shared/**',
	'test/server/lib/**',
	'test/server/browser/**',
	'test/server/deploy/**'
]

/** One pass: `bun test` with its files in `parallel` workers; its exit status. */
async function pass(name: string, args: string[], env: Record<string, string> = {}, parallel = workers) {
	const timings: string[] = []
	const recent = join(RECENT, `${name}.json`)
	if (timingsDir) {
		const file = join(timingsDir, `${name}.json`)
		if (existsSync(recent)) copyFileSync(recent, file)
		else await Bun.write(file, '{"version":1,"files":{}}\n')
		timings.push('--timings', file, '--update-timings')
	} else if (existsSync(recent)) timings.push('--timings', recent)
	const started = performance.now()
	const proc = Bun.spawn(
		[
			process.execPath,
			...common,
			...(parallel > 1 ? [`--parallel=${parallel}`, '--no-isolate'] : []),
			...timings,
			...args,
			...extra
		],
		{ stdio: ['inherit', 'inherit', 'inherit'], env: { ...process.env, ...env } }
	)
	const status = await proc.exited
	const seconds = Math.round((performance.now() - started) / 1000)
	console.log(`::: ${name}: ${seconds} s`)
	if (timingsDir) appendFileSync(join(timingsDir, 'passes.txt'), `${name} ${seconds}\n`)
	return status
}

console.log(`::: the suite on SQLite (${workers} files at a time)`)
// test/server/postgres/ needs PostgreSQL itself: it runs in the PostgreSQL pass only.
let status = await pass('SQLite', [...timeout(30_000), ...ignore('test/server/postgres/**', 'test/server/browser/**')])

if (existsSync(CHROMIUM) || IN_CI) {
	// Under CI a missing Chromium fails these tests (test/support/browser.ts), never skips them.
	console.log('::: the web application in Chromium')
	// They drive the compiled server: built here, once, when it is older than the sources.
	ensureBinary()
	const browser = await pass('browser', [...timeout(120_000), 'test/server/browser'])
	status ||= browser
} else {
	console.log(
		`skipped the browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`
	)
}

const url = TEST_DATABASE_URL.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
if (await postgresAnswers()) {
	console.log(`::: the store and in-process tests again on PostgreSQL (${url})`)
	// Its databases are dropped here, once, rather than by each file (test/support/engine.ts says why).
	const prefix = `cfgsync_test_${process.pid}`
	const postgres = await pass('PostgreSQL', [...timeout(30_000), ...ignore(...storeless)], {
		CFGSYNC_TEST_ENGINE: 'postgres',
		CFGSYNC_TEST_MAX_CONNECTIONS: String(Math.floor(POSTGRES_CONNECTIONS / workers)),
		CFGSYNC_TEST_DATABASE_PREFIX: prefix
	})
	status ||= postgres
	const dropping = performance.now()
	try {
		const dropped = await dropDatabasesNamed(prefix)
		console.log(`::: dropped the pass's ${dropped} databases in ${Math.round((performance.now() - dropping) / 1000)} s`)
	} catch (error) {
		console.log(`could not drop the pass's databases (${prefix}_*): ${error}`)
		status ||= 1
	}
} else if (IN_CI) {
	console.log(
		`PostgreSQL does not answer at ${url}: the PostgreSQL tests cannot run, and under CI=true that fails (start it: pg_ctlcluster --skip-systemctl-redirect 15 main start)`
	)
	status ||= 1
} else {
	console.log(
		`skipped the PostgreSQL run: nothing answers at ${url} (set CFGSYNC_TEST_DATABASE_URL to a server where the tests may create databases)`
	)
}
process.exit(status)
