import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { SCHEMA } from '../../../src/server/build-info'
import { emptyPostgresDatabase, postgresAnswers } from '../../support/engine'
import { api, emptyDir, run, serversOfThisFile, startServer, type Server } from '../../support/harness'

/**
 * Issue 37: an upgrade from the previous release's data, end to end, on both engines. The data was made
 * by the previous release's binary (test/fixtures/previous-release/README.md says how).
 */
const FIXTURE = resolve(import.meta.dir, '..', '..', 'fixtures', 'previous-release')
const KEY = readFileSync(join(FIXTURE, 'master.key'), 'utf8').trim()
/** The schema the previous release's data is at (the fixture's); this build's SCHEMA may be several ahead. */
const PREVIOUS_RELEASE_SCHEMA = 5
const servers = serversOfThisFile()
const postgres = await postgresAnswers()

/** What the previous release wrote is all there, readable, in the feed, and writable after the upgrade. */
async function upgradedIntact(server: Server, adaKey: string) {
	const ready = await api(server, 'GET', '/readyz')
	expect(ready.status).toBe(200)
	expect(ready.body.build.schema).toBe(SCHEMA)
	const latest = await api(server, 'GET', '/api/configs/latest?name=default&tool=claude-code', adaKey)
	expect(latest.status).toBe(200)
	expect(latest.body.version).toBe(3)
	expect(latest.body.data).toEqual({ files: { 'settings.json': '{"v": 3}' } })
	const history = await api(server, 'GET', `/api/configs/${latest.body.id}/versions`, adaKey)
	expect(history.status).toBe(200)
	// The previous release's pushes are in the feed a replay reads.
	const feed = await fetch(`${server.url}/api/events`, {
		headers: { authorization: `Bearer ${adaKey}`, 'last-event-id': '1' },
		signal: AbortSignal.timeout(1500)
	})
	let text = ''
	try {
		const reader = feed.body?.getReader()
		const decoder = new TextDecoder()
		while (reader && (text.match(/event: config\n/g)?.length ?? 0) < 3) {
			const { value, done } = await reader.read()
			if (done) break
			text += decoder.decode(value)
		}
	} catch {}
	expect(text.match(/event: config\n/g)?.length ?? 0).toBeGreaterThanOrEqual(3)
	const pushed = await api(server, 'POST', '/api/configs', adaKey, {
		name: 'default',
		tool: 'claude-code',
		data: { files: { 'settings.json': '{"v": 4}' } }
	})
	expect(pushed.status).toBe(200)
	expect(pushed.body.version).toBe(4)
}

describe('upgrading the previous release’s data', () => {
	test('SQLite: a pre-upgrade backup is written, everything reads, and the backup restores', async () => {
		const dir = emptyDir()
		mkdirSync(join(dir, 'data'), { mode: 0o700 })
		copyFileSync(join(FIXTURE, 'cfgsync.db'), join(dir, 'data', 'cfgsync.db'))
		const env = { CFGSYNC_MASTER_KEY: KEY }
		const server = await startServer(dir, { env })
		servers.push(server)
		const backups = readdirSync(join(dir, 'data')).filter((name) => name.startsWith('pre-upgrade-'))
		expect(backups).toHaveLength(1)
		expect(backups[0]).toStartWith(`pre-upgrade-${PREVIOUS_RELEASE_SCHEMA}-`)
		expect(server.log()).toContain('backed up the database before upgrading it')
		await upgradedIntact(server, readFileSync(join(FIXTURE, 'sqlite-ada.key'), 'utf8').trim())
		expect(await server.stop('SIGTERM')).toBe(0)

		// Rolling back: the backup taken before the upgrade is a whole database of the previous schema.
		const restored = await run(dir, ['restore', join(dir, 'data', backups[0] as string)], { env })
		expect(restored.code).toBe(0)
		const again = await startServer(dir, { env })
		servers.push(again)
		const ada = readFileSync(join(FIXTURE, 'sqlite-ada.key'), 'utf8').trim()
		expect((await api(again, 'GET', '/api/configs/latest?name=default&tool=claude-code', ada)).body.version).toBe(3)
	}, 60_000)

	test.skipIf(!postgres)(
		'PostgreSQL: everything reads and writes after the upgrade',
		async () => {
			const url = await emptyPostgresDatabase()
			const client = new SQL({ url, max: 1 })
			await client.unsafe(readFileSync(join(FIXTURE, 'postgres.sql'), 'utf8'))
			await client.close()
			const env = { CFGSYNC_MASTER_KEY: KEY, CFGSYNC_DATABASE_URL: url, CFGSYNC_DATABASE_POOL: '2' }
			const server = await startServer(emptyDir(), { env })
			servers.push(server)
			await upgradedIntact(server, readFileSync(join(FIXTURE, 'postgres-ada.key'), 'utf8').trim())
		},
		60_000
	)
})
