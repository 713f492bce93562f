import type { Tool } from '../../shared/constants'
import type { McpTable } from '../../shared/mcp-tables'
import type { EditorApp, Os } from '../sync/paths'

/** The MCP translation tables live in shared: the web application shows the servers too. */
export type { McpTable, McpTransport } from '../../shared/mcp-tables'

/**
 * What cfgsync knows about one tool, in one place (docs/architecture.md: a
 * new tool rule goes in the tool's own file under src/client/tools/). Like
 * VS Code's settings sync, where each synced resource owns its files and
 * merge rules, each tool owns its files per OS, its inert keys, the keys that
 * run code or widen permissions, the keys that hold secrets, and where it
 * keeps its MCP servers. The path map (tools/index.ts), the review of
 * content someone else pushed (sync/review.ts) and secret detection
 * (sync/secrets.ts) read these; nothing else holds a tool rule.
 *
 * Keys are dotted paths into a settings file (`statusLine`,
 * `tools.discoveryCommand`) given as arrays of property names, so a name that
 * itself holds a dot (VS Code's `editor.fontSize`, the literal
 * `mcp.servers`) stays one name.
 */
export interface ToolDescriptor {
	id: Tool
	/**
	 * The files `cfgsync push TOOL` collects and the directories it syncs
	 * whole, per OS, as keys of `data.files` (docs/sync-model.md): relative to
	 * home with `/`, editor user-directory files in their platform-neutral form
	 * (`@Code/User/settings.json`), which sync/paths.ts maps to each OS's
	 * application directory. Directories are key prefixes without the final `/`.
	 * An OS the tool does not run on is left out.
	 */
	platforms: Partial<Record<Os, Places>>
	/** The editor whose user directory (`@App/User/…`) holds its files, when it is one. */
	editor?: EditorApp
	/**
	 * Files of which only one top-level member is synced, stored under the
	 * key `FILE#MEMBER` (which `platforms` lists): the rest of the file stays
	 * on the machine.
	 */
	parts: readonly Part[]
	/** The format of its settings and MCP files: where the detectors look for its keys. */
	format: 'json' | 'toml'
	/**
	 * The review's allowlist (docs/sync-model.md): settings known to change
	 * nothing but how the tool looks (colour theme, fonts, formatting, layout).
	 * A change someone else pushed is written without asking only when every
	 * key it touches is one of these, or lies inside one; any other change is
	 * shown and asked about. The README lists them per tool
	 * (test/client/readme.test.ts keeps the two equal).
	 */
	inert: readonly KeyPath[]
	/**
	 * Keys that make the tool run a program. Never inert, whatever `inert`
	 * says (the review labels a change to one "runs a program").
	 */
	runsCode: {
		/** Keys whose value is a command (or a command's settings) the tool runs. */
		commands: readonly KeyPath[]
		/** Keys holding `event → [hook group, …]`: each group is one entry of the review. */
		hooks: readonly KeyPath[]
	}
	/**
	 * Keys that widen what the tool may do without being a program themselves
	 * (permissions, sandbox, environment, endpoints). Never inert, whatever
	 * `inert` says (the review labels a change to one "widens what the tool
	 * may do").
	 */
	widens: readonly KeyPath[]
	/** Where and in what shape it keeps MCP servers; their runnable and secret fields. */
	mcp: readonly McpServers[]
	/** How `cfgsync mcp` reads and writes one of its MCP servers (docs/client.md, "MCP servers"). */
	mcpTable: McpTable
}

/** A dotted key as its property names: `['tools', 'discoveryCommand']`. */
export type KeyPath = readonly string[]

export interface Places {
	files: readonly string[]
	dirs: readonly string[]
}

export interface Part {
	file: string
	member: string
}

/**
 * One place a tool keeps MCP servers: an object (a JSON object, or TOML
 * tables) under `path`, keyed by server name, each entry one server.
 */
export interface McpServers {
	/** The file (a key, or a description when it lies outside the synced files). */
	file: string
	/** The path to the servers object; `*` stands for every key at that level (a project's path). */
	path: KeyPath
	/** Only in files of this base name (`servers` is too common a key to look for everywhere). */
	onlyIn?: string
	/**
	 * The fields of an entry that say what runs or where it connects, or
	 * `entry` when the whole entry counts. (Every change to an MCP server,
	 * whatever field, is reviewed: no MCP entry is ever inert.)
	 */
	runs: readonly string[] | 'entry'
	/** The fields of an entry whose values the server receives as credentials (environment, headers). */
	secrets: readonly string[]
}

/** The same files and directories on every OS cfgsync runs on. */
export const everywhere = (files: readonly string[], dirs: readonly string[] = []): Record<Os, Places> => {
	const places = { files, dirs }
	return { linux: places, darwin: places, win32: places }
}

/** The key a part is stored under: `.claude.json#mcpServers`. */
export const partKey = (part: Part): string => `${part.file}#${part.member}`

/**
 * Does a name of a key path match a pattern name? `*` matches any run of
 * characters (a lone `*` any name). Linear in the name's length per `*`, so
 * nothing read from a server costs more than linear time.
 */
export function nameMatches(pattern: string, name: string): boolean {
	const parts = pattern.split('*')
	if (parts.length === 1) return pattern === name
	const first = parts[0] as string
	const last = parts[parts.length - 1] as string
	if (name.length < first.length + last.length || !name.startsWith(first) || !name.endsWith(last)) return false
	let from = first.length
	const end = name.length - last.length
	for (const middle of parts.slice(1, -1)) {
		const found = name.indexOf(middle, from)
		if (found < 0 || found + middle.length > end) return false
		from = found + middle.length
	}
	return true
}
