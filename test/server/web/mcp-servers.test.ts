// docs/web.md, a config's page: the MCP servers its files hold (issue 41 point 8, docs/client.md "MCP servers in every tool"),
// each with its name, transport and command or url, read only and never showing a secret.
import { describe, expect, test } from 'bun:test'
import { push, textOf, webApp } from '../../support/web'

const ENV_SECRET = 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'
const QUERY_SECRET = 'k3y-0123456789abcdef0123'
const URL_PASSWORD = 's3cretpassw0rd'
const HEADER_SECRET = 'Bearer abcdef0123456789abcdef'
const ARG_SECRET = 'sk-ant-0123456789abcdefghij'

const CODEX = `model = "o3"

[mcp_servers.github]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-github", "--token", "${ARG_SECRET}"]

[mcp_servers.github.env]
GITHUB_TOKEN = "${ENV_SECRET}"

[mcp_servers.search]
url = "https://search.example.com/mcp?api_key=${QUERY_SECRET}&region=eu"
`

const CLAUDE = `{
  // servers this user runs
  "mcpServers": {
    "files": { "type": "stdio", "command": "node", "args": ["server.js", "--root", "/home/a"] },
    "tickets": {
      "type": "http",
      "url": "https://bot:${URL_PASSWORD}@tickets.example.com/mcp",
      "headers": { "Authorization": "${HEADER_SECRET}" }
    }
  }
}
`

describe("a config's page lists the MCP servers its files hold (docs/web.md)", () => {
	test('name, transport and command or url of every server, in Codex TOML and Claude JSON; no secret value', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const id = await push(
			w,
			alice,
			{ files: { '.codex/config.toml': CODEX, '.claude.json#mcpServers': CLAUDE } },
			{ name: 'main', tool: 'codex' }
		)
		const browser = await w.signIn(alice)
		const page = await w.get(`/configs/${id}`, browser)
		expect(page.status).toBe(200)
		expect(page.html).toContain('<h3 id="mcp-servers">')
		const rest = page.html.slice(page.html.indexOf('<h3 id="mcp-servers">'))
		const section = rest.slice(0, rest.indexOf('</section>'))
		const text = textOf(section)
		for (const shown of [
			'github',
			'npx -y @modelcontextprotocol/server-github --token',
			'GITHUB_TOKEN',
			'search',
			'https://search.example.com/mcp?api_key=',
			'region=eu',
			'files',
			'node server.js --root /home/a',
			'tickets',
			'tickets.example.com/mcp',
			'Authorization',
			'stdio',
			'HTTP',
			'.codex/config.toml',
			'.claude.json'
		])
			expect(text).toContain(shown)
		for (const secret of [ENV_SECRET, QUERY_SECRET, URL_PASSWORD, HEADER_SECRET, 'abcdef0123456789abcdef', ARG_SECRET])
			expect(section).not.toContain(secret)
		// The data block below still shows the files as pushed: only the MCP table masks.
		expect(page.html.indexOf('<h3 id="mcp-servers">')).toBeGreaterThan(page.html.indexOf('<h2 id="current-data">'))
	})

	test('a config without MCP servers, or with a file that does not parse, has no section and no error', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const id = await push(w, alice, { files: { '.codex/config.toml': 'model = [broken', '.cursor/mcp.json': '{}' } })
		const browser = await w.signIn(alice)
		const page = await w.get(`/configs/${id}`, browser)
		expect(page.status).toBe(200)
		expect(page.html).not.toContain('mcp-servers')
	})
})
