import { SCHEMA, schemaOf } from '../build-info'
import type { Migration } from './sqlite/migrations'

/**
 * docs/operations.md: a binary refuses a database whose schema is newer than it knows (an accidental downgrade),
 * before it writes anything: the rows it would write (audit rows without feed numbers, say) are
 * ones the newer release misreads. Thrown from the migration step of either engine.
 */
export class SchemaTooNewError extends Error {
	override name = 'SchemaTooNewError'
	constructor(readonly databaseSchema: number) {
		super(
			`the database's schema is ${databaseSchema}, newer than this binary's ${SCHEMA} (a downgrade?): run the release that made it, or roll back to the backup taken before the upgrade (docs/operations.md, "Rolling back"); nothing was written`
		)
	}
}

/**
 * Refuses (throws SchemaTooNewError) when the recorded migrations include one this binary does not
 * know: newer than its newest, or more of them than it has.
 */
export function refuseNewerSchema(
	engine: 'sqlite' | 'postgres',
	known: Migration[],
	recorded: { count: number; newest: number | undefined }
): void {
	const newestKnown = known[known.length - 1]?.folderMillis ?? 0
	if ((recorded.newest !== undefined && recorded.newest > newestKnown) || recorded.count > known.length)
		throw new SchemaTooNewError(schemaOf(engine, recorded.count))
}
