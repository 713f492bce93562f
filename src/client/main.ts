#!/usr/bin/env bun
import packageJson from '../../package.json' with { type: 'json' }
import { TOOLS } from '../lib/constants'
import { keys, login, LOGIN_HELP, logout, team, teams, whoami } from './commands/account'
import { diff, DIFF_HELP, history, list, pull, PULL_HELP, push, PUSH_HELP, rollback } from './commands/sync'
import { CliFailure, red } from './output'

const OVERVIEW = `cfgsync ${packageJson.version} — sync developer-tool configuration with your cfgsync server

Usage: cfgsync <command> [options]

  login [--server URL] [--user LOGIN] [--device NAME] [--password-stdin]
  logout                      revoke this device's key and forget it
  whoami
  push TOOL [PATH...]         send this machine's TOOL files
  pull TOOL [PATH...]         write the server's TOOL files here (keeps local edits unless --force)
  list [--team SLUG]          configs on the server
  history TOOL                versions of a config (Pro and Team plans)
  diff TOOL [--version V] [--from A]
  rollback TOOL --to VERSION  restore an earlier version as the newest
  keys | keys revoke ID       this account's device keys
  teams | team create NAME | team add SLUG LOGIN --role admin|member

Config commands take --name N (default "default") and --team SLUG.
Every command takes --server URL (or CFGSYNC_SERVER), --json and --help.
TOOL is one of: ${TOOLS.join(', ')}.
Credentials: $XDG_CONFIG_HOME/cfgsync/credentials.json; sync state and backups: $XDG_STATE_HOME/cfgsync/.
Scripts can pass a key in CFGSYNC_API_KEY instead of logging in.
`

const HELP: Record<string, string> = {
	login: LOGIN_HELP,
	logout: 'cfgsync logout\n\nRevokes this device\'s key on the server and deletes the saved credentials.',
	whoami: 'cfgsync whoami\n\nThe account and server this device is logged in to.',
	push: PUSH_HELP,
	pull: PULL_HELP,
	diff: DIFF_HELP,
	list: 'cfgsync list [--team SLUG]\n\nYour configs on the server, or a team\'s.',
	history: 'cfgsync history TOOL [--name N] [--team SLUG] [--limit N]\n\nVersions of a config, newest first (Pro and Team plans).',
	rollback: 'cfgsync rollback TOOL [--name N] [--team SLUG] --to VERSION\n\nMakes a new version holding VERSION\'s content (Pro and Team plans; admins for team configs).',
	keys: 'cfgsync keys\ncfgsync keys revoke ID\n\nThis account\'s device keys; revoke one (a lost laptop).',
	teams: 'cfgsync teams\n\nYour teams and your role in each.',
	team: 'cfgsync team create NAME\ncfgsync team add SLUG LOGIN --role admin|member\n\nCreate a team (Team plan) or add someone to one.'
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = { login, logout, whoami, push, pull, diff, list, history, rollback, keys, teams, team }

async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv
	if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
		const topic = command === 'help' ? rest[0] : undefined
		process.stdout.write(topic && HELP[topic] ? `${HELP[topic]}\n` : OVERVIEW)
		return 0
	}
	if (command === '--version' || command === '-v' || command === 'version') {
		process.stdout.write(`${packageJson.version}\n`)
		return 0
	}
	const run = COMMANDS[command]
	if (!run) {
		process.stderr.write(`cfgsync: unknown command "${command}" (see cfgsync --help)\n`)
		return 2
	}
	if (rest.includes('--help') || rest.includes('-h')) {
		process.stdout.write(`${HELP[command]}\n`)
		return 0
	}
	try {
		await run(rest)
		return 0
	} catch (error) {
		const failure = error instanceof CliFailure ? error : new CliFailure(error instanceof Error ? error.message : String(error))
		process.stderr.write(`${red('cfgsync:', process.stderr)} ${failure.message}\n`)
		return failure.exitCode
	}
}

process.exit(await main(process.argv.slice(2)))
