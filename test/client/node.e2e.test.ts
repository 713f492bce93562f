import { beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { emptyDir, serversOfThisFile, type Server } from '../support/harness'
import { login, machine, nodeBundle, serverWithUsers, type User } from '../support/client/machines'

/**
 * docs/client.md: the client also ships as one bundled file that runs on Node
 * 20 or later. Bundled here for Node (as that package will be) and run with
 * `node` against the compiled server: it must use no Bun API.
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
let bundle: string
beforeAll(async () => {
	;({ server, ada } = await serverWithUsers(servers))
	const out = emptyDir()
	bundle = await nodeBundle(out)
}, 60_000)

describe('the client bundled for Node', () => {
	test('uses no Bun API and syncs, merges and settles a conflict under node', async () => {
		expect(readFileSync(bundle, 'utf8')).not.toMatch(/\bBun\.[A-Za-z]/)
		const node = { command: ['node', bundle] }
		const a = machine(server, node)
		const b = machine(server, node)
		const version = Bun.spawnSync(['node', '--version']).stdout.toString().trim()
		expect(Number(/^v(\d+)/.exec(version)?.[1])).toBeGreaterThanOrEqual(20)
		expect((await login(a, ada, 'node-a')).code).toBe(0)
		expect((await login(b, ada, 'node-b')).code).toBe(0)
		a.file('.claude/settings.json', '{\n  "a": 1,\n  "b": 1\n}\n')
		expect((await a.cfgsync(['push', 'claude-code', '--name', 'node'])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'claude-code', '--name', 'node'])).code).toBe(0)
		a.file('.claude/settings.json', '{\n  "a": 2,\n  "b": 1\n}\n')
		await a.cfgsync(['push', 'claude-code', '--name', 'node'])
		b.file('.claude/settings.json', '{\n  "a": 1,\n  "b": 2\n}\n')
		const merged = await b.cfgsync(['sync'])
		expect(merged.code).toBe(0)
		expect(b.file('.claude/settings.json')).toBe('{\n  "a": 2,\n  "b": 2\n}\n')
		expect((await a.cfgsync(['sync'])).code).toBe(0)
		expect(a.file('.claude/settings.json')).toBe('{\n  "a": 2,\n  "b": 2\n}\n')
		a.file('.claude/settings.json', '{"a": 3, "b": 2}\n')
		b.file('.claude/settings.json', '{"a": 4, "b": 2}\n')
		expect((await a.cfgsync(['sync'])).code).toBe(0)
		expect((await b.cfgsync(['status'])).code).toBe(3)
		expect((await b.cfgsync(['pull', 'claude-code', '--name', 'node'])).code).toBe(3)
		expect((await b.cfgsync(['resolve', 'claude-code', '--name', 'node', '--theirs'])).code).toBe(0)
		expect(b.file('.claude/settings.json')).toBe('{"a": 3, "b": 2}\n')
		expect((await b.cfgsync(['status'])).code).toBe(0)
	}, 60_000)

	test('watch listens to live changes under node: a push from another machine is pulled within 2 s', async () => {
		const node = { command: ['node', bundle] }
		const a = machine(server, node)
		const b = machine(server, node)
		expect((await login(a, ada, 'node-wa')).code).toBe(0)
		expect((await login(b, ada, 'node-wb')).code).toBe(0)
		a.file('.codex/AGENTS.md', 'one\n')
		expect((await a.cfgsync(['push', 'codex', '--name', 'node-watch'])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'codex', '--name', 'node-watch'])).code).toBe(0)
		// The default interval (30 s): only the live stream can bring the change in time.
		const watcher = b.start(['watch', 'codex', '--name', 'node-watch'])
		let stdout = ''
		const reading = (async () => {
			for await (const chunk of watcher.stdout as ReadableStream<Uint8Array>) stdout += new TextDecoder().decode(chunk)
		})()
		try {
			for (const deadline = Date.now() + 15_000; !stdout.includes('Watching'); ) {
				if (Date.now() > deadline) throw new Error(`watch did not start: ${stdout}`)
				await Bun.sleep(50)
			}
			await Bun.sleep(500)
			a.file('.codex/AGENTS.md', 'two\n')
			expect((await a.cfgsync(['push', 'codex', '--name', 'node-watch'])).code).toBe(0)
			const pushed = Date.now()
			while (b.file('.codex/AGENTS.md') !== 'two\n' && Date.now() - pushed < 2000) await Bun.sleep(50)
			expect(b.file('.codex/AGENTS.md')).toBe('two\n')
		} finally {
			watcher.kill('SIGINT')
		}
		expect(await watcher.exited).toBe(0)
		await reading
		expect(stdout).toContain('Stopped.')
	}, 60_000)
})
