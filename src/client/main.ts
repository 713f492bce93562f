#!/usr/bin/env node
import packageJson from '../../package.json' with { type: 'json' }
import { TOOLS } from '../lib/constants'
import { invitations, INVITATIONS_HELP, keys, login, LOGIN_HELP, logout, team, teams, whoami } from './commands/account'
import { diff, DIFF_HELP, history, list, pull, PULL_HELP, push, PUSH_HELP, resolve, RESOLVE_HELP, rollback, status, STATUS_HELP, sync, SYNC_HELP } from './commands/sync'
import { watch, WATCH_HELP } from './commands/watch'
import { CliFailure, EXIT, red, safe } from './output'

const EXIT_HELP = `Exit status: 0 ok, 1 error, 2 usage (unknown command or option, bad value),
3 conflict (a person must choose: cfgsync resolve), 4 not logged in or key refused.`

const OVERVIEW = `cfgsync ${packageJson.version} — sync developer-tool configuration with your cfgsync server

Usage: cfgsync <command> [options]

  login [--server URL] [--user LOGIN] [--device NAME] [--password-stdin]
  logout                      revoke this device's key and forget it
  whoami
  status [TOOL]               what changed here and on the server, per config
  push TOOL [PATH...]         send what changed here (refused while a conflict waits)
  pull TOOL [PATH...]         write what changed on the server (conflicts stay until resolved)
  sync [TOOL]                 pull, merge and push every config this machine syncs
  resolve TOOL --mine|--theirs [PATH...]   settle a conflict
  watch [TOOL] [--interval 30s]            keep in sync in the foreground
  diff TOOL [--version V] [--from A]
  list [--team SLUG]          configs on the server
  history TOOL                versions of a config (Pro and Team plans)
  rollback TOOL --to VERSION  restore an earlier version as the newest
  keys | keys revoke ID       this account's device keys
  teams | team create NAME | team add SLUG LOGIN --role admin|member   (add sends an invitation)
  invitations | invitations accept SLUG | invitations decline SLUG

Config commands take --name N (default "default") and --team SLUG.
Every command takes --server URL (or CFGSYNC_SERVER), --json and --help.
TOOL is one of: ${TOOLS.join(', ')}.
Credentials: $XDG_CONFIG_HOME/cfgsync/credentials.json; sync state, bases and backups: $XDG_STATE_HOME/cfgsync/.
Scripts can pass a key in CFGSYNC_API_KEY instead of logging in.

${EXIT_HELP}
`

const HELP: Record<string, string> = {
	login: LOGIN_HELP,
	logout: 'cfgsync logout\n\nRevokes this device\'s key on the server and deletes the saved credentials.',
	whoami: 'cfgsync whoami\n\nThe account and server this device is logged in to.',
	status: STATUS_HELP,
	push: PUSH_HELP,
	pull: PULL_HELP,
	sync: SYNC_HELP,
	resolve: RESOLVE_HELP,
	watch: WATCH_HELP,
	diff: DIFF_HELP,
	list: 'cfgsync list [--team SLUG]\n\nYour configs on the server, or a team\'s.',
	history: 'cfgsync history TOOL [--name N] [--team SLUG] [--limit N]\n\nVersions of a config, newest first (Pro and Team plans).',
	rollback: 'cfgsync rollback TOOL [--name N] [--team SLUG] --to VERSION\n\nMakes a new version holding VERSION\'s content (Pro and Team plans; admins for team configs).',
	keys: 'cfgsync keys\ncfgsync keys revoke ID\n\nThis account\'s device keys; revoke one (a lost laptop).',
	teams: 'cfgsync teams\n\nYour teams and your role in each.',
	invitations: INVITATIONS_HELP,
	team: 'cfgsync team create NAME\ncfgsync team add SLUG LOGIN --role admin|member\n\nCreate a team (Team plan), or invite someone to one: they join once they accept (cfgsync invitations accept SLUG).'
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = { login, logout, whoami, status, push, pull, sync, resolve, watch, diff, list, history, rollback, keys, teams, team, invitations }

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
	const row = Array.from({ length: b.length + 1 }, (_, i) => i)
	for (let i = 1; i <= a.length; i++) {
		let previous = row[0] as number
		row[0] = i
		for (let j = 1; j <= b.length; j++) {
			const current = row[j] as number
			row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
			previous = current
		}
	}
	return row[b.length] as number
}

function report(failure: CliFailure, asJson: boolean): number {
	if (asJson) process.stderr.write(`${JSON.stringify({ error: failure.message, code: failure.code })}\n`)
	else process.stderr.write(`${red('cfgsync:', process.stderr)} ${failure.message}\n`)
	return failure.exitCode
}

async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv
	const asJson = argv.includes('--json')
	if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
		const topic = command === 'help' ? rest[0] : undefined
		process.stdout.write(topic && HELP[topic] ? `${HELP[topic]}\n\n${EXIT_HELP}\n` : OVERVIEW)
		return EXIT.ok
	}
	if (command === '--version' || command === '-v' || command === 'version') {
		process.stdout.write(`${packageJson.version}\n`)
		return EXIT.ok
	}
	const run = COMMANDS[command]
	if (!run) {
		const near = Object.keys(COMMANDS)
			.map((name) => ({ name, d: distance(command, name) }))
			.sort((a, b) => a.d - b.d)[0]
		const hint = near && near.d <= 2 ? `did you mean "cfgsync ${near.name}"? ` : ''
		return report(new CliFailure(`unknown command "${safe(command)}": ${hint}(see cfgsync --help)`, EXIT.usage), asJson)
	}
	if (rest.includes('--help') || rest.includes('-h')) {
		process.stdout.write(`${HELP[command]}\n\n${EXIT_HELP}\n`)
		return EXIT.ok
	}
	try {
		await run(rest)
		return Number(process.exitCode ?? EXIT.ok)
	} catch (error) {
		const failure = error instanceof CliFailure ? error : new CliFailure(error instanceof Error ? error.message : String(error))
		return report(failure, asJson)
	}
}

process.exit(await main(process.argv.slice(2)))
