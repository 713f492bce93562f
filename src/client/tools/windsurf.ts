import { MCP_TABLES } from '../../shared/mcp-tables'
import { everywhere, type ToolDescriptor } from './descriptor'
import { EDITOR_INERT, EDITOR_WIDENS, editorFiles } from './editor'

/** Windsurf: its editor user directory (`@Windsurf/User`) and Codeium's ~/.codeium/windsurf (MCP servers, memories). */
export const windsurf: ToolDescriptor = {
	id: 'windsurf',
	platforms: everywhere(
		[...editorFiles('Windsurf'), '.codeium/windsurf/mcp_config.json'],
		['.codeium/windsurf/memories']
	),
	editor: 'Windsurf',
	parts: [],
	format: 'json',
	inert: EDITOR_INERT,
	runsCode: { commands: [], hooks: [] },
	widens: EDITOR_WIDENS,
	mcp: [
		{
			file: '.codeium/windsurf/mcp_config.json',
			path: ['mcpServers'],
			runs: ['command', 'args', 'serverUrl'],
			secrets: ['env', 'headers']
		}
	],
	// `serverUrl` for a remote server, the transport chosen by Windsurf.
	mcpTable: MCP_TABLES.windsurf
}
