import { readMasterKey } from '../boot'
import { createSealer } from '../lib/crypto'
import { KEY_CHECK, opensKeyCheck } from '../lib/key-check'
import { createPasswordHasher } from '../lib/passwords'
import { createSignupService } from '../modules/signup/service'
import { withAdmin } from './context'
import { OPTIONS } from './commands'
import { CliError, parseCommand, usageError } from './io'
import { displayHost } from './serve'

/**
 * `cfgsync-server setup-link` (docs/operations.md): while no admin exists, prints a fresh setup address for the
 * fleet and ends every older one. It lives 24 hours, and dies when any user is made admin.
 */
export async function setupLinkCommand(args: string[]) {
	const { values, positionals } = parseCommand(args, OPTIONS['setup-link'])
	if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`)
	const made = await withAdmin(
		values['data-dir'],
		async (admin) => {
			const key = readMasterKey(admin.config)
			const check = await admin.store.meta.get(KEY_CHECK.meta)
			if (key === undefined || check === undefined || !opensKeyCheck(createSealer(key), check))
				throw new CliError(
					'the master key does not open this database (or the server never started on it): start the server once with its key, then run setup-link'
				)
			const signups = createSignupService({
				store: admin.store,
				clock: admin.clock,
				passwords: createPasswordHasher(),
				sealer: createSealer(key)
			})
			const token = await signups.openSetup(admin.config.defaultPlan, { fresh: true })
			if (token === undefined)
				throw new CliError(
					'this server has an admin already, so there is no setup address: sign in, or make another admin with `cfgsync-server user set-admin LOGIN on`'
				)
			return { token, config: admin.config }
		},
		{ publicUrl: values['public-url'] }
	)
	const base = made.config.publicUrl ?? `http://${displayHost(made.config.host)}:${made.config.port}`
	process.stdout.write(`${base}/setup/${made.token}\n`)
	process.stderr.write(
		'cfgsync-server: open it in a browser to create the first admin; it works for 24 hours and ends every setup address printed before\n'
	)
}
