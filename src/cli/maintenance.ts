import { resolve } from 'node:path'
import { housekeeping } from '../jobs/purge'
import { CliError, parseCommand, usageError } from './io'
import { withAdmin } from './context'

export async function purgeCommand(args: string[]) {
	const { values } = parseCommand(args, { 'data-dir': { type: 'string' } })
	const count = await withAdmin(values['data-dir'], (admin) => housekeeping(admin))
	process.stdout.write(count === 0 ? 'nothing to purge\n' : `purged ${count} team${count === 1 ? '' : 's'} deleted more than 30 days ago\n`)
}

export async function backupCommand(args: string[]) {
	const { values, positionals } = parseCommand(args, { 'data-dir': { type: 'string' } })
	if (positionals.length !== 1) throw usageError(`expected FILE`)
	const target = resolve(positionals[0]!)
	await withAdmin(values['data-dir'], async (admin) => {
		try {
			await admin.store.backup(target)
		} catch (error) {
			throw new CliError(`backup to ${target} failed: ${(error as Error).message}`)
		}
	})
	process.stdout.write(`backup written to ${target} (the master key is not in it: keep master.key or CFGSYNC_MASTER_KEY safe separately)\n`)
}

/** For container HEALTHCHECKs on images without curl: exit 0 when /healthz answers 200. */
export async function healthcheckCommand(args: string[]) {
	const { values } = parseCommand(args, { url: { type: 'string' } })
	const port = process.env.CFGSYNC_PORT ?? process.env.PORT ?? '8787'
	const url = values.url ?? `http://127.0.0.1:${port}/healthz`
	const response = await fetch(url, { signal: AbortSignal.timeout(3000) }).catch((error: Error) => {
		throw new CliError(`${url}: ${error.message}`)
	})
	if (response.status !== 200) throw new CliError(`${url} answered ${response.status}`)
	process.stdout.write('ok\n')
}
