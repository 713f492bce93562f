import { describe, expect, test } from 'bun:test'
import { writeCredentials } from '../../../src/client/credentials'
import { localEntries, setMachineEntries } from '../../../src/client/local-keys'
import { readServers } from '../../../src/client/mcp/translate'
import { setState, stateKey } from '../../../src/client/state'
import { emptyMap } from '../../../src/client/sync/engine'
import type { Tool } from '../../../src/shared/constants'
import { homePerTest } from '../../support/client/home'
import { put, read, runMcp } from './run'

/** `cfgsync mcp remove` and `cfgsync mcp copy` (docs/client.md, "MCP servers"). */

const home = homePerTest('mcp-copy')
const SERVER = 'http://127.0.0.1:9'

function loggedIn(tools: Tool[]) {
	writeCredentials({
		server: SERVER,
		apiKey: `cs_${'a'.repeat(64)}`,
		keyId: 'k',
		device: 'laptop',
		username: 'ada',
		email: 'a@b.c'
	})
	for (const tool of tools)
		setState(keyOf(tool), {
			format: 2,
			server: SERVER,
			username: 'ada',
			tool,
			name: 'default',
			version: 1,
			hash: 'h',
			files: emptyMap(),
			syncedAt: new Date().toISOString()
		})
}
const keyOf = (tool: Tool) => stateKey({ server: SERVER, username: 'ada', tool, name: 'default' })

const CLAUDE = `{
  "numStartups": 3,
  "mcpServers": {
    "github": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_0123456789abcdefghijABCDEFGHIJ012345" } },
    "fs": { "type": "stdio", "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/ada"] },
    "events": { "type": "sse", "url": "https://e.example.com/sse" }
  }
}
`
const CODEX = `# mine
[mcp_servers.fs]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"]
`

describe('cfgsync mcp remove', () => {
	test('takes the server out of each tool, leaving the rest of each file as it was', async () => {
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.codex/config.toml', `${CODEX}\n[mcp_servers.docs]\ncommand = "npx"\n`)
		const { code, stdout } = await runMcp([
			'remove',
			'fs',
			'--tool',
			'claude-code',
			'--tool',
			'codex',
			'--tool',
			'cursor'
		])
		expect(code).toBe(0)
		expect(stdout).toContain('Removed fs from claude-code')
		expect(stdout).toContain('Removed fs from codex')
		expect([...readServers('claude-code', read(home(), '.claude.json')).keys()]).toEqual(['github', 'events'])
		expect(read(home(), '.codex/config.toml')).toBe('# mine\n\n[mcp_servers.docs]\ncommand = "npx"\n')
		expect(JSON.parse(read(home(), '.claude.json')).numStartups).toBe(3)
	})

	test('its local keys go with it', async () => {
		loggedIn(['claude-code'])
		put(home(), '.claude.json', CLAUDE)
		const entry = {
			file: '.claude.json#mcpServers',
			path: ['mcpServers', 'github', 'env', 'GITHUB_PERSONAL_ACCESS_TOKEN']
		}
		const other = { file: '.claude.json#mcpServers', path: ['mcpServers', 'fs'] }
		setMachineEntries(keyOf('claude-code'), [entry, other])
		expect((await runMcp(['remove', 'github'])).code).toBe(0)
		expect(localEntries(keyOf('claude-code'), undefined, undefined).map((e) => e.entry)).toEqual([other])
	})
})

describe('cfgsync mcp copy', () => {
	test('fills what is missing; a tool that cannot hold one says so; a secret value stays a local key', async () => {
		loggedIn(['claude-code', 'cursor', 'gemini-cli'])
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.gemini/settings.json', '{\n  // mine\n  "mcpServers": {}\n}\n')
		const { code, stdout, stderr } = await runMcp(['copy', '--from', 'claude-code'])
		expect(stdout).not.toContain('ghp_')
		expect(code).toBe(0)
		expect(stderr).toContain('cursor left out: Cursor cannot hold an SSE server')
		expect([...readServers('cursor', read(home(), '.cursor/mcp.json')).keys()]).toEqual(['github', 'fs'])
		const gemini = read(home(), '.gemini/settings.json')
		expect(gemini).toContain('// mine')
		expect(readServers('gemini-cli', gemini).get('events')).toEqual({
			transport: 'sse',
			url: 'https://e.example.com/sse',
			headers: {}
		})
		for (const tool of ['cursor', 'gemini-cli'] as const)
			expect(localEntries(keyOf(tool), undefined, undefined).map((e) => e.entry.path?.join('.'))).toEqual([
				tool === 'cursor'
					? 'mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN'
					: 'mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN'
			])
		const listed = JSON.parse((await runMcp(['list', '--json'])).stdout)
		expect(listed.servers.find((s: { name: string }) => s.name === 'fs').tools).toEqual({
			'claude-code': { status: 'same' },
			cursor: { status: 'same' },
			'gemini-cli': { status: 'same' }
		})
	})

	test('a differing entry: without a terminal nothing is replaced, exit 1, the missing ones still added; --yes replaces', async () => {
		loggedIn(['claude-code'])
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.codex/config.toml', CODEX)
		const first = await runMcp(['copy', '--from', 'claude-code', '--tool', 'codex', 'fs', 'github'])
		expect(first.code).toBe(1)
		expect(first.stderr).toContain(
			'already has fs, different (args); nothing was replaced (no terminal to ask on: --yes replaces it)'
		)
		const codex = read(home(), '.codex/config.toml')
		expect(readServers('codex', codex).get('fs')?.args).toEqual([
			'-y',
			'@modelcontextprotocol/server-filesystem',
			'/tmp'
		])
		expect(readServers('codex', codex).get('github')?.command).toBe('npx')
		const yes = await runMcp(['copy', '--from', 'claude-code', '--tool', 'codex', 'fs', '--yes'])
		expect(yes.code).toBe(0)
		expect(readServers('codex', read(home(), '.codex/config.toml')).get('fs')?.args).toEqual([
			'-y',
			'@modelcontextprotocol/server-filesystem',
			'/home/ada'
		])
	})

	test('usage: --from is needed and names a tool; a NAME the tool lacks is refused', async () => {
		put(home(), '.claude.json', CLAUDE)
		expect((await runMcp(['copy'])).code).toBe(2)
		expect((await runMcp(['copy', '--from', 'nano'])).code).toBe(2)
		expect((await runMcp(['copy', '--from', 'claude-code', '--tool', 'codex', 'nope'])).code).toBe(2)
	})
})
