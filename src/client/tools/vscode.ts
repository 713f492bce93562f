import { editorKey } from '../sync/paths'
import { everywhere, type ToolDescriptor } from './descriptor'
import { EDITOR_INERT, EDITOR_WIDENS, editorFiles } from './editor'

/** VS Code: its user directory (`@Code/User`). */
export const vscode: ToolDescriptor = {
	id: 'vscode',
	platforms: everywhere(editorFiles('Code')),
	editor: 'Code',
	parts: [],
	format: 'json',
	inert: EDITOR_INERT,
	runsCode: { commands: [], hooks: [] },
	widens: EDITOR_WIDENS,
	mcp: [
		// mcp.json (synced when named): `servers` is too common a key to look for in other files.
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
	]
}
