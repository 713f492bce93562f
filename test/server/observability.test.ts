import { describe, expect, test } from 'bun:test'
import { createApp } from '../../src/server/app'
import { parseTrustedProxies } from '../../src/server/lib/client-address'
import { DATABASE_LOG_EVERY_MS, databaseFailure } from '../../src/server/plugins/errors'
import type { Store } from '../../src/server/store/types'
import { fastPasswords, testApp } from '../support/helpers'
import { webApp } from '../support/web'
import { openTestStore } from '../support/engine'
import { parsePrometheus } from '../support/prometheus'
import { until } from '../support/eventually'
import { buildInfo } from '../../src/server/build-info'

const buildLabels = () => ({ ...buildInfo(), schema: String(buildInfo().schema) })

/** docs/api.md and docs/operations.md for operators: what the access log, /metrics and the error log say. */
const TOKEN = 'metrics-token-for-tests-0123456789'

const logged = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>)

describe('the access log line carries the client address (docs/api.md)', () => {
	test('as resolved through trusted proxies; a forged X-Forwarded-For from any other peer is not believed', async () => {
		let peer = '127.0.0.1'
		const t = testApp({ address: () => peer, trustedProxies: parseTrustedProxies('127.0.0.1/32') })
		await t.app.handle(new Request('http://localhost/healthz', { headers: { 'x-forwarded-for': '198.51.100.7' } }))
		peer = '203.0.113.9'
		await t.app.handle(new Request('http://localhost/nope', { headers: { 'x-forwarded-for': '198.51.100.8' } }))
		// The line is written after the response is sent: on a loaded machine that can take more than a moment.
		const requests = () => logged(t.logger.lines).filter((line) => line.msg === 'request')
		await until(() => requests().length >= 2)
		expect(requests().map((line) => [line.route ?? line.path, line.client])).toEqual([
			['/healthz', '198.51.100.7'],
			['/nope', '203.0.113.9']
		])
	})
})

describe('/metrics for alerting (docs/operations.md)', () => {
	test('cfgsync_build_info carries the version --version prints; counters with known labels are exported at 0 from the start', async () => {
		const t = testApp()
		const app = createApp({
			store: t.store,
			sealer: t.sealer,
			clock: t.clock,
			logger: t.logger,
			passwords: fastPasswords,
			metricsToken: TOKEN
		})
		const text = await (
			await app.handle(new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } }))
		).text()
		const { samples } = parsePrometheus(text)
		const sample = (name: string, labels: Record<string, string> = {}) =>
			samples.find(
				(s) =>
					s.name === name &&
					Object.keys(labels).length === Object.keys(s.labels).length &&
					Object.entries(labels).every(([k, v]) => s.labels[k] === v)
			)?.value
		expect(text).toContain('# TYPE cfgsync_build_info gauge')
		expect(sample('cfgsync_build_info', buildLabels())).toBe(1)
		expect({
			backupSuccess: sample('cfgsync_backups_total', { result: 'success' }),
			backupFailure: sample('cfgsync_backups_total', { result: 'failure' }),
			loginSuccess: sample('cfgsync_logins_total', { result: 'success' }),
			loginFailure: sample('cfgsync_logins_total', { result: 'failure' }),
			rateLimited: sample('cfgsync_login_rate_limited_total'),
			pushCreated: sample('cfgsync_pushes_total', { result: 'created' }),
			pushUpdated: sample('cfgsync_pushes_total', { result: 'updated' }),
			pushUnchanged: sample('cfgsync_pushes_total', { result: 'unchanged' })
		}).toEqual({
			backupSuccess: 0,
			backupFailure: 0,
			loginSuccess: 0,
			loginFailure: 0,
			rateLimited: 0,
			pushCreated: 0,
			pushUpdated: 0,
			pushUnchanged: 0
		})
	})
})

/** The store, with every call throwing `failure` while `broken.now` is true (the database stopped answering). */
function breakable(store: Store, failure: () => Error) {
	const broken = { now: false }
	const wrap = <T extends object>(target: T): T =>
		new Proxy(target, {
			get(object, name) {
				const value = Reflect.get(object, name, object)
				if (typeof value === 'function') {
					return (...args: unknown[]) => {
						if (broken.now) throw failure()
						return (value as (...a: unknown[]) => unknown).apply(object, args)
					}
				}
				return value !== null && typeof value === 'object' ? wrap(value) : value
			}
		})
	return { store: wrap(store), broken }
}

const sqliteBusy = () =>
	Object.assign(new Error('database is locked'), { name: 'SQLiteError', code: 'SQLITE_BUSY', errno: 5 })

describe('a database that does not answer (docs/operations.md)', () => {
	test('is one error line naming the cause, no stack, at most once per 10 s, saying how many failures went unlogged; never "unhandled error"', async () => {
		const { store, broken } = breakable(openTestStore(), sqliteBusy)
		const t = webApp({ store })
		const alice = await t.user('team', 'alice')
		const browser = await t.signIn(alice)
		broken.now = true
		const statuses: number[] = []
		for (let i = 0; i < 3; i++) statuses.push((await t.call('GET', '/api/configs', { key: alice.key })).status)
		statuses.push((await t.get('/configs', browser)).status)
		t.clock.advance(DATABASE_LOG_EVERY_MS - 1)
		statuses.push((await t.call('GET', '/api/me', { key: alice.key })).status)
		const errors = () => logged(t.logger.lines).filter((line) => line.level === 'error')
		await until(() => errors().length >= 1)
		expect(statuses).toEqual([500, 500, 500, 500, 500])
		expect(errors()).toEqual([
			{
				ts: expect.any(String),
				level: 'error',
				msg: 'the database does not answer',
				cause: 'SQLITE_BUSY: database is locked',
				requestId: expect.any(String)
			}
		])
		t.clock.advance(1)
		const later = await t.call('GET', '/api/configs', { key: alice.key })
		expect(later.body).toEqual({ error: 'The database does not answer; try again shortly.', code: 'internal' })
		await until(() => errors().length >= 2)
		expect(errors()).toHaveLength(2)
		expect(errors()[1]).toMatchObject({
			msg: 'the database does not answer',
			cause: 'SQLITE_BUSY: database is locked',
			failedSinceLastLine: 4
		})
		expect(t.logger.lines.join('\n')).not.toMatch(/unhandled|stack/)
		// Answering again, it serves again.
		broken.now = false
		expect((await t.call('GET', '/api/configs', { key: alice.key })).status).toBe(200)
	})

	test('what counts as the database not answering: SQLite codes of an unusable file, PostgreSQL connection errors, also when wrapped; not a wrong statement', () => {
		const pg = (code: string, errno?: string) =>
			Object.assign(new Error('pg says no'), { name: 'PostgresError', code, errno })
		expect(databaseFailure(sqliteBusy())).toBe('SQLITE_BUSY: database is locked')
		expect(databaseFailure(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR_SHORT_READ' }))).toBe(
			'SQLITE_IOERR_SHORT_READ: disk I/O error'
		)
		expect(databaseFailure(new Error('Failed query: select 1', { cause: pg('ERR_POSTGRES_CONNECTION_REFUSED') }))).toBe(
			'ERR_POSTGRES_CONNECTION_REFUSED: pg says no'
		)
		expect(databaseFailure(pg('ERR_POSTGRES_CONNECTION_CLOSED'))).toBe('ERR_POSTGRES_CONNECTION_CLOSED: pg says no')
		expect(databaseFailure(pg('ERR_POSTGRES_SERVER_ERROR', '57P01'))).toBe('57P01: pg says no')
		expect(databaseFailure(pg('ERR_POSTGRES_SERVER_ERROR', '53300'))).toBe('53300: pg says no')
		expect(databaseFailure(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }))).toBe(
			'ECONNREFUSED: connect ECONNREFUSED'
		)
		expect(databaseFailure(pg('ERR_POSTGRES_SERVER_ERROR', '42P01'))).toBeUndefined()
		expect(
			databaseFailure(Object.assign(new Error('UNIQUE constraint failed'), { code: 'SQLITE_CONSTRAINT_UNIQUE' }))
		).toBeUndefined()
		expect(databaseFailure(new TypeError('x is undefined'))).toBeUndefined()
	})
})

describe('what the access log and the metrics record (docs/operations.md)', () => {
	const metricsOf = async (t: ReturnType<typeof webApp>) => {
		const response = await t.app.handle(
			new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
		)
		return parsePrometheus(await response.text()).samples.filter((s) => s.name === 'cfgsync_http_requests_total')
	}
	const requestLines = (t: ReturnType<typeof webApp>) =>
		logged(t.logger.lines).filter(
			(line) => line.msg === 'request' && line.route !== '/sign-in' && line.route !== '/account'
		)

	test('a web page that answered 404 or 401 is recorded with the status the browser received, under its route', async () => {
		const t = webApp({ metricsToken: TOKEN })
		const alice = await t.user('team', 'alice')
		const browser = await t.signIn(alice)
		const received = [
			(await t.get(`/join/${'x'.repeat(43)}`, undefined, { 'accept-encoding': 'gzip' })).status,
			(await t.get('/configs/00000000-0000-4000-8000-000000000000', browser, { 'accept-encoding': 'br' })).status,
			(await t.get('/teams/no-such-team', browser)).status,
			(await t.get('/configs', undefined, { 'hx-request': 'true' })).status
		]
		expect(received).toEqual([404, 404, 404, 401])
		await until(() => requestLines(t).length >= 4)
		expect(requestLines(t).map((line) => `${line.route} ${line.status}`)).toEqual([
			'/join/:token 404',
			'/configs/:id 404',
			'/teams/:slug 404',
			'/configs 401'
		])
		const samples = await metricsOf(t)
		const count = (route: string, status: string) =>
			samples.find((s) => s.labels.route === route && s.labels.method === 'GET' && s.labels.status === status)?.value
		expect([
			count('/join/:token', '404'),
			count('/configs/:id', '404'),
			count('/teams/:slug', '404'),
			count('/configs', '401'),
			count('/join/:token', '200'),
			count('/configs/:id', '200')
		]).toEqual([1, 1, 1, 1, undefined, undefined])
	})

	test('an API request refused before routing (a bad key, the database down) is counted under its route, never unmatched', async () => {
		const { store, broken } = breakable(openTestStore(), sqliteBusy)
		const t = webApp({ store, metricsToken: TOKEN })
		const alice = await t.user('team', 'alice')
		expect((await t.call('GET', '/api/me', { key: `cs_${'0'.repeat(64)}` })).status).toBe(401)
		broken.now = true
		expect((await t.call('GET', '/api/configs', { key: alice.key })).status).toBe(500)
		expect((await t.call('GET', `/api/configs/${alice.id}/versions`, { key: alice.key })).status).toBe(500)
		broken.now = false
		expect((await t.call('GET', '/api/no-such-route', { key: alice.key })).status).toBe(404)
		await until(() => requestLines(t).length >= 4)
		expect(requestLines(t).map((line) => `${line.route ?? `path ${line.path}`} ${line.status}`)).toEqual([
			'/api/me 401',
			'/api/configs 500',
			'/api/configs/:id/versions 500',
			'path /api/no-such-route 404'
		])
		const samples = await metricsOf(t)
		expect(samples.filter((s) => s.labels.route === 'unmatched').map((s) => s.labels.status)).toEqual(['404'])
	})
})
