import { MCP_TABLES } from '../../shared/mcp-tables'
import { everywhere, type ToolDescriptor } from './descriptor'

/** Gemini CLI: ~/.gemini (settings, memory); settings in the older flat form and the nested one. */
export const geminiCli: ToolDescriptor = {
	id: 'gemini-cli',
	platforms: everywhere(['.gemini/settings.json', '.gemini/GEMINI.md']),
	parts: [],
	format: 'json',
	// The colour theme and what the interface shows, in the older flat form and under `ui`.
	inert: ['theme', 'customThemes', 'hideBanner', 'hideTips', 'hideWindowTitle', 'showMemoryUsage'].flatMap((name) => [
		[name],
		['ui', name]
	]),
	runsCode: {
		commands: [['toolDiscoveryCommand'], ['toolCallCommand'], ['tools', 'discoveryCommand'], ['tools', 'callCommand']],
		hooks: []
	},
	widens: [['autoAccept'], ['tools', 'autoAccept'], ['sandbox'], ['tools', 'sandbox'], ['mcpServers', '*', 'trust']],
	mcp: [
		{
			file: '.gemini/settings.json',
			path: ['mcpServers'],
			runs: ['command', 'args', 'url', 'httpUrl'],
			secrets: ['env', 'headers']
		}
	],
	// No transport field: `httpUrl` is streamable HTTP, `url` SSE.
	mcpTable: MCP_TABLES['gemini-cli']
}
