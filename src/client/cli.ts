import { parseArgs } from 'node:util'
import { version } from '../../package.json' with { type: 'json' }
import { buildCommit } from '../shared/build'
import { TOOLS } from '../shared/constants'
import {
	COMMON,
	type Command,
	GROUPS,
	type Input,
	type Options,
	type OptionSpec,
	runSubcommand,
	usageProblem
} from './commands/command'
import { createApi, type Fetch, timeoutMs } from './api'
import { complete } from './commands/completion'
import { REGISTRY } from './commands/index'
import { session, suggest } from './context'
import type { IO } from './io'
import { CliFailure, EXIT, printer, safe } from './output'
import { installedPaths, usePaths } from './paths'

/**
 * The cfgsync command line, run on an IO: parsing, --help, the overview,
 * "did you mean" and the completion scripts all come from the command
 * registry (commands/index.ts), one descriptor per command
 * (docs/client.md). main.ts runs it on the process; a test runs it in
 * process on a fake IO and session (test/support/client-io.ts).
 */

/** What a command line runs with, as the GitHub CLI's Factory: its IO, how a session is opened, how requests go out. */
export interface Factory {
	io: IO
	/** Opens the session the flags choose (default: from the saved login and the IO's environment). */
	session?: Input<Options>['session']
	/** Sends the requests (default: the global fetch; a test passes the server app's handler). */
	fetch?: Fetch
}

const EXIT_HELP = `Exit status: 0 ok, 1 error, 2 usage (unknown command, option or argument, bad value,
a --server without http:// or https://, --yes needed without a terminal), 3 conflict
(a person must choose: cfgsync resolve), 4 not logged in or key refused.`

/** The overview's description column; a longer usage puts its description 3 spaces after the group's longest. */
const COLUMN = 28

function overview(registry: readonly Command[]): string {
	const sections = GROUPS.map((group) => {
		const lines = registry
			.filter((c) => c.group === group)
			.flatMap((c) => c.usage.map((usage, i) => ({ usage, summary: i === 0 ? c.summary : '' })))
		const long = Math.max(
			0,
			...lines.filter((l) => l.summary && l.usage.length > COLUMN - 2).map((l) => l.usage.length + 3)
		)
		const line = ({ usage, summary }: { usage: string; summary: string }) =>
			`  ${summary ? `${usage.padEnd(usage.length > COLUMN - 2 ? long : COLUMN)}${summary}` : usage}`
		return `${group}\n${lines.map(line).join('\n')}\n`
	})
	return `cfgsync ${version} — sync developer-tool configuration with your cfgsync server

Usage: cfgsync <command> [options]

${sections.join('\n')}
Config commands take -n/--name N (default "default") and --team SLUG; -f is --force, -y --yes.
Every command takes --server URL (or CFGSYNC_SERVER), --profile NAME (or CFGSYNC_PROFILE)
for a second server or account, --json for scripts and --help.
TOOL is one of: ${TOOLS.join(', ')}.
Credentials: $XDG_CONFIG_HOME/cfgsync/credentials.json (profiles/NAME.json); sync state, bases
and backups: $XDG_STATE_HOME/cfgsync/. Scripts can pass a key in CFGSYNC_API_KEY instead of
logging in (it overrides the saved login).

${EXIT_HELP}
`
}

const helpOf = (command: Command) => `${command.help}\n\n${EXIT_HELP}\n`

/** Strict argument parsing from the descriptor; a wrong flag is a usage error (exit 2) naming the command's help. */
function parse(command: Command, args: string[]) {
	// parseArgs is given what it knows of an option (type and short form), not what completion reads.
	const options = Object.fromEntries(
		Object.entries<OptionSpec>({ ...COMMON, ...command.options }).map(([long, spec]) => [
			long,
			{
				type: spec.type,
				...(spec.short ? { short: spec.short } : {}),
				...(spec.multiple ? { multiple: true } : {})
			}
		])
	)
	try {
		return parseArgs({ args, options, allowPositionals: true, strict: true })
	} catch (error) {
		throw new CliFailure(usageProblem(error, command.name, Object.keys(options), suggest), EXIT.usage)
	}
}

function report(io: IO, failure: CliFailure, asJson: boolean): number {
	if (asJson) io.stderr.write(`${JSON.stringify({ error: failure.message, code: failure.code })}\n`)
	else io.stderr.write(`${printer(io, false).red('cfgsync:', io.stderr)} ${failure.message}\n`)
	return failure.exitCode
}

/**
 * Global options (`--server`, `--profile`, `--json`) given before the
 * command are moved after it, so `cfgsync --profile work status` is
 * `cfgsync status --profile work` (docs/client.md).
 */
function hoistGlobals(argv: string[]): string[] {
	const globals: string[] = []
	let at = 0
	for (;;) {
		const match = /^--(server|profile|json)(=.*)?$/.exec(argv[at] ?? '')
		if (!match) break
		globals.push(argv[at] as string)
		at++
		if (match[1] !== 'json' && match[2] === undefined && at < argv.length) globals.push(argv[at++] as string)
	}
	if (globals.length === 0 || at >= argv.length) return argv
	return [argv[at] as string, ...globals, ...argv.slice(at + 1)]
}

/** Runs one command line on its IO's paths (installed for the run, the ones before put back after); its exit status. */
export async function runCli(args: string[], factory: Factory): Promise<number> {
	const before = installedPaths()
	usePaths(factory.io.paths)
	try {
		return await runLine(args, factory)
	} finally {
		usePaths(before)
	}
}

async function runLine(args: string[], factory: Factory): Promise<number> {
	const { io } = factory
	const argv = hoistGlobals(args)
	const [name, ...rest] = argv
	const asJson = argv.includes('--json')
	const find = (word: string | undefined) => REGISTRY.find((c) => c.name === word)
	if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
		const topic = name === 'help' ? rest[0] : undefined
		const described = find(topic)
		if (topic !== undefined && !described)
			return report(io, new CliFailure(`no help for "${safe(topic)}" (see cfgsync --help)`, EXIT.usage), asJson)
		io.stdout.write(described ? helpOf(described) : overview(REGISTRY))
		return EXIT.ok
	}
	if (name === '--version' || name === '-v' || name === 'version') {
		io.stdout.write(`cfgsync ${version} (commit ${buildCommit()})\n`)
		return EXIT.ok
	}
	if (name === '__complete') {
		await complete(rest, io)
		return EXIT.ok
	}
	const command = find(name)
	if (!command) {
		const near = suggest(
			name,
			REGISTRY.map((c) => c.name)
		)
		const hint = near ? `did you mean "cfgsync ${near}"? ` : ''
		return report(
			io,
			new CliFailure(`unknown command "${safe(name)}": ${hint}(see cfgsync --help)`, EXIT.usage),
			asJson
		)
	}
	if (rest.includes('--help') || rest.includes('-h')) {
		io.stdout.write(helpOf(command))
		return EXIT.ok
	}
	try {
		const { values, positionals } = command.raw ? { values: {}, positionals: rest } : parse(command, rest)
		const sub = positionals[0]
		const subs = command.subcommands?.map((s) => s.name)
		if (subs && sub !== undefined && !subs.includes(sub)) {
			const near = suggest(sub, subs)
			throw new CliFailure(
				`unknown ${command.name} command "${safe(sub)}": ${near ? `did you mean "cfgsync ${command.name} ${near}"? ` : ''}(see cfgsync ${command.name} --help)`,
				EXIT.usage
			)
		}
		let exitCode: number | undefined
		const input: Input<typeof command.options> = {
			setExitCode: (code) => {
				exitCode = code
			},
			values,
			positionals,
			registry: REGISTRY,
			io,
			out: printer(io, asJson),
			session: factory.session ?? ((flags) => session(flags, io.env, factory.fetch)),
			api: (server, key) =>
				createApi(server, key, { timeoutMs: timeoutMs(io.env.CFGSYNC_TIMEOUT), fetch: factory.fetch })
		}
		await (command.run ? command.run(input) : runSubcommand(command, input))
		return exitCode ?? EXIT.ok
	} catch (error) {
		const failure =
			error instanceof CliFailure ? error : new CliFailure(error instanceof Error ? error.message : String(error))
		return report(io, failure, asJson)
	}
}
