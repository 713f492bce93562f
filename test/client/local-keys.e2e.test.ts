import { beforeAll, describe, expect, test } from 'bun:test'
import { api, emptyDir, serversOfThisFile, type Server } from '../support/harness'
import { login, machine, type Machine, nodeBundle, serverWithUsers, type User } from '../support/client/machines'
import { Report } from '../support/client/json-shapes'

/**
 * Settings that stay on one machine (docs/sync-model.md), end to end with the
 * compiled client and the client bundled for Node: a font size kept per
 * machine through pushes and pulls while the other keys sync; a key local
 * on every machine (--everywhere) on a third machine; VS Code's own
 * settingsSync.ignoredSettings; a team member's model surviving team pulls;
 * --remove sharing a key again.
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
let cy: User
let bundle: string
beforeAll(async () => {
	;({ server, ada, cy } = await serverWithUsers(servers))
	bundle = await nodeBundle(emptyDir())
}, 60_000)

const VS = '.config/Code/User/settings.json'
const CLAUDE = '.claude/settings.json'
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
const read = (m: Machine, path: string) => JSON.parse(m.file(path) as string)

const ok = async (m: Machine, args: string[], options?: { stdin?: string }) => {
	const result = await m.cfgsync(args, options)
	if (result.code !== 0)
		throw new Error(`cfgsync ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`)
	return result
}

const serverFiles = async (user: User, tool: string, name: string, teamId?: string) =>
	(
		(
			await api(
				server,
				'GET',
				`/api/configs/latest?name=${name}&tool=${tool}${teamId ? `&teamId=${teamId}` : ''}`,
				user.key
			)
		).body as { data: { files: Record<string, string> } }
	).data.files

for (const [runtime, command] of [
	['the compiled client', undefined],
	['Node', 'node']
] as const) {
	describe(`local keys on ${runtime}`, () => {
		const on = () => machine(server, command ? { command: [command, bundle] } : {})

		test('a font size stays per machine through pushes and pulls while the other keys sync; --remove shares it again', async () => {
			const name = `font-${command ?? 'bin'}`
			const [a, b] = [on(), on()]
			await login(a, ada, `${name}-a`)
			await login(b, ada, `${name}-b`)
			a.file(VS, json({ 'editor.fontSize': 14, 'workbench.colorTheme': 'Light' }))
			await ok(a, ['push', 'vscode', '--name', name])
			await ok(b, ['pull', 'vscode', '--name', name])
			await ok(b, ['local', 'vscode', '--name', name, 'editor.fontSize'])
			b.file(VS, json({ 'editor.fontSize': 20, 'workbench.colorTheme': 'Dark' }))
			await ok(b, ['sync', 'vscode', '--name', name])
			expect(JSON.parse((await serverFiles(ada, 'vscode', name))['@Code/User/settings.json'] as string)).toEqual({
				'editor.fontSize': 14,
				'workbench.colorTheme': 'Dark'
			})
			a.file(VS, json({ 'editor.fontSize': 12, 'workbench.colorTheme': 'Light', 'editor.wordWrap': 'on' }))
			await ok(a, ['sync', 'vscode', '--name', name])
			expect(read(a, VS)).toEqual({ 'editor.fontSize': 12, 'workbench.colorTheme': 'Dark', 'editor.wordWrap': 'on' })
			await ok(b, ['pull', 'vscode', '--name', name])
			expect(read(b, VS)).toEqual({ 'editor.fontSize': 20, 'workbench.colorTheme': 'Dark', 'editor.wordWrap': 'on' })
			// Node starts slowly: the rest, the same code, runs on the compiled client only.
			if (command) return

			// status counts it, diff leaves it out, --json lists it.
			const status = await ok(b, ['status', 'vscode', '--name', name])
			expect(status.stdout).toContain('in sync')
			expect(status.stdout).toContain('1 key stays on this machine')
			expect((await b.cfgsync(['diff', 'vscode', '--name', name, '--exit-code'])).code).toBe(0)
			const listed = JSON.parse((await ok(b, ['local', 'vscode', '--name', name, '--json'])).stdout)
			expect(listed.local).toEqual([
				{ path: '@Code/User/settings.json', file: `~/${VS}`, key: 'editor.fontSize', origin: 'here' }
			])
			const report = JSON.parse((await ok(b, ['sync', 'vscode', '--name', name, '--json'])).stdout)[0]
			expect(Report.parse(report).local.map((l) => l.key)).toEqual(['editor.fontSize'])
			expect((await ok(b, ['local', 'vscode', '--name', name])).stdout).toContain('editor.fontSize')
			await ok(b, ['local', 'vscode', '--name', name, '~/.config/Code/User/keybindings.json'])
			expect((await ok(b, ['status', 'vscode', '--name', name])).stdout).toContain(
				'1 key and 1 whole file stay on this machine'
			)

			// A key inside a list entry, or not a key at all: usage errors that say why.
			b.file(VS, json({ ...read(b, VS), 'files.exclude.list': [{ a: 1 }] }))
			const inList = await b.cfgsync(['local', 'vscode', '--name', name, 'files.exclude.list.0.a'])
			expect({ code: inList.code, list: inList.stderr.includes('inside a list entry') }).toEqual({
				code: 2,
				list: true
			})
			expect((await b.cfgsync(['local', 'vscode', '--name', name, 'a..b'])).code).toBe(2)
			// Inside a TOML inline table a key cannot be kept by editing its line: refused, naming what can be.
			b.file('.codex/config.toml', '# mine\n[mcp_servers.db]\nenv = { TOKEN = "t" }\n')
			const inline = await b.cfgsync(['local', 'codex', '--name', name, 'mcp_servers.db.env.TOKEN'])
			expect({ code: inline.code, why: inline.stderr.includes('make mcp_servers.db.env local instead') }).toEqual({
				code: 2,
				why: true
			})

			// Shared again: this machine's value is now a change like any other, sent by the next sync.
			await ok(b, ['local', 'vscode', '--name', name, '--remove', 'editor.fontSize'])
			await ok(b, ['sync', 'vscode', '--name', name])
			await ok(a, ['sync', 'vscode', '--name', name])
			expect(read(a, VS)['editor.fontSize']).toBe(20)
		}, 60_000)
	})
}

describe('local keys for everyone, and the editor’s own list', () => {
	test('--everywhere records the key in the config: a third machine keeps its own font size', async () => {
		const [a, c] = [machine(server), machine(server)]
		await login(a, ada, 'every-a')
		await login(c, ada, 'every-c')
		a.file(VS, json({ 'editor.fontSize': 14, 'workbench.colorTheme': 'Light' }))
		await ok(a, ['push', 'vscode', '--name', 'every'])
		const made = await ok(a, ['local', 'vscode', '--name', 'every', '--everywhere', 'editor.fontSize'])
		expect(made.stdout).toContain('Local on every machine')
		const files = await serverFiles(ada, 'vscode', 'every')
		expect(JSON.parse(files['.cfgsync/local-keys.json'] as string)).toEqual({
			local: [{ file: '@Code/User/settings.json', path: ['editor.fontSize'] }]
		})
		// A new machine with its own size: no conflict, its size stays, the theme arrives.
		c.file(VS, json({ 'editor.fontSize': 30 }))
		await ok(c, ['pull', 'vscode', '--name', 'every'])
		expect(read(c, VS)).toEqual({ 'editor.fontSize': 30, 'workbench.colorTheme': 'Light' })
		expect(c.exists('.cfgsync/local-keys.json')).toBe(false)
		c.file(VS, json({ 'editor.fontSize': 31, 'workbench.colorTheme': 'Dark' }))
		await ok(c, ['sync', 'vscode', '--name', 'every'])
		await ok(a, ['sync', 'vscode', '--name', 'every'])
		expect(read(a, VS)).toEqual({ 'editor.fontSize': 14, 'workbench.colorTheme': 'Dark' })
		const listed = JSON.parse((await ok(c, ['local', 'vscode', '--name', 'every', '--json'])).stdout)
		expect(listed.local.map((l: { origin: string }) => l.origin)).toEqual(['everywhere'])
		// --remove without --everywhere says where the key is recorded; with it, the list loses it.
		const refused = await c.cfgsync(['local', 'vscode', '--name', 'every', '--remove', 'editor.fontSize'])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain('--everywhere --remove')
		await ok(c, ['local', 'vscode', '--name', 'every', '--everywhere', '--remove', 'editor.fontSize'])
		expect((await serverFiles(ada, 'vscode', 'every'))['.cfgsync/local-keys.json']).toBeUndefined()
	}, 60_000)

	test("VS Code's settingsSync.ignoredSettings keeps its keys per machine", async () => {
		const [a, b] = [machine(server), machine(server)]
		await login(a, ada, 'ignored-a')
		await login(b, ada, 'ignored-b')
		const shared = { 'settingsSync.ignoredSettings': ['window.zoomLevel'], 'window.zoomLevel': 0, 'editor.tabSize': 2 }
		a.file(VS, json(shared))
		await ok(a, ['push', 'vscode', '--name', 'ignored'])
		await ok(b, ['pull', 'vscode', '--name', 'ignored'])
		b.file(VS, json({ ...shared, 'window.zoomLevel': 3, 'editor.tabSize': 4 }))
		await ok(b, ['sync', 'vscode', '--name', 'ignored'])
		await ok(a, ['sync', 'vscode', '--name', 'ignored'])
		expect(read(a, VS)).toEqual({ ...shared, 'editor.tabSize': 4 })
		expect(read(b, VS)['window.zoomLevel']).toBe(3)
	}, 60_000)
})

describe("a team member's overlay", () => {
	test("a member's own model survives every team pull while the team's other keys flow", async () => {
		const [owner, member] = [machine(server), machine(server)]
		await login(owner, ada, 'team-o')
		await login(member, cy, 'team-m')
		await ok(owner, ['team', 'create', 'overlay'])
		await ok(owner, ['team', 'invite', 'overlay', 'cy', '--role', 'member'])
		await ok(member, ['invitations', 'accept', 'overlay'])
		owner.file(CLAUDE, json({ model: 'sonnet', theme: 'dark' }))
		await ok(owner, ['push', 'claude-code', '--team', 'overlay', CLAUDE])
		member.file(CLAUDE, json({ model: 'opus' }))
		await ok(member, ['local', 'claude-code', '--team', 'overlay', 'model'])
		await ok(member, ['pull', 'claude-code', '--team', 'overlay', '--yes'])
		expect(read(member, CLAUDE)).toEqual({ model: 'opus', theme: 'dark' })
		owner.file(CLAUDE, json({ model: 'haiku', theme: 'dark', verbose: true }))
		await ok(owner, ['push', 'claude-code', '--team', 'overlay'])
		await ok(member, ['sync', '--yes'])
		expect(read(member, CLAUDE)).toEqual({ model: 'opus', theme: 'dark', verbose: true })
		const status = await ok(member, ['status', 'claude-code', '--team', 'overlay'])
		expect(status.stdout).toContain('in sync')
	}, 60_000)
})

describe('offline', () => {
	// Last in the file: it stops the server.
	test("this machine's own list works without the server; only --everywhere needs it", async () => {
		const m = machine(server)
		await login(m, ada, 'offline')
		m.file(VS, json({ 'editor.fontSize': 11 }))
		await server.stop()
		const made = await m.cfgsync(['local', 'vscode', 'editor.fontSize'])
		expect({ code: made.code, stdout: made.stdout }).toMatchObject({ code: 0 })
		expect(made.stderr).toContain('not known offline')
		const listed = await m.cfgsync(['local', 'vscode'])
		expect(listed.stdout).toContain('editor.fontSize')
		expect((await m.cfgsync(['local', 'vscode', '--everywhere', 'editor.tabSize'])).code).toBe(1)
	}, 30_000)
})
