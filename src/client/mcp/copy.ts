import type { Tool } from '../../shared/constants'
import { localEntries, machineEntries, setMachineEntries } from '../local-keys'
import { withLock } from '../lock'
import { CliFailure, EXIT, safe } from '../output'
import { type AddValues, changeFor, looksSecret, type Outcome, report } from './add'
import { readToolFile } from './here'
import { namedTools } from './list'
import type { McpContext } from './context'
import { type Change, applyChanges, targetsFor, type ToolTarget } from './targets'
import { entriesIn, type McpServer, readServers, tableOf, writeServer } from './translate'

/**
 * `cfgsync mcp remove NAME [--tool T]...` and `cfgsync mcp copy --from TOOL
 * [NAME...]` (docs/client.md, "MCP servers"): a server taken out of every
 * selected tool, or one tool's servers written into the others where `list`
 * shows them missing or different. A differing entry is replaced only when
 * the person says so (or --yes); without a terminal copy replaces nothing,
 * says so and exits 1.
 */

/** Starts from the file's text as the earlier changes of this command left it. */
const atText = (target: ToolTarget, text: string | undefined): ToolTarget => ({
	...target,
	file: { ...target.file, text }
})

export async function remove(ctx: McpContext, values: AddValues, words: string[]) {
	const [name, ...extra] = words
	if (name === undefined) throw new CliFailure('which server? cfgsync mcp remove NAME [--tool T]...', EXIT.usage)
	if (extra.length > 0)
		throw new CliFailure(`unexpected argument "${safe(extra[0] ?? '')}" (see cfgsync mcp --help)`, EXIT.usage)
	const targets = await targetsFor(ctx, values, 'remove', false)
	const changes: Change[] = []
	const outcomes: Outcome[] = []
	for (const target of targets.targets) {
		const base = { tool: target.tool, file: target.file.name }
		if (target.refused || target.file.problem) {
			outcomes.push({ ...base, done: 'refused', why: target.refused ?? `${target.file.name}: ${target.file.problem}` })
			continue
		}
		if (!entriesIn(target.tool, target.file.text).has(name)) {
			outcomes.push({ ...base, done: 'unchanged', why: `it has no server ${name}` })
			continue
		}
		const text = writeServer(target.tool, target.file.text, name, undefined)
		if (typeof text !== 'string') outcomes.push({ ...base, done: 'refused', why: text.why })
		else {
			changes.push({ target, text, local: [] })
			outcomes.push({ ...base, done: 'removed' })
		}
	}
	const backups = await applyChanges(ctx, changes, 'remove')
	await forgetLocalKeys(ctx, changes, name)
	report(ctx, name, outcomes, { backups, targets }, values.json)
}

/** A removed server's local keys go with it (a server of that name added later starts without them). */
async function forgetLocalKeys(ctx: McpContext, changes: Change[], name: string) {
	await withLock(
		'mcp remove',
		async () => {
			for (const { target } of changes) {
				if (target.config === undefined) continue
				const inside = [...tableOf(target.tool).path, name]
				const entries = machineEntries(target.config.key)
				const kept = entries.filter(
					(e) => e.file !== target.file.key || !inside.every((part, i) => e.path?.[i] === part)
				)
				if (kept.length !== entries.length) setMachineEntries(target.config.key, kept)
			}
		},
		ctx.io.stderr
	)
}

export async function copy(ctx: McpContext, values: AddValues & { from?: string }, names: string[]) {
	const from = namedTools(values.from === undefined ? undefined : [values.from], 'copy')?.[0]
	if (from === undefined) throw new CliFailure('from which tool? cfgsync mcp copy --from TOOL [NAME...]', EXIT.usage)
	const source = readToolFile(from)
	if (source.problem) throw new CliFailure(`${source.name}: ${source.problem}`)
	const servers = readServers(from, source.text)
	for (const name of names)
		if (!servers.has(name))
			throw new CliFailure(`${from} has no server ${safe(name)} (cfgsync mcp list shows what it has)`, EXIT.usage)
	const chosen = names.length > 0 ? names : [...servers.keys()]
	if (chosen.length === 0) throw new CliFailure(`${from} has no MCP server here (${source.name}): nothing to copy`)
	// A secret-looking value becomes a local key of each file's config: that needs the login.
	const secretive = chosen.some((name) => {
		const server = servers.get(name) as McpServer
		const kind = server.transport === 'stdio' ? 'env' : 'headers'
		const given = (kind === 'env' ? server.env : server.headers) ?? {}
		return Object.keys(given).some((key) => looksSecret(key, given[key] as string, kind))
	})
	const all = await targetsFor(ctx, values, 'copy', secretive)
	const targets = all.targets.filter((t) => t.tool !== from)
	const keptThere = sourceLocalKeys(from, all.targets)
	const changes: Change[] = []
	const outcomes: Outcome[] = []
	for (const target of targets) {
		let text = target.file.text
		const local: string[][] = []
		for (const name of chosen) {
			const server = servers.get(name) as McpServer
			const kind = server.transport === 'stdio' ? 'env' : 'headers'
			const values2 = (kind === 'env' ? server.env : server.headers) ?? {}
			// A value kept on this machine in the source, or one that looks like a secret, stays here in the target too.
			const keys = Object.keys(values2).filter(
				(key) => keptThere.has(`${name}\u0000${key}`) || looksSecret(key, values2[key] as string, kind)
			)
			const { change, outcome } = await changeFor(
				atText(target, text),
				name,
				server,
				{ kind, keys },
				values.yes,
				ctx.io
			)
			outcomes.push({ ...outcome, server: name })
			if (change) {
				text = change.text
				local.push(...change.local)
			}
		}
		if (text !== target.file.text && text !== undefined) changes.push({ target, text, local })
	}
	const backups = await applyChanges(ctx, changes, 'copy')
	report(ctx, undefined, outcomes, { backups, targets: { ...all, targets } }, values.json)
}

/** `server\0KEY` for each env or header value the source tool's config keeps on this machine. */
function sourceLocalKeys(from: Tool, targets: ToolTarget[]): Set<string> {
	const out = new Set<string>()
	const config = targets.find((t) => t.tool === from)?.config
	if (config === undefined) return out
	const prefix = tableOf(from).path
	for (const { entry } of localEntries(config.key, undefined, undefined)) {
		if (entry.file !== tableOf(from).file || entry.path === undefined) continue
		const rest = entry.path.slice(prefix.length)
		if (prefix.every((part, i) => entry.path?.[i] === part) && rest.length === 3) out.add(`${rest[0]}\u0000${rest[2]}`)
	}
	return out
}
