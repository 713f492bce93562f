import { parse as parseToml } from 'smol-toml'
import { isJsonKey, isObject, parseJsonc, pathText, stableJson, type Json } from './json'

/**
 * Entries that make a tool run a program (CONTRACT §11, issue 15 point 9):
 * Claude Code `hooks`, `statusLine` and its helper commands, MCP servers'
 * `command`/`args`/`url` (Cursor, Windsurf, VS Code, Claude, Gemini), Gemini's
 * tool commands, Codex `mcp_servers` and `notify`, and script files. A pull of
 * content someone else pushed that adds or changes one is shown and asked
 * about first.
 */

/** Entry path → its content as stable JSON. */
export type Runnables = Map<string, string>

/** Top-level settings whose value is a command a tool runs. */
const COMMAND_SETTINGS = ['statusLine', 'apiKeyHelper', 'awsAuthRefresh', 'awsCredentialExport', 'otelHeadersHelper', 'toolDiscoveryCommand', 'toolCallCommand']
/** The fields of an MCP server entry that say what runs or where it connects. */
const MCP_FIELDS = ['command', 'args', 'url', 'serverUrl', 'httpUrl']
const SCRIPT = /\.(sh|bash|zsh|fish|ps1|bat|cmd|py|js|mjs|cjs|ts|rb|pl)$/i

const baseName = (key: string) => key.slice(key.lastIndexOf('/') + 1)

/** Can this file hold runnable entries at all? */
export function mayRun(key: string): boolean {
	return isJsonKey(key) || /\.toml$/i.test(key) || SCRIPT.test(key)
}

/** The runnable entries of one file; `unparseable` when a file that may hold some cannot be read. */
export function runnables(key: string, content: string | undefined): Runnables | 'unparseable' {
	const found: Runnables = new Map()
	if (content === undefined) return found
	if (SCRIPT.test(key) || content.startsWith('#!')) {
		found.set('(the whole file)', JSON.stringify(content))
		return found
	}
	if (isJsonKey(key)) {
		const parsed = parseJsonc(content)
		if (!parsed) return 'unparseable'
		fromSettings(key, parsed.value, found)
	} else if (/\.toml$/i.test(key)) {
		let table: unknown
		try {
			table = parseToml(content.replace(/^\uFEFF/, ''))
		} catch {
			return 'unparseable'
		}
		fromCodex(table as Json, found)
	}
	return found
}

function fromSettings(key: string, value: Json, found: Runnables): void {
	if (!isObject(value)) return
	for (const name of COMMAND_SETTINGS) if (has(value, name)) found.set(name, stableJson(value[name] as Json))
	const tools = value.tools
	if (isObject(tools)) for (const name of ['discoveryCommand', 'callCommand']) if (has(tools, name)) found.set(`tools.${name}`, stableJson(tools[name] as Json))
	const hooks = value.hooks
	if (hooks !== undefined && has(value, 'hooks')) {
		if (isObject(hooks)) {
			for (const event of Object.keys(hooks)) {
				const groups = hooks[event] as Json
				if (Array.isArray(groups)) groups.forEach((group, i) => found.set(pathText(['hooks', event, i]), stableJson(group)))
				else found.set(pathText(['hooks', event]), stableJson(groups))
			}
		} else found.set('hooks', stableJson(hooks))
	}
	const containers: [string[], Json | undefined][] = [
		[['mcpServers'], value.mcpServers],
		[['mcp', 'servers'], isObject(value.mcp) ? value.mcp.servers : undefined],
		[['mcp.servers'], has(value, 'mcp.servers') ? value['mcp.servers'] : undefined]
	]
	if (baseName(key).toLowerCase() === 'mcp.json') containers.push([['servers'], value.servers])
	const projects = value.projects
	if (isObject(projects)) {
		for (const project of Object.keys(projects)) {
			const entry = projects[project] as Json
			if (isObject(entry)) containers.push([['projects', project, 'mcpServers'], entry.mcpServers])
		}
	}
	for (const [path, servers] of containers) {
		if (!isObject(servers)) continue
		for (const name of Object.keys(servers)) {
			const server = servers[name] as Json
			if (!isObject(server)) {
				found.set(pathText([...path, name]), stableJson(server))
				continue
			}
			const picked: { [key: string]: Json } = {}
			for (const field of MCP_FIELDS) if (has(server, field)) picked[field] = server[field] as Json
			if (Object.keys(picked).length > 0) found.set(pathText([...path, name]), stableJson(picked))
		}
	}
}

function fromCodex(table: Json, found: Runnables): void {
	if (!isObject(table)) return
	if (has(table, 'notify')) found.set('notify', stableJson(table.notify as Json))
	const servers = table.mcp_servers
	if (isObject(servers)) for (const name of Object.keys(servers)) found.set(pathText(['mcp_servers', name]), stableJson(jsonOf(servers[name])))
}

/** TOML dates and other objects as plain JSON, so entries compare by content. */
const jsonOf = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json

const has = (object: object, key: string) => Object.prototype.hasOwnProperty.call(object, key)

export interface RunnableChange {
	path: string
	/** Stable JSON before (absent: the entry is new). */
	before?: string
	/** Stable JSON after, or a note when the file cannot be read. */
	after: string
}

/** The runnable entries a write adds or changes (removals run nothing and are not listed). */
export function runnableChanges(key: string, before: string | undefined, after: string | null): RunnableChange[] {
	if (after === null || !mayRun(key) && !after.startsWith('#!')) return []
	const next = runnables(key, after)
	if (next === 'unparseable') return [{ path: '(the whole file)', after: 'cannot be read as JSON or TOML, so what it runs cannot be shown: look at the file itself' }]
	const previous = runnables(key, before)
	const old = previous === 'unparseable' ? new Map<string, string>() : previous
	const changes: RunnableChange[] = []
	for (const [path, value] of next) {
		const was = old.get(path)
		if (was !== value) changes.push({ path, before: was, after: value })
	}
	return changes
}
