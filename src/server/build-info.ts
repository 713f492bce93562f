import packageJson from '../../package.json' with { type: 'json' }
import sqliteJournal from '../../drizzle/meta/_journal.json' with { type: 'json' }
import postgresJournal from '../../drizzle-postgres/meta/_journal.json' with { type: 'json' }
import { buildCommit } from '../shared/build'

/**
 * The schema as one number for both engines: the count of SQLite migrations. PostgreSQL's first
 * migration holds SQLite's first three (it came later), and every schema change since adds one
 * migration to each engine, so a PostgreSQL database at migration count M is at schema M + 2
 * (test/server/operations/build-identity.test.ts keeps the two lists in step).
 */
export const POSTGRES_SCHEMA_OFFSET = 2
export const SCHEMA = sqliteJournal.entries.length

/** The schema number of a database that has `applied` migrations of its engine recorded. */
export const schemaOf = (engine: 'sqlite' | 'postgres', applied: number): number =>
	engine === 'postgres' ? applied + POSTGRES_SCHEMA_OFFSET : applied

/** Checked by the tests: the PostgreSQL list is the SQLite list less the migrations its first one folds in. */
export const POSTGRES_SCHEMA = postgresJournal.entries.length + POSTGRES_SCHEMA_OFFSET

/** docs/operations.md "What every build is": what --version, cfgsync_build_info and /readyz report. */
export const buildInfo = () => ({ version: packageJson.version, commit: buildCommit(), schema: SCHEMA })

/** `cfgsync-server VERSION (commit SHORTSHA, schema N)`. */
export const versionLine = () => {
	const { version, commit, schema } = buildInfo()
	return `cfgsync-server ${version} (commit ${commit}, schema ${schema})`
}
