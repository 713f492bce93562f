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
 * data, so the sync engine (sync/review.ts, sync/secrets.ts) can read it
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

/** Why a key is never inert: what the review says of a change to it. */
export type ReviewedWhy = 'runs a program' | 'an MCP server' | 'widens what the tool may do'

/** A key every review asks about, and why (an MCP servers object also names the fields that say what runs). */
export interface ReviewedKey {
	path: KeyPath
	why: ReviewedWhy
	/** For an MCP servers object: the fields of an entry that say what runs (`entry`: all of them). */
	runs?: readonly string[] | 'entry'
}

const same = (a: KeyPath, b: KeyPath) => a.length === b.length && a.every((name, i) => name === b[i])

/**
 * Keys no tool's review ever lets through unasked, from every descriptor
 * (docs/sync-model.md): what runs a program, MCP servers, and what widens
 * what a tool may do. The allowlist is each tool's `inert` keys; these are
 * looked for in every file whichever tool's config holds it, so a mistake in
 * an `inert` list, or a key another tool uses, can never make one of them
 * pass (test/client/tools.test.ts checks no inert key overlaps them).
 */
export const ALWAYS_REVIEWED: readonly ReviewedKey[] = (() => {
	const keys: ReviewedKey[] = []
	const add = (key: ReviewedKey) => {
		if (!keys.some((known) => same(known.path, key.path))) keys.push(key)
	}
	for (const descriptor of TOOLS.map((tool) => DESCRIPTORS[tool])) {
		for (const path of [...descriptor.runsCode.commands, ...descriptor.runsCode.hooks])
			add({ path, why: 'runs a program' })
		for (const servers of descriptor.mcp) add({ path: servers.path, why: 'an MCP server', runs: servers.runs })
		for (const path of descriptor.widens) add({ path, why: 'widens what the tool may do' })
	}
	return keys
})()

const allServers = TOOLS.flatMap((tool) => DESCRIPTORS[tool].mcp)
/** The names under which any tool keeps its MCP servers (the last name of each path). */
export const MCP_CONTAINERS: ReadonlySet<string> = new Set(
	allServers.map((servers) => servers.path[servers.path.length - 1] as string)
)
/** The fields of an MCP entry that any tool passes to its server as credentials. */
export const MCP_SECRET_FIELDS: ReadonlySet<string> = new Set(allServers.flatMap((servers) => servers.secrets))
