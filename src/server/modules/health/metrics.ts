import { buildInfo } from '../../build-info'
import { createMetrics } from '../../lib/metrics'
import type { Store } from '../../store/types'

/** Latency buckets in seconds: sub-millisecond reads to multi-second 512 KiB pushes. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/**
 * docs/operations.md metrics, named in the Prometheus conventions. Request counts and
 * latencies come from the access log's hook (no extra per-request hook); row
 * counts and the database size are read from the store when scraped.
 */
export function createAppMetrics(store: Store) {
	const registry = createMetrics()
	const requests = registry.counter(
		'cfgsync_http_requests_total',
		'HTTP requests by route pattern, method and status.',
		['route', 'method', 'status']
	)
	const latency = registry.histogram(
		'cfgsync_http_request_duration_seconds',
		'Time from a request arriving to its response, by route pattern and method.',
		['route', 'method'],
		LATENCY_BUCKETS
	)
	const pushes = registry.counter(
		'cfgsync_pushes_total',
		'Config pushes by result: created, updated (a new version), unchanged.',
		['result']
	)
	const logins = registry.counter(
		'cfgsync_logins_total',
		'API logins and web sign-ins by result: success or failure.',
		['result']
	)
	const rateLimited = registry.counter(
		'cfgsync_login_rate_limited_total',
		'Login attempts refused by throttling (429).'
	)
	const backups = registry.counter('cfgsync_backups_total', 'Scheduled backups by result: success or failure.', [
		'result'
	])
	// Every series whose labels are known in advance starts at 0, so an alert on increase() fires on the first failure too.
	for (const result of ['created', 'updated', 'unchanged']) pushes.series([result])
	for (const result of ['success', 'failure']) {
		logins.series([result])
		backups.series([result])
	}
	rateLimited.series([])
	const build = buildInfo()
	registry.info('cfgsync_build_info', 'What this build is (what --version prints): version, commit and schema.', {
		version: build.version,
		commit: build.commit,
		schema: String(build.schema)
	})
	let openStreams: () => number = () => 0
	registry.gauge(
		'cfgsync_event_streams',
		"Event streams (GET /api/events and the web pages' /events) open on this instance.",
		() => openStreams()
	)
	let lastBackup: number | undefined
	let lastFailure: { at: number; error: string } | undefined
	let stats: Awaited<ReturnType<Store['stats']>> | undefined
	registry.gauge('cfgsync_users', 'Users.', () => stats?.users)
	registry.gauge('cfgsync_configs', 'Configs.', () => stats?.configs)
	registry.gauge('cfgsync_config_versions', 'Config versions.', () => stats?.versions)
	registry.gauge('cfgsync_database_size_bytes', 'Size of the database.', () => stats?.databaseBytes)
	registry.gauge(
		'cfgsync_backup_last_success_timestamp_seconds',
		'When the last scheduled backup succeeded (absent until one has).',
		() => (lastBackup === undefined ? undefined : lastBackup / 1000)
	)
	registry.gauge(
		'cfgsync_backup_age_seconds',
		'Seconds since the last successful scheduled backup (absent until one has).',
		() => (lastBackup === undefined ? undefined : Math.max(0, (Date.now() - lastBackup) / 1000))
	)
	registry.gauge('process_resident_memory_bytes', 'Resident memory of this process.', () => process.memoryUsage.rss())
	registry.gauge('process_start_time_seconds', 'When this process started.', () =>
		Math.floor((Date.now() - process.uptime() * 1000) / 1000)
	)

	// Per (route, method, status): the two series a request updates, found with one string key.
	const perRequest = new Map<string, { count: { inc(): void }; time: { observe(seconds: number): void } }>()

	return {
		/** One finished request; unmatched paths count as one route so stray URLs cannot multiply the series. */
		request(route: string | undefined, method: string, status: number, ms: number | undefined) {
			const pattern = route || 'unmatched'
			const key = `${pattern} ${method} ${status}`
			let series = perRequest.get(key)
			if (series === undefined) {
				series = { count: requests.series([pattern, method, String(status)]), time: latency.series([pattern, method]) }
				perRequest.set(key, series)
			}
			series.count.inc()
			// An event stream comes without a time (plugins/request-log.ts): it lasts as long as its client stays.
			if (ms !== undefined) series.time.observe(ms / 1000)
		},
		/** Where the cfgsync_event_streams gauge reads from (the app's event broker). */
		countStreams(count: () => number) {
			openStreams = count
		},
		push: (result: 'created' | 'updated' | 'unchanged') => pushes.inc([result]),
		login: (result: 'success' | 'failure') => logins.inc([result]),
		rateLimited: () => rateLimited.inc(),
		backup(result: 'success' | 'failure', at: number, error?: string) {
			backups.inc([result])
			if (result === 'success') lastBackup = at
			else lastFailure = { at, error: error ?? 'unknown error' }
		},
		/** What /readyz reports of scheduled backups. */
		backupState: () => ({
			lastSuccessAt: lastBackup === undefined ? null : new Date(lastBackup).toISOString(),
			lastFailureAt: lastFailure === undefined ? null : new Date(lastFailure.at).toISOString(),
			lastError: lastFailure?.error ?? null
		}),
		async render(): Promise<string> {
			stats = await store.stats().catch(() => undefined)
			return registry.render()
		}
	}
}

export type AppMetrics = ReturnType<typeof createAppMetrics>
