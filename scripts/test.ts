// `npm test`: the whole suite on SQLite, then every test that reaches the store again on
// PostgreSQL (docs/postgresql.md; test/support/engine.ts). Without PostgreSQL the second run is skipped with
// one line, except under CI=true, where that is a failure. Extra arguments go to both runs.
import { postgresAnswers, TEST_DATABASE_URL } from '../test/support/postgres-url'

const extra = process.argv.slice(2)
const common = ['test', '--timeout', '30000', '--path-ignore-patterns', '**/*.e2e.test.ts']
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

const run = (args: string[], env: Record<string, string> = {}) =>
	Bun.spawn([process.execPath, ...args], { stdio: ['inherit', 'inherit', 'inherit'], env: { ...process.env, ...env } })
		.exited

console.log('::: the suite on SQLite')
// test/server/postgres/ needs PostgreSQL itself: it runs in the second pass only.
let status = await run([...common, '--path-ignore-patterns', 'test/server/postgres/**', ...extra])

const url = TEST_DATABASE_URL.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@')
if (await postgresAnswers()) {
	console.log(`::: the store and in-process tests again on PostgreSQL (${url})`)
	const postgres = await run(
		[...common, ...storeless.flatMap((pattern) => ['--path-ignore-patterns', pattern]), ...extra],
		{ CFGSYNC_TEST_ENGINE: 'postgres' }
	)
	status ||= postgres
} else if (process.env.CI === 'true') {
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
