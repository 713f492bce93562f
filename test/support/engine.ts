import { onTestFinished } from 'bun:test'
import { SQL } from 'bun'
import { copyFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { applyMigrations } from '../../src/server/store/postgres/migrate'
import { migrations } from '../../src/server/store/postgres/migrations'
import { openPostgresStore, POSTGRES_DOWN_REASON } from '../../src/server/store/postgres'
import { openSqliteStore } from '../../src/server/store/sqlite'
import type { Store } from '../../src/server/store/types'
import { TEST_DATABASE_URL } from './postgres-url'
import { tempDir } from './temp'

/**
 * Which engine the in-process and store tests run on (docs/postgresql.md): SQLite by
 * default, PostgreSQL with CFGSYNC_TEST_ENGINE=postgres (`npm test` runs the
 * suite on both; scripts/test.ts). On PostgreSQL each store gets a database
 * of its own, cloned from a migrated template, all dropped when the run ends.
 *
 * The PostgreSQL server may be shared (max_connections is 100 by default and
 * others hold some), so a run keeps few connections: every test
 * store has a small pool and is closed when the test that opened it ends (or,
 * opened outside a test, when its file ends), and test/support/engine-cleanup.ts fails
 * the run when it held more than CFGSYNC_TEST_MAX_CONNECTIONS at once or left
 * a connection open.
 */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.CFGSYNC_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite'

export { postgresAnswers, TEST_DATABASE_URL } from './postgres-url'

/**
 * Under `npm test` (scripts/test.ts) every worker's databases share the pass's prefix, and the pass drops
 * them all when it ends: PostgreSQL 15 checkpoints on every DROP DATABASE, and dropping each file's
 * databases (and its migrated template) when the file ended cost seconds per file.
 */
const passPrefix = process.env.CFGSYNC_TEST_DATABASE_PREFIX
/** This process's name: every database it makes is named `<run>_…`, and its own connections say it. */
export const run = `${passPrefix ?? 'cfgsync_test'}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
/** Dropped by a file anyway once this many wait for the pass's end: each is a few MB on the server's disk. */
const MOST_DEFERRED = 150
const created: string[] = []
let admin: SQL | undefined
let template: Promise<string> | undefined
let counter = 0

const urlFor = (database: string) => {
	const url = new URL(TEST_DATABASE_URL)
	url.pathname = `/${database}`
	return url.toString()
}

function adminClient(): SQL {
	// Two: CREATE DATABASE is cheap to queue, and every connection here is one the shared server lacks.
	admin ??= new SQL({ url: TEST_DATABASE_URL, max: 2, idleTimeout: 0, connection: { application_name: run } })
	startCounting()
	return admin
}

/** The migrated template every test database is cloned from (CREATE DATABASE … TEMPLATE: about 50 ms). */
function migratedTemplate(): Promise<string> {
	template ??= (async () => {
		const name = `${run}_template`
		await adminClient().unsafe(`CREATE DATABASE "${name}"`)
		created.push(name)
		const client = new SQL({ url: urlFor(name), max: 1 })
		await applyMigrations(client, migrations)
		await client.close()
		return name
	})()
	return template
}

/** Databases made ahead, so a test rarely waits for CREATE DATABASE (PostgreSQL works on the other core meanwhile). */
const ready: Promise<string>[] = []
const AHEAD = 3

/** A new, empty, migrated PostgreSQL database for this run; its URL. */
export function newPostgresDatabase(): Promise<string> {
	while (ready.length < AHEAD + 1) {
		const made = makePostgresDatabase()
		made.catch(() => {})
		ready.push(made)
	}
	const file = Bun.main
	return (ready.shift() as Promise<string>).then((url) => usedFor(url, file))
}

/** The test file each database was handed to, to name it when a connection is left open. */
const usedBy = new Map<string, string>()
const usedFor = (url: string, file: string) => {
	usedBy.set(new URL(url).pathname.slice(1), file)
	return url
}

async function makePostgresDatabase(): Promise<string> {
	const name = `${run}_${++counter}`
	await adminClient().unsafe(`CREATE DATABASE "${name}" TEMPLATE "${await migratedTemplate()}"`)
	created.push(name)
	// A test database is thrown away after the run: waiting for each commit's WAL flush would only make it slow.
	await adminClient().unsafe(`ALTER DATABASE "${name}" SET synchronous_commit = off`)
	return urlFor(name)
}

/** A new, empty PostgreSQL database without the schema (for tests of migrations themselves). */
export async function emptyPostgresDatabase(): Promise<string> {
	const name = `${run}_${++counter}`
	await adminClient().unsafe(`CREATE DATABASE "${name}"`)
	created.push(name)
	return usedFor(urlFor(name), Bun.main)
}

/**
 * A Store usable at once while its database is made in the background: every
 * call waits for it first. The tests' `testApp()` is synchronous, as it was
 * when every store was SQLite in memory.
 */
function lazyStore(opening: Promise<Store>): Store {
	const part = (name: keyof Store) =>
		new Proxy(
			{},
			{
				// A method a test replaced (to make it fail, say) is used as it is.
				get: (target: Record<string, unknown>, method: string) =>
					method in target
						? target[method]
						: (...args: unknown[]) =>
								opening.then((store) =>
									(store[name] as unknown as Record<string, (...a: unknown[]) => unknown>)[method]?.(...args)
								)
			}
		)
	return {
		engine: 'postgres',
		users: part('users'),
		keys: part('keys'),
		sessions: part('sessions'),
		signups: part('signups'),
		loginFailures: part('loginFailures'),
		configs: part('configs'),
		teams: part('teams'),
		audit: part('audit'),
		jobs: part('jobs'),
		meta: part('meta'),
		instances: part('instances'),
		tables: part('tables'),
		ping: () => opening.then((store) => store.ping()),
		downReason: POSTGRES_DOWN_REASON,
		findsCallerSynchronously: false,
		stats: () => opening.then((store) => store.stats()),
		backup: (file: string) => opening.then((store) => store.backup(file)),
		changeSignal: {
			engine: 'postgres',
			listen: (onNotify: () => void, onListen: () => void) =>
				opening.then((store) =>
					store.changeSignal.engine === 'postgres' ? store.changeSignal.listen(onNotify, onListen) : async () => {}
				)
		},
		close: () => void opening.then((store) => store.close()).catch(() => {})
	} as unknown as Store
}

/**
 * Connections per test store: two, so a test still runs queries
 * side by side (and races several stores on one database) while the run stays
 * far below a shared server's max_connections (servers default to 10). Idle
 * for half a second, a connection closes (the store opens another when asked):
 * a test that makes a dozen stores in turn holds only those it is using.
 */
export const TEST_POOL = { max: 2, idleTimeout: 0.5 }

/** PostgreSQL stores opened during the running test, closed when it ends. */
const ofTest: Store[] = []
/** Stores opened outside a test (at the top of a file, in beforeAll): closed when their file ends. */
const ofFile: { store: Store; file: string }[] = []
let inTest = false

function track(store: Store): Store {
	if (inTest) ofTest.push(store)
	else ofFile.push({ store, file: Bun.main })
	return store
}

/**
 * test/support/engine-cleanup.ts calls this before every test: the stores a finished file
 * opened outside its tests are closed, and those the test opens are closed when
 * it ends, passed or failed (after its own afterEach hooks, which may still use them).
 */
export function testStarting(): void {
	for (let i = ofFile.length - 1; i >= 0; i--) {
		if ((ofFile[i] as { file: string }).file !== Bun.main) ofFile.splice(i, 1)[0]?.store.close()
	}
	inTest = true
	onTestFinished(() => {
		inTest = false
		for (const store of ofTest.splice(0)) store.close()
	})
}

/** The PostgreSQL database behind each store openTestStore made, for freezeTestStore. */
const databaseOf = new WeakMap<Store, Promise<string>>()

/** A fresh, empty store on the test engine: in memory for SQLite, a new database for PostgreSQL. */
export function openTestStore(): Store {
	if (TEST_ENGINE === 'sqlite') return openSqliteStore(':memory:')
	return postgresStoreOn(newPostgresDatabase())
}

function postgresStoreOn(database: Promise<string>): Store {
	const store = track(lazyStore(database.then((url) => openPostgresStore(url, TEST_POOL))))
	databaseOf.set(store, database)
	return store
}

/**
 * A state built once, opened many times: the store's database is kept as it is now (the store is
 * closed), and each call of the function returned opens a new store on a copy of it (a file copy on
 * SQLite, CREATE DATABASE … TEMPLATE on PostgreSQL, about 50 ms). For tables of cases that each
 * need the same starting world (test/server/reliability/authorization-matrix.test.ts).
 */
export async function freezeTestStore(store: Store): Promise<() => Store> {
	if (TEST_ENGINE === 'sqlite') {
		const frozen = join(tempDir('frozen'), 'world.db')
		await store.backup(frozen)
		store.close()
		return () => {
			const copy = join(tempDir('world'), 'cfgsync.db')
			copyFileSync(frozen, copy)
			return openSqliteStore(copy)
		}
	}
	const database = databaseOf.get(store)
	if (!database) throw new Error('freezeTestStore: a PostgreSQL store made by openTestStore() is needed')
	const name = new URL(await database).pathname.slice(1)
	await store.ping()
	store.close()
	// A template must have no connection: the closed pool's are ending; any left is ended here.
	await adminClient().unsafe('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name])
	return () => postgresStoreOn(cloneOf(name))
}

async function cloneOf(template: string): Promise<string> {
	const name = `${run}_${++counter}`
	for (let attempt = 0; ; attempt++) {
		try {
			await adminClient().unsafe(`CREATE DATABASE "${name}" TEMPLATE "${template}"`)
			break
		} catch (error) {
			// "source database is being accessed by other users": a connection of the closed pool still ending.
			if (attempt >= 50 || !/being accessed by other users/.test(String(error))) throw error
			await Bun.sleep(20)
		}
	}
	created.push(name)
	await adminClient().unsafe(`ALTER DATABASE "${name}" SET synchronous_commit = off`)
	return usedFor(urlFor(name), Bun.main)
}

/** A store on a PostgreSQL database of this run (test/server/postgres/), with a test's small pool, closed as openTestStore's are. */
export async function openPostgresTestStore(url: string): Promise<Store> {
	return track(await openPostgresStore(url, TEST_POOL))
}

/**
 * One database that several stores open, as several server instances do:
 * a SQLite file, or a PostgreSQL database. `open()` gives another store on it.
 */
export async function sharedTestDatabase(): Promise<{ open(): Promise<Store>; location: string }> {
	if (TEST_ENGINE === 'sqlite') {
		const file = join(tempDir('shared-db'), 'cfgsync.db')
		return { open: async () => openSqliteStore(file), location: file }
	}
	const url = await newPostgresDatabase()
	return { open: () => openPostgresTestStore(url), location: url }
}

/** The most connections this run held at once, and where. */
let peak = { count: 0, file: '', databases: '' }
/** The most each test file held at once. */
const peaks = new Map<string, number>()
let counterClient: SQL | undefined
let counting: ReturnType<typeof setInterval> | undefined

/**
 * Counts, every 50 ms, the connections this run holds on the server: its own
 * pools and those of the processes it starts (push workers, compiled servers),
 * by their database or, for the admin client and this counter, their application name.
 */
function startCounting(): void {
	if (counting) return
	counterClient = new SQL({ url: TEST_DATABASE_URL, max: 1, idleTimeout: 0, connection: { application_name: run } })
	const client = counterClient
	let busy = false
	counting = setInterval(async () => {
		if (busy) return
		busy = true
		try {
			const rows = (await client.unsafe(
				`SELECT coalesce(datname, '') AS datname, count(*)::int AS n FROM pg_stat_activity
				 WHERE application_name = $1 OR left(datname, length($1) + 1) = $1 || '_' GROUP BY 1 ORDER BY 2 DESC`,
				[run]
			)) as { datname: string; n: number }[]
			const count = rows.reduce((sum, row) => sum + row.n, 0)
			if (count > peak.count)
				peak = { count, file: Bun.main, databases: rows.map((row) => `${row.datname}: ${row.n}`).join(', ') }
			if (count > (peaks.get(Bun.main) ?? 0)) peaks.set(Bun.main, count)
		} catch {
			// The server went away or the run is ending: the next sample says more.
		} finally {
			busy = false
		}
	}, 50)
	counting.unref()
}

/** The connections still open on this run's databases, after every store was closed. */
async function leftOpen(): Promise<string[]> {
	const deadline = Date.now() + 3000
	for (;;) {
		const rows = (await adminClient().unsafe(
			`SELECT datname, count(*)::int AS n FROM pg_stat_activity WHERE left(datname, length($1) + 1) = $1 || '_' GROUP BY 1 ORDER BY 1`,
			[run]
		)) as { datname: string; n: number }[]
		if (rows.length === 0 || Date.now() > deadline)
			return rows.map((row) => `${row.datname} (${row.n}, used by ${usedBy.get(row.datname) ?? 'no test'})`)
		await Bun.sleep(100)
	}
}

/** At most this many connections at once in one run. */
export const MAX_CONNECTIONS = Number(process.env.CFGSYNC_TEST_MAX_CONNECTIONS || 20)

/**
 * Closes every store still open and drops every database this run made
 * (test/support/engine-cleanup.ts calls it when the run ends). Fails when the run held
 * more than MAX_CONNECTIONS at once, or when a test left a connection open.
 */
/** Waits for `work` at most 60 s, then says what did not finish and goes on: cleanup must not hold the run. */
async function settledWithin(work: Promise<unknown>, what: string): Promise<void> {
	let timer: ReturnType<typeof setTimeout> | undefined
	const late = new Promise<'late'>((resolve) => {
		timer = setTimeout(() => resolve('late'), 60_000)
	})
	const outcome = await Promise.race([
		work.then(
			() => 'done' as const,
			() => 'done' as const
		),
		late
	])
	clearTimeout(timer)
	if (outcome === 'late') console.log(`test cleanup: ${what} took over 60 s; going on without it`)
}

export async function dropTestDatabases(): Promise<void> {
	inTest = false
	for (const store of [...ofTest.splice(0), ...ofFile.splice(0).map((opened) => opened.store)]) store.close()
	if (!admin) return
	const problems: string[] = []
	const open = await Promise.race([leftOpen().catch(() => []), Bun.sleep(60_000).then((): string[] => [])])
	if (open.length > 0)
		problems.push(
			`connections left open when the run ended (a pool a test opened and never closed): ${open.join('; ')}`
		)
	clearInterval(counting)
	counting = undefined
	await counterClient?.close().catch(() => {})
	counterClient = undefined
	if (peak.count > MAX_CONNECTIONS) {
		problems.push(
			`this run held ${peak.count} PostgreSQL connections at once, above ${MAX_CONNECTIONS} (CFGSYNC_TEST_MAX_CONNECTIONS), while ${peak.file} ran: ${peak.databases}` +
				`; the most by file: ${[...peaks]
					.sort((a, b) => b[1] - a[1])
					.slice(0, 5)
					.map(([file, count]) => `${relative(process.cwd(), file)} ${count}`)
					.join(', ')}`
		)
	}
	if (passPrefix && created.length < MOST_DEFERRED) {
		// Left to the pass (scripts/test.ts), with the template and the databases made ahead for the next file.
	} else if (!process.env.KEEP_TEST_DIRS) {
		// Bounded: once, under two whole suites on one shared server, this hook waited out its 600 s here.
		await settledWithin(Promise.allSettled(ready.splice(0)), 'databases made ahead')
		await settledWithin(admin.close(), 'closing the admin connection')
		admin = undefined
		// Every store is closed now, so dropping may use a few more connections: one DROP DATABASE
		// at a time waits for a checkpoint each. WITH (FORCE) ends any connection still open.
		const client = new SQL({ url: TEST_DATABASE_URL, max: 8, idleTimeout: 0, connection: { application_name: run } })
		const drop = (names: string[]) =>
			Promise.all(names.map((name) => client.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {})))
		const names = created.splice(0)
		// Clones first, their template last.
		await settledWithin(drop(names.filter((name) => !name.endsWith('_template'))), 'dropping the databases')
		await settledWithin(drop(names.filter((name) => name.endsWith('_template'))), 'dropping the template')
		await settledWithin(client.close(), 'closing the cleanup connection')
		// A worker of `bun test --parallel --no-isolate` runs more files after this one: they make a new template.
		template = undefined
	}
	if (problems.length > 0) throw new Error(problems.join('\n'))
}

/** The most connections this run has held at once so far (test/server/postgres/connections.test.ts). */
export const peakConnections = () => peak.count
