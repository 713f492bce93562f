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
	mcpTable: {
		file: '.cursor/mcp.json',
		path: ['mcpServers'],
		label: 'Cursor',
		stdio: { command: 'command', args: 'args', env: 'env' },
		http: { url: 'url', headers: 'headers' },
		lacks: { sse: 'Cursor entries name a url without a transport, so an SSE server cannot be told from HTTP there' }
	}
}
