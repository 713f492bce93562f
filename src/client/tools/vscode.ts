import { MCP_TABLES } from '../../shared/mcp-tables'
import { editorKey } from '../sync/paths'
import { everywhere, type ToolDescriptor } from './descriptor'
import { EDITOR_INERT, EDITOR_WIDENS, editorFiles } from './editor'

/** VS Code: its user directory (`@Code/User`): settings, keybindings and the user mcp.json. */
export const vscode: ToolDescriptor = {
	id: 'vscode',
	platforms: everywhere([...editorFiles('Code'), editorKey('Code', 'mcp.json')]),
	editor: 'Code',
	parts: [],
	format: 'json',
	inert: EDITOR_INERT,
	runsCode: { commands: [], hooks: [] },
	widens: EDITOR_WIDENS,
	mcp: [
		// mcp.json: `servers` is too common a key to look for in other files.
		{
			file: editorKey('Code', 'mcp.json'),
			path: ['servers'],
			onlyIn: 'mcp.json',
			runs: ['command', 'args', 'url'],
			secrets: ['env', 'headers']
		},
		// The older place, in settings.json, nested or as one dotted name.
		{
			file: editorKey('Code', 'settings.json'),
			path: ['mcp', 'servers'],
			runs: ['command', 'args', 'url'],
			secrets: ['env', 'headers']
		},
		{
			file: editorKey('Code', 'settings.json'),
			path: ['mcp.servers'],
			runs: ['command', 'args', 'url'],
			secrets: ['env', 'headers']
		}
	],
	// The user mcp.json: `servers`, each with a required `type`.
	mcpTable: MCP_TABLES.vscode
}
