import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { emptyPostgresDatabase, postgresAnswers, TEST_DATABASE_URL } from '../../support/engine'
import {
	allPages,
	api,
	emptyDir,
	run,
	serversOfThisFile,
	startServer,
	userWithKey,
	type Server
} from '../../support/harness'

const servers = serversOfThisFile()
const KEY = randomBytes(32).toString('base64')
// A small pool for the servers and `db copy` on PostgreSQL: the server may be shared.
const env = { CFGSYNC_MASTER_KEY: KEY, CFGSYNC_DATABASE_POOL: '2' }

const available = await postgresAnswers()
if (!available && process.env.CI !== 'true')
	console.log(`skipped db copy end-to-end: no PostgreSQL answers at ${TEST_DATABASE_URL}`)

/** What alice's client sees: every config with its latest data and its versions. */
async function answers(server: Server, key: string) {
	const list = await api(server, 'GET', '/api/configs', key)
	const seen: unknown[] = [list.status, list.body]
	for (const config of list.body as { id: string; name: string; tool: string }[]) {
		seen.push((await api(server, 'GET', `/api/configs/${config.id}`, key)).body)
		seen.push(await allPages(server, `/api/configs/${config.id}/versions`, key))
	}
	seen.push((await api(server, 'GET', '/api/teams', key)).body)
	return seen
}

// docs/operations.md, docs/postgresql.md on the compiled binary: an install moved to PostgreSQL and back serves what it served.
describe.skipIf(!available && process.env.CI !== 'true')('db copy on the compiled binary', () => {
	test('SQLite → PostgreSQL → SQLite: each copy prints matching figures and then serves the same answers; a second copy into a filled database is refused', async () => {
		const dir = emptyDir()
		const original = await startServer(dir, { env })
		servers.push(original)
		const alice = await userWithKey(dir, 'alice', 'team', env)
		const team = await api(original, 'POST', '/api/teams', alice.key, { name: 'Crew' })
		expect(team.status).toBe(201)
		for (let v = 1; v <= 3; v++)
			expect(
				(
					await api(original, 'POST', '/api/configs', alice.key, {
						name: 'default',
						tool: 'cursor',
						data: { v, text: 'é\u0000x' }
					})
				).status
			).toBeOneOf([200, 201])
		expect(
			(
				await api(original, 'POST', '/api/configs', alice.key, {
					name: 'shared',
					tool: 'vscode',
					teamId: team.body.id,
					data: { team: true }
				})
			).status
		).toBe(201)
		const before = await answers(original, alice.key)
		await original.stop()

		const url = await emptyPostgresDatabase()
		const there = await run(dir, ['db', 'copy', '--to', url], { env })
		expect(there.stderr).toBe('')
		expect(there.code).toBe(0)
		expect(there.stdout).toMatch(/config_versions\s+4 rows\s+sha256 [0-9a-f]{16}\s+same in the copy/)
		expect(there.stdout).toContain('counts and hashes match')

		const again = await run(dir, ['db', 'copy', '--to', url], { env })
		expect(again.code).not.toBe(0)
		expect(again.stderr).toContain('is not empty (users (1 row)')

		const onPostgres = await startServer(emptyDir(), { env: { ...env, CFGSYNC_DATABASE_URL: url } })
		servers.push(onPostgres)
		expect(onPostgres.log()).toContain('"database":"postgres://')
		expect(await answers(onPostgres, alice.key)).toEqual(before)
		await onPostgres.stop()

		const back = emptyDir()
		const home = await run(back, ['db', 'copy', '--database-url', url, '--to', join(back, 'data', 'cfgsync.db')], {
			env
		})
		expect(home.code).toBe(0)
		expect(home.stdout).toContain('counts and hashes match')
		const onSqlite = await startServer(back, { env })
		servers.push(onSqlite)
		expect(await answers(onSqlite, alice.key)).toEqual(before)
	})
})
