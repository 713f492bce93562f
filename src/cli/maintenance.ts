import { resolve } from 'node:path'
import { purgeDeletedTeams } from '../jobs/purge'
import { CliError, parseCommand, usageError } from './io'
import { withAdmin } from './context'

export async function purgeCommand(args: string[]) {
	const { values } = parseCommand(args, { 'data-dir': { type: 'string' } })
	const count = await withAdmin(values['data-dir'], async (admin) => {
		await admin.auth.pruneLoginFailures()
		return purgeDeletedTeams(admin)
	})
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
