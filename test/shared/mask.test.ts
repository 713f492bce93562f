// The masks of the web application's MCP server list (src/shared/mask.ts): what looks like a
// credential becomes •••, everything else reads as written.
import { expect, test } from 'bun:test'
import { editorKey } from '../../src/client/sync/paths'
import { DESCRIPTORS } from '../../src/client/tools/registry'
import { MASK, maskArgs, maskText, maskUrl } from '../../src/shared/mask'
import { MCP_TABLES } from '../../src/shared/mcp-tables'

test('a url keeps its host, path and plain parameters; its user information and key-like values are masked', () => {
	expect(maskUrl('https://bot:pw123456@host.example.com/mcp')).toBe(`https://${MASK}@host.example.com/mcp`)
	expect(maskUrl('https://host.example.com/mcp?api_key=abc123def456&region=eu#top')).toBe(
		`https://host.example.com/mcp?api_key=${MASK}&region=eu#top`
	)
	expect(maskUrl('https://host.example.com/mcp?token=x&sig=y')).toBe(
		`https://host.example.com/mcp?token=${MASK}&sig=${MASK}`
	)
	expect(maskUrl('https://host.example.com/a@b')).toBe('https://host.example.com/a@b')
	expect(maskUrl('https://host.example.com/mcp')).toBe('https://host.example.com/mcp')
})

test('arguments: the value after a key-like flag, `--flag=value` and token formats are masked; paths and names are not', () => {
	expect(
		maskArgs(['-y', 'server', '--root', '/home/a', '--api-key', 'abc', '--token=xyz', 'ghp_abcdefghijklmnopqrstuvwxyz'])
	).toEqual(['-y', 'server', '--root', '/home/a', '--api-key', MASK, `--token=${MASK}`, MASK])
	expect(maskText('Authorization: Bearer abcdefgh12345678')).toBe(`Authorization: Bearer ${MASK}`)
	expect(maskText('@modelcontextprotocol/server-github')).toBe('@modelcontextprotocol/server-github')
})

test("each client descriptor's MCP table is the shared one (one table, no copy), VS Code's file its user mcp.json", () => {
	for (const tool of Object.keys(MCP_TABLES) as (keyof typeof MCP_TABLES)[])
		expect(DESCRIPTORS[tool].mcpTable).toBe(MCP_TABLES[tool])
	expect(MCP_TABLES.vscode.file).toBe(editorKey('Code', 'mcp.json'))
})
