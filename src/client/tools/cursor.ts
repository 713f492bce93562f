import { MCP_TABLES } from '../../shared/mcp-tables'
import { everywhere, type ToolDescriptor } from './descriptor'
import { EDITOR_INERT, EDITOR_WIDENS, editorFiles } from './editor'

/** Cursor: its editor user directory (`@Cursor/User`), ~/.cursor/mcp.json and its rules. */
export const cursor: ToolDescriptor = {
	id: 'cursor',
	platforms: everywhere([...editorFiles('Cursor'), '.cursor/mcp.json'], ['.cursor/rules']),
	editor: 'Cursor',
	parts: [],
	format: 'json',
	inert: EDITOR_INERT,
	runsCode: { commands: [], hooks: [] },
	widens: EDITOR_WIDENS,
	mcp: [
		{ file: '.cursor/mcp.json', path: ['mcpServers'], runs: ['command', 'args', 'url'], secrets: ['env', 'headers'] }
	],
	// A `url` alone: Cursor picks the transport itself, so an entry cannot say SSE.
	mcpTable: MCP_TABLES.cursor
}
