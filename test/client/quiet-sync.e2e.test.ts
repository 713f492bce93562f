import { beforeAll, describe, expect, test } from 'bun:test'
import { api, serversOfThisFile, type Server } from '../support/harness'
import { login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'

/**
 * A sync that nobody needed changes nothing (docs/sync-model.md): once the
 * machines agree, more runs of sync and pull on any of them make no new
 * version and rewrite no file — whatever order each machine added its keys in.
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

const latest = async (tool: string, name: string): Promise<number> =>
	(await api(server, 'GET', `/api/configs/latest?name=${name}&tool=${tool}`, ada.key)).body.version

const claudeJson = (mcpServers: Record<string, unknown>, rest: Record<string, unknown> = {}) =>
	`${JSON.stringify({ numStartups: 7, ...rest, mcpServers }, null, 2)}\n`

const server1 = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] }

describe('a sync nobody needed changes nothing', () => {
	test('~/.claude.json: A adds mcpServers.linear, B adds mcpServers.sentry, both sync: after they agree, more syncs make no version and write no file', async () => {
		const name = 'q1'
		const [a, b] = (await machines(2)) as [Machine, Machine]
		a.file('.claude.json', claudeJson({ fs: server1 }))
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		b.file('.claude.json', claudeJson({ fs: server1 }, { userID: 'b' }))
		expect((await b.cfgsync(['pull', 'claude-code', '--name', name, '--yes'])).code).toBe(0)

		const linear = { type: 'http', url: 'https://mcp.linear.app/mcp' }
		const sentry = { type: 'http', url: 'https://mcp.sentry.dev/mcp' }
		a.file('.claude.json', claudeJson({ fs: server1, linear }))
		b.file('.claude.json', claudeJson({ fs: server1, sentry }, { userID: 'b' }))
		for (const m of [a, b, a, b]) {
			const ran = await m.cfgsync(['sync', 'claude-code', '--name', name, '--yes'])
			expect({ code: ran.code, stderr: ran.stderr }).toMatchObject({ code: 0 })
		}
		const agreed = await latest('claude-code', name)
		const files = [a.file('.claude.json'), b.file('.claude.json')]
		expect(JSON.parse(files[0] as string).mcpServers).toEqual({ fs: server1, linear, sentry })
		expect(Object.keys(JSON.parse(files[0] as string).mcpServers)).toEqual(
			Object.keys(JSON.parse(files[1] as string).mcpServers)
		)
		for (const m of [a, b, a, b, a, b]) {
			const ran = await m.cfgsync(['sync', 'claude-code', '--name', name, '--yes', '--json'])
			expect({ code: ran.code, stderr: ran.stderr }).toMatchObject({ code: 0 })
			expect(JSON.parse(ran.stdout).changes ?? []).toEqual([])
		}
		for (const m of [a, b]) expect((await m.cfgsync(['pull', 'claude-code', '--name', name, '--yes'])).code).toBe(0)
		expect(await latest('claude-code', name)).toBe(agreed)
		expect([a.file('.claude.json'), b.file('.claude.json')]).toEqual(files)
	}, 60_000)
})
