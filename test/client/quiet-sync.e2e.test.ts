import { beforeAll, describe, expect, test } from 'bun:test'
import { join, resolve } from 'node:path'
import { serversOfThisFile, type Server } from '../support/harness'
import { login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'

/**
 * A sync that nobody needed changes nothing (docs/sync-model.md): once the
 * machines agree, more runs of sync and pull on any of them make no new
 * version and rewrite no file — whatever order each machine added its keys in.
 * Here the race only two processes show (a tool rewriting its file while the
 * compiled client pulls); the rest runs in process (quiet-sync-in-process.test.ts).
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
beforeAll(async () => {
	;({ server, ada } = await serverWithUsers(servers))
}, 60_000)

async function machines(count: number): Promise<Machine[]> {
	const list = Array.from({ length: count }, () => machine(server))
	for (const [i, m] of list.entries())
		expect((await login(m, ada, `q${i}-${Math.random().toString(36).slice(2, 8)}`)).code).toBe(0)
	return list
}

const claudeJson = (mcpServers: Record<string, unknown>, rest: Record<string, unknown> = {}) =>
	`${JSON.stringify({ numStartups: 7, ...rest, mcpServers }, null, 2)}\n`

const server1 = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] }

describe('a sync nobody needed changes nothing', () => {
	test("~/.claude.json rewritten by Claude Code every few milliseconds: pulls of other machines' MCP servers never write over the tool's own update", async () => {
		const name = 'q2'
		const [a, b] = (await machines(2)) as [Machine, Machine]
		a.file('.claude.json', claudeJson({ fs: server1 }))
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		b.file('.claude.json', claudeJson({ fs: server1 }, { userID: 'b' }))
		expect((await b.cfgsync(['pull', 'claude-code', '--name', name, '--yes'])).code).toBe(0)

		const stop = join(b.home, 'stop-writer')
		const writer = Bun.spawn(
			[
				process.execPath,
				resolve(import.meta.dir, '../support/fixtures/claude-writer.ts'),
				join(b.home, '.claude.json'),
				stop
			],
			{ stdout: 'pipe', stderr: 'pipe' }
		)
		const servers: Record<string, unknown> = { fs: server1 }
		try {
			for (let i = 1; i <= 20; i++) {
				servers[`s${i}`] = { type: 'http', url: `https://mcp.example/${i}` }
				a.file('.claude.json', claudeJson(servers))
				expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
				const pulled = await b.cfgsync(['pull', 'claude-code', '--name', name, '--yes'])
				expect({ code: pulled.code, stderr: pulled.stderr }).toMatchObject({ code: 0 })
			}
		} finally {
			b.file('stop-writer', '')
		}
		const report = JSON.parse(await new Response(writer.stdout).text())
		await writer.exited
		expect(report.count).toBeGreaterThan(0)
		// Between the last read and the rename there are microseconds no file system call closes: on a loaded
		// machine a few of twenty pulls can fall in them; the read-merge-write cfgsync did before lost 19 of 20.
		expect(report.lost).toBeLessThanOrEqual(3)
	}, 120_000)
})
