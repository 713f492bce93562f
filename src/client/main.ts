#!/usr/bin/env node
import { version } from '../../package.json' with { type: 'json' }
import { TOOLS } from '../shared/constants'
import { keys, KEYS_HELP, login, LOGIN_HELP, logout, LOGOUT_HELP, whoami } from './commands/account'
import { complete, completion, COMPLETION_HELP } from './commands/completion'
import { log, LOG_HELP } from './commands/log'
import {
	deleteConfig,
	DELETE_HELP,
	diff,
	DIFF_HELP,
	history,
	HISTORY_HELP,
	list,
	LIST_HELP,
	pull,
	PULL_HELP,
	push,
	PUSH_HELP,
	resolve,
	RESOLVE_HELP,
	rollback,
	ROLLBACK_HELP,
	status,
	STATUS_HELP,
	sync,
	SYNC_HELP
} from './commands/sync'
import { invitations, INVITATIONS_HELP, team, TEAM_HELP, teams } from './commands/team'
import { watch, WATCH_HELP } from './commands/watch'
import { suggest } from './context'
import { CliFailure, EXIT, red, safe, setJsonMode } from './output'

const EXIT_HELP = `Exit status: 0 ok, 1 error, 2 usage (unknown command, option or argument, bad value,
a --server without http:// or https://, --yes needed without a terminal), 3 conflict
(a person must choose: cfgsync resolve), 4 not logged in or key refused.`

const OVERVIEW = `cfgsync ${version} — sync developer-tool configuration with your cfgsync server

Usage: cfgsync <command> [options]

Account
  login [--server URL] [--user LOGIN] [--device NAME] [--password-stdin | --with-token]
  logout [--local]            revoke this device's key and forget it
  whoami
  keys | keys revoke DEVICE-OR-ID [--yes]     this account's device keys

Sync (CONTRACT §11)
  status [TOOL]               what changed here and on the server, per config
  push TOOL [PATH...]         send what changed here (refused while a conflict waits)
  pull TOOL [PATH...]         write what changed on the server (conflicts stay until resolved)
  sync [TOOL]                 pull, merge and push every config this machine syncs
  resolve TOOL --mine|--theirs [PATH...]   settle a conflict
  watch [TOOL] [--interval 30s]            keep in sync in the foreground
  diff TOOL [--version V] [--from A] [--exit-code] [--no-pager]

Configs on the server
  list [--team SLUG]          configs, with their versions
  history TOOL                versions, who pushed them and from which device (Pro and Team plans)
  rollback TOOL --to VERSION  restore an earlier version as the newest
  delete TOOL [--yes]         delete a config and its versions

Teams
  team list | create NAME [--slug S] | show SLUG | invite SLUG LOGIN [--role admin|member]
  team role SLUG LOGIN ROLE | remove SLUG LOGIN | leave SLUG | rename SLUG NAME [--slug NEW] | delete SLUG [--yes]
  invitations | invitations accept SLUG | invitations decline SLUG

Other
  log [--team SLUG]           the audit log: sign-ins, keys, pushes, team changes
  completion bash|zsh|fish    a shell completion script

Config commands take -n/--name N (default "default") and --team SLUG; -f is --force, -y --yes.
Every command takes --server URL (or CFGSYNC_SERVER), --profile NAME (or CFGSYNC_PROFILE)
for a second server or account, --json for scripts and --help.
TOOL is one of: ${TOOLS.join(', ')}.
Credentials: $XDG_CONFIG_HOME/cfgsync/credentials.json (profiles/NAME.json); sync state, bases
and backups: $XDG_STATE_HOME/cfgsync/. Scripts can pass a key in CFGSYNC_API_KEY instead of
logging in (it overrides the saved login).

${EXIT_HELP}
`

const HELP: Record<string, string> = {
	login: LOGIN_HELP,
	logout: LOGOUT_HELP,
	whoami: 'cfgsync whoami\n\nThe account, server, device and profile this machine uses.',
	status: STATUS_HELP,
	push: PUSH_HELP,
	pull: PULL_HELP,
	sync: SYNC_HELP,
	resolve: RESOLVE_HELP,
	watch: WATCH_HELP,
	diff: DIFF_HELP,
	list: LIST_HELP,
	history: HISTORY_HELP,
	rollback: ROLLBACK_HELP,
	delete: DELETE_HELP,
	keys: KEYS_HELP,
	team: TEAM_HELP,
	teams: 'cfgsync teams\n\nYour teams and your role in each (the same as cfgsync team list).',
	invitations: INVITATIONS_HELP,
	log: LOG_HELP,
	completion: COMPLETION_HELP
}

const COMMANDS: Record<string, (args: string[]) => Promise<void>> = {
	login,
	logout,
	whoami,
	status,
	push,
	pull,
	sync,
	resolve,
	watch,
	diff,
	list,
	history,
	rollback,
	delete: deleteConfig,
	keys,
	team,
	teams,
	invitations,
	log,
	completion
}

function report(failure: CliFailure, asJson: boolean): number {
	if (asJson) process.stderr.write(`${JSON.stringify({ error: failure.message, code: failure.code })}\n`)
	else process.stderr.write(`${red('cfgsync:', process.stderr)} ${failure.message}\n`)
	return failure.exitCode
}

async function main(argv: string[]): Promise<number> {
	const [command, ...rest] = argv
	const asJson = argv.includes('--json')
	setJsonMode(asJson)
	if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
		const topic = command === 'help' ? rest[0] : undefined
		if (topic !== undefined && !HELP[topic]) return report(new CliFailure(`no help for "${safe(topic)}" (see cfgsync --help)`, EXIT.usage), asJson)
		process.stdout.write(topic ? `${HELP[topic]}\n\n${EXIT_HELP}\n` : OVERVIEW)
		return EXIT.ok
	}
	if (command === '--version' || command === '-v' || command === 'version') {
		process.stdout.write(`${version}\n`)
		return EXIT.ok
	}
	if (command === '__complete') {
		await complete(rest)
		return EXIT.ok
	}
	const run = COMMANDS[command]
	if (!run) {
		const near = suggest(command, Object.keys(COMMANDS))
		const hint = near ? `did you mean "cfgsync ${near}"? ` : ''
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

void main(process.argv.slice(2)).then((code) => process.exit(code))
