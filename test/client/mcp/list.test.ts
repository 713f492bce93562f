import { describe, expect, test } from 'bun:test'
import { homePerTest } from '../../support/client/home'
import { put, runMcp } from './run'

/** `cfgsync mcp list` (docs/client.md, "MCP servers"): the matrix of servers × tools on this machine, secrets never shown. */

const home = homePerTest('mcp-list')

const CLAUDE = `{
  "numStartups": 12,
  "tipsHistory": { "memory-command": 3 },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abcdefghijklmnopqrstuvwxyz0123456789" }
    },
    "sentry": { "type": "http", "url": "https://mcp.sentry.dev/mcp", "headers": { "Authorization": "Bearer s3cr3t-value-123456" } }
  }
}
`
const CODEX = `# mine
model = "o3"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github", "--read-only"]

[mcp_servers.github.env]
GITHUB_PERSONAL_ACCESS_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"
`
const CURSOR = `{ "mcpServers": { "github": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": { "GITHUB_PERSONAL_ACCESS_TOKEN": "x" } } } }`

describe('cfgsync mcp list', () => {
	test('--json: every server × tool, same / differs (how) / missing, env and header values never printed', async () => {
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.codex/config.toml', CODEX)
		put(home(), '.cursor/mcp.json', CURSOR)
		const { code, stdout, stderr } = await runMcp(['list', '--json'])
		expect({ code, stderr }).toEqual({ code: 0, stderr: '' })
		expect(stdout).not.toContain('ghp_abcdefghij')
		expect(stdout).not.toContain('s3cr3t')
		const out = JSON.parse(stdout)
		expect(out.tools).toEqual(['claude-code', 'cursor', 'codex'])
		expect(out.servers).toEqual([
			{
				name: 'github',
				server: {
					transport: 'stdio',
					command: 'npx',
					args: ['-y', '@modelcontextprotocol/server-github'],
					env: ['GITHUB_PERSONAL_ACCESS_TOKEN'],
					url: null,
					headers: []
				},
				tools: {
					'claude-code': { status: 'same' },
					cursor: { status: 'same' },
					codex: { status: 'differs', how: ['args'] }
				}
			},
			{
				name: 'sentry',
				server: {
					transport: 'http',
					command: null,
					args: [],
					env: [],
					url: 'https://mcp.sentry.dev/mcp',
					headers: ['Authorization']
				},
				tools: { 'claude-code': { status: 'same' }, cursor: { status: 'missing' }, codex: { status: 'missing' } }
			}
		])
	})

	test('the table names each tool, each server, and how an entry differs', async () => {
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.codex/config.toml', CODEX)
		const { code, stdout } = await runMcp(['list'])
		expect(code).toBe(0)
		expect(stdout).toMatch(/server\s+claude-code\s+codex/)
		expect(stdout).toMatch(/github\s+same\s+differs: args/)
		expect(stdout).toMatch(/sentry\s+same\s+missing/)
		expect(stdout).toContain('GITHUB_PERSONAL_ACCESS_TOKEN')
		expect(stdout).not.toContain('ghp_abcdefghij')
		expect(stdout).not.toContain('s3cr3t')
	})

	test('a file that does not parse is named, the others still listed; --tool limits the columns', async () => {
		put(home(), '.claude.json', CLAUDE)
		put(home(), '.gemini/settings.json', '{ "mcpServers": { ')
		const all = await runMcp(['list', '--json'])
		expect(JSON.parse(all.stdout).unreadable).toEqual([
			{ tool: 'gemini-cli', file: '~/.gemini/settings.json', why: 'not valid JSON' }
		])
		const one = JSON.parse((await runMcp(['list', '--json', '--tool', 'claude-code'])).stdout)
		expect(one.tools).toEqual(['claude-code'])
	})

	test('no server anywhere says how to add one', async () => {
		const { code, stdout } = await runMcp(['list'])
		expect(code).toBe(0)
		expect(stdout).toContain('cfgsync mcp add')
	})
})
