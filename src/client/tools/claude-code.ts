import { MCP_TABLES } from '../../shared/mcp-tables'
import { everywhere, type ToolDescriptor } from './descriptor'

/**
 * Claude Code: ~/.claude (settings, memory, commands, agents) and the
 * `mcpServers` of ~/.claude.json, whose other keys (caches, account,
 * per-project state) never leave the machine.
 */
export const claudeCode: ToolDescriptor = {
	id: 'claude-code',
	platforms: everywhere(
		['.claude/settings.json', '.claude/CLAUDE.md', '.claude.json#mcpServers'],
		['.claude/commands', '.claude/agents']
	),
	parts: [{ file: '.claude.json', member: 'mcpServers' }],
	format: 'json',
	// Appearance only: the colour theme and what the spinner and status messages show.
	inert: [['theme'], ['spinnerTipsEnabled'], ['spinnerVerbs'], ['showTurnDuration']],
	runsCode: {
		commands: [['statusLine'], ['apiKeyHelper'], ['awsAuthRefresh'], ['awsCredentialExport'], ['otelHeadersHelper']],
		hooks: [['hooks']]
	},
	widens: [['permissions'], ['env'], ['sandbox'], ['enableAllProjectMcpServers'], ['enabledMcpjsonServers']],
	mcp: [
		{ file: '.claude.json', path: ['mcpServers'], runs: ['command', 'args', 'url'], secrets: ['env', 'headers'] },
		// A project's own servers: not synced (only the top-level member is), still reviewed when a file holds them.
		{
			file: '.claude.json',
			path: ['projects', '*', 'mcpServers'],
			runs: ['command', 'args', 'url'],
			secrets: ['env', 'headers']
		}
	],
	// `claude mcp add` writes the transport as `type`; an entry without one is a program (stdio).
	mcpTable: MCP_TABLES['claude-code']
}
