import { formatWithOptions } from 'node:util'

export type LogLevel = 'debug' | 'info' | 'warn' | 'error'
export type LogFields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
	debug(msg: string, fields?: LogFields): void
	info(msg: string, fields?: LogFields): void
	warn(msg: string, fields?: LogFields): void
	error(msg: string, fields?: LogFields): void
	/** Writes out whatever is buffered (call before exit). */
	flush(): void
}

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 }

/**
 * JSON lines `{ ts, level, msg, ...fields }`. Lines are batched and written
 * once per event-loop turn, so the access log costs one write per burst of
 * requests rather than one per request. Callers pass ids and counts only:
 * never headers, bodies, keys, passwords or config data.
 */
export function createLogger(
	options: { level?: LogLevel; write?: (chunk: string) => void; now?: () => number } = {}
): Logger {
	const min = RANK[options.level ?? 'info']
	const write = options.write ?? ((chunk: string) => void process.stdout.write(chunk))
	const now = options.now ?? Date.now
	let pending = ''
	let scheduled = false
	// Many lines share a millisecond under load: format the timestamp once per millisecond.
	let lastMs = -1
	let lastTs = ''
	const timestamp = () => {
		const ms = now()
		if (ms !== lastMs) {
			lastMs = ms
			lastTs = new Date(ms).toISOString()
		}
		return lastTs
	}

	const flush = () => {
		scheduled = false
		if (pending === '') return
		const chunk = pending
		pending = ''
		write(chunk)
	}

	const emit = (level: LogLevel, msg: string, fields?: LogFields) => {
		if (RANK[level] < min) return
		const rest = fields === undefined ? '}' : JSON.stringify(fields).slice(1)
		pending += `{"ts":"${timestamp()}","level":"${level}","msg":${JSON.stringify(msg)}${rest === '}' ? '' : ','}${rest}\n`
		if (!scheduled) {
			scheduled = true
			setImmediate(flush)
		}
	}

	return {
		debug: (msg, fields) => emit('debug', msg, fields),
		info: (msg, fields) => emit('info', msg, fields),
		warn: (msg, fields) => emit('warn', msg, fields),
		error: (msg, fields) => emit('error', msg, fields),
		flush
	}
}

/** A logger that keeps its lines in memory, for tests that read the log. */
export function memoryLogger(): Logger & { lines: string[] } {
	const lines: string[] = []
	const logger = createLogger({ level: 'debug', write: (chunk) => lines.push(...chunk.trimEnd().split('\n')) })
	return Object.assign(logger, { lines })
}

export const silentLogger: Logger = {
	debug: () => {},
	info: () => {},
	warn: () => {},
	error: () => {},
	flush: () => {}
}

/** The same runtime message (digits aside) is written at most once per this many milliseconds. */
export const CONSOLE_LOG_EVERY_MS = 10_000

/**
 * docs/operations.md: every line a server writes is JSON, the database driver's own messages included (Bun.SQL
 * writes `bun:sql LISTEN … failed, retrying: …` with console.warn while PostgreSQL is down). The
 * console is routed into `logger` as `{"msg":"runtime message","text":…}`, each distinct message at
 * most once per CONSOLE_LOG_EVERY_MS with how many were left out since. Returns the function that undoes it.
 */
export function routeConsoleTo(logger: Logger, now: () => number = Date.now): () => void {
	const saved = { log: console.log, info: console.info, warn: console.warn, error: console.error, debug: console.debug }
	const last = new Map<string, { at: number; skipped: number }>()
	const write =
		(level: LogLevel) =>
		(...args: unknown[]) => {
			const text = formatWithOptions({ colors: false, breakLength: Number.POSITIVE_INFINITY }, ...args).slice(0, 2000)
			const shape = `${level} ${text.replace(/\d+/g, '#').slice(0, 200)}`
			const seen = last.get(shape)
			const at = now()
			if (seen && at - seen.at < CONSOLE_LOG_EVERY_MS) {
				seen.skipped++
				return
			}
			if (last.size > 1000) last.clear()
			last.set(shape, { at, skipped: 0 })
			logger[level]('runtime message', { text, ...(seen?.skipped ? { repeatedSinceLastLine: seen.skipped } : {}) })
		}
	console.log = write('info')
	console.info = write('info')
	console.warn = write('warn')
	console.error = write('error')
	console.debug = write('debug')
	return () => Object.assign(console, saved)
}
