import { TOOLS, type Tool } from '../../shared/constants'
import { readText } from '../files'
import { CliFailure } from '../output'
import { everyState } from '../state'
import { localKey, shown } from '../tools'
import { readServers, tableOf } from './translate'

/**
 * The MCP files on this machine, one per tool (its descriptor's table), read
 * as the sync engine reads them: ~/.claude.json as its synced `mcpServers`
 * part only, editor files at this OS's place.
 */

export interface ToolFile {
	tool: Tool
	/** The config's key for the file (`.claude.json#mcpServers`). */
	key: string
	/** How a person reads its name: `~/.claude.json (mcpServers)`. */
	name: string
	/** Its text (the part, for a part); undefined when absent. */
	text: string | undefined
	/** Why it could not be read, when it could not. */
	problem?: string
}

export function readToolFile(tool: Tool): ToolFile {
	const key = tableOf(tool).file
	const name = shown(key)
	if (localKey(key) === undefined)
		return { tool, key, name, text: undefined, problem: 'it has no place on this machine' }
	try {
		return { tool, key, name, text: readText(key) }
	} catch (error) {
		if (error instanceof CliFailure) return { tool, key, name, text: undefined, problem: error.message }
		throw error
	}
}

/** The tools this machine syncs a config of (any account, any server: read from the sync state only). */
export const syncedTools = (): Tool[] => {
	const synced = new Set(everyState().map((s) => s.tool))
	return TOOLS.filter((tool) => synced.has(tool))
}

/** The tools `mcp list` looks at without --tool: those this machine syncs and those whose MCP file is here. */
export function toolsHere(): Tool[] {
	const synced = new Set(syncedTools())
	return TOOLS.filter((tool) => synced.has(tool) || readToolFile(tool).text !== undefined)
}

/** The names of the MCP servers every tool here holds (for a Tab after `cfgsync mcp remove`): this machine only. */
export function serverNamesHere(): string[] {
	const names = new Set<string>()
	for (const tool of TOOLS) for (const name of readServers(tool, readToolFile(tool).text).keys()) names.add(name)
	return [...names]
}
