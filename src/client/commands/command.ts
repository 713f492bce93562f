import type { parseArgs } from 'node:util'

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
 * type. No value: anything (nothing is offered).
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

export interface OptionSpec {
	type: 'string' | 'boolean'
	short?: string
	completes?: Completes
}
export type Options = Record<string, OptionSpec>

export interface Arg {
	/** As the help writes it: TOOL, PATH, SLUG. */
	name: string
	completes?: Completes
	/** The last argument may be given many times (PATH...). */
	repeats?: true
}

export interface Subcommand {
	name: string
	args: readonly Arg[]
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

/** What a command's run receives: its options parsed (the common ones too), its positional words, and the registry. */
export interface Input<O extends Options> {
	values: Parsed<O>['values']
	positionals: string[]
	/** Every command, for the commands that describe the others (completion). */
	registry: readonly Command[]
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
	subcommands?: readonly Subcommand[]
	/** Takes its words unparsed and no common options (completion prints a script, not a result). */
	raw?: true
	run(input: Input<O>): Promise<void>
}

/** A command descriptor, its options' types carried into run. */
export const defineCommand = <const O extends Options>(command: Command<O>): Command<O> => command

/** The arguments most config commands take. */
export const TOOL: Arg = { name: 'TOOL', completes: 'tool' }
export const PATHS: Arg = { name: 'PATH', completes: 'file', repeats: true }
