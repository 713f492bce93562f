import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { createApp } from '../../../src/server/app'
import { manualClock } from '../../../src/server/lib/clock'
import { memoryLogger } from '../../../src/server/lib/log'
import { copyDatabase, rowsAlreadyIn } from '../../../src/server/store/copy'
import { openSqliteStore } from '../../../src/server/store/sqlite'
import type { Store } from '../../../src/server/store/types'
import { newPostgresDatabase, openPostgresTestStore } from '../../support/engine'
import { fastPasswords, testApp } from '../../support/helpers'
import { tempDir } from '../../support/temp'

/**
 * docs/operations.md `db copy`: SQLite → PostgreSQL and back, the copy then serving
 * the same answers under the same master key. In npm test's PostgreSQL pass
 * only (test/server/postgres/, scripts/test.ts).
 */
describe('db copy between engines', () => {
	/** A small install with everything in it: users, keys, a team with a pending invitation, configs with versions, audit events, failed logins. */
	async function populated(store: Store) {
		const t = testApp({ store })
		const alice = await t.user('team', 'alice')
		const bob = await t.user('pro', 'bob')
		const team = (await t.call('POST', '/api/teams', { key: alice.key, body: { name: 'Crew' } })).body
		await t.join(alice, team.slug, bob)
		await t.call('POST', `/api/teams/${team.slug}/members`, {
			key: alice.key,
			body: { login: (await t.user('pro', 'carol')).username, role: 'member' }
		})
		for (let i = 0; i < 3; i++)
			await t.call('POST', '/api/configs', {
				key: alice.key,
				body: { name: 'default', tool: 'cursor', data: { 'settings.json': `{"v":${i}}`, bytes: '\u0000\u00ff' } }
			})
		await t.call('POST', '/api/configs', {
			key: alice.key,
			body: { name: 'shared', tool: 'vscode', teamId: team.id, data: { team: true } }
		})
		await t.call('POST', '/api/auth/login', { body: { login: 'bob', password: 'wrong password', device: 'x' } })
		return { t, alice, bob }
	}

	/** What a client sees: the same requests answered on the source and on the copy. */
	async function answers(store: Store, sealer: ReturnType<typeof testApp>['sealer'], keys: string[]) {
		const app = createApp({ store, sealer, clock: manualClock(), logger: memoryLogger(), passwords: fastPasswords })
		const seen: unknown[] = []
		for (const key of keys) {
			for (const path of [
				'/api/me',
				'/api/configs',
				'/api/teams',
				'/api/keys',
				'/api/audit?limit=50',
				'/api/invitations'
			]) {
				const response = await app.handle(
					new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } })
				)
				seen.push([path, response.status, await response.json()])
			}
			const configs = (await (
				await app.handle(new Request('http://localhost/api/configs', { headers: { authorization: `Bearer ${key}` } }))
			).json()) as { id: string }[]
			for (const config of configs) {
				for (const suffix of ['', '/versions']) {
					const response = await app.handle(
						new Request(`http://localhost/api/configs/${config.id}${suffix}`, {
							headers: { authorization: `Bearer ${key}` }
						})
					)
					seen.push([suffix, response.status, await response.json()])
				}
			}
		}
		return seen
	}

	test('SQLite → PostgreSQL → SQLite: every table the same, and the copies answer as the original did', async () => {
		const dir = tempDir('copy')
		const sqlite = openSqliteStore(join(dir, 'source.db'))
		const { t, alice, bob } = await populated(sqlite)
		const before = await answers(sqlite, t.sealer, [alice.key, bob.key])

		const postgres = await openPostgresTestStore(await newPostgresDatabase())
		const there = await copyDatabase(sqlite, postgres)
		for (const row of there)
			expect({ table: row.table, rows: row.targetRows, digest: row.targetDigest }).toEqual({
				table: row.table,
				rows: row.sourceRows,
				digest: row.sourceDigest
			})
		expect(there.find((row) => row.table === 'config_versions')?.sourceRows).toBe(4)
		expect(await answers(postgres, t.sealer, [alice.key, bob.key])).toEqual(before)

		const back = openSqliteStore(join(dir, 'back.db'))
		const returned = await copyDatabase(postgres, back)
		expect(returned.map((row) => row.targetDigest)).toEqual(there.map((row) => row.sourceDigest))
		expect(await answers(back, t.sealer, [alice.key, bob.key])).toEqual(before)

		// A new failed login on the copy gets an id after the copied ones (the sequence moved on).
		expect(
			(
				await postgres.loginFailures.reserve({
					loginKey: 'x',
					address: '192.0.2.1',
					at: Date.now(),
					since: 0,
					limits: { perLoginAddress: 10, perAddress: 30, perLogin: 100 }
				})
			).ok
		).toBe(true)
		for (const store of [sqlite, postgres, back]) store.close()
	})

	test('a target that holds any row is refused, naming what is in it', async () => {
		const postgres = await openPostgresTestStore(await newPostgresDatabase())
		expect(await rowsAlreadyIn(postgres)).toEqual([])
		await populated(postgres)
		expect(await rowsAlreadyIn(postgres)).toContain('users (3 rows)')
		postgres.close()
	})
})
