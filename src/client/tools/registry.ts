import { TOOLS, type Tool } from '../../shared/constants'
import { claudeCode } from './claude-code'
import { codex } from './codex'
import { cursor } from './cursor'
import type { KeyPath, ToolDescriptor } from './descriptor'
import { geminiCli } from './gemini-cli'
import { vscode } from './vscode'
import { windsurf } from './windsurf'

/**
 * Every tool's descriptor, and the rules the detectors read from them. Pure
 * data, so the sync engine (sync/runs-code.ts, sync/secrets.ts) can read it
 * without the client's I/O (tools/index.ts adds the path map on top).
 */
export const DESCRIPTORS: Readonly<Record<Tool, ToolDescriptor>> = {
	'claude-code': claudeCode,
	cursor,
	windsurf,
	vscode,
	codex,
	'gemini-cli': geminiCli
}

/** An MCP servers object as a detector looks for it. */
export interface McpRule {
	path: KeyPath
	onlyIn?: string
	/** The fields of an entry that count, or `entry` for the whole entry. */
	runs: readonly string[] | 'entry'
}

/** What the review of code someone else added looks for in a file of one format, in the order it lists them. */
export interface RunsCodeRules {
	commands: readonly KeyPath[]
	hooks: readonly KeyPath[]
	mcp: readonly McpRule[]
}

const same = (a: KeyPath, b: KeyPath) => a.length === b.length && a.every((name, i) => name === b[i])
const unique = (paths: KeyPath[]): KeyPath[] =>
	paths.filter((path, i) => paths.findIndex((other) => same(other, path)) === i)

/**
 * Each format's rules are the union of every tool's that writes that format,
 * looked for in every file of the format whichever tool's config holds it: a
 * key another tool uses costs nothing to look for, and a file named on the
 * command line under a different tool is still reviewed. Likewise the fields
 * of an MCP entry that count are those of every tool's servers in that format.
 */
function rulesFor(format: ToolDescriptor['format']): RunsCodeRules {
	const tools = TOOLS.map((tool) => DESCRIPTORS[tool]).filter((descriptor) => descriptor.format === format)
	const fields = [
		...new Set(
			tools.flatMap((descriptor) => descriptor.mcp.flatMap((servers) => (servers.runs === 'entry' ? [] : servers.runs)))
		)
	]
	const mcp: McpRule[] = []
	for (const servers of tools.flatMap((descriptor) => descriptor.mcp)) {
		if (mcp.some((rule) => same(rule.path, servers.path) && rule.onlyIn === servers.onlyIn)) continue
		mcp.push({
			path: servers.path,
			...(servers.onlyIn === undefined ? {} : { onlyIn: servers.onlyIn }),
			runs: servers.runs === 'entry' ? 'entry' : fields
		})
	}
	// A review lists the servers at a file's top level first, then those only some files hold, then those under a project.
	const rank = (rule: McpRule) => (rule.path.includes('*') ? 2 : rule.onlyIn === undefined ? 0 : 1)
	return {
		commands: unique(tools.flatMap((descriptor) => [...descriptor.runsCode.commands])),
		hooks: unique(tools.flatMap((descriptor) => [...descriptor.runsCode.hooks])),
		mcp: mcp
			.map((rule, i) => ({ rule, i }))
			.sort((a, b) => rank(a.rule) - rank(b.rule) || a.i - b.i)
			.map(({ rule }) => rule)
	}
}

export const RUNS_CODE: Readonly<Record<ToolDescriptor['format'], RunsCodeRules>> = {
	json: rulesFor('json'),
	toml: rulesFor('toml')
}

const allServers = TOOLS.flatMap((tool) => DESCRIPTORS[tool].mcp)
/** The names under which any tool keeps its MCP servers (the last name of each path). */
export const MCP_CONTAINERS: ReadonlySet<string> = new Set(
	allServers.map((servers) => servers.path[servers.path.length - 1] as string)
)
/** The fields of an MCP entry that any tool passes to its server as credentials. */
export const MCP_SECRET_FIELDS: ReadonlySet<string> = new Set(allServers.flatMap((servers) => servers.secrets))
