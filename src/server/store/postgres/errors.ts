/**
 * The SQLSTATE of a failed query, whichever client raised it: Bun.SQL puts it
 * in `errno`, node-postgres and postgres-js in `code`; drizzle wraps either in
 * a DrizzleQueryError whose `cause` is the driver's error.
 */
export function sqlState(error: unknown): string | undefined {
	for (let current = error, depth = 0; typeof current === 'object' && current !== null && depth < 4; depth++) {
		for (const field of ['errno', 'code'] as const) {
			const value = (current as Record<string, unknown>)[field]
			if (typeof value === 'string' && /^[0-9A-Z]{5}$/.test(value)) return value
		}
		current = (current as { cause?: unknown }).cause
	}
	return undefined
}

export const isUniqueViolation = (error: unknown): boolean => sqlState(error) === '23505'

/**
 * drizzle's DrizzleQueryError puts the query's parameters in its message:
 * password hashes, key hashes, sealed data. What leaves the store says what
 * failed and nothing of the values (quality bar: nothing secret in a log line).
 */
export class PostgresStoreError extends Error {
	override name = 'PostgresStoreError'
	readonly sqlState: string | undefined
	/** The driver's own code (Bun.SQL's ERR_POSTGRES_CONNECTION_CLOSED, say): how a lost connection is told from a bug. */
	readonly driverCode: string | undefined
	constructor(error: unknown) {
		const driver = innermost(error)
		const state = sqlState(error)
		super(
			`PostgreSQL: ${driver instanceof Error ? driver.message.split('\n')[0] : String(driver)}${state ? ` (SQLSTATE ${state})` : ''}`
		)
		this.sqlState = state
		const code = (driver as { code?: unknown } | null)?.code
		this.driverCode = typeof code === 'string' ? code : undefined
	}
}

function innermost(error: unknown): unknown {
	let current = error
	while (typeof current === 'object' && current !== null && (current as { cause?: unknown }).cause !== undefined)
		current = (current as { cause: unknown }).cause
	return current
}

/** Wraps every method of every sub-store so that a failure leaves as a PostgresStoreError. */
export function withCleanErrors<T extends object>(target: T): T {
	const clean = (error: unknown) => (error instanceof PostgresStoreError ? error : new PostgresStoreError(error))
	for (const [name, value] of Object.entries(target)) {
		if (typeof value !== 'function') continue
		;(target as Record<string, unknown>)[name] = (...args: unknown[]) => {
			try {
				const result = value.apply(target, args)
				return result instanceof Promise ? result.catch((error) => Promise.reject(clean(error))) : result
			} catch (error) {
				throw clean(error)
			}
		}
	}
	return target
}
