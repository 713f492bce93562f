import { TOOLS } from '../../shared/constants'
import { DEFAULT_CONFIG_NAME } from '../../shared/constants'
import { profiles } from '../credentials'
import { CliFailure, EXIT, safe } from '../output'
import { everyState } from '../state'

/**
 * `cfgsync completion bash|zsh|fish`: a completion script for that shell,
 * made from one table of commands and options. Tools, subcommands and
 * roles are in the script; config names, team slugs and profiles come from
 * `cfgsync __complete`, which reads this machine's sync state and saved
 * logins only (no request to the server, so a Tab never waits on the
 * network).
 */

export const COMPLETION_HELP = `cfgsync completion bash|zsh|fish

Prints a completion script for that shell: commands, options, tools,
subcommands, roles, and the config names and teams this machine syncs.
  bash: echo 'source <(cfgsync completion bash)' >> ~/.bashrc
  zsh:  echo 'source <(cfgsync completion zsh)' >> ~/.zshrc   (after compinit)
  fish: cfgsync completion fish > ~/.config/fish/completions/cfgsync.fish`

type Positional = 'tool' | 'file' | 'team' | 'shell' | 'command' | 'role' | 'invited-role' | 'none'

interface Spec {
	options: string[]
	/** Subcommands, completed as the first argument. */
	subs?: string[]
	/** What each positional argument is (after the subcommand, if any): the last one repeats when it is `file`. */
	args?: Positional[]
	/** Per subcommand, what its arguments are. */
	subArgs?: Record<string, Positional[]>
}

const TARGET = ['--name', '-n', '--team']
const YES = ['--yes', '-y']

export const SPECS: Record<string, Spec> = {
	login: { options: ['--user', '--device', '--password-stdin', '--with-token'] },
	logout: { options: ['--local'] },
	whoami: { options: [] },
	status: { options: TARGET, args: ['tool'] },
	push: { options: [...TARGET, '--force', '-f', '--only', '--allow-secrets', ...YES], args: ['tool', 'file'] },
	pull: { options: [...TARGET, '--dry-run', '--force', '-f', ...YES], args: ['tool', 'file'] },
	sync: { options: [...TARGET, ...YES, '--allow-secrets', '--dry-run'], args: ['tool'] },
	resolve: { options: [...TARGET, '--mine', '--theirs', ...YES], args: ['tool', 'file'] },
	watch: { options: [...TARGET, '--interval', ...YES, '--allow-secrets'], args: ['tool'] },
	diff: { options: [...TARGET, '--version', '--from', '--exit-code', '--no-pager'], args: ['tool', 'file'] },
	list: { options: ['--team'] },
	history: { options: [...TARGET, '--limit'], args: ['tool'] },
	rollback: { options: [...TARGET, '--to'], args: ['tool'] },
	delete: { options: [...TARGET, ...YES], args: ['tool'] },
	keys: { options: YES, subs: ['list', 'revoke'], subArgs: { list: [], revoke: ['none'] } },
	team: {
		options: ['--role', '--slug', ...YES],
		subs: ['list', 'create', 'show', 'invite', 'add', 'role', 'remove', 'leave', 'rename', 'delete'],
		subArgs: {
			list: [],
			create: ['none'],
			show: ['team'],
			invite: ['team', 'none'],
			add: ['team', 'none'],
			role: ['team', 'none', 'role'],
			remove: ['team', 'none'],
			leave: ['team'],
			rename: ['team', 'none'],
			delete: ['team']
		}
	},
	teams: { options: [] },
	invitations: { options: [], subs: ['list', 'accept', 'decline'], subArgs: { list: [], accept: ['none'], decline: ['none'] } },
	log: { options: ['--team', '--type', '--limit', '--before'] },
	completion: { options: [], args: ['shell'] },
	help: { options: [], args: ['command'] }
}

const COMMON = ['--server', '--profile', '--json', '--help']
/** Options that take a value (the word after them is not an argument). */
const VALUED = ['--server', '--profile', '--name', '-n', '--team', '--role', '--slug', '--user', '--device', '--interval', '--version', '--from', '--limit', '--to', '--type', '--before']
const ROLES = ['owner', 'admin', 'member']
const INVITED = ['admin', 'member']
const SHELLS = ['bash', 'zsh', 'fish']
const AUDIT_TYPES = ['login.succeeded', 'login.failed', 'key.issued', 'key.revoked', 'keys.revoked', 'password.changed', 'config.pushed', 'config.rolled_back', 'config.deleted', 'team.created', 'team.renamed', 'team.deleted', 'invitation.sent', 'invitation.accepted', 'invitation.declined', 'invitation.cancelled', 'member.role_changed', 'member.removed', 'member.left']

const commands = () => Object.keys(SPECS)
const words = (list: readonly string[]) => list.join(' ')

/** For each command, the kind of its Nth argument (counting the subcommand as the first). */
function kinds(): { command: string; sub?: string; index: number; kind: Positional }[] {
	const out: { command: string; sub?: string; index: number; kind: Positional }[] = []
	for (const [command, spec] of Object.entries(SPECS)) {
		spec.args?.forEach((kind, index) => out.push({ command, index, kind }))
		for (const [sub, args] of Object.entries(spec.subArgs ?? {})) args.forEach((kind, index) => out.push({ command, sub, index: index + 1, kind }))
	}
	return out
}

function bash(): string {
	const optionCases = Object.entries(SPECS)
		.map(([command, spec]) => `\t\t\t${command}) opts="${words(spec.options)}" ;;`)
		.join('\n')
	const subCases = Object.entries(SPECS)
		.filter(([, spec]) => spec.subs)
		.map(([command, spec]) => `\t\t${command}) subs="${words(spec.subs as string[])}" ;;`)
		.join('\n')
	const positionalCases = kinds()
		.map(({ command, sub, index, kind }) => `\t\t"${command} ${sub ?? ''} ${index}") kind=${kind} ;;`)
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
			${VALUED.join('|')}) skip=1 ;;
			-*) ;;
			*) args+=("$word") ;;
		esac
	done
	local cmd="\${args[0]}" tool=""
	case "$cmd" in status|push|pull|sync|resolve|watch|diff|history|rollback|delete) tool="\${args[1]}" ;; esac
	case "$prev" in
		--name|-n) COMPREPLY=($(compgen -W "$("$self" __complete names $tool 2>/dev/null)" -- "$cur")); return ;;
		--team) COMPREPLY=($(compgen -W "$("$self" __complete teams 2>/dev/null)" -- "$cur")); return ;;
		--profile) COMPREPLY=($(compgen -W "$("$self" __complete profiles 2>/dev/null)" -- "$cur")); return ;;
		--role) COMPREPLY=($(compgen -W "${words(INVITED)}" -- "$cur")); return ;;
		--type) COMPREPLY=($(compgen -W "${words(AUDIT_TYPES)}" -- "$cur")); return ;;
		${VALUED.filter((o) => !['--name', '-n', '--team', '--profile', '--role', '--type'].includes(o)).join('|')}) COMPREPLY=(); return ;;
	esac
	if ((\${#args[@]} == 0)); then
		if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "--help --version" -- "$cur")); else COMPREPLY=($(compgen -W "${words(commands())}" -- "$cur")); fi
		return
	fi
	if [[ "$cur" == -* ]]; then
		local opts=""
		case "$cmd" in
${optionCases}
		esac
		COMPREPLY=($(compgen -W "$opts ${words(COMMON)}" -- "$cur"))
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
		case "$cmd" in push|pull|resolve|diff) ((n >= 1)) && kind=file ;; esac
	fi
	case "$kind" in
		tool) COMPREPLY=($(compgen -W "${words(TOOLS)}" -- "$cur")) ;;
		team) COMPREPLY=($(compgen -W "$("$self" __complete teams 2>/dev/null)" -- "$cur")) ;;
		shell) COMPREPLY=($(compgen -W "${words(SHELLS)}" -- "$cur")) ;;
		command) COMPREPLY=($(compgen -W "${words(commands())}" -- "$cur")) ;;
		role) COMPREPLY=($(compgen -W "${words(ROLES)}" -- "$cur")) ;;
		file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) COMPREPLY=() ;;
	esac
}
complete -F _cfgsync cfgsync
`
}

function zsh(): string {
	const optionCases = Object.entries(SPECS)
		.map(([command, spec]) => `\t\t\t(${command}) opts=(${words(spec.options)}) ;;`)
		.join('\n')
	const subCases = Object.entries(SPECS)
		.filter(([, spec]) => spec.subs)
		.map(([command, spec]) => `\t\t(${command}) subs=(${words(spec.subs as string[])}) ;;`)
		.join('\n')
	const positionalCases = kinds()
		.map(({ command, sub, index, kind }) => `\t\t("${command} ${sub ?? ''} ${index}") kind=${kind} ;;`)
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
			(${VALUED.join('|')}) skip=1 ;;
			(-*) ;;
			(*) args+=("$word") ;;
		esac
	done
	local cmd=\${args[1]} tool=""
	case $cmd in (status|push|pull|sync|resolve|watch|diff|history|rollback|delete) tool=\${args[2]} ;; esac
	case $prev in
		(--name|-n) compadd -- \${(f)"$("$self" __complete names $tool 2>/dev/null)"}; return ;;
		(--team) compadd -- \${(f)"$("$self" __complete teams 2>/dev/null)"}; return ;;
		(--profile) compadd -- \${(f)"$("$self" __complete profiles 2>/dev/null)"}; return ;;
		(--role) compadd -- ${words(INVITED)}; return ;;
		(--type) compadd -- ${words(AUDIT_TYPES)}; return ;;
		(${VALUED.filter((o) => !['--name', '-n', '--team', '--profile', '--role', '--type'].includes(o)).join('|')}) return ;;
	esac
	if ((\${#args} == 0)); then
		if [[ $cur == -* ]]; then compadd -- --help --version; else compadd -- ${words(commands())}; fi
		return
	fi
	if [[ $cur == -* ]]; then
		case $cmd in
${optionCases}
		esac
		compadd -- $opts ${words(COMMON)}
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
		case $cmd in (push|pull|resolve|diff) ((n >= 1)) && kind=file ;; esac
	fi
	case $kind in
		(tool) compadd -- ${words(TOOLS)} ;;
		(team) compadd -- \${(f)"$("$self" __complete teams 2>/dev/null)"} ;;
		(shell) compadd -- ${words(SHELLS)} ;;
		(command) compadd -- ${words(commands())} ;;
		(role) compadd -- ${words(ROLES)} ;;
		(file) _files ;;
	esac
}
compdef _cfgsync cfgsync
`
}

function fish(): string {
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
		`\t\t\tcase ${VALUED.join(' ')}`,
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
		`\tcontains -- "$words[-1]" ${VALUED.join(' ')}`,
		'end',
		'function __cfgsync_tool',
		'\tset -l args (__cfgsync_args)',
		'\tcontains -- "$args[1]" status push pull sync resolve watch diff history rollback delete; and echo $args[2]',
		'end',
		'complete -c cfgsync -f',
		`complete -c cfgsync -n 'not __cfgsync_value_wanted; and test (count (__cfgsync_args)) -eq 0' -a '${words(commands())}'`,
		...COMMON.map((option) => `complete -c cfgsync -l ${option.slice(2)}${option === '--server' || option === '--profile' ? ' -x' : ''}`),
		"complete -c cfgsync -l profile -x -a '(cfgsync __complete profiles 2>/dev/null)'",
		"complete -c cfgsync -l name -s n -x -a '(cfgsync __complete names (__cfgsync_tool) 2>/dev/null)'",
		"complete -c cfgsync -l team -x -a '(cfgsync __complete teams 2>/dev/null)'",
		`complete -c cfgsync -l role -x -a '${words(INVITED)}'`,
		`complete -c cfgsync -l type -x -a '${words(AUDIT_TYPES)}'`
	]
	const seen = new Set(['--name', '-n', '--team', '--role', '--type', ...COMMON])
	for (const [command, spec] of Object.entries(SPECS)) {
		for (const option of spec.options) {
			if (seen.has(option) || !option.startsWith('--')) continue
			const short = spec.options.includes(`-${option[2]}`) && ['--force', '--yes'].includes(option) ? ` -s ${option[2]}` : ''
			lines.push(`complete -c cfgsync -n '__fish_seen_subcommand_from ${command}' -l ${option.slice(2)}${short}${VALUED.includes(option) ? ' -x' : ''}`)
		}
		if (spec.subs) lines.push(`complete -c cfgsync -n '__cfgsync_at ${command} - 0' -a '${words(spec.subs)}'`)
	}
	for (const { command, sub, index, kind } of kinds()) {
		const at = `__cfgsync_at ${command} ${sub ?? '-'} ${index}`
		const values: Record<Positional, string | undefined> = {
			tool: `-a '${words(TOOLS)}'`,
			file: '-F',
			team: "-a '(cfgsync __complete teams 2>/dev/null)'",
			shell: `-a '${words(SHELLS)}'`,
			command: `-a '${words(commands())}'`,
			role: `-a '${words(ROLES)}'`,
			'invited-role': `-a '${words(INVITED)}'`,
			none: undefined
		}
		const value = values[kind]
		if (value) lines.push(`complete -c cfgsync -n '${at}' ${value}`)
	}
	for (const command of ['push', 'pull', 'resolve', 'diff']) lines.push(`complete -c cfgsync -n 'not __cfgsync_value_wanted; and __fish_seen_subcommand_from ${command}; and test (count (__cfgsync_args)) -ge 3' -F`)
	return `${lines.join('\n')}\n`
}

export async function completion(args: string[]) {
	if (args.includes('--json')) throw new CliFailure('completion prints a shell script: --json does not apply', EXIT.usage)
	const extra = args.find((arg) => arg.startsWith('-'))
	if (extra) throw new CliFailure(`unknown option "${safe(extra)}" (see cfgsync completion --help)`, EXIT.usage)
	const [shell, more] = args
	if (more !== undefined) throw new CliFailure(`unexpected argument "${safe(more)}" (see cfgsync completion --help)`, EXIT.usage)
	if (shell === undefined) throw new CliFailure('which shell? cfgsync completion bash|zsh|fish', EXIT.usage)
	const scripts: Record<string, () => string> = { bash, zsh, fish }
	const make = scripts[shell]
	if (!make) throw new CliFailure(`no completion for "${safe(shell)}": bash, zsh or fish`, EXIT.usage)
	process.stdout.write(make())
}

/** The hidden `cfgsync __complete names [TOOL] | teams | profiles`: candidates from this machine only. */
export async function complete(args: string[]) {
	const [what, tool] = args
	const states = everyState()
	let out: string[] = []
	if (what === 'names') out = [DEFAULT_CONFIG_NAME, ...states.filter((s) => !tool || s.tool === tool).map((s) => s.name)]
	else if (what === 'teams') out = states.map((s) => s.team).filter((team): team is string => typeof team === 'string')
	else if (what === 'profiles') out = profiles()
	else if (what === 'tools') out = [...TOOLS]
	process.stdout.write([...new Set(out)].sort().map((word) => `${word}\n`).join(''))
}
