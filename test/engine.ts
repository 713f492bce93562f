import { SQL } from 'bun'
import { join } from 'node:path'
import { applyMigrations } from '../src/store/postgres/migrate'
import { migrations } from '../src/store/postgres/migrations'
import { openPostgresStore } from '../src/store/postgres'
import { openSqliteStore } from '../src/store/sqlite'
import type { Store } from '../src/store/types'
import { TEST_DATABASE_URL } from './postgres-url'
import { tempDir } from './temp'

/**
 * Which engine the in-process and store tests run on (CONTRACT §9): SQLite by
 * default, PostgreSQL with CFGSYNC_TEST_ENGINE=postgres (`npm test` runs the
 * suite on both; scripts/test.ts). On PostgreSQL each store gets a database
 * of its own, cloned from a migrated template, all dropped when the run ends.
 */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.CFGSYNC_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite'

export { postgresAnswers, TEST_DATABASE_URL } from './postgres-url'

const run = `cfgsync_test_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
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
	admin ??= new SQL({ url: TEST_DATABASE_URL, max: 8, idleTimeout: 0 })
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
	return ready.shift() as Promise<string>
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
	return urlFor(name)
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
						opening.then((store) => (store[name] as unknown as Record<string, (...a: unknown[]) => unknown>)[method]?.(...args))
			}
		)
	return {
		engine: 'postgres',
		users: part('users'),
		keys: part('keys'),
		sessions: part('sessions'),
		loginFailures: part('loginFailures'),
		configs: part('configs'),
		teams: part('teams'),
		audit: part('audit'),
		jobs: part('jobs'),
		meta: part('meta'),
		instances: part('instances'),
		tables: part('tables'),
		ping: () => opening.then((store) => store.ping()),
		stats: () => opening.then((store) => store.stats()),
		backup: (file: string) => opening.then((store) => store.backup(file)),
		close: () => void opening.then((store) => store.close())
	} as unknown as Store
}

/** Connections per test store: few, closed when idle, so hundreds of stores in one run stay under max_connections. */
const POOL = { max: 4, idleTimeout: 2 }

/** A fresh, empty store on the test engine: in memory for SQLite, a new database for PostgreSQL. */
export function openTestStore(): Store {
	if (TEST_ENGINE === 'sqlite') return openSqliteStore(':memory:')
	return lazyStore(newPostgresDatabase().then((url) => openPostgresStore(url, POOL)))
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
	return { open: () => openPostgresStore(url, POOL), location: url }
}

/** Drops every database this run made (test/engine-cleanup.ts calls it when the run ends). */
export async function dropTestDatabases(): Promise<void> {
	if (!admin || process.env.KEEP_TEST_DIRS) return
	const client = admin
	await Promise.allSettled(ready.splice(0))
	// WITH (FORCE) ends the connections of stores a test left open; clones first, their template last.
	const names = created.splice(0).reverse()
	for (let i = 0; i < names.length; i += 8) {
		await Promise.all(names.slice(i, i + 8).map((name) => client.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {})))
	}
	await client.close()
	admin = undefined
}
