import type { Tool } from '../../shared/constants'
import { findSecrets } from '../sync/secrets'
import { differences, type McpServer, parsedFile, readServers } from './translate'

/**
 * `cfgsync mcp list`: every server × tool on this machine (docs/client.md,
 * "MCP servers"). A server's form is the one most of the tools holding it
 * share (the first tool's on a tie); each tool then holds it the same, holds
 * it differently (saying how), or does not hold it. Pure: the command reads
 * the files and prints.
 */

export type Status = { status: 'same' } | { status: 'differs'; how: string[] } | { status: 'missing' }

/** A server as shown: env and header values never (only their names), secret-looking args and urls masked. */
export interface ShownServer {
	transport: McpServer['transport']
	command: string | null
	args: string[]
	env: string[]
	url: string | null
	headers: string[]
}

export interface Row {
	name: string
	server: ShownServer
	tools: Partial<Record<Tool, Status>>
}

export interface Matrix {
	tools: Tool[]
	servers: Row[]
	/** Files that hold servers but could not be read (not valid JSON or TOML). */
	unreadable: { tool: Tool; why: string }[]
}

export const MASK = '••••••'

/** Args and urls that look like credentials (the sync engine's own detector), masked. */
export function shown(server: McpServer): ShownServer {
	const probe = JSON.stringify({ mcpServers: { x: { args: server.args ?? [], url: server.url ?? '' } } })
	const secret = new Set(findSecrets('probe.json', probe).map((s) => s.value))
	const hide = (value: string) => (secret.has(value) ? MASK : value)
	return {
		transport: server.transport,
		command: server.command ?? null,
		args: (server.args ?? []).map(hide),
		env: Object.keys(server.env ?? {}).sort(),
		url: server.url === undefined ? null : hide(server.url),
		headers: Object.keys(server.headers ?? {}).sort()
	}
}

/** The form most tools share: its index among `held` (the first on a tie). */
function reference(held: McpServer[]): number {
	let best = 0
	let bestCount = 0
	held.forEach((candidate, i) => {
		const count = held.filter((other) => differences(candidate, other).length === 0).length
		if (count > bestCount) [best, bestCount] = [i, count]
	})
	return best
}

/** The matrix of the tools' files (undefined: the tool's file is absent here). */
export function matrixOf(files: Partial<Record<Tool, string | undefined>>, tools: readonly Tool[]): Matrix {
	const servers = new Map<Tool, Map<string, McpServer>>()
	const unreadable: Matrix['unreadable'] = []
	for (const tool of tools) {
		const text = files[tool]
		if (text !== undefined && parsedFile(tool, text) === undefined) {
			unreadable.push({ tool, why: `not valid ${tool === 'codex' ? 'TOML' : 'JSON'}` })
			servers.set(tool, new Map())
		} else servers.set(tool, readServers(tool, text))
	}
	const names = [...new Set(tools.flatMap((tool) => [...(servers.get(tool)?.keys() ?? [])]))].sort()
	const rows = names.map((name): Row => {
		const holders = tools.filter((tool) => servers.get(tool)?.has(name))
		const held = holders.map((tool) => servers.get(tool)?.get(name) as McpServer)
		const form = held[reference(held)] as McpServer
		const statuses: Partial<Record<Tool, Status>> = {}
		for (const tool of tools) {
			const here = servers.get(tool)?.get(name)
			if (here === undefined) statuses[tool] = { status: 'missing' }
			else {
				const how = differences(form, here)
				statuses[tool] = how.length === 0 ? { status: 'same' } : { status: 'differs', how }
			}
		}
		return { name, server: shown(form), tools: statuses }
	})
	return { tools: [...tools], servers: rows, unreadable }
}

/** A status in a cell of the table: "same", "differs: args, env names", "missing". */
export const cell = (status: Status | undefined): string =>
	status === undefined ? '' : status.status === 'differs' ? `differs: ${status.how.join(', ')}` : status.status
