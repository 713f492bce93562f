/** bun:sqlite raises SQLiteError with a `code`; drizzle 0.45 does not wrap it on the sync API. */
export const isUniqueViolation = (error: unknown): boolean =>
	typeof error === 'object' &&
	error !== null &&
	'code' in error &&
	(error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY')

/**
 * Rows changed by a write. bun:sqlite's run() returns `{ changes }`; drizzle's
 * bun-sqlite types declare it void, so the cast lives here, once.
 */
export const changed = (result: unknown): number => (result as { changes: number }).changes
