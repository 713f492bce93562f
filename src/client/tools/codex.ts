import { everywhere, type ToolDescriptor } from './descriptor'

/** Codex CLI: ~/.codex/config.toml and its memory file. */
export const codex: ToolDescriptor = {
	id: 'codex',
	platforms: everywhere(['.codex/config.toml', '.codex/AGENTS.md']),
	parts: [],
	format: 'toml',
	inert: [['hide_agent_reasoning'], ['show_raw_agent_reasoning'], ['file_opener']],
	runsCode: { commands: [['notify']], hooks: [] },
	widens: [
		['approval_policy'],
		['sandbox_mode'],
		['sandbox_workspace_write'],
		['model_providers'],
		['shell_environment_policy'],
		['profiles', '*', 'approval_policy'],
		['profiles', '*', 'sandbox_mode']
	],
	// `[mcp_servers.NAME]` tables: every field of one counts (command, args, url, env, cwd …).
	mcp: [{ file: '.codex/config.toml', path: ['mcp_servers'], runs: 'entry', secrets: ['env', 'http_headers'] }]
}
