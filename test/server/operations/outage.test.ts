import { afterAll, describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import {
	newPostgresDatabase,
	openPostgresTestStore,
	postgresAnswers,
	TEST_DATABASE_URL,
	TEST_ENGINE
} from '../../support/engine'
import { testApp } from '../../support/helpers'
import { parsePrometheus } from '../../support/prometheus'
import { until } from '../../support/eventually'
import type { Store } from '../../../src/server/store/types'
import { memoryLogger, routeConsoleTo } from '../../../src/server/lib/log'

/**
 * docs/operations.md and issue 37.4: a database that stops answering is one `error` line per 10 s naming the cause,
 * never an "unhandled error" with a stack per request, and its 500s are counted under their routes.
 */
const TOKEN = 'metrics-token-for-tests-0123456789'
const logged = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>)

async function duringOutage(store: Store, outage: { begin(): Promise<void>; end(): Promise<void> }) {
	const t = testApp({ store, metricsToken: TOKEN })
	const alice = await t.user('pro')
	expect((await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v: 1 } } })).status).toBe(
		201
	)
	await outage.begin()
	const statuses: number[] = []
	for (let i = 0; i < 12; i++) {
		statuses.push((await t.call('GET', '/api/me', { key: alice.key })).status)
		statuses.push((await t.call('GET', '/api/configs/latest?name=c', { key: alice.key })).status)
		statuses.push((await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { i } } })).status)
	}
	expect(new Set(statuses)).toEqual(new Set([500]))
	t.logger.flush()
	const errors = logged(t.logger.lines).filter((line) => line.level === 'error')
	expect(errors.map((line) => line.msg)).toEqual(['the database does not answer'])
	expect(String(errors[0]?.cause)).not.toBe('')
	expect(t.logger.lines.join('\n')).not.toContain('stack')
	// Within the 10 s window nothing more; after it, one more line saying how many were not logged.
	t.clock.advance(10_001)
	await t.call('GET', '/api/me', { key: alice.key })
	t.logger.flush()
	expect(logged(t.logger.lines).filter((line) => line.level === 'error')).toHaveLength(2)

	await outage.end()
	const failures = async () => {
		const metrics = await t.app.handle(
			new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
		)
		return parsePrometheus(await metrics.text()).samples.filter(
			(sample) => sample.name === 'cfgsync_http_requests_total' && sample.labels.status === '500'
		)
	}
	// Counted after each response is sent: all 37 are in once the count says so.
	await until(async () => (await failures()).reduce((sum, sample) => sum + sample.value, 0) >= 37)
	expect((await failures()).map((sample) => sample.labels.route).sort()).toEqual([
		'/api/configs',
		'/api/configs/latest',
		'/api/me'
	])
	expect((await t.call('GET', '/api/me', { key: alice.key })).status).toBe(200)
}

const postgres = TEST_ENGINE === 'postgres' && (await postgresAnswers())
const admin = postgres ? new SQL({ url: TEST_DATABASE_URL, max: 1 }) : undefined
afterAll(() => admin?.close())

describe.skipIf(!postgres)('PostgreSQL refusing connections (ALLOW_CONNECTIONS false)', () => {
	test('one error line per 10 s, no stack, 500s under their routes; served again afterwards', async () => {
		const url = await newPostgresDatabase()
		const name = new URL(url).pathname.slice(1)
		const store = await openPostgresTestStore(url)
		await duringOutage(store, {
			async begin() {
				await admin?.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`)
				await admin?.unsafe('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [name])
			},
			async end() {
				await admin?.unsafe(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`)
			}
		})
	}, 30_000)
})

describe.skipIf(TEST_ENGINE !== 'sqlite')('SQLite with a full disk', () => {
	test('one error line per 10 s, no stack, 500s under their routes; served again afterwards', async () => {
		const { openTestStore } = await import('../../support/engine')
		const real = openTestStore()
		let full = false
		const fail = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' })
		// Every store call fails as SQLite does on a full disk while `full`.
		const store = new Proxy(real, {
			get(target, part: keyof Store) {
				const value = target[part]
				if (typeof value !== 'object' || value === null || part === 'changeSignal') return value
				return new Proxy(value, {
					get(inner, method: string) {
						const fn = (inner as Record<string, unknown>)[method]
						if (typeof fn !== 'function') return fn
						return (...args: unknown[]) => {
							if (full) throw fail()
							return (fn as (...a: unknown[]) => unknown).apply(inner, args)
						}
					}
				})
			}
		}) as Store
		await duringOutage(store, {
			begin: async () => {
				full = true
			},
			end: async () => {
				full = false
			}
		})
		real.close()
	})
})

describe('the database driver’s own messages', () => {
	test('go out as JSON lines, each distinct one at most once per 10 s', () => {
		const logger = memoryLogger()
		let now = 0
		const undo = routeConsoleTo(logger, () => now)
		try {
			for (let i = 0; i < 50; i++) {
				console.warn(`bun:sql LISTEN "cfgsync_events" failed, retrying: Connection closed (attempt ${i})`)
				now += 100
			}
			now += 10_000
			console.warn('bun:sql LISTEN "cfgsync_events" failed, retrying: Connection closed (attempt 99)')
		} finally {
			undo()
		}
		logger.flush()
		const lines = logger.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
		expect(lines.map((line) => [line.level, line.msg])).toEqual([
			['warn', 'runtime message'],
			['warn', 'runtime message']
		])
		expect(lines[0]?.text).toContain('bun:sql LISTEN')
		expect(lines[1]?.repeatedSinceLastLine).toBe(49)
	})
})
