import type { Tool } from '../../shared/constants'
import { isJsonKey, isObject, type Json, MISSING, parseJsonc, type Slot } from '../sync/json'
import { valueAt, withValue } from '../sync/local-keys'
import { tomlSet, tomlValue } from '../sync/toml-edit'
import { type McpServer, type McpTable, type McpTransport, serverIn } from '../../shared/mcp-tables'
import { DESCRIPTORS } from '../tools/registry'

/**
 * One MCP server in every tool's spelling (docs/client.md, "MCP servers").
 * Each tool's descriptor holds its translation table (src/client/tools/);
 * this file only applies the tables: an entry read into one shape, an entry
 * written back into a file's text through the sync engine's own editors
 * (JSONC edits that keep comments and formatting, TOML line edits), so
 * nothing outside the entry changes.
 */

/** The shape every tool's entry is read into (src/shared/mcp-tables.ts, which the web application reads too). */
export type { McpServer } from '../../shared/mcp-tables'

const TRANSPORT_WORDS: Record<McpTransport, string> = { stdio: 'stdio (a program)', http: 'HTTP', sse: 'SSE' }
export const transportText = (t: McpServer['transport']): string =>
	t === 'unknown' ? 'an entry cfgsync cannot read' : TRANSPORT_WORDS[t]

export const tableOf = (tool: Tool): McpTable => DESCRIPTORS[tool].mcpTable

/** One entry of a tool as a server. */
export const serverOf = (tool: Tool, entry: Json): McpServer => serverIn(tableOf(tool), entry)

/** The parsed file (JSON with comments, or TOML); undefined when it does not parse. */
export function parsedFile(tool: Tool, text: string): Json | undefined {
	if (DESCRIPTORS[tool].format === 'toml') return tomlValue(text) as Json | undefined
	return parseJsonc(text)?.value
}

/** The raw entries of a tool's file, by name (an absent servers object: none). */
export function entriesIn(tool: Tool, text: string | undefined): Map<string, Json> {
	const found = new Map<string, Json>()
	if (text === undefined) return found
	const servers = valueAt(keyOf(tool), text, tableOf(tool).path)
	if (servers !== MISSING && isObject(servers))
		for (const name of Object.keys(servers)) found.set(name, servers[name] as Json)
	return found
}

/** The servers a tool's file holds, by name. */
export function readServers(tool: Tool, text: string | undefined): Map<string, McpServer> {
	return new Map([...entriesIn(tool, text)].map(([name, entry]) => [name, serverOf(tool, entry)]))
}

/** Why a tool cannot hold a server, in words; undefined when it can. */
export function cannotHold(tool: Tool, server: McpServer): string | undefined {
	const table = tableOf(tool)
	if (server.transport === 'unknown') return `${table.label} cannot be given an entry cfgsync cannot read`
	if (table[server.transport] !== undefined) return undefined
	return `${table.label} cannot hold an ${TRANSPORT_WORDS[server.transport]} server: ${table.lacks?.[server.transport] ?? `its entries have no ${server.transport} transport`}`
}

/** Every field name any transport of the table uses: what a rewrite replaces, keeping the entry's other fields. */
const ownFields = (table: McpTable): Set<string> =>
	new Set(
		[
			table.type?.field,
			table.stdio?.command,
			table.stdio?.args,
			table.stdio?.env,
			table.http?.url,
			table.http?.headers,
			table.sse?.url,
			table.sse?.headers
		].filter((f): f is string => f !== undefined)
	)

/**
 * The tool's entry for a server: the type field first when the tool writes
 * one, then the program or the url, then env or headers when there are any;
 * fields of `previous` the table does not know (Gemini's `trust`, a `cwd`,
 * `disabled`) stay.
 */
export function entryFor(tool: Tool, server: McpServer, previous?: Json): Record<string, Json> {
	const table = tableOf(tool)
	const entry: Record<string, Json> = {}
	const type = table.type?.values[server.transport as McpTransport]
	if (table.type && type !== undefined) entry[table.type.field] = type
	if (server.transport === 'stdio' && table.stdio) {
		entry[table.stdio.command] = server.command ?? ''
		entry[table.stdio.args] = [...(server.args ?? [])]
		if (Object.keys(server.env ?? {}).length > 0) entry[table.stdio.env] = { ...server.env }
	} else {
		const remote = server.transport === 'http' ? table.http : table.sse
		if (remote) {
			entry[remote.url] = server.url ?? ''
			if (Object.keys(server.headers ?? {}).length > 0) entry[remote.headers] = { ...server.headers }
		}
	}
	if (isObject(previous)) {
		const own = ownFields(table)
		for (const key of Object.keys(previous)) if (!own.has(key)) entry[key] = previous[key] as Json
	}
	return entry
}

/** The key the sync engine's editors take for the tool's MCP file (JSON or TOML by its name). */
const keyOf = (tool: Tool): string => tableOf(tool).file

/** The env or headers field of an entry of this transport: where its credentials go. */
export function credentialField(tool: Tool, transport: McpTransport, kind: 'env' | 'headers'): string | undefined {
	const table = tableOf(tool)
	if (kind === 'env') return transport === 'stdio' ? table.stdio?.env : undefined
	return transport === 'http' ? table.http?.headers : transport === 'sse' ? table.sse?.headers : undefined
}

/**
 * `text` (undefined: no file yet) with the server named `name` set (undefined:
 * removed), written in the tool's spelling and nothing else of the file
 * touched; `{why}` when the tool cannot hold it or the file does not parse.
 */
export function writeServer(
	tool: Tool,
	text: string | undefined,
	name: string,
	server: McpServer | undefined
): string | { why: string } {
	const table = tableOf(tool)
	if (server !== undefined) {
		const refused = cannotHold(tool, server)
		if (refused !== undefined) return { why: refused }
	}
	const toml = DESCRIPTORS[tool].format === 'toml'
	if (text !== undefined && parsedFile(tool, text) === undefined)
		return { why: `it is not valid ${toml ? 'TOML' : 'JSON'}; fix it first (nothing was written to it)` }
	const path = [...table.path, name]
	const previous = entriesIn(tool, text).get(name)
	if (server === undefined && previous === undefined) return text ?? ''
	const entry = server === undefined ? undefined : entryFor(tool, server, previous)
	if (toml) return writeToml(text ?? '', path, entry) ?? { why: 'the TOML file could not be edited in place' }
	if (text === undefined || text.trim() === '') {
		if (entry === undefined) return text ?? ''
		return `${JSON.stringify(nest(path, entry), null, 2)}\n`
	}
	const written = withValue(keyOf(tool), text, path, entry ?? MISSING)
	return isJsonKey(keyOf(tool)) ? written : { why: 'not a JSON file' }
}

const nest = (path: readonly string[], value: Json): Json =>
	path.reduceRight<Json>((inner, key) => ({ [key]: inner }), value)

/**
 * A TOML entry as its own `[table]` with env and headers as sub-tables
 * (`[mcp_servers.x.env]`), never inline: a key of an inline table cannot be
 * kept local to one machine (docs/sync-model.md), and a secret goes there.
 * Replacing an entry takes out its tables and writes them again at the end.
 */
function writeToml(text: string, path: string[], entry: Record<string, Json> | undefined): string | undefined {
	let out: string | undefined = text
	if (valueAt('x.toml', text, path) !== MISSING) out = tidied(text, tomlSet(text, path, MISSING))
	if (out === undefined || entry === undefined) return out
	const flat: Record<string, Json> = {}
	const tables: [string, Record<string, Json>][] = []
	for (const key of Object.keys(entry)) {
		const value = entry[key] as Json
		if (isObject(value)) tables.push([key, value])
		else flat[key] = value
	}
	const fresh = out.trim() === ''
	out = tomlSet(out, path, flat as Slot)
	for (const [key, value] of tables) if (out !== undefined) out = tomlSet(out, [...path, key], value)
	return fresh && out !== undefined ? out.replace(/^\s*\n/, '') : out
}

/**
 * A table taken out leaves the blank line that set it apart, before and after:
 * no more blank lines in a row, and at the end, than the file had.
 */
function tidied(before: string, after: string | undefined): string | undefined {
	if (after === undefined) return undefined
	let out = after
	if (!/(\r?\n){3}/.test(before)) out = out.replace(/(\r?\n)(\r?\n)(\r?\n)+/g, '$1$2')
	if (!/(\r?\n){2}$/.test(before)) out = out.replace(/(\r?\n)(\r?\n)+$/, '$1')
	return out
}

/** What differs between two servers, as the list names it: transport, command, args, env names, url, headers. */
export function differences(a: McpServer, b: McpServer): string[] {
	const out: string[] = []
	const names = (m: Record<string, string> | undefined) =>
		Object.keys(m ?? {})
			.sort()
			.join('\0')
	const pairs = (m: Record<string, string> | undefined) =>
		Object.entries(m ?? {})
			.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))
			.map(([k, v]) => `${k}\0${v}`)
			.join('\0\0')
	if (a.transport !== b.transport) out.push('transport')
	if ((a.command ?? '') !== (b.command ?? '')) out.push('command')
	if ((a.args ?? []).join('\0') !== (b.args ?? []).join('\0') || (a.args ?? []).length !== (b.args ?? []).length)
		out.push('args')
	if (names(a.env) !== names(b.env)) out.push('env names')
	if ((a.url ?? '') !== (b.url ?? '')) out.push('url')
	if (pairs(a.headers) !== pairs(b.headers)) out.push('headers')
	return out
}
