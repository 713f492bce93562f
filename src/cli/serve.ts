import { createApp } from '../app'
import { BootError, openWithMasterKey } from '../boot'
import { loadConfig } from '../config'
import { schedulePurge } from '../jobs/purge'
import { systemClock } from '../lib/clock'
import { createLogger } from '../lib/log'
import { createPasswordHasher } from '../lib/passwords'
import { createAuthService } from '../modules/auth/service'
import { CliError, parseCommand, usageError } from './io'

const SHUTDOWN_GRACE_MS = 10_000

/** Runs the HTTP server until SIGTERM or SIGINT, then finishes in-flight requests and closes the database. */
export async function serveCommand(args: string[]) {
	const { values, positionals } = parseCommand(args,
		{ port: { type: 'string', short: 'p' }, host: { type: 'string' }, 'data-dir': { type: 'string' } })
	if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`)
	const config = loadConfig({ port: values.port, host: values.host, dataDir: values['data-dir'] })
	const logger = createLogger({ level: config.logLevel })

	let opened: Awaited<ReturnType<typeof openWithMasterKey>>
	try {
		opened = await openWithMasterKey(config)
	} catch (error) {
		if (error instanceof BootError) throw new CliError(error.message)
		throw error
	}
	const { store, sealer, createdKeyFile } = opened
	if (createdKeyFile) logger.warn('created a new master key; back it up: without it the data cannot be read', { dataDir: config.dataDir })

	const deps = { store, clock: systemClock, logger, passwords: createPasswordHasher() }
	const app = createApp({
		...deps,
		sealer,
		clientAddress: (request) => {
			if (config.trustProxy) {
				const forwarded = request.headers.get('x-forwarded-for')
				// The last hop is the one our own proxy added; earlier ones are whatever the client claimed.
				const last = forwarded?.split(',').pop()?.trim()
				if (last) return last
			}
			return app.server?.requestIP(request)?.address ?? 'unknown'
		}
	})

	try {
		app.listen({
			port: config.port,
			hostname: config.host,
			// STYLE §7: never share a port silently with another server.
			reusePort: false,
			// Bun's own limit answers with an empty 413 before our gate sees the request; lift it so the
			// gate (declared length) and the body reader (counted length) give CONTRACT's JSON 413 at 1 MiB.
			maxRequestBodySize: Number.MAX_SAFE_INTEGER
		})
	} catch (error) {
		store.close()
		throw new CliError(`cannot listen on ${config.host}:${config.port}: ${(error as Error).message}`)
	}
	const auth = createAuthService(deps)
	const purgeJob = schedulePurge(deps, () => auth.pruneLoginFailures())
	logger.info('listening', { url: `http://${config.host}:${app.server?.port}`, dataDir: config.dataDir, pid: process.pid })

	let stopping = false
	const shutdown = async (signal: string) => {
		if (stopping) return
		stopping = true
		logger.info('shutting down', { signal })
		purgeJob.stop()
		const forced = setTimeout(() => {
			logger.warn('in-flight requests did not finish in time; closing anyway')
			void app.stop(true)
		}, SHUTDOWN_GRACE_MS)
		await app.stop()
		clearTimeout(forced)
		store.close()
		logger.info('stopped')
		logger.flush()
		process.exit(0)
	}
	process.on('SIGTERM', () => void shutdown('SIGTERM'))
	process.on('SIGINT', () => void shutdown('SIGINT'))
}
