import { describe, expect, test } from 'bun:test'
import { createApp } from '../../src/server/app'
import { createSealer, generateMasterKey } from '../../src/server/lib/crypto'
import { sealKeyCheck, KEY_CHECK } from '../../src/server/lib/key-check'
import { memoryLogger } from '../../src/server/lib/log'
import { manualClock } from '../../src/server/lib/clock'
import { openTestStore } from '../support/engine'
import type { Store } from '../../src/server/store/types'
import { fastPasswords, testApp } from '../support/helpers'
import { parsePrometheus } from '../support/prometheus'
import { until } from '../support/eventually'
import { buildInfo } from '../../src/server/build-info'

const TOKEN = 'metrics-token-for-tests-0123456789'

function appWith(options: { metricsToken?: string; store?: Store; sealerKey?: Buffer } = {}) {
	const store = options.store ?? openTestStore()
	const sealer = createSealer(options.sealerKey ?? generateMasterKey())
	return {
		app: createApp({
			store,
			sealer,
			clock: manualClock(),
			logger: memoryLogger(),
			passwords: fastPasswords,
			metricsToken: options.metricsToken
		}),
		store,
		sealer
	}
}

describe('metrics (docs/operations.md)', () => {
	test('/metrics is 404 without CFGSYNC_METRICS_TOKEN, 401 with a wrong token, Prometheus text with the right one', async () => {
		const off = appWith()
		expect((await off.app.handle(new Request('http://localhost/metrics'))).status).toBe(404)
		const on = appWith({ metricsToken: TOKEN })
		expect((await on.app.handle(new Request('http://localhost/metrics'))).status).toBe(401)
		const wrong = await on.app.handle(
			new Request('http://localhost/metrics', { headers: { authorization: 'Bearer nope' } })
		)
		expect(wrong.status).toBe(401)
		expect(wrong.headers.get('www-authenticate')).toBe('Bearer')
		const right = await on.app.handle(
			new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })
		)
		expect(right.status).toBe(200)
		expect(right.headers.get('content-type')).toContain('text/plain; version=0.0.4')
		parsePrometheus(await right.text())
	})

	test('requests by route pattern and status, latency histograms, pushes, logins, failed logins, throttling, users and configs', async () => {
		const t = testApp()
		const app = createApp({
			store: t.store,
			sealer: t.sealer,
			clock: t.clock,
			logger: t.logger,
			passwords: fastPasswords,
			metricsToken: TOKEN,
			peerAddress: () => '10.0.0.1'
		})
		const call = (method: string, path: string, key?: string, body?: unknown) =>
			app.handle(
				new Request(`http://localhost${path}`, {
					method,
					headers: {
						...(key ? { authorization: `Bearer ${key}` } : {}),
						...(body ? { 'content-type': 'application/json' } : {})
					},
					body: body ? JSON.stringify(body) : undefined
				})
			)
		const alice = await t.user('pro', 'alice')
		await call('POST', '/api/configs', alice.key, { name: 'a', data: { v: 1 } })
		await call('POST', '/api/configs', alice.key, { name: 'a', data: { v: 2 } })
		await call('POST', '/api/configs', alice.key, { name: 'a', data: { v: 2 } })
		await call('GET', `/api/configs/${crypto.randomUUID()}`, alice.key)
		await call('GET', '/nowhere/cs_secret-looking')
		await call('POST', '/api/auth/login', undefined, { login: 'alice', password: alice.password, device: 'x' })
		for (let i = 0; i < 11; i++)
			await call('POST', '/api/auth/login', undefined, { login: 'alice', password: 'wrong-password', device: 'x' })
		// Requests are counted once their answer has gone out: wait until the 17 before this one are.
		let text = ''
		await until(async () => {
			text = await (await call('GET', '/metrics', TOKEN)).text()
			return (
				parsePrometheus(text)
					.samples.filter((s) => s.name === 'cfgsync_http_requests_total' && s.labels.route !== '/metrics')
					.reduce((sum, s) => sum + s.value, 0) >= 17
			)
		})
		const { samples } = parsePrometheus(text)
		const value = (name: string, labels: Record<string, string> = {}) =>
			samples
				.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
				.reduce((sum, s) => sum + s.value, 0)
		expect(value('cfgsync_http_requests_total', { route: '/api/configs', method: 'POST', status: '201' })).toBe(1)
		expect(value('cfgsync_http_requests_total', { route: '/api/configs', method: 'POST', status: '200' })).toBe(2)
		expect(value('cfgsync_http_requests_total', { route: '/api/configs/:id', method: 'GET', status: '404' })).toBe(1)
		expect(value('cfgsync_http_requests_total', { route: 'unmatched', status: '404' })).toBe(1)
		expect(value('cfgsync_http_request_duration_seconds_count', { route: '/api/configs', method: 'POST' })).toBe(3)
		expect(value('cfgsync_pushes_total', { result: 'created' })).toBe(1)
		expect(value('cfgsync_pushes_total', { result: 'updated' })).toBe(1)
		expect(value('cfgsync_pushes_total', { result: 'unchanged' })).toBe(1)
		expect(value('cfgsync_logins_total', { result: 'success' })).toBe(1)
		expect(value('cfgsync_logins_total', { result: 'failure' })).toBe(10)
		expect(value('cfgsync_login_rate_limited_total')).toBe(1)
		expect(value('cfgsync_users')).toBe(1)
		expect(value('cfgsync_configs')).toBe(1)
		expect(value('cfgsync_config_versions')).toBe(2)
		expect(value('cfgsync_database_size_bytes')).toBeGreaterThan(0)
		expect(text).not.toContain('cs_secret')
		expect(text).not.toContain(alice.key)
	})
})

describe('/readyz (docs/operations.md)', () => {
	test('200 when the database answers and the master key opens its check value; 503 naming what failed', async () => {
		const store = openTestStore()
		const key = generateMasterKey()
		await store.meta.set(KEY_CHECK.meta, sealKeyCheck(createSealer(key)))
		const ready = await appWith({ store, sealerKey: key }).app.handle(new Request('http://localhost/readyz'))
		expect(ready.status).toBe(200)
		expect(await ready.json()).toEqual({
			status: 'ready',
			checks: { database: 'ok', masterKey: 'ok' },
			backups: { lastSuccessAt: null, lastFailureAt: null, lastError: null },
			build: buildInfo()
		})
		const wrongKey = await appWith({ store }).app.handle(new Request('http://localhost/readyz'))
		expect(wrongKey.status).toBe(503)
		expect(await wrongKey.json()).toMatchObject({
			status: 'unavailable',
			checks: { database: 'ok', masterKey: 'failed' }
		})
		const broken = { ...store, meta: { ...store.meta, get: () => Promise.reject(new Error('SQLITE_NOTADB')) } }
		const down = await appWith({ store: broken, sealerKey: key }).app.handle(new Request('http://localhost/readyz'))
		expect(down.status).toBe(503)
		expect(await down.json()).toMatchObject({
			status: 'unavailable',
			checks: { database: 'failed', masterKey: 'failed' }
		})
		// Liveness does not depend on the key.
		expect((await appWith({ store }).app.handle(new Request('http://localhost/healthz'))).status).toBe(200)
	})
})
