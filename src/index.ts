#!/usr/bin/env bun
import packageJson from '../package.json' with { type: 'json' }
import { CliError, runCommand } from './cli/io'
import { backupCommand, healthcheckCommand, purgeCommand } from './cli/maintenance'
import { serveCommand } from './cli/serve'
import { keyCommand, userCommand } from './cli/user'

const HELP = `cfgsync-server ${packageJson.version} — self-hosted configuration sync server

Usage:
  cfgsync-server [serve] [--port N] [--host H] [--data-dir D] [--workers N|auto]
                                                                run the server (default command)
  cfgsync-server user add --email E --username U [--plan free|pro|team] [--password P | --password-stdin]
  cfgsync-server user list [--json]
  cfgsync-server user set-plan LOGIN PLAN
  cfgsync-server user passwd LOGIN [--password P | --password-stdin]
  cfgsync-server user remove LOGIN
  cfgsync-server key issue LOGIN --device NAME                  print a new API key for a device
  cfgsync-server purge                                          remove teams deleted more than 30 days ago
  cfgsync-server backup FILE                                    write a consistent copy of the database
  cfgsync-server healthcheck [--url U]                          exit 0 when the local server is healthy
  cfgsync-server --help | --version

Every command takes --data-dir D (default ./data, or CFGSYNC_DATA_DIR) and works while the server runs.

Environment:
  CFGSYNC_PORT / PORT        port (default 8787)
  CFGSYNC_HOST               address to listen on (default 0.0.0.0)
  CFGSYNC_DATA_DIR           data directory (default ./data)
  CFGSYNC_MASTER_KEY         base64 of 32 bytes; else <data-dir>/master.key, created on first start
  CFGSYNC_DEFAULT_PLAN       plan of new users (default team)
  CFGSYNC_LOG_LEVEL          debug, info, warn or error (default info)
  CFGSYNC_TRUST_PROXY        1 to take client addresses from X-Forwarded-For
  CFGSYNC_WORKERS            processes serving the port (default 1; auto = one per core)
`

/** argv → one command; no logic of its own (STYLE §1). */
async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv
	switch (command) {
		case '--help':
		case '-h':
		case 'help':
			process.stdout.write(HELP)
			return 0
		case '--version':
		case '-v':
		case 'version':
			process.stdout.write(`${packageJson.version}\n`)
			return 0
		case undefined:
		case 'serve':
			return runCommand(() => serveCommand(rest))
		case 'user':
			return runCommand(() => userCommand(rest))
		case 'key':
			return runCommand(() => keyCommand(rest))
		case 'purge':
			return runCommand(() => purgeCommand(rest))
		case 'backup':
			return runCommand(() => backupCommand(rest))
		case 'healthcheck':
			return runCommand(() => healthcheckCommand(rest))
		default:
			// `cfgsync-server --port 9000` is serve with flags.
			if (command.startsWith('-')) return runCommand(() => serveCommand(argv))
			return runCommand(async () => {
				throw new CliError(`unknown command "${command}" (see cfgsync-server --help)`, 2)
			})
	}
}

const code = await main(process.argv.slice(2))
// serve keeps running on its own; every other command ends here.
if (code !== 0 || !isServe(process.argv.slice(2))) process.exit(code)

function isServe(argv: string[]): boolean {
	return argv[0] === undefined || argv[0] === 'serve' || (argv[0].startsWith('-') && !['--help', '-h', '--version', '-v'].includes(argv[0]))
}
