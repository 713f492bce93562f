import { dirname, resolve } from 'node:path'
import { existsSync } from 'node:fs'
import { databaseName, ensureDataDir, masterKeySource, openStore } from '../boot'
import { refuseWhileServed } from './maintenance'
import { refuseMalformedKey } from './context'
import { loadConfig } from '../config'
import { CopyFailed, copyDatabase, rowsAlreadyIn } from '../store/copy'
import { openPostgresStore } from '../store/postgres'
import { describeUrl, isPostgresUrl } from '../store/postgres/client'
import { openSqliteStore } from '../store/sqlite'
import type { Store } from '../store/types'
import { CliError, parseCommand, usageError } from './io'
import { OPTIONS } from './commands'

/**
 * docs/operations.md `db copy --to URL`: moves an install between engines (SQLite →
 * PostgreSQL and back). The target must be empty; the copy is then counted and
 * hashed table by table against the source, and the figures printed.
 */
export async function dbCommand(args: string[]) {
	const [sub, ...rest] = args
	if (sub !== 'copy') throw usageError(sub === undefined ? 'expected copy' : `unknown db command "${sub}"`)
	const { values, positionals } = parseCommand(rest, OPTIONS['db copy'])
	if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`)
	if (!values.to) throw usageError('expected --to URL (a postgres:// URL or a SQLite file path)')
	// One page at a time: two connections each side are plenty.
	const configured = loadConfig({ dataDir: values['data-dir'] })
	const config = { ...configured, databasePool: Math.min(configured.databasePool, 2) }
	refuseMalformedKey(config)
	const to = values.to
	const targetName = isPostgresUrl(to) ? describeUrl(to) : resolve(to)
	if (config.databaseUrl === undefined && existsSync(config.dataDir)) refuseWhileServed(config.dataDir, 'db copy')
	const source = await openStore(config, (file) => {
		throw new CliError(`no database at ${file}: nothing to copy (pass --data-dir or --database-url)`)
	})
	let opened: Store | undefined
	try {
		const target = isPostgresUrl(to)
			? await openPostgresStore(to, { max: Math.min(config.databasePool, 2) }).catch((error: Error) =>
					Promise.reject(new CliError(`cannot open ${targetName}: ${error.message}`))
				)
			: openSqliteTarget(resolve(to))
		opened = target
		const filled = await rowsAlreadyIn(target)
		if (filled.length > 0)
			throw new CliError(
				`${targetName} is not empty (${filled.join(', ')}): db copy only fills an empty database, so nothing is overwritten`
			)
		process.stdout.write(`copying ${databaseName(config)} → ${targetName}\n`)
		let figures: Awaited<ReturnType<typeof copyDatabase>>
		try {
			figures = await copyDatabase(source, target)
		} catch (error) {
			// docs/operations.md: a failed copy leaves the target as it found it, empty, and says why in one line.
			const emptied = await target.tables.clear().then(
				() => 'the target was emptied again',
				() => `the target could not be emptied again: empty ${targetName} by hand before the next try`
			)
			const reason =
				error instanceof CopyFailed ? error.message : `${(error as Error).message.split('\n')[0]?.slice(0, 200)}`
			throw new CliError(`db copy failed: ${reason}; ${emptied}`)
		}
		const width = Math.max(...figures.map((row) => row.table.length))
		let mismatches = 0
		for (const row of figures) {
			const same = row.sourceRows === row.targetRows && row.sourceDigest === row.targetDigest
			if (!same) mismatches++
			process.stdout.write(
				`  ${row.table.padEnd(width)}  ${String(row.sourceRows).padStart(8)} rows  sha256 ${row.sourceDigest.slice(0, 16)}  ${same ? 'same in the copy' : `COPY DIFFERS: ${row.targetRows} rows, sha256 ${row.targetDigest.slice(0, 16)}`}\n`
			)
		}
		if (mismatches > 0)
			throw new CliError(
				`${mismatches} table${mismatches === 1 ? '' : 's'} differ in the copy (was the source written to meanwhile?); do not use ${targetName}`
			)
		const total = figures.reduce((sum, row) => sum + row.sourceRows, 0)
		process.stdout.write(
			`copied ${total} rows in ${figures.length} tables; counts and hashes match. Start the server on the copy with the same master key (${masterKeySource({ ...config, dataDir: resolve(config.dataDir) })}).\n`
		)
	} finally {
		opened?.close()
		source.close()
	}
}

/** A SQLite target: its directory is made (private, like a data directory) when it does not exist yet. */
function openSqliteTarget(file: string): Store {
	ensureDataDir(dirname(file))
	try {
		return openSqliteStore(file)
	} catch (error) {
		throw new CliError(`cannot open ${file} as a SQLite database: ${(error as Error).message}`)
	}
}
