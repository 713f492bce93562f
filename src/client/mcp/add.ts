import { ask, interactive } from '../ask'
import type { IO } from '../io'
import { CliFailure, EXIT, safe } from '../output'
import { stableJson } from '../sync/json'
import { findSecrets } from '../sync/secrets'
import type { McpContext } from './context'
import { type Change, applyChanges, targetsFor, type Targets, type ToolTarget } from './targets'
import {
	cannotHold,
	credentialField,
	differences,
	entriesIn,
	type McpServer,
	serverOf,
	tableOf,
	writeServer
} from './translate'

/**
 * `cfgsync mcp add NAME [--tool T]... -- COMMAND [ARGS...]` and
 * `cfgsync mcp add NAME --url URL [--header K=V]...` (docs/client.md, "MCP
 * servers"): the server written into each selected tool's file in its own
 * format. A secret stays home: `--env KEY` (and `--header K`) asks for the
 * value and keeps it a local key of the file's config, so no sync sends it;
 * a value given on the command line that looks like a secret is refused
 * unless --allow-secrets, and always for a team.
 */

export const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

/** Where values asked for come from: the terminal (no echo), else standard input, one line each. */
export const secretInput = {
	async read(names: string[], io: IO): Promise<string[]> {
		if (names.length === 0) return []
		if (interactive(io)) {
			const values: string[] = []
			for (const name of names)
				values.push(await ask(`Value of ${name} (kept on this machine, not shown): `, 'no terminal', true, io))
			return values
		}
		const lines = (await io.stdin.read()).split(/\r?\n/)
		if (lines.length < names.length || names.some((_, i) => (lines[i] ?? '') === ''))
			throw new CliFailure(
				`no terminal to ask for ${names.join(', ')} on: give ${names.length === 1 ? 'the value' : 'one value per line, in that order,'} on standard input`,
				EXIT.usage
			)
		return lines.slice(0, names.length)
	}
}

/** `KEY=VALUE` (a value that syncs) or `KEY` (a value asked for, kept here). */
interface Pair {
	key: string
	value?: string
}

function pairs(words: readonly string[] | undefined, option: string): Pair[] {
	const out: Pair[] = []
	for (const word of words ?? []) {
		const at = word.indexOf('=')
		const key = at < 0 ? word : word.slice(0, at)
		if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(key))
			throw new CliFailure(
				`${option} ${safe(word)}: a name (letters, digits, _ . -) then =VALUE, or the name alone to be asked for the value`,
				EXIT.usage
			)
		if (out.some((p) => p.key === key)) throw new CliFailure(`${option} ${safe(key)} is given twice`, EXIT.usage)
		out.push(at < 0 ? { key } : { key, value: word.slice(at + 1) })
	}
	return out
}

/** Does a value given on the command line look like a secret (the sync engine's own detector, as in an MCP entry)? */
export function looksSecret(name: string, value: string, kind: 'env' | 'headers'): boolean {
	const probe = JSON.stringify({ mcpServers: { x: { [kind]: { [name]: value } } } })
	return findSecrets('probe.json', probe).length > 0
}

export interface AddValues {
	tool?: string[]
	env?: string[]
	header?: string[]
	url?: string
	sse?: boolean
	'allow-secrets'?: boolean
	yes?: boolean
	team?: string
	json?: boolean
	server?: string
	profile?: string
}

/** The server the command line describes, and the values it asks for. */
function parse(
	values: AddValues,
	words: string[]
): { name: string; server: McpServer; asked: Pair[]; kind: 'env' | 'headers' } {
	const [name, ...command] = words
	if (name === undefined)
		throw new CliFailure('which server? cfgsync mcp add NAME -- COMMAND [ARGS...] (or --url URL)', EXIT.usage)
	if (!SERVER_NAME.test(name))
		throw new CliFailure(
			`"${safe(name)}" cannot name a server: letters, digits, _ and -, at most 64 (see cfgsync mcp --help)`,
			EXIT.usage
		)
	const env = pairs(values.env, '--env')
	const headers = pairs(values.header, '--header')
	if (values.url !== undefined) {
		if (command.length > 0)
			throw new CliFailure(
				'give a COMMAND (a program the tool starts) or --url URL (a remote server), not both',
				EXIT.usage
			)
		if (env.length > 0)
			throw new CliFailure('--env is for a program (a COMMAND); a remote server takes --header', EXIT.usage)
		if (!/^https?:\/\/[^\s]+$/.test(values.url))
			throw new CliFailure(`--url ${safe(values.url)}: a URL starting with http:// or https://`, EXIT.usage)
		const given = Object.fromEntries(
			headers.filter((h) => h.value !== undefined).map((h) => [h.key, h.value as string])
		)
		return {
			name,
			server: { transport: values.sse ? 'sse' : 'http', url: values.url, headers: given },
			asked: headers.filter((h) => h.value === undefined),
			kind: 'headers'
		}
	}
	if (command.length === 0)
		throw new CliFailure('what does it run? cfgsync mcp add NAME -- COMMAND [ARGS...] (or --url URL)', EXIT.usage)
	if (headers.length > 0)
		throw new CliFailure('--header is for a remote server (--url); a program takes --env', EXIT.usage)
	if (values.sse) throw new CliFailure('--sse is for a remote server (--url)', EXIT.usage)
	const given = Object.fromEntries(env.filter((e) => e.value !== undefined).map((e) => [e.key, e.value as string]))
	return {
		name,
		server: { transport: 'stdio', command: command[0] as string, args: command.slice(1), env: given },
		asked: env.filter((e) => e.value === undefined),
		kind: 'env'
	}
}

/** Refuses values on the command line that look like secrets: unless --allow-secrets, and always for a team. */
function checkSecrets(server: McpServer, kind: 'env' | 'headers', values: AddValues) {
	const given = (kind === 'env' ? server.env : server.headers) ?? {}
	const option = kind === 'env' ? '--env' : '--header'
	const secret = Object.keys(given).filter((key) => looksSecret(key, given[key] as string, kind))
	if (secret.length === 0) return
	const keep = `${option} ${secret[0]} (without =VALUE) asks for it and keeps it on this machine`
	if (values.team !== undefined)
		throw new CliFailure(
			`${option} ${secret.join(', ')}: the value looks like a secret, and a team config never receives one (--allow-secrets does not change that). ${keep}; nothing was written.`,
			EXIT.error,
			'secret_refused'
		)
	if (!values['allow-secrets'])
		throw new CliFailure(
			`${option} ${secret.join(', ')}: the value looks like a secret and would be synced to the server. ${keep}, or add --allow-secrets to sync it; nothing was written.`,
			EXIT.error,
			'secret_refused'
		)
}

/** A tool's answer: written, the same already, or left out and why. */
export interface Outcome {
	tool: string
	file: string
	done: 'added' | 'replaced' | 'removed' | 'unchanged' | 'refused'
	why?: string
	/** The server, when a command changes several. */
	server?: string
	/** A differing entry left as it was because nobody said to replace it (exit 1). */
	declined?: true
}

/**
 * Whether to replace a tool's differing entry: yes with --yes; on a terminal,
 * the person says; otherwise no (the caller says so and exits 1).
 */
export async function replaceAllowed(
	tool: string,
	name: string,
	how: string[],
	yes: boolean | undefined,
	io: IO
): Promise<boolean> {
	if (yes) return true
	if (!interactive(io)) return false
	const answer = await ask(
		`${tool} already has ${name}, different (${how.join(', ')}). Replace it? [y/N] `,
		'no terminal',
		false,
		io
	)
	return /^y(es)?$/i.test(answer.trim())
}

const sameValues = (a: McpServer, b: McpServer) =>
	stableJson(a.env ?? {}) === stableJson(b.env ?? {}) && stableJson(a.headers ?? {}) === stableJson(b.headers ?? {})

/** The change to one tool's file for a server, or why there is none. */
export async function changeFor(
	target: ToolTarget,
	name: string,
	server: McpServer,
	local: { kind: 'env' | 'headers'; keys: string[] },
	yes: boolean | undefined,
	io: IO
): Promise<{ change?: Change; outcome: Outcome }> {
	const base = { tool: target.tool, file: target.file.name }
	if (target.refused) return { outcome: { ...base, done: 'refused', why: target.refused } }
	if (target.file.problem)
		return { outcome: { ...base, done: 'refused', why: `${target.file.name}: ${target.file.problem}` } }
	const held = cannotHold(target.tool, server)
	if (held !== undefined) return { outcome: { ...base, done: 'refused', why: held } }
	const before = entriesIn(target.tool, target.file.text).get(name)
	const existing = before === undefined ? undefined : serverOf(target.tool, before)
	if (existing !== undefined) {
		const how = differences(existing, server)
		// The same server with the same values: nothing to write (a missing `type` the tool does not need is no change).
		if (how.length === 0 && sameValues(existing, server)) return { outcome: { ...base, done: 'unchanged' } }
		if (how.length > 0 && !(await replaceAllowed(target.tool, name, how, yes, io)))
			return {
				outcome: {
					...base,
					done: 'refused',
					declined: true,
					why: `it already has ${name}, different (${how.join(', ')}); nothing was replaced${interactive(io) ? '' : ' (no terminal to ask on: --yes replaces it)'}`
				}
			}
	}
	const text = writeServer(target.tool, target.file.text, name, server)
	if (typeof text !== 'string') return { outcome: { ...base, done: 'refused', why: text.why } }
	if (text === target.file.text) return { outcome: { ...base, done: 'unchanged' } }
	const field = credentialField(target.tool, server.transport as 'stdio', local.kind)
	const table = tableOf(target.tool)
	const paths = field === undefined ? [] : local.keys.map((key) => [...table.path, name, field, key])
	return {
		change: { target, text, local: paths },
		outcome: { ...base, done: existing === undefined ? 'added' : 'replaced' }
	}
}

/** What the command prints (or --json) once the files are written. */
export function report(
	{ out, setExitCode }: Pick<McpContext, 'out' | 'setExitCode'>,
	name: string | undefined,
	outcomes: Outcome[],
	extra: { local?: string[]; backups: string | null; targets: Targets },
	asJson: boolean | undefined
) {
	const written = outcomes.filter((o) => o.done === 'added' || o.done === 'replaced' || o.done === 'removed')
	const refused = outcomes.filter((o) => o.done === 'refused')
	// A tool the person named that could not take it is an error; one chosen by default only a note.
	const failed =
		refused.some((o) => o.declined) ||
		(written.length === 0 ? refused.length > 0 : extra.targets.named && refused.length > 0)
	if (failed) setExitCode(EXIT.error)
	if (asJson)
		return out.json({
			server: name ?? null,
			tools: outcomes.map((o) => ({
				tool: o.tool,
				file: o.file,
				done: o.done,
				...(o.server ? { server: o.server } : {}),
				...(o.why ? { why: o.why } : {})
			})),
			local: extra.local ?? [],
			backups: extra.backups
		})
	for (const o of written)
		out.say(
			`${out.green(o.done === 'added' ? 'Added' : o.done === 'removed' ? 'Removed' : 'Replaced')} ${safe(o.server ?? name ?? '')} ${o.done === 'removed' ? 'from' : 'in'} ${o.tool} (${o.file})`
		)
	for (const o of outcomes.filter((x) => x.done === 'unchanged'))
		out.say(`${o.tool} (${o.file}) already has it as it is: left unchanged`)
	for (const o of refused) out.warn(`${o.tool} left out: ${o.why}`)
	if ((extra.local ?? []).length > 0)
		out.say(
			`${(extra.local ?? []).join(', ')} stay${extra.local?.length === 1 ? 's' : ''} on this machine: a local key of each file's config, never sent by a sync.`
		)
	if (written.length > 0) out.say('The next cfgsync sync (or a running watch) sends the change to your other machines.')
}

export async function add(ctx: McpContext, values: AddValues, words: string[]) {
	const { name, server, asked, kind } = parse(values, words)
	checkSecrets(server, kind, values)
	const targets = await targetsFor(ctx, values, 'add', asked.length > 0)
	const secrets = await secretInput.read(
		asked.map((a) => a.key),
		ctx.io
	)
	const withSecrets: McpServer = { ...server }
	const filled = { ...((kind === 'env' ? server.env : server.headers) ?? {}) }
	asked.forEach((a, i) => {
		filled[a.key] = secrets[i] as string
	})
	if (kind === 'env') withSecrets.env = filled
	else withSecrets.headers = filled
	const changes: Change[] = []
	const outcomes: Outcome[] = []
	for (const target of targets.targets) {
		const { change, outcome } = await changeFor(
			target,
			name,
			withSecrets,
			{ kind, keys: asked.map((a) => a.key) },
			values.yes,
			ctx.io
		)
		if (change) changes.push(change)
		outcomes.push(outcome)
	}
	const backups = await applyChanges(ctx, changes, 'add')
	report(ctx, name, outcomes, { local: asked.map((a) => a.key), backups, targets }, values.json)
}
