// The ESM build, as src/client/sync/json.ts says why: the Node package's bundle cannot follow the UMD one.
import { parse as parseJsonc, type ParseError } from 'jsonc-parser/lib/esm/main.js'
import { parse as parseToml } from 'smol-toml'
import type { Tool } from './constants'

/**
 * Where each tool keeps its MCP servers and how one entry spells each
 * transport (docs/client.md "MCP servers in every tool"). The data lives
 * here, in shared, because two programs read it: the client's descriptors
 * (src/client/tools/, each `mcpTable` is its row of MCP_TABLES) and its
 * `cfgsync mcp` commands, which also write entries; and the web
 * application, which only shows the servers a config's files hold.
 */

export type McpTransport = 'stdio' | 'http' | 'sse'

/**
 * The translation table of a tool's MCP entries: where `cfgsync mcp` keeps
 * its servers and how one entry spells each transport. Every tool's entries
 * are read into one shape (transport, command, args, env, url, headers) and
 * written back in the tool's own spelling; a transport the table lacks is one
 * the tool cannot hold, and the command says so instead of writing it.
 */
export interface McpTable {
	/** The file, as a key of the config's files (`.claude.json#mcpServers` for a part). */
	file: string
	/** The path to the servers object in that file. */
	path: readonly string[]
	/** The tool's name for the product, in messages. */
	label: string
	/**
	 * The field that names the transport and its value for each, when the tool
	 * writes one; without it, the transport is read from which fields an entry has.
	 */
	type?: { field: string; values: Partial<Record<McpTransport, string>> }
	/** A program started by the tool: its command, arguments and environment fields. */
	stdio?: { command: string; args: string; env: string }
	/** Streamable HTTP: the url field and the headers field. */
	http?: { url: string; headers: string }
	/** Server-sent events (the older remote transport), when the tool can tell it from HTTP. */
	sse?: { url: string; headers: string }
	/** Why the tool cannot hold a transport its table lacks. */
	lacks?: Partial<Record<McpTransport, string>>
}

const STDIO = { command: 'command', args: 'args', env: 'env' } as const
const TYPED = { field: 'type', values: { stdio: 'stdio', http: 'http', sse: 'sse' } } as const

/** Every tool's table. VS Code's file is its user directory's `mcp.json` in the neutral form (`@Code/User/…`). */
export const MCP_TABLES: Record<Tool, McpTable> = {
	'claude-code': {
		file: '.claude.json#mcpServers',
		path: ['mcpServers'],
		label: 'Claude Code',
		type: TYPED,
		stdio: STDIO,
		http: { url: 'url', headers: 'headers' },
		sse: { url: 'url', headers: 'headers' }
	},
	codex: {
		file: '.codex/config.toml',
		path: ['mcp_servers'],
		label: 'Codex',
		stdio: STDIO,
		http: { url: 'url', headers: 'http_headers' },
		lacks: { sse: 'Codex speaks streamable HTTP to remote servers, not SSE' }
	},
	cursor: {
		file: '.cursor/mcp.json',
		path: ['mcpServers'],
		label: 'Cursor',
		stdio: STDIO,
		http: { url: 'url', headers: 'headers' },
		lacks: { sse: 'Cursor entries name a url without a transport, so an SSE server cannot be told from HTTP there' }
	},
	'gemini-cli': {
		file: '.gemini/settings.json',
		path: ['mcpServers'],
		label: 'Gemini CLI',
		stdio: STDIO,
		http: { url: 'httpUrl', headers: 'headers' },
		sse: { url: 'url', headers: 'headers' }
	},
	vscode: {
		file: '@Code/User/mcp.json',
		path: ['servers'],
		label: 'VS Code',
		type: TYPED,
		stdio: STDIO,
		http: { url: 'url', headers: 'headers' },
		sse: { url: 'url', headers: 'headers' }
	},
	windsurf: {
		file: '.codeium/windsurf/mcp_config.json',
		path: ['mcpServers'],
		label: 'Windsurf',
		stdio: STDIO,
		http: { url: 'serverUrl', headers: 'headers' },
		lacks: {
			sse: 'Windsurf entries name a serverUrl without a transport, so an SSE server cannot be told from HTTP there'
		}
	}
}

/** A server as every tool means it. `unknown`: an entry no table reads (kept as it is, never rewritten). */
export interface McpServer {
	transport: McpTransport | 'unknown'
	command?: string
	args?: string[]
	env?: Record<string, string>
	url?: string
	headers?: Record<string, string>
}

type Entry = Record<string, unknown>
const isEntry = (value: unknown): value is Entry => typeof value === 'object' && value !== null && !Array.isArray(value)

const asText = (value: unknown): string | undefined =>
	typeof value === 'string'
		? value
		: typeof value === 'number' || typeof value === 'boolean'
			? String(value)
			: undefined

function textMap(value: unknown): Record<string, string> | undefined {
	if (!isEntry(value)) return undefined
	const out: Record<string, string> = {}
	for (const key of Object.keys(value)) out[key] = asText(value[key]) ?? JSON.stringify(value[key])
	return out
}

/** Which transport an entry is: its type field when the tool writes one, else the fields it has. */
function transportOf(table: McpTable, entry: Entry): McpServer['transport'] {
	const typed = table.type ? entry[table.type.field] : undefined
	if (typeof typed === 'string' && table.type) {
		const found = (Object.keys(table.type.values) as McpTransport[]).find((t) => table.type?.values[t] === typed)
		return found ?? 'unknown'
	}
	if (table.stdio && typeof entry[table.stdio.command] === 'string') return 'stdio'
	if (table.http && typeof entry[table.http.url] === 'string') return 'http'
	if (table.sse && typeof entry[table.sse.url] === 'string') return 'sse'
	return 'unknown'
}

/** One entry of a tool's file (already parsed) as a server. */
export function serverIn(table: McpTable, entry: unknown): McpServer {
	if (!isEntry(entry)) return { transport: 'unknown' }
	const transport = transportOf(table, entry)
	if (transport === 'stdio' && table.stdio) {
		const args = entry[table.stdio.args]
		return {
			transport,
			command: asText(entry[table.stdio.command]),
			args: Array.isArray(args) ? args.map((a) => asText(a) ?? JSON.stringify(a)) : [],
			env: textMap(entry[table.stdio.env]) ?? {}
		}
	}
	const remote = transport === 'http' ? table.http : transport === 'sse' ? table.sse : undefined
	if (remote) return { transport, url: asText(entry[remote.url]), headers: textMap(entry[remote.headers]) ?? {} }
	return { transport: 'unknown' }
}

/** The table whose file is this key of a config's files, when one is. */
export const tableForFile = (file: string): McpTable | undefined =>
	Object.values(MCP_TABLES).find((table) => table.file === file)

/** A file's text parsed by its name (TOML for `.toml`, else JSON with comments); undefined when it does not parse. */
export function parseMcpFile(file: string, text: string): unknown {
	try {
		if (file.endsWith('.toml')) return parseToml(text)
		const errors: ParseError[] = []
		const value: unknown = parseJsonc(text.replace(/^\uFEFF/, ''), errors, { allowTrailingComma: true })
		return errors.length === 0 ? value : undefined
	} catch {
		return undefined
	}
}

/** The servers a tool's file holds, by name, in the file's order (a file that does not parse: none). */
export function serversInFile(table: McpTable, text: string): [string, McpServer][] {
	let at: unknown = parseMcpFile(table.file, text)
	for (const key of table.path) at = isEntry(at) && Object.hasOwn(at, key) ? at[key] : undefined
	if (!isEntry(at)) return []
	return Object.keys(at).map((name) => [name, serverIn(table, (at as Entry)[name])])
}
