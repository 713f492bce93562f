import type { Subprocess } from 'bun'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { availableParallelism } from 'node:os'
import { createApp } from '../app'
import { BootError, databaseName, ensureDataDir, openWithMasterKey, registerServer } from '../boot'
import { holdServerLock, LOCK_FILE } from '../lib/data-dir-lock'
import { PG_DUMP_ADVICE } from '../store/postgres'
import { SchemaTooNewError } from '../store/schema-check'
import { loadConfig, type Config } from '../config'
import { scheduleBackups } from '../jobs/backup'
import { schedulePurge } from '../jobs/purge'
import { startHeartbeat } from '../jobs/heartbeat'
import type { Cron } from 'croner'
import type { Clock } from '../lib/clock'
import type { Sealer } from '../lib/crypto'
import { createAppMetrics, type AppMetrics } from '../modules/health/metrics'
import { createDownloads, embeddedClientPackage, PACKAGE_NAME, type Downloads } from '../modules/download/service'
import { systemClock } from '../lib/clock'
import { noTrustedProxies, parseTrustedProxies, trustEveryPeer, type TrustedProxies } from '../lib/client-address'
import { createLogger, routeConsoleTo, type Logger } from '../lib/log'
import { createPasswordHasher, type PasswordHasher } from '../lib/passwords'
import { createAuthService } from '../modules/auth/service'
import { createSignupService } from '../modules/signup/service'
import type { Store } from '../store/types'
import { createEventBroker } from '../events/broker'
import { CliError, parseCommand, usageError } from './io'
import { SERVE_OPTIONS } from './commands'
import { serveFlagValues } from '../settings'

const SHUTDOWN_GRACE_MS = 10_000
/** Set by the primary for the processes it spawns. */
const WORKER_ENV = 'CFGSYNC_WORKER_OF'

/**
 * Runs the server until SIGTERM or SIGINT. With one worker (the default) this
 * process serves; with more, it boots the database, runs the purge schedule,
 * and supervises N worker processes serving one port through SO_REUSEPORT.
 */
export async function serveCommand(args: string[]) {
	const { values, positionals } = parseCommand(args, SERVE_OPTIONS)
	if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`)
	const config = loadConfig(serveFlagValues(values))
	if (config.databaseUrl !== undefined && config.backupDir !== undefined) {
		throw new CliError(
			`--backup-dir writes SQLite backups, but ${PG_DUMP_ADVICE}; start without --backup-dir / CFGSYNC_BACKUP_DIR`
		)
	}
	const logger = createLogger({ level: config.logLevel })
	routeConsoleTo(logger)
	const workers = config.workers === 'auto' ? availableParallelism() : config.workers
	const opened = await boot(config, logger)
	if (process.env[WORKER_ENV]) return serveHttp(config, logger, opened, { worker: true })
	if (workers === 1) return serveHttp(config, logger, opened, { worker: false })
	return supervise(config, logger, opened.store, opened.sealer, workers)
}

async function boot(config: Config, logger: Logger) {
	ensureDataDir(config.dataDir)
	if (!holdServerLock(config.dataDir)) {
		throw new CliError(
			`a restore or db copy is running on ${config.dataDir} (it holds ${join(config.dataDir, LOCK_FILE)}): start the server when it has finished`
		)
	}
	try {
		const opened = await openWithMasterKey(config)
		if (opened.createdKeyFile)
			logger.warn('created a new master key; back it up: without it the data cannot be read', {
				dataDir: config.dataDir
			})
		if (opened.preUpgradeBackup !== undefined)
			logger.info('backed up the database before upgrading it (the way back: docs/operations.md, "Rolling back")', {
				file: opened.preUpgradeBackup
			})
		if (opened.rotatedKeyNotSaved) {
			logger.warn(
				'the master key was rotated but the new key was not saved where this one came from: run cfgsync-server rekey again to finish',
				{ dataDir: config.dataDir }
			)
		}
		return opened
	} catch (error) {
		if (error instanceof BootError || error instanceof SchemaTooNewError) throw new CliError(error.message)
		throw error
	}
}

/** Handles SIGTERM and SIGINT once: `stop` finishes in-flight work, then the process exits 0. SIGHUP is ignored. */
function onShutdown(logger: Logger, stop: () => Promise<void>) {
	let stopping = false
	const shutdown = async (signal: string) => {
		if (stopping) return
		stopping = true
		logger.info('shutting down', { signal })
		await stop()
		logger.info('stopped')
		logger.flush()
		process.exit(0)
	}
	process.on('SIGTERM', () => void shutdown('SIGTERM'))
	process.on('SIGINT', () => void shutdown('SIGINT'))
	// docs/operations.md: a closed terminal or a stray `kill -HUP` must not stop a server (Bun's default would exit 129, no drain).
	process.on('SIGHUP', () => logger.warn('SIGHUP received and ignored: SIGTERM or SIGINT stops the server'))
}

function serveHttp(
	config: Config,
	logger: Logger,
	opened: Awaited<ReturnType<typeof openWithMasterKey>>,
	{ worker }: { worker: boolean }
) {
	const { store, sealer } = opened
	const deps = { store, clock: systemClock, logger, passwords: createPasswordHasher() }
	const metrics = createAppMetrics(store)
	const heartbeat = startHeartbeat({ ...deps, sealer }, () => {
		// Sealing more under a retired key would make data no key opens once rotation is done: stop now.
		logger.flush()
		process.exit(1)
	})
	const broker = createEventBroker(store, { now: () => deps.clock.now() })
	const app = createApp({
		...deps,
		broker,
		sealer,
		metrics,
		sealingAllowed: heartbeat.sealingAllowed,
		trustedProxies: trustedProxiesOf(config, logger, worker),
		metricsToken: config.metricsToken,
		quotas: { bytes: config.quotaBytes, pushesPerMinute: config.quotaPushesPerMinute },
		downloads: downloadsOf(config),
		publicUrl: config.publicUrl,
		peerAddress: (request) => app.server?.requestIP(request)?.address ?? 'unknown'
	})
	try {
		app.listen({
			port: config.port,
			hostname: config.host,
			// Workers share the port on purpose; a single server must never share it silently.
			reusePort: worker,
			// Bun's own limit answers with an empty 413 before our gate sees the request; lift it so the
			// gate (declared length) and the body reader (counted length) give the API docs' JSON 413 at 1 MiB.
			maxRequestBodySize: Number.MAX_SAFE_INTEGER
		})
	} catch (error) {
		store.close()
		throw new CliError(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`)
	}
	// The jobs run in one process only: the primary when there are workers.
	const jobs = worker ? [] : startJobs(config, { ...deps, sealer, metrics })
	const unregister = worker ? () => {} : registerServer(config.dataDir)
	logger.info('listening', {
		url: `http://${config.host}:${app.server?.port}`,
		database: databaseName(config),
		pid: process.pid,
		...(worker ? { worker: true } : {})
	})
	if (!worker) {
		logDownloads(logger, config.publicUrl ?? `http://${config.host}:${app.server?.port}`, downloadsOf(config))
		void announceSetup(config, logger, { ...deps, sealer }, app.server?.port ?? config.port)
	}
	if (worker) {
		process.send?.('ready')
		// The primary is gone (killed, even with SIGKILL): a worker left alone would go on serving the port
		// unsupervised, with the code and key it started with. It stops as on SIGTERM.
		process.on('disconnect', () => {
			logger.warn('the primary process is gone; this worker stops')
			process.kill(process.pid, 'SIGTERM')
		})
	}

	onShutdown(logger, async () => {
		for (const job of jobs) job.stop()
		await jobsFinished(jobs, logger)
		// Open event streams would hold the stop below for its whole grace period: they end first (clients reconnect).
		broker.close()
		const forced = setTimeout(() => {
			logger.warn('in-flight requests did not finish in time; closing anyway')
			void app.stop(true)
		}, SHUTDOWN_GRACE_MS)
		await app.stop()
		clearTimeout(forced)
		await heartbeat.stop()
		store.close()
		unregister()
	})
}

/** The scheduled jobs of the process that runs them: the purge (docs/api.md) and, with a backup directory, backups (docs/operations.md). */
function startJobs(
	config: Config,
	deps: { store: Store; sealer: Sealer; clock: Clock; logger: Logger; metrics: AppMetrics }
): Cron[] {
	const jobs = [schedulePurge({ ...deps, auditRetentionDays: config.auditRetentionDays })]
	if (config.backupDir !== undefined) {
		jobs.push(
			scheduleBackups({
				...deps,
				dir: config.backupDir,
				keep: config.backupKeep,
				pattern: config.backupSchedule,
				report: deps.metrics.backup
			})
		)
		deps.logger.info('scheduled backups', {
			dir: config.backupDir,
			schedule: config.backupSchedule,
			keep: config.backupKeep
		})
	}
	return jobs
}

/** docs/client.md: the client package embedded in this binary and the executables of --downloads-dir. */
function downloadsOf(config: Config): Downloads {
	return createDownloads({ dir: config.downloadsDir, clientPackage: embeddedClientPackage() })
}

/** At start, what /download offers (docs/client.md), so the operator sees what teammates can fetch. */
function logDownloads(logger: Logger, url: string, downloads: Downloads) {
	const files = [...(embeddedClientPackage() ? [PACKAGE_NAME] : []), ...downloads.names()]
	logger.info('client downloads', {
		page: `${url}/download`,
		files: files.join(' '),
		...(downloads.dir ? { dir: downloads.dir } : {})
	})
	if (!embeddedClientPackage())
		logger.warn(
			'this binary was built without the client package: /download/cfgsync.tgz answers 404 (npm run build embeds it)'
		)
	if (downloads.dir !== undefined && !existsSync(downloads.dir))
		logger.warn('the downloads directory does not exist: no executables are offered', { dir: downloads.dir })
}

/**
 * docs/web.md first start: on a database with no user, the setup address that creates the first
 * admin, printed once by the process that runs the jobs. Without CFGSYNC_PUBLIC_URL it is built from
 * the listening address, with a hint to set the variable.
 */
async function announceSetup(
	config: Config,
	logger: Logger,
	deps: { store: Store; sealer: Sealer; clock: Clock; logger: Logger; passwords: PasswordHasher },
	port: number
) {
	try {
		const signups = createSignupService({ ...deps, auth: createAuthService(deps) })
		const token = await signups.openSetup(config.defaultPlan)
		if (token === undefined) return
		const base = config.publicUrl ?? `http://${displayHost(config.host)}:${port}`
		logger.warn('no user yet: open the setup address in a browser to create the first admin', {
			setup: `${base}/setup/${token}`,
			...(config.publicUrl === undefined
				? {
						hint: 'set CFGSYNC_PUBLIC_URL (--public-url) to the address people use, such as https://cfgsync.example.com, so that the addresses this server prints work for them'
					}
				: {})
		})
	} catch (error) {
		logger.error('could not make a setup address', {
			errorName: (error as Error).name,
			errorMessage: (error as Error).message
		})
	}
}

/** The listening address as a browser on this machine reaches it: any-address shown as loopback. */
export function displayHost(host: string): string {
	if (host === '0.0.0.0' || host === '') return '127.0.0.1'
	if (host === '::' || host === '[::]') return '[::1]'
	return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host
}

/** docs/api.md: CFGSYNC_TRUSTED_PROXIES, or the deprecated CFGSYNC_TRUST_PROXY=1 meaning "trust the socket peer". */
function trustedProxiesOf(config: Config, logger: Logger, worker: boolean): TrustedProxies {
	if (config.trustedProxies.trim() !== '') return parseTrustedProxies(config.trustedProxies)
	if (!config.trustProxy) return noTrustedProxies
	if (!worker) {
		logger.warn(
			"CFGSYNC_TRUST_PROXY is deprecated: it trusts X-Forwarded-For from any peer; set CFGSYNC_TRUSTED_PROXIES to your proxies' addresses (e.g. 127.0.0.1/32) instead"
		)
	}
	return trustEveryPeer
}

/** Spawns `count` workers on one port, restarts any that die, and stops them all on SIGTERM/SIGINT. */
async function supervise(config: Config, logger: Logger, store: Store, sealer: Sealer, count: number) {
	const port = config.port === 0 ? await freePort(config.host) : config.port
	// The compiled binary is its own entry point; from source, Bun needs the script too.
	const self = Bun.main.startsWith('/$bunfs/') ? [process.execPath] : [process.execPath, Bun.main]
	const args = [
		'serve',
		'--port',
		String(port),
		'--host',
		config.host,
		'--data-dir',
		config.dataDir,
		'--workers',
		'1',
		...(config.publicUrl ? ['--public-url', config.publicUrl] : [])
	]
	const children = new Set<Subprocess>()
	let stopping = false
	let started = false

	// Resolves when the worker is listening; a worker that dies before that during start-up fails the start.
	const spawn = () =>
		new Promise<void>((resolve, reject) => {
			let ready = false
			const child = Bun.spawn([...self, ...args], {
				env: { ...process.env, [WORKER_ENV]: String(process.pid) },
				stdio: ['ignore', 'inherit', 'inherit'],
				ipc: (message) => {
					if (message !== 'ready') return
					ready = true
					resolve()
				},
				onExit: (proc, code) => {
					children.delete(proc)
					if (stopping) return
					if (!started && !ready)
						return reject(new CliError(`a worker could not start (exit ${code}); see its message above`))
					logger.error('worker exited; starting another', { pid: proc.pid, code })
					setTimeout(() => void spawn().catch(() => {}), 1000)
					if (!ready) resolve()
				}
			})
			children.add(child)
		})

	try {
		await Promise.all(Array.from({ length: count }, spawn))
	} catch (error) {
		stopping = true
		for (const child of children) child.kill('SIGTERM')
		store.close()
		throw error
	}
	started = true
	// The primary seals nothing, but its backup job opens the check value: it follows a rotation too.
	const heartbeat = startHeartbeat({ store, sealer, clock: systemClock, logger }, () => {
		for (const child of children) child.kill('SIGTERM')
		logger.flush()
		process.exit(1)
	})
	// Workers serve /metrics from their own registries; the primary's jobs report to a registry of their own.
	const jobs = startJobs(config, { store, sealer, clock: systemClock, logger, metrics: createAppMetrics(store) })
	const unregister = registerServer(config.dataDir)
	logger.info('listening', {
		url: `http://${config.host}:${port}`,
		database: databaseName(config),
		pid: process.pid,
		workers: count
	})
	logDownloads(logger, config.publicUrl ?? `http://${config.host}:${port}`, downloadsOf(config))
	void announceSetup(
		config,
		logger,
		{ store, sealer, clock: systemClock, logger, passwords: createPasswordHasher() },
		port
	)

	onShutdown(logger, async () => {
		stopping = true
		for (const job of jobs) job.stop()
		await jobsFinished(jobs, logger)
		for (const child of children) child.kill('SIGTERM')
		await Promise.all([...children].map((child) => child.exited))
		await heartbeat.stop()
		store.close()
		unregister()
	})
}

/** How long a stop waits for a job under way (a backup of a large database) before leaving it. */
const JOB_GRACE_MS = 60_000

/**
 * A stop lets a job under way finish: a scheduled backup copies and checks on a thread of its own
 * (docs/performance.md), and a process that exits under it would leave its half-written file behind.
 */
async function jobsFinished(jobs: Cron[], logger: Logger): Promise<void> {
	const deadline = Date.now() + JOB_GRACE_MS
	while (jobs.some((job) => job.isBusy())) {
		if (Date.now() > deadline) {
			logger.warn('a scheduled job did not finish in time; stopping anyway', {
				jobs: jobs
					.filter((job) => job.isBusy())
					.map((job) => job.name ?? 'unnamed')
					.join(', ')
			})
			return
		}
		await Bun.sleep(50)
	}
}

/** A port nothing listens on now, for `--port 0` with several workers (they must all bind the same one). */
async function freePort(hostname: string): Promise<number> {
	const probe = Bun.serve({ port: 0, hostname, fetch: () => new Response(null) })
	const port = probe.port as number
	await probe.stop(true)
	return port
}
