import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { newId } from '../../../src/server/lib/ids'
import { sharedTestDatabase, TEST_ENGINE } from '../../support/engine'

/**
 * docs/performance.md: on SQLite a push that finds another process's write lock waits for it without
 * freezing its own process: the other requests of this server go on meanwhile (with `--workers 2`
 * one worker's push used to stop the other's event loop inside SQLite's busy handler). PostgreSQL
 * waits for locks on its own connections and never froze the process, so this is SQLite's alone.
 */
/** A fresh store on a file another connection can open, with one user to push as. */
async function storeWithUser(username: string) {
	const shared = await sharedTestDatabase()
	const store = await shared.open()
	const userId = newId()
	const at = new Date().toISOString()
	await store.users.create({
		id: userId,
		email: `${username}@example.test`,
		username,
		passwordHash: null,
		plan: 'pro',
		isAdmin: false,
		createdAt: at
	})
	return { shared, store, userId, at }
}

describe.skipIf(TEST_ENGINE !== 'sqlite')('a push waiting for another process’s write lock', () => {
	test('lets this process run meanwhile and stores once the lock is free', async () => {
		const { shared, store, userId, at } = await storeWithUser('hal')
		// Another process's writer, as far as SQLite can tell: a connection of its own holding the write lock.
		const other = new Database(shared.location)
		other.run('BEGIN IMMEDIATE')
		let ticks = 0
		const ticking = setInterval(() => ticks++, 5)
		const released = Bun.sleep(150).then(() => other.run('COMMIT'))
		const started = performance.now()
		const pushed = await store.configs.push({
			owner: { userId, teamId: null },
			name: 'main',
			tool: 'cursor',
			hash: 'h1',
			seal: () => new Uint8Array([1, 2, 3]),
			newConfigId: newId(),
			newVersionId: newId(),
			at
		})
		clearInterval(ticking)
		await released
		other.close()
		expect(pushed.kind).toBe('created')
		// Stored once the lock was released, well before the 5 s a busy wait allows, and timers ran meanwhile.
		expect(performance.now() - started).toBeLessThan(2000)
		expect(ticks).toBeGreaterThan(5)
		expect((await store.configs.findByKey({ userId, teamId: null }, 'main', 'cursor'))?.hash).toBe('h1')
	}, 20_000)

	test('pushes that wait are stored in the order they came', async () => {
		const { shared, store, userId, at } = await storeWithUser('ida')
		const other = new Database(shared.location)
		other.run('BEGIN IMMEDIATE')
		const push = (hash: string) =>
			store.configs.push({
				owner: { userId, teamId: null },
				name: 'main',
				tool: 'cursor',
				hash,
				seal: () => new Uint8Array([1, 2, 3]),
				newConfigId: newId(),
				newVersionId: newId(),
				at
			})
		// The first has waited longest (its sleeps grown to milliseconds) when the lock comes free; the later ones must not overtake it.
		const first = push('first')
		await Bun.sleep(60)
		const later = [push('second'), push('third')]
		await Bun.sleep(1)
		other.run('COMMIT')
		other.close()
		const results = await Promise.all([first, ...later])
		expect(results.map((result) => ('config' in result ? result.config.version : undefined))).toEqual([1, 2, 3])
	}, 20_000)
})
