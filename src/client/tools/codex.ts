import { MCP_TABLES } from '../../shared/mcp-tables'
import { everywhere, type ToolDescriptor } from './descriptor'

/** Codex CLI: ~/.codex/config.toml and its memory file. */
export const codex: ToolDescriptor = {
	id: 'codex',
	platforms: everywhere(['.codex/config.toml', '.codex/AGENTS.md']),
	parts: [],
	format: 'toml',
	// The colour theme, what the terminal interface shows, and which editor a clicked file citation opens in.
	inert: [
		['tui', 'theme'],
		['hide_agent_reasoning'],
		['show_raw_agent_reasoning'],
		['file_opener'],
		['tui', 'notifications']
	],
	runsCode: { commands: [['notify']], hooks: [] },
	widens: [
		['approval_policy'],
		['sandbox_mode'],
		['sandbox_workspace_write'],
		['model_providers'],
		['model_provider'],
		['chatgpt_base_url'],
		['shell_environment_policy'],
		['profiles', '*', 'approval_policy'],
		['profiles', '*', 'sandbox_mode'],
		['profiles', '*', 'model_provider']
	],
	// `[mcp_servers.NAME]` tables: every field of one counts (command, args, url, env, cwd …).
	mcp: [{ file: '.codex/config.toml', path: ['mcp_servers'], runs: 'entry', secrets: ['env', 'http_headers'] }],
	// No transport field: a `command` is a program, a `url` streamable HTTP (Codex has no SSE client).
	mcpTable: MCP_TABLES.codex
}
