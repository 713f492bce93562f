import { AUDIT_TYPES } from '../../shared/api/audit-types'
import { DEFAULT_CONFIG_NAME, INVITED_ROLES, ROLES, type Tool, TOOLS } from '../../shared/constants'
import { profiles } from '../credentials'
import { settingWords } from '../local-keys'
import { serverNamesHere } from '../mcp/here'
import { type IO, PROCESS_IO } from '../io'
import { CliFailure, EXIT, safe } from '../output'
import { everyState } from '../state'
import { COMMON, defineCommand, type Arg, type Command, type Completes, type Input, type Options } from './command'

/**
 * `cfgsync completion bash|zsh|fish`: a completion script for that shell,
 * made from the command registry (every command's options, arguments and
 * subcommands). Tools, subcommands and roles are in the script; config
 * names, team slugs and profiles come from `cfgsync __complete`, which reads
 * this machine's sync state and saved logins only (no request to the server,
 * so a Tab never waits on the network).
 */

export const COMPLETION_HELP = `cfgsync completion bash|zsh|fish

Prints a completion script for that shell: commands, options, tools,
subcommands, roles, the config names and teams this machine syncs, and
the MCP servers its tools hold (cfgsync mcp).
  bash: echo 'source <(cfgsync completion bash)' >> ~/.bashrc
  zsh:  echo 'source <(cfgsync completion zsh)' >> ~/.zshrc   (after compinit)
  fish: cfgsync completion fish > ~/.config/fish/completions/cfgsync.fish`

const SHELLS = ['bash', 'zsh', 'fish']

/** What the scripts need of a command: `help` is not a command of the registry, but `cfgsync help TOPIC` completes too. */
type Completable = Pick<Command, 'name' | 'options' | 'args' | 'subcommands'>
const HELP: Completable = { name: 'help', options: {}, args: [{ name: 'COMMAND', completes: 'command' }] }

/** The kinds of words, in the order the scripts test them. */
const KINDS: readonly Completes[] = [
	'tool',
	'team',
	'name',
	'profile',
	'shell',
	'command',
	'role',
	'invited-role',
	'audit-type',
	'setting',
	'mcp-server',
	'file'
]

/** Everything the three scripts are made from. */
function tables(registry: readonly Command[]) {
	const all: Completable[] = [...registry, HELP]
	const names = all.map((c) => c.name)
	const flags = (options: Options) =>
		Object.entries(options).flatMap(([long, spec]) => [`--${long}`, ...(spec.short ? [`-${spec.short}`] : [])])
	const every: [string, Options[string]][] = [
		...Object.entries(COMMON as Options),
		...all.flatMap((c) => Object.entries(c.options))
	]
	/** Options that take a value (the word after them is not an argument). */
	const valued = [
		...new Set(
			every
				.filter(([, spec]) => spec.type === 'string')
				.flatMap(([long, spec]) => [`--${long}`, ...(spec.short ? [`-${spec.short}`] : [])])
		)
	]
	/** Options whose value completes to something, with the words that name them. */
	const completed = new Map<string, { words: string[]; kind: Completes; long: string; short?: string }>()
	for (const [long, spec] of every) {
		if (spec.completes && !completed.has(long))
			completed.set(long, {
				words: [`--${long}`, ...(spec.short ? [`-${spec.short}`] : [])],
				kind: spec.completes,
				long,
				short: spec.short
			})
	}
	/** For each command, the kind of its Nth argument (counting the subcommand as the first). */
	const positions: { command: string; sub?: string; index: number; kind: Completes | 'none' }[] = []
	for (const c of all) {
		for (const [index, arg] of c.args.entries())
			positions.push({ command: c.name, index, kind: arg.completes ?? 'none' })
		for (const sub of c.subcommands ?? []) {
			for (const [index, arg] of sub.args.entries()) {
				positions.push({ command: c.name, sub: sub.name, index: index + 1, kind: arg.completes ?? 'none' })
			}
		}
	}
	const last = (args: readonly Arg[]) => args[args.length - 1]
	/** Commands whose last argument is given many times (push TOOL PATH..., local TOOL KEY...), with its position and kind. */
	const repeating = all
		.filter((c) => last(c.args)?.repeats && last(c.args)?.completes !== undefined)
		.map((c) => ({ command: c.name, from: c.args.length - 1, kind: last(c.args)?.completes as Completes }))
	const kinds = KINDS.filter((kind) => positions.some((p) => p.kind === kind))
	const repeatingFrom = new Map<string, string[]>()
	for (const r of repeating)
		repeatingFrom.set(`${r.from} ${r.kind}`, [...(repeatingFrom.get(`${r.from} ${r.kind}`) ?? []), r.command])
	return {
		all,
		names,
		flags,
		common: flags(COMMON as Options).filter((flag) => flag.startsWith('--')),
		valued,
		completed: [...completed.values()],
		positions,
		repeating,
		/** The same, grouped by position and kind. */
		repeatingFrom: [...repeatingFrom].map(([at, commands]) => {
			const [from, kind] = at.split(' ')
			return { from: Number(from), kind: kind as Completes, commands }
		}),
		kinds,
		/** Commands whose first argument is a TOOL (config names complete for it). */
		withTool: all.filter((c) => c.args[0]?.completes === 'tool').map((c) => c.name)
	}
}

/** The fixed word lists. */
function wordsOf(kind: Completes): readonly string[] | undefined {
	switch (kind) {
		case 'tool':
			return TOOLS
		case 'shell':
			return SHELLS
		case 'role':
			return ROLES
		case 'invited-role':
			return INVITED_ROLES
		case 'audit-type':
			return AUDIT_TYPES
		default:
			return undefined
	}
}

/** What `cfgsync __complete` answers for a kind it looks up on this machine. */
const LOOKUP: Partial<Record<Completes, string>> = {
	team: 'teams',
	name: 'names',
	profile: 'profiles',
	setting: 'keys',
	'mcp-server': 'mcp-servers'
}
/** Kinds looked up for the TOOL typed before them. */
const forTool = (kind: Completes) => kind === 'name' || kind === 'setting'

const words = (list: readonly string[]) => list.join(' ')

function bash(registry: readonly Command[]): string {
	const t = tables(registry)
	const reply = (kind: Completes): string => {
		if (kind === 'file') return 'compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur"))'
		if (kind === 'command') return `COMPREPLY=($(compgen -W "${words(t.names)}" -- "$cur"))`
		const list = wordsOf(kind)
		if (list) return `COMPREPLY=($(compgen -W "${words(list)}" -- "$cur"))`
		// Keys are matched as they are (compgen -W would expand a ~/ in them), and bash splits words at ":"
		// (~/.claude/settings.json:model): the reply leaves out what is before the cursor's word.
		if (kind === 'setting')
			return `COMPREPLY=(); local w colon="\${cur%"\${cur##*:}"}"; while IFS= read -r w; do [[ "$w" == "$cur"* ]] && COMPREPLY+=("\${w#"$colon"}"); done < <("$self" __complete keys "$tool" 2>/dev/null)`
		return `COMPREPLY=($(compgen -W "$("$self" __complete ${LOOKUP[kind]}${forTool(kind) ? ' $tool' : ''} 2>/dev/null)" -- "$cur"))`
	}
	const completedWords = t.completed.flatMap((o) => o.words)
	const valueCases = t.completed.map((o) => `\t\t${o.words.join('|')}) ${reply(o.kind)}; return ;;`).join('\n')
	const optionCases = t.all.map((c) => `\t\t\t${c.name}) opts="${words(t.flags(c.options))}" ;;`).join('\n')
	const subCases = t.all
		.filter((c) => c.subcommands)
		.map((c) => `\t\t${c.name}) subs="${words((c.subcommands ?? []).map((s) => s.name))}" ;;`)
		.join('\n')
	const positionalCases = t.positions
		.map(({ command, sub, index, kind }) => `\t\t"${command} ${sub ?? ''} ${index}") kind=${kind} ;;`)
		.join('\n')
	const repeats = t.repeatingFrom
		.map(
			({ from, kind, commands }) => `\t\tcase "$cmd" in ${commands.join('|')}) ((n >= ${from})) && kind=${kind} ;; esac`
		)
		.join('\n')
	return `# bash completion for cfgsync. Load it with: source <(cfgsync completion bash)
_cfgsync() {
	local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" self="\${COMP_WORDS[0]}"
	local -a args=()
	local i word skip=0
	for ((i = 1; i < COMP_CWORD; i++)); do
		word="\${COMP_WORDS[i]}"
		if ((skip)); then skip=0; continue; fi
		case "$word" in
			${t.valued.join('|')}) skip=1 ;;
			-*) ;;
			*) args+=("$word") ;;
		esac
	done
	local cmd="\${args[0]}" tool=""
	case "$cmd" in ${t.withTool.join('|')}) tool="\${args[1]}" ;; esac
	case "$prev" in
${valueCases}
		${t.valued.filter((o) => !completedWords.includes(o)).join('|')}) COMPREPLY=(); return ;;
	esac
	if ((\${#args[@]} == 0)); then
		if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "--help --version" -- "$cur")); else COMPREPLY=($(compgen -W "${words(t.names)}" -- "$cur")); fi
		return
	fi
	if [[ "$cur" == -* ]]; then
		local opts=""
		case "$cmd" in
${optionCases}
		esac
		COMPREPLY=($(compgen -W "$opts ${words(t.common)}" -- "$cur"))
		return
	fi
	local subs=""
	case "$cmd" in
${subCases}
	esac
	local n=$((\${#args[@]} - 1))
	if [[ -n "$subs" && $n -eq 0 ]]; then COMPREPLY=($(compgen -W "$subs" -- "$cur")); return; fi
	local sub=""
	[[ -n "$subs" ]] && sub="\${args[1]}"
	local kind=none
	case "$cmd $sub $n" in
${positionalCases}
	esac
	# The last kind of a command repeats when it is file (push TOOL PATH...).
	if [[ $kind == none ]]; then
${repeats}
	fi
	case "$kind" in
${t.kinds.map((kind) => `\t\t${kind}) ${reply(kind)} ;;`).join('\n')}
		*) COMPREPLY=() ;;
	esac
}
complete -F _cfgsync cfgsync
`
}

function zsh(registry: readonly Command[]): string {
	const t = tables(registry)
	const add = (kind: Completes): string => {
		if (kind === 'file') return '_files'
		if (kind === 'command') return `compadd -- ${words(t.names)}`
		const list = wordsOf(kind)
		if (list) return `compadd -- ${words(list)}`
		return `compadd -- \${(f)"$("$self" __complete ${LOOKUP[kind]}${forTool(kind) ? ' $tool' : ''} 2>/dev/null)"}`
	}
	const completedWords = t.completed.flatMap((o) => o.words)
	const valueCases = t.completed.map((o) => `\t\t(${o.words.join('|')}) ${add(o.kind)}; return ;;`).join('\n')
	const optionCases = t.all.map((c) => `\t\t\t(${c.name}) opts=(${words(t.flags(c.options))}) ;;`).join('\n')
	const subCases = t.all
		.filter((c) => c.subcommands)
		.map((c) => `\t\t(${c.name}) subs=(${words((c.subcommands ?? []).map((s) => s.name))}) ;;`)
		.join('\n')
	const positionalCases = t.positions
		.map(({ command, sub, index, kind }) => `\t\t("${command} ${sub ?? ''} ${index}") kind=${kind} ;;`)
		.join('\n')
	const repeats = t.repeatingFrom
		.map(
			({ from, kind, commands }) => `\t\tcase $cmd in (${commands.join('|')}) ((n >= ${from})) && kind=${kind} ;; esac`
		)
		.join('\n')
	return `#compdef cfgsync
# zsh completion for cfgsync. Load it after compinit with: source <(cfgsync completion zsh)
_cfgsync() {
	local self=\${words[1]} cur=\${words[CURRENT]} prev=\${words[CURRENT-1]}
	local -a args opts subs
	local i word skip=0
	for ((i = 2; i < CURRENT; i++)); do
		word=\${words[i]}
		if ((skip)); then skip=0; continue; fi
		case $word in
			(${t.valued.join('|')}) skip=1 ;;
			(-*) ;;
			(*) args+=("$word") ;;
		esac
	done
	local cmd=\${args[1]} tool=""
	case $cmd in (${t.withTool.join('|')}) tool=\${args[2]} ;; esac
	case $prev in
${valueCases}
		(${t.valued.filter((o) => !completedWords.includes(o)).join('|')}) return ;;
	esac
	if ((\${#args} == 0)); then
		if [[ $cur == -* ]]; then compadd -- --help --version; else compadd -- ${words(t.names)}; fi
		return
	fi
	if [[ $cur == -* ]]; then
		case $cmd in
${optionCases}
		esac
		compadd -- $opts ${words(t.common)}
		return
	fi
	case $cmd in
${subCases}
	esac
	local n=$((\${#args} - 1))
	if ((\${#subs} > 0 && n == 0)); then compadd -- $subs; return; fi
	local sub=""
	((\${#subs} > 0)) && sub=\${args[2]}
	local kind=none
	case "$cmd $sub $n" in
${positionalCases}
	esac
	if [[ $kind == none ]]; then
${repeats}
	fi
	case $kind in
${t.kinds.map((kind) => `\t\t(${kind}) ${add(kind)} ;;`).join('\n')}
	esac
}
compdef _cfgsync cfgsync
`
}

function fish(registry: readonly Command[]): string {
	const t = tables(registry)
	const value = (kind: Completes): string => {
		if (kind === 'file') return '-F'
		if (kind === 'command') return `-a '${words(t.names)}'`
		const list = wordsOf(kind)
		if (list) return `-a '${words(list)}'`
		return `-a '(cfgsync __complete ${LOOKUP[kind]}${forTool(kind) ? ' (__cfgsync_tool)' : ''} 2>/dev/null)'`
	}
	const lines = [
		'# fish completion for cfgsync. Install it with: cfgsync completion fish > ~/.config/fish/completions/cfgsync.fish',
		'# The arguments typed so far, without options and their values.',
		'function __cfgsync_args',
		'\tset -l words (commandline -opc)',
		'\tset -e words[1]',
		'\tset -l skip 0',
		'\tfor word in $words',
		'\t\tif test $skip = 1',
		'\t\t\tset skip 0',
		'\t\t\tcontinue',
		'\t\tend',
		'\t\tswitch $word',
		`\t\t\tcase ${t.valued.join(' ')}`,
		'\t\t\t\tset skip 1',
		"\t\t\tcase '-*'",
		"\t\t\tcase '*'",
		'\t\t\t\techo $word',
		'\t\tend',
		'\tend',
		'end',
		'# True when the command is $argv[1] (and the subcommand $argv[2], unless it is "-") and $argv[-1] arguments follow.',
		'function __cfgsync_at',
		'\t__cfgsync_value_wanted; and return 1',
		'\tset -l args (__cfgsync_args)',
		'\ttest (count $args) -ge 1; or return 1',
		'\ttest "$args[1]" = "$argv[1]"; or return 1',
		'\tif test "$argv[2]" != -',
		'\t\ttest (count $args) -ge 2; and test "$args[2]" = "$argv[2]"; or return 1',
		'\tend',
		'\ttest (math (count $args) - 1) -eq $argv[-1]',
		'end',
		'# True when the word before the cursor is an option that takes a value (then only its values are offered).',
		'function __cfgsync_value_wanted',
		'\tset -l words (commandline -opc)',
		`\tcontains -- "$words[-1]" ${t.valued.join(' ')}`,
		'end',
		'function __cfgsync_tool',
		'\tset -l args (__cfgsync_args)',
		`\tcontains -- "$args[1]" ${t.withTool.join(' ')}; and echo $args[2]`,
		'end',
		'complete -c cfgsync -f',
		`complete -c cfgsync -n 'not __cfgsync_value_wanted; and test (count (__cfgsync_args)) -eq 0' -a '${words(t.names)}'`,
		...Object.entries(COMMON as Options).map(
			([long, spec]) => `complete -c cfgsync -l ${long}${spec.type === 'string' ? ' -x' : ''}`
		),
		...t.completed.map((o) => `complete -c cfgsync -l ${o.long}${o.short ? ` -s ${o.short}` : ''} -x ${value(o.kind)}`)
	]
	const global = new Set([...Object.keys(COMMON), ...t.completed.map((o) => o.long)])
	for (const c of t.all) {
		for (const [long, spec] of Object.entries(c.options)) {
			if (global.has(long)) continue
			lines.push(
				`complete -c cfgsync -n '__fish_seen_subcommand_from ${c.name}' -l ${long}${spec.short ? ` -s ${spec.short}` : ''}${spec.type === 'string' ? ' -x' : ''}`
			)
		}
		if (c.subcommands)
			lines.push(`complete -c cfgsync -n '__cfgsync_at ${c.name} - 0' -a '${words(c.subcommands.map((s) => s.name))}'`)
	}
	for (const { command, sub, index, kind } of t.positions) {
		if (kind !== 'none')
			lines.push(`complete -c cfgsync -n '__cfgsync_at ${command} ${sub ?? '-'} ${index}' ${value(kind)}`)
	}
	for (const r of t.repeating)
		lines.push(
			`complete -c cfgsync -n 'not __cfgsync_value_wanted; and __fish_seen_subcommand_from ${r.command}; and test (count (__cfgsync_args)) -ge ${r.from + 2}' ${value(r.kind)}`
		)
	return `${lines.join('\n')}\n`
}

/** The completion script for a shell, from the registry; undefined for a shell it does not know. */
export function completionScript(shell: string, registry: readonly Command[]): string | undefined {
	const scripts: Record<string, (registry: readonly Command[]) => string> = { bash, zsh, fish }
	return scripts[shell]?.(registry)
}

const options = {} as const

// Takes its words unparsed: it prints a script, so --json and the common options are refused with their own messages.
async function run({ positionals: args, registry, io }: Input<typeof options>) {
	if (args.includes('--json'))
		throw new CliFailure('completion prints a shell script: --json does not apply', EXIT.usage)
	const extra = args.find((arg) => arg.startsWith('-'))
	if (extra) throw new CliFailure(`unknown option "${safe(extra)}" (see cfgsync completion --help)`, EXIT.usage)
	const [shell, more] = args
	if (more !== undefined)
		throw new CliFailure(`unexpected argument "${safe(more)}" (see cfgsync completion --help)`, EXIT.usage)
	if (shell === undefined) throw new CliFailure('which shell? cfgsync completion bash|zsh|fish', EXIT.usage)
	const script = completionScript(shell, registry)
	if (script === undefined) throw new CliFailure(`no completion for "${safe(shell)}": bash, zsh or fish`, EXIT.usage)
	io.stdout.write(script)
}

export const completion = defineCommand({
	name: 'completion',
	group: 'Other',
	summary: 'a shell completion script',
	usage: ['completion bash|zsh|fish'],
	help: COMPLETION_HELP,
	options,
	args: [{ name: 'SHELL', completes: 'shell' }],
	raw: true,
	run
})

/** The hidden `cfgsync __complete names [TOOL] | teams | profiles`: candidates from this machine only. */
export async function complete(args: string[], io: IO = PROCESS_IO) {
	const [what, tool] = args
	const states = everyState()
	let out: string[] = []
	if (what === 'names')
		out = [DEFAULT_CONFIG_NAME, ...states.filter((s) => !tool || s.tool === tool).map((s) => s.name)]
	else if (what === 'teams') out = states.map((s) => s.team).filter((team): team is string => typeof team === 'string')
	else if (what === 'profiles') out = profiles()
	else if (what === 'tools') out = [...TOOLS]
	else if (what === 'keys' && TOOLS.includes(tool as Tool)) out = settingWords(tool as Tool)
	else if (what === 'mcp-servers') out = serverNamesHere()
	io.stdout.write(
		[...new Set(out)]
			.sort()
			.map((word) => `${word}\n`)
			.join('')
	)
}
