import { TOOLS, type Tool } from '../../shared/constants'
import { CliFailure, EXIT, safe } from '../output'
import { readToolFile, toolsHere } from './here'
import { cell, type Matrix, matrixOf, type ShownServer } from './matrix'
import type { McpContext } from './context'
import { transportText } from './translate'

/** `cfgsync mcp list [--tool T]...`: the matrix of this machine's MCP servers (docs/client.md, "MCP servers"). */

/** The tools named by --tool (each checked), or undefined when none is named. */
export function namedTools(words: readonly string[] | undefined, command: string): Tool[] | undefined {
	if (words === undefined || words.length === 0) return undefined
	for (const word of words)
		if (!TOOLS.includes(word as Tool))
			throw new CliFailure(
				`unknown tool "${safe(word)}" for --tool: one of ${TOOLS.join(', ')} (see cfgsync mcp ${command} --help)`,
				EXIT.usage
			)
	return TOOLS.filter((tool) => words.includes(tool))
}

/** The matrix of the given tools' files here, with the files that could not be read named. */
export function matrixHere(tools: readonly Tool[]): Matrix & { files: Record<string, string> } {
	const read = tools.map(readToolFile)
	const texts: Partial<Record<Tool, string | undefined>> = {}
	for (const file of read) texts[file.tool] = file.text
	const matrix = matrixOf(texts, tools)
	const names = Object.fromEntries(read.map((file) => [file.tool, file.name]))
	for (const file of read)
		if (file.problem !== undefined && file.problem !== 'it has no place on this machine')
			matrix.unreadable.push({ tool: file.tool, why: file.problem })
	return { ...matrix, files: names }
}

/** One line saying what a server is: its transport and command or url; env and header names, never values. */
export function described(server: ShownServer): string {
	const what =
		server.transport === 'stdio'
			? [server.command ?? '', ...server.args].map((word) => (/\s/.test(word) ? JSON.stringify(word) : word)).join(' ')
			: (server.url ?? '')
	const env = server.env.length > 0 ? `; env ${server.env.join(', ')}` : ''
	const headers = server.headers.length > 0 ? `; headers ${server.headers.join(', ')}` : ''
	return `${transportText(server.transport)}: ${safe(what)}${safe(env)}${safe(headers)}`
}

export function list({ out }: Pick<McpContext, 'out'>, values: { tool?: string[]; json?: boolean }) {
	const tools = namedTools(values.tool, 'list') ?? toolsHere()
	const matrix = matrixHere(tools)
	const unreadable = matrix.unreadable.map((u) => ({ tool: u.tool, file: matrix.files[u.tool] as string, why: u.why }))
	if (values.json) return out.json({ tools: matrix.tools, servers: matrix.servers, unreadable })
	for (const u of unreadable) out.warn(`${u.file} (${u.tool}): ${u.why}; its servers are not listed.`)
	if (matrix.servers.length === 0) {
		out.say(
			tools.length === 0
				? 'No tool here keeps MCP servers yet (and this machine syncs none).'
				: `No MCP server in ${tools.join(', ')} on this machine.`
		)
		return out.say('To add one to every tool this machine syncs: cfgsync mcp add NAME -- COMMAND [ARGS...]')
	}
	out.table(
		['server', ...matrix.tools],
		matrix.servers.map((row) => [safe(row.name), ...matrix.tools.map((tool) => cell(row.tools[tool]))])
	)
	out.say()
	for (const row of matrix.servers) out.say(`${safe(row.name)}  ${described(row.server)}`)
	out.say('(Env and header values are never shown.)')
	const missing = matrix.servers.some((row) => Object.values(row.tools).some((s) => s?.status !== 'same'))
	if (missing) out.say('To fill in what is missing or different from one tool: cfgsync mcp copy --from TOOL')
}
