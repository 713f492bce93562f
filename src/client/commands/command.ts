import type { parseArgs } from 'node:util'
import type { Api } from '../api'
import type { Session } from '../context'
import type { IO } from '../io'
import { CliFailure, EXIT, type Printer, safe } from '../output'

/**
 * What a client command is: one descriptor per command, from which main.ts
 * builds parsing, `--help`, the overview, "did you mean" and the shell
 * completions, so no option is declared twice (docs/client.md).
 */

/** The overview's sections, in order. */
export const GROUPS = ['Account', 'Sync', 'Configs on the server', 'Teams', 'Other'] as const
export type Group = (typeof GROUPS)[number]

/**
 * What a word completes to: a tool, a file, a team slug or config name this
 * machine syncs, a saved profile, a shell, a command, a role, an audit event
 * type, a key of the tool's settings files here (`cfgsync local`). No value:
 * anything (nothing is offered).
 */
export type Completes =
	| 'tool'
	| 'file'
	| 'team'
	| 'name'
	| 'profile'
	| 'shell'
	| 'command'
	| 'role'
	| 'invited-role'
	| 'audit-type'
	| 'setting'
	| 'mcp-server'

export interface OptionSpec {
	type: 'string' | 'boolean'
	short?: string
	/** May be given several times (`--tool claude-code --tool codex`): its value is the list. */
	multiple?: true
	completes?: Completes
	/** The subcommands that take it; given to another, the command fails with `misplaced` (exit 2). */
	for?: readonly string[]
	misplaced?: string
}
export type Options = Record<string, OptionSpec>

export interface Arg {
	/** As the help writes it: TOOL, PATH, SLUG. */
	name: string
	completes?: Completes
	/** The last argument may be given many times (PATH...). */
	repeats?: true
}

/**
 * A subcommand (`team invite`, `keys revoke`): declared once, it feeds
 * completion, the "did you mean" for a wrong word, and — when it has a run —
 * the dispatch, which checks its arguments' count before running it.
 */
export interface Subcommand<O extends Options = Options> {
	name: string
	/** Its arguments after the subcommand's word; a repeated last one takes all the words left. */
	args: readonly Arg[]
	/**
	 * Its words after `cfgsync COMMAND`, as the message for a missing argument
	 * shows them; given, the dispatch refuses missing (or blank) and extra arguments.
	 */
	usage?: string
	/** A note after its line in the command's help (`(also: cfgsync teams)`). */
	aside?: string
	/** Another name of `aliasOf`: dispatched and completed, but no line of its own in the help. */
	aliasOf?: string
	/** Runs it, given the words after its own. */
	run?(input: Input<O>): Promise<void>
}

/** Where a subcommand's aside starts in the help, or 3 spaces after a longer line (as in the overview). */
const ASIDE_COLUMN = 43

/** The help's first lines: `cfgsync COMMAND USAGE`, one per subcommand that declares a usage, with its aside. */
export function subcommandLines(
	command: string,
	subcommands: readonly Pick<Subcommand, 'usage' | 'aside' | 'aliasOf'>[]
): string {
	return subcommands
		.filter((sub) => sub.usage !== undefined && sub.aliasOf === undefined)
		.map((sub) => {
			const line = `cfgsync ${command} ${sub.usage}`
			return sub.aside ? `${line.padEnd(Math.max(ASIDE_COLUMN, line.length + 3))}${sub.aside}` : line
		})
		.join('\n')
}

/** How wide the overview's line of subcommands grows before the next one starts. */
const OVERVIEW_WIDTH = 100

/**
 * The overview's lines for a command of subcommands, from the same entries as its help:
 * `team list | create NAME [--slug S] | …`, every subcommand with a usage but an alias, so
 * the overview cannot leave one out.
 */
export function overviewLines(
	command: string,
	subcommands: readonly Pick<Subcommand, 'usage' | 'aliasOf'>[]
): string[] {
	const lines: string[] = []
	let line = ''
	for (const sub of subcommands) {
		if (sub.usage === undefined || sub.aliasOf !== undefined) continue
		const next = line === '' ? `${command} ${sub.usage}` : `${line} | ${sub.usage}`
		if (line !== '' && next.length > OVERVIEW_WIDTH) {
			lines.push(line)
			line = `${command} ${sub.usage}`
		} else line = next
	}
	return line === '' ? lines : [...lines, line]
}

/** Options every command takes. */
export const COMMON = {
	server: { type: 'string' },
	profile: { type: 'string', completes: 'profile' },
	json: { type: 'boolean' },
	help: { type: 'boolean', short: 'h' }
} as const satisfies Options

/** Options shared by several commands, with their short forms. */
export const NAME = { name: { type: 'string', short: 'n', completes: 'name' } } as const satisfies Options
export const TEAM = { team: { type: 'string', completes: 'team' } } as const satisfies Options
export const YES = { yes: { type: 'boolean', short: 'y' } } as const satisfies Options
export const FORCE = { force: { type: 'boolean', short: 'f' } } as const satisfies Options
/** The options that name a config: -n/--name and --team. */
export const TARGET = { ...NAME, ...TEAM } as const

type Parsed<O extends Options> = ReturnType<
	typeof parseArgs<{ args: string[]; options: typeof COMMON & O; allowPositionals: true; strict: true }>
>

/** A command line as parsed: its options (the common ones too), its positional words, and the registry. */
export interface Args<O extends Options> {
	values: Parsed<O>['values']
	positionals: string[]
	/** Every command, for the commands that describe the others (completion). */
	registry: readonly Command[]
}

/**
 * What a command's run receives: its command line, and what it runs with
 * (as the GitHub CLI's Factory) — its IO, a printer bound to that IO and
 * to --json, the session of the server and login the flags choose, and
 * the API of a server for what comes before a session (login).
 * main.ts gives the process's; an in-process test gives fakes
 * (test/support/client-io.ts).
 */
export interface Input<O extends Options> extends Args<O> {
	io: IO
	out: Printer
	session: (flags: { server?: string; profile?: string }) => Session
	/** The API of a server before any login is chosen (login itself), with a key or none. */
	api: (server: string, key?: string) => Api
	/** The exit status of a run that ends without a failure to throw (`diff --exit-code` finding changes). */
	setExitCode: (code: number) => void
}

export interface Command<O extends Options = Options> {
	name: string
	group: Group
	/** The overview's few words after the usage ('' when the usage says enough). */
	summary: string
	/** The overview's lines for it, without "cfgsync " (none for an alias the overview leaves out). */
	usage: readonly string[]
	/** `cfgsync help NAME` and `cfgsync NAME --help`. */
	help: string
	options: O
	args: readonly Arg[]
	/** Completed as the first argument; main refuses another word there with "did you mean". */
	subcommands?: readonly Subcommand<O>[]
	/** The subcommand run when none is named (`cfgsync keys` is `keys list`). */
	defaultSubcommand?: string
	/** Takes its words unparsed and no common options (completion prints a script, not a result). */
	raw?: true
	/** Runs it; without one, its subcommands' runs are dispatched to (runSubcommand). */
	run?(input: Input<O>): Promise<void>
}

/** A command descriptor, its options' types carried into run. */
export const defineCommand = <const O extends Options>(command: Command<O>): Command<O> => command

/**
 * Runs the subcommand the first word names: an option another subcommand
 * takes is refused, then a count of arguments its usage does not allow,
 * before its run is given the words after it.
 */
export async function runSubcommand<O extends Options>(command: Command<O>, input: Input<O>): Promise<void> {
	const [word = command.defaultSubcommand, ...rest] = input.positionals
	const sub = command.subcommands?.find((s) => s.name === word)
	if (word === undefined || !sub?.run) {
		const names = (command.subcommands ?? []).filter((s) => s.aliasOf === undefined).map((s) => s.name)
		const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('')
		throw new CliFailure(`which ${command.name} command? ${listed} (see cfgsync ${command.name} --help)`, EXIT.usage)
	}
	const values = input.values as Record<string, unknown>
	for (const [long, spec] of Object.entries<OptionSpec>(command.options))
		if (spec.for && !spec.for.includes(sub.name) && values[long] !== undefined)
			throw new CliFailure(spec.misplaced ?? `--${long} is for ${command.name} ${spec.for.join(', ')}`, EXIT.usage)
	if (sub.usage !== undefined) {
		const count = sub.args.length
		if (rest.length < count || rest.slice(0, count).some((w) => w.trim() === ''))
			throw new CliFailure(`cfgsync ${command.name} ${sub.usage}`, EXIT.usage)
		const extra = rest[count]
		if (!sub.args[count - 1]?.repeats && extra !== undefined)
			throw new CliFailure(`unexpected argument "${safe(extra)}" (see cfgsync ${command.name} --help)`, EXIT.usage)
	}
	await sub.run({ ...input, positionals: rest })
}

/** The arguments most config commands take. */
export const TOOL: Arg = { name: 'TOOL', completes: 'tool' }
export const PATHS: Arg = { name: 'PATH', completes: 'file', repeats: true }

/**
 * What went wrong with a command line, in our words: node:util's parseArgs
 * explains itself in terms of its own API ("place it at the end of the
 * command after '--'"), which tells a person nothing about cfgsync.
 * `known` lists the command's long options, for "did you mean".
 */
export function usageProblem(
	error: unknown,
	command: string,
	known: readonly string[],
	near: (word: string, options: readonly string[]) => string | undefined
): string {
	const message = error instanceof Error ? error.message : String(error)
	const code = (error as { code?: string }).code
	const help = `(see cfgsync ${command} --help)`
	const quoted = /'([^']*)'/.exec(message)?.[1] ?? ''
	// "-n, --name <value>" names both forms: the long one is what a person reads in --help.
	const option = /--[\w-]+/.exec(quoted)?.[0] ?? quoted
	if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || /^Unknown option/.test(message)) {
		const word = option.startsWith('-') ? option : `-${option}`
		const guess = word.startsWith('--') ? near(word.slice(2), known) : undefined
		return `cfgsync ${command} has no option ${word}${guess ? `: did you mean --${guess}?` : ''} ${help}`
	}
	if (/argument missing/.test(message)) return `${option} needs a value, as in ${option} VALUE ${help}`
	if (/does not take an argument/.test(message)) return `${option} takes no value: write ${option} alone ${help}`
	if (/argument is ambiguous/.test(message)) {
		const long = /use '(--[\w-]+)=/.exec(message)?.[1] ?? option
		return `${long} needs a value, and the next word starts with "-": give the value as ${long}=VALUE ${help}`
	}
	return `the command line could not be read (${message.split('\n')[0]}) ${help}`
}
