#!/usr/bin/env bun
import packageJson from '../package.json' with { type: 'json' }
import { overviewHelp, usageOf } from './server/admin/commands'
import { CliError, runCommand } from './server/admin/io'
import { SETTINGS } from './server/settings'

const HELP = overviewHelp(packageJson.version)

/** The usage for `cfgsync-server ARGS --help`, or undefined when --help is not asked for. */
function usageAsked(argv: string[]): string | undefined {
	if (!argv.includes('--help') && !argv.includes('-h')) return undefined
	return usageOf(argv.filter((arg) => !arg.startsWith('-'))) ?? HELP
}

/**
 * `--database-url URL` is taken by every command (docs/postgresql.md): it is the
 * CFGSYNC_DATABASE_URL of this run, so workers and jobs inherit it too.
 */
function takeDatabaseUrl(argv: string[]): string[] {
	const flag = `--${SETTINGS.databaseUrl.flag.name}`
	const [variable] = SETTINGS.databaseUrl.env
	const rest: string[] = []
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string
		if (arg === flag && i + 1 < argv.length) process.env[variable] = argv[++i]
		else if (arg.startsWith(`${flag}=`)) process.env[variable] = arg.slice(flag.length + 1)
		else rest.push(arg)
	}
	return rest
}

/**
 * argv → one command; no logic of its own. Each command's code is loaded when it is chosen, so `--version`
 * and the admin commands do not pay for the web application's start-up (tens of milliseconds each).
 */
async function main(args: string[]): Promise<number> {
	const argv = takeDatabaseUrl(args)
	const [command, ...rest] = argv
	if (command === '--help' || command === '-h' || command === 'help') {
		process.stdout.write(HELP)
		return 0
	}
	const usage = usageAsked(argv)
	if (usage !== undefined) {
		process.stdout.write(`${usage.trimEnd()}\n`)
		return 0
	}
	switch (command) {
		case '--version':
		case '-v':
		case 'version':
			process.stdout.write(`${(await import('./server/build-info')).versionLine()}\n`)
			return 0
		case undefined:
		case 'serve':
			return runCommand(async () => (await import('./server/admin/serve')).serveCommand(rest))
		case 'user':
			return runCommand(async () => (await import('./server/admin/user')).userCommand(rest))
		case 'key':
			return runCommand(async () => (await import('./server/admin/user')).keyCommand(rest))
		case 'invite':
			return runCommand(async () => (await import('./server/admin/invite')).inviteCommand(rest))
		case 'setup-link':
			return runCommand(async () => (await import('./server/admin/setup')).setupLinkCommand(rest))
		case 'purge':
			return runCommand(async () => (await import('./server/admin/maintenance')).purgeCommand(rest))
		case 'backup':
			return runCommand(async () => (await import('./server/admin/maintenance')).backupCommand(rest))
		case 'restore':
			return runCommand(async () => (await import('./server/admin/maintenance')).restoreCommand(rest))
		case 'rekey':
			return runCommand(async () => (await import('./server/admin/rekey')).rekeyCommand(rest))
		case 'healthcheck':
			return runCommand(async () => (await import('./server/admin/maintenance')).healthcheckCommand(rest))
		case 'db':
			return runCommand(async () => (await import('./server/admin/db')).dbCommand(rest))
		default:
			// `cfgsync-server --port 9000` is serve with flags.
			if (command.startsWith('-'))
				return runCommand(async () => (await import('./server/admin/serve')).serveCommand(argv))
			return runCommand(async () => {
				throw new CliError(`unknown command "${command}" (see cfgsync-server --help)`, 2)
			})
	}
}

const code = await main(process.argv.slice(2))
// serve keeps running on its own; every other command ends here.
if (code !== 0 || !isServe(process.argv.slice(2))) process.exit(code)

function isServe(argv: string[]): boolean {
	if (argv.includes('--help') || argv.includes('-h')) return false
	return (
		argv[0] === undefined || argv[0] === 'serve' || (argv[0].startsWith('-') && !['--version', '-v'].includes(argv[0]))
	)
}
