import { beforeAll, describe, expect, test } from 'bun:test'
import { login, type Machine } from '../support/client/machines'
import { inProcessWorld, type User, type World } from '../support/client/in-process'

/**
 * A sync that nobody needed changes nothing (docs/sync-model.md): once the
 * machines agree, more runs of sync and pull on any of them make no new
 * version and rewrite no file — whatever order each machine added its keys in.
 * In process (test/support/client/in-process.ts); a tool rewriting its file
 * during a pull, two processes at once, stays in quiet-sync.e2e.test.ts.
 */

let world: World
let ada: User
beforeAll(async () => {
	world = inProcessWorld()
	ada = await world.user('team', 'ada')
})

async function machines(count: number): Promise<Machine[]> {
	const list = Array.from({ length: count }, () => world.machine())
	for (const [i, m] of list.entries())
		expect((await login(m, ada, `q${i}-${Math.random().toString(36).slice(2, 8)}`)).code).toBe(0)
	return list
}

const latest = async (tool: string, name: string): Promise<number> =>
	(await world.api('GET', `/api/configs/latest?name=${name}&tool=${tool}`, ada.key)).body.version

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

	test("each machine keeps its formatting: 4 spaces and BOM+CRLF stay through first contact and the other machine's changes; nothing is sent back for it", async () => {
		const name = 'q3'
		const [a, b, c] = (await machines(3)) as [Machine, Machine, Machine]
		const path = '.config/Code/User/settings.json'
		const tabs = (value: unknown) => `${JSON.stringify(value, null, '\t')}\n`
		const spaces = (value: unknown) => `${JSON.stringify(value, null, 4)}\n`
		const windows = (value: unknown) => `\uFEFF${JSON.stringify(value, null, 2).replace(/\n/g, '\r\n')}\r\n`
		const first = { 'editor.tabSize': 2, 'editor.fontSize': 14 }
		a.file(path, tabs(first))
		expect((await a.cfgsync(['push', 'vscode', '--name', name])).code).toBe(0)
		b.file(path, spaces(first))
		c.file(path, windows(first))
		for (const m of [b, c]) expect((await m.cfgsync(['sync', 'vscode', '--name', name, '--yes'])).code).toBe(0)
		expect(b.file(path)).toBe(spaces(first))
		expect(c.file(path)).toBe(windows(first))
		const versions = await latest('vscode', name)
		expect(versions).toBe(1)

		const second = { ...first, 'editor.wordWrap': 'on' }
		a.file(path, tabs(second))
		expect((await a.cfgsync(['sync', 'vscode', '--name', name])).code).toBe(0)
		for (const m of [b, c, b, c]) expect((await m.cfgsync(['sync', 'vscode', '--name', name, '--yes'])).code).toBe(0)
		expect(b.file(path)).toBe(spaces(second))
		expect(c.file(path)).toBe(windows(second))
		expect(await latest('vscode', name)).toBe(2)
	}, 60_000)
})
