import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, emptyDir, serversOfThisFile, type Server } from '../support/harness'
import { login, machine, type Machine, nodeBundle, serverWithUsers, type User } from '../support/client/machines'

/**
 * `cfgsync mcp` end to end (docs/client.md, "MCP servers in every tool"),
 * on the compiled client and on Node: two machines, three tools each, with
 * realistic files (a ~/.claude.json full of Claude Code's own state, a
 * commented config.toml with another server, a JSONC settings.json). A
 * server added on one machine reaches the other with a sync, `mcp list
 * --json` is the same on both, the secret given to `--env KEY` is in no
 * version on the server, and a team's server is held for a member's review.
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
let ben: User
let cy: User
let bundle: string
beforeAll(async () => {
	;({ server, ada, ben, cy } = await serverWithUsers(servers))
	bundle = await nodeBundle(emptyDir())
}, 60_000)

const ok = async (m: Machine, args: string[], options?: { stdin?: string }) => {
	const result = await m.cfgsync(args, options)
	if (result.code !== 0)
		throw new Error(`cfgsync ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`)
	return result
}

const claudeJson = (user: string, startups: number) => `{
  "numStartups": ${startups},
  "installMethod": "global",
  "autoUpdates": true,
  "tipsHistory": { "new-user-warmup": 7, "memory-command": 12 },
  "userID": "${user}-4b8e0c",
  "projects": {
    "/home/${user}/src/api": { "allowedTools": [], "history": [{ "display": "fix the tests" }], "mcpServers": {}, "hasTrustDialogAccepted": true }
  },
  "oauthAccount": { "emailAddress": "${user}@example.com", "organizationRole": "admin" },
  "cachedChangelog": "# Changelog\\n\\n## 1.0.0"
}
`
const CODEX = `# Codex, by hand
model = "o3"
approval_policy = "on-request"

# The docs server every project uses
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"] # pinned on purpose

[profiles.fast]
model = "o4-mini"
`
const GEMINI = `{
  // Gemini CLI: look and servers
  "theme": "GitHub",
  "mcpServers": {
    "docs": { "command": "npx", "args": ["-y", "docs-mcp"] } // same as Codex
  },
}
`
const GITHUB = ['--', 'npx', '-y', '@modelcontextprotocol/server-github']

/** Every version of every config of the user, as one text. */
async function everyVersion(user: User): Promise<string> {
	const configs = (await api(server, 'GET', '/api/configs', user.key)).body as { id: string }[]
	let all = ''
	for (const config of configs)
		all += JSON.stringify((await api(server, 'GET', `/api/configs/${config.id}/versions`, user.key)).body)
	return all
}

for (const [runtime, command] of [
	['the compiled client', undefined],
	['Node', 'node']
] as const) {
	describe(`cfgsync mcp on ${runtime}`, () => {
		const on = () => machine(server, command ? { command: [command, bundle] } : {})
		const tag = command ?? 'bin'

		test('added on one machine, synced to the other: the same list on both, the secret never on the server', async () => {
			// One account per runtime: `sync --all-remote` takes every config of the account.
			const user = command ? cy : ada
			const [a, b] = [on(), on()]
			await ok(a, ['login', '--user', user.name, '--device', `mcp-a-${tag}`, '--password-stdin'], {
				stdin: `${user.password}\n`
			})
			await ok(b, ['login', '--user', user.name, '--device', `mcp-b-${tag}`, '--password-stdin'], {
				stdin: `${user.password}\n`
			})
			const name = ['--name', `mcp-${tag}`]
			a.file('.claude.json', claudeJson('ada', 41))
			a.file('.claude/settings.json', '{\n  "theme": "dark"\n}\n')
			a.file('.codex/config.toml', CODEX)
			a.file('.gemini/settings.json', GEMINI)
			for (const tool of ['claude-code', 'codex', 'gemini-cli']) await ok(a, ['push', tool, ...name])
			b.file('.claude.json', claudeJson('ada', 7))
			await ok(b, ['sync', '--all-remote', '--yes'])
			expect(b.file('.codex/config.toml')).toBe(CODEX)

			const tokenA = 'ghp_AAAAaaaa0123456789bbbbBBBBccccCCCC0123'
			const added = await ok(
				a,
				[
					'mcp',
					'add',
					'github',
					'--env',
					'GITHUB_PERSONAL_ACCESS_TOKEN',
					'--env',
					'GITHUB_TOOLSETS=repos,issues',
					...GITHUB
				],
				{
					stdin: `${tokenA}\n`
				}
			)
			expect(added.stdout).toContain('Added github in claude-code')
			expect(added.stdout).toContain('Added github in codex')
			expect(added.stdout).toContain('Added github in gemini-cli')
			expect(added.stdout + added.stderr).not.toContain(tokenA)
			await ok(a, ['mcp', 'add', 'search', '--url', 'https://search.example.com/mcp', '--header', 'X-Team=platform'])
			// Each file keeps what it held: Claude Code's state, Codex's comments and other server, Gemini's comments.
			const claude = a.file('.claude.json') as string
			expect(JSON.parse(claude).projects['/home/ada/src/api'].history).toEqual([{ display: 'fix the tests' }])
			expect(JSON.parse(claude).mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN).toBe(tokenA)
			expect((a.file('.codex/config.toml') as string).startsWith(CODEX.trimEnd())).toBe(true)
			expect(a.file('.gemini/settings.json')).toContain('// same as Codex')

			await ok(a, ['sync'])
			await ok(b, ['sync', '--yes'])
			// The other machine has the servers in its three tools, without a's token; it gives its own.
			expect(JSON.parse(b.file('.claude.json') as string).mcpServers.github.env).toEqual({
				GITHUB_TOOLSETS: 'repos,issues'
			})
			expect(JSON.parse(b.file('.claude.json') as string).numStartups).toBe(7)
			const tokenB = 'ghp_BBBBbbbb0123456789ccccCCCCddddDDDD0123'
			await ok(
				b,
				[
					'mcp',
					'add',
					'github',
					'--yes',
					'--env',
					'GITHUB_PERSONAL_ACCESS_TOKEN',
					'--env',
					'GITHUB_TOOLSETS=repos,issues',
					...GITHUB
				],
				{
					stdin: `${tokenB}\n`
				}
			)
			await ok(b, ['sync'])
			await ok(a, ['sync'])

			const listA = JSON.parse((await ok(a, ['mcp', 'list', '--json'])).stdout)
			const listB = JSON.parse((await ok(b, ['mcp', 'list', '--json'])).stdout)
			expect(listB).toEqual(listA)
			expect(listA.tools).toEqual(['claude-code', 'codex', 'gemini-cli'])
			const github = listA.servers.find((s: { name: string }) => s.name === 'github')
			expect(github.server.env).toEqual(['GITHUB_PERSONAL_ACCESS_TOKEN', 'GITHUB_TOOLSETS'])
			expect(github.tools).toEqual({
				'claude-code': { status: 'same' },
				codex: { status: 'same' },
				'gemini-cli': { status: 'same' }
			})
			const docs = listA.servers.find((s: { name: string }) => s.name === 'docs')
			expect(docs.tools['claude-code']).toEqual({ status: 'missing' })
			// Each machine kept its own token; neither is in any version on the server.
			expect(JSON.parse(a.file('.claude.json') as string).mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN).toBe(
				tokenA
			)
			expect(JSON.parse(b.file('.claude.json') as string).mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN).toBe(
				tokenB
			)
			const stored = await everyVersion(user)
			expect(stored).toContain('server-github')
			expect(stored).not.toContain(tokenA)
			expect(stored).not.toContain(tokenB)
		}, 120_000)

		test("a team's server: added by an owner, held for a member's review; a secret value refused", async () => {
			const slug = `mcp-team-${tag}`
			const [owner, member] = [on(), on()]
			await login(owner, ada, `${slug}-owner`)
			await login(member, ben, `${slug}-member`)
			await ok(owner, ['team', 'create', slug])
			await ok(owner, ['team', 'invite', slug, 'ben', '--role', 'member'])
			await ok(member, ['invitations', 'accept', slug])
			owner.file('.cursor/mcp.json', '{\n  "mcpServers": {}\n}\n')
			await ok(owner, ['push', 'cursor', '--team', slug, join(owner.home, '.cursor/mcp.json')])
			await ok(member, ['pull', 'cursor', '--team', slug, '--yes'])

			const refused = await owner.cfgsync([
				'mcp',
				'add',
				'linear',
				'--team',
				slug,
				'--allow-secrets',
				'--url',
				'https://mcp.linear.app/mcp',
				'--header',
				'Authorization=Bearer lin_api_0123456789abcdefABCDEF'
			])
			expect(refused.code).toBe(1)
			expect(refused.stderr).toContain('a team config never receives one')
			const byMember = await member.cfgsync([
				'mcp',
				'add',
				'linear',
				'--team',
				slug,
				'--url',
				'https://mcp.linear.app/mcp'
			])
			expect(byMember.code).toBe(1)
			expect(byMember.stderr).toContain('only an owner or admin')

			await ok(owner, ['mcp', 'add', 'linear', '--team', slug, '--url', 'https://mcp.linear.app/mcp'])
			await ok(owner, ['sync'])
			const before = member.file('.cursor/mcp.json')
			const held = await member.cfgsync(['sync'])
			expect(held.code).toBe(1)
			expect(held.stderr).toContain('~/.cursor/mcp.json')
			expect(held.stderr).toContain('https://mcp.linear.app/mcp')
			expect(member.file('.cursor/mcp.json')).toBe(before)
			await ok(member, ['sync', '--yes'])
			expect(
				JSON.parse((await ok(member, ['mcp', 'list', '--json', '--tool', 'cursor'])).stdout).servers.map(
					(s: { name: string }) => s.name
				)
			).toEqual(['linear'])
		}, 120_000)
	})
}
