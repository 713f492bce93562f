import { beforeAll, describe, expect, test } from 'bun:test'
import { api, run, serversOfThisFile, type Server } from '../support/harness'
import { SHAPES, type Shape } from '../support/client/json-shapes'
import { login, machine, serverWithUsers, type Machine, type Result, type User } from '../support/client/machines'

/**
 * Issue 20 "Scripts": every command's --json output is one JSON document of
 * its documented shape (test/support/client/json-shapes.ts, docs/client.md's table), and
 * stderr carries only JSON lines: warnings, then on failure
 * {"error","code"} with the exit status of docs/client.md.
 */

const servers = serversOfThisFile()
let server: Server
let dir: string
let ada: User
let ben: User
beforeAll(async () => {
	;({ server, dir, ada, ben } = await serverWithUsers(servers))
}, 60_000)

const checked = new Set<Shape>()

/** Runs a command with --json and checks stdout against `shape` and every stderr line against warning/error. */
async function shaped(
	m: Machine,
	shape: Shape,
	args: string[],
	options: { stdin?: string; env?: Record<string, string>; code?: number } = {}
): Promise<unknown> {
	const result = await m.cfgsync([...args, '--json'], options)
	expect({ args, code: result.code, stderr: result.stderr }).toMatchObject({ args, code: options.code ?? 0 })
	stderrLines(result)
	const parsed = SHAPES[shape].safeParse(JSON.parse(result.stdout))
	expect({ shape, issues: parsed.success ? [] : parsed.error.issues }).toEqual({ shape, issues: [] })
	checked.add(shape)
	return parsed.data
}

function stderrLines(result: Result): unknown[] {
	const lines = result.stderr.split('\n').filter((line) => line !== '')
	return lines.map((line, i) => {
		const value = JSON.parse(line)
		const last = i === lines.length - 1 && result.code !== 0
		const parsed = (last ? SHAPES.error : SHAPES.warning).safeParse(value)
		expect({ line, ok: parsed.success }).toEqual({ line, ok: true })
		if (parsed.success && 'warning' in parsed.data) checked.add('warning')
		return value
	})
}

/** A failure: exit status and code, one {"error","code"} document on stderr, nothing on stdout. */
async function failing(
	m: Machine,
	args: string[],
	exit: number,
	code: string,
	options: { stdin?: string; env?: Record<string, string> } = {}
) {
	const result = await m.cfgsync([...args, '--json'], options)
	expect({ args, exit: result.code, stdout: result.stdout }).toEqual({ args, exit, stdout: '' })
	const lines = stderrLines(result)
	expect(lines[lines.length - 1]).toMatchObject({ code })
	checked.add('error')
}

describe('--json: one documented shape per command', () => {
	test('account, sync, configs, teams, invitations and the audit log', async () => {
		const a = machine(server)
		const b = machine(server)
		const other = machine(server)
		await shaped(a, 'login', ['login', '--user', 'ada', '--device', 'json-a', '--password-stdin'], {
			stdin: ada.password
		})
		expect((await login(b, ada, 'json-b')).code).toBe(0)
		expect((await login(other, ben, 'json-ben')).code).toBe(0)
		await shaped(a, 'whoami', ['whoami'])
		await shaped(a, 'keys', ['keys'])

		a.file('.claude/settings.json', '{"theme": "dark"}\n')
		a.file('.claude/commands/review.md', 'Review.\n')
		const pushed = (await shaped(a, 'push', ['push', 'claude-code'])) as { pushed: { version: number } }
		expect(pushed.pushed.version).toBe(1)
		await shaped(b, 'pull', ['pull', 'claude-code'])
		await shaped(b, 'status', ['status'])
		b.file('.claude/settings.json', '{"theme": "light"}\n')
		await shaped(b, 'sync', ['sync'])
		a.file('.claude/settings.json', '{"theme": "solarized"}\n')
		// A conflict: exit 3 with the report on stdout and {"error","code":"conflict"} on stderr.
		await shaped(a, 'pull', ['pull', 'claude-code'], { code: 3 })
		await shaped(a, 'sync', ['sync'], { code: 3 })
		await shaped(a, 'resolve', ['resolve', 'claude-code', '--theirs'])
		await shaped(a, 'diff', ['diff', 'claude-code', '--from', '1'])
		await shaped(a, 'local', ['local', 'claude-code', 'theme'])
		await shaped(a, 'local', ['local', 'claude-code'])
		await shaped(a, 'local', ['local', 'claude-code', '--remove', 'theme'])
		await shaped(a, 'list', ['list'])
		await shaped(a, 'history', ['history', 'claude-code'])
		await shaped(a, 'rollback', ['rollback', 'claude-code', '--to', '1'])
		a.file('.claude/settings.json', '{"theme": "not sent"}\n')
		await shaped(a, 'discard', ['discard', 'claude-code', '--yes'])
		a.file('.codex/AGENTS.md', 'x\n')
		a.file('.codex/config.toml', '[mcp_servers.gh.env]\nGITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"\n')
		// A note for the person (a secret-looking value in a personal config) is a {"warning"} line on stderr.
		await shaped(a, 'push', ['push', 'codex', '-n', 'doomed'])
		expect(checked.has('warning')).toBe(true)
		await shaped(a, 'delete', ['delete', 'codex', '-n', 'doomed', '--yes'])

		// watch --json: one object per line for each cycle that changed something.
		b.file('.claude/CLAUDE.md', 'watched\n')
		const watcher = b.start(['watch', 'claude-code', '--interval', '1s', '--json'])
		let out = ''
		const decoder = new TextDecoder()
		const reader = (watcher.stdout as ReadableStream<Uint8Array>).getReader()
		const deadline = Date.now() + 20_000
		while (!out.includes('\n') && Date.now() < deadline) {
			const chunk = await reader.read()
			if (chunk.done) break
			out += decoder.decode(chunk.value)
		}
		watcher.kill('SIGINT')
		await watcher.exited
		const first = SHAPES.watch.safeParse(JSON.parse(out.split('\n')[0] as string))
		expect(first.success ? [] : first.error.issues).toEqual([])
		checked.add('watch')

		await shaped(a, 'team create', ['team', 'create', 'Json', 'Team'])
		await shaped(a, 'team invite', ['team', 'invite', 'json-team', 'ben'])
		await shaped(other, 'invitations', ['invitations'])
		await shaped(other, 'invitations decline', ['invitations', 'decline', 'json-team'])
		await shaped(a, 'team invite', ['team', 'add', 'json-team', 'ben', '--role', 'admin'])
		await shaped(a, 'team role', ['team', 'role', 'json-team', 'ben', 'member'])
		await shaped(other, 'invitations accept', ['invitations', 'accept', 'json-team'])
		await shaped(a, 'team role', ['team', 'role', 'json-team', 'ben', 'admin'])
		await shaped(a, 'team list', ['team', 'list'])
		await shaped(a, 'team list', ['teams'])
		await shaped(a, 'team show', ['team', 'show', 'json-team'])
		await shaped(other, 'team show', ['team', 'show', 'json-team'])
		await shaped(a, 'team rename', ['team', 'rename', 'json-team', 'Json', '--slug', 'json'])
		await shaped(other, 'team leave', ['team', 'leave', 'json'])
		await shaped(a, 'team invite', ['team', 'invite', 'json', 'ben'])
		await shaped(a, 'team remove', ['team', 'remove', 'json', 'ben'])
		await shaped(a, 'log', ['log'])
		await shaped(a, 'log', ['log', '--team', 'json'])
		await shaped(a, 'team delete', ['team', 'delete', 'json', '--yes'])

		await shaped(b, 'keys rename', ['keys', 'rename', 'json-b', 'json', 'b'])
		await shaped(b, 'keys revoke', ['keys', 'revoke', 'json-a'])
		await shaped(b, 'logout', ['logout'])
		await shaped(a, 'logout', ['logout'])

		// Errors: every exit status, as {"error","code"} on stderr.
		await failing(a, ['list'], 4, 'not_logged_in')
		await failing(a, ['pul'], 2, 'usage')
		await failing(a, ['push', 'emacs'], 2, 'usage')
		await failing(a, ['list', '--server', 'example.com'], 2, 'usage')
		await failing(b, ['whoami'], 4, 'not_logged_in')
		await failing(other, ['history', 'vscode'], 1, 'not_found')
		await failing(other, ['team', 'delete', 'nope'], 1, 'not_found')
		await failing(other, ['whoami'], 4, 'unauthorized', { env: { CFGSYNC_API_KEY: `cs_${'2'.repeat(64)}` } })
		await failing(other, ['keys', 'revoke', 'json-ben'], 2, 'confirmation_required')
		const key = (await run(dir, ['key', 'issue', 'ben', '--device', 'json-ci'])).stdout.trim()
		await shaped(machine(server), 'whoami', ['whoami'], { env: { CFGSYNC_API_KEY: key } })
		expect((await api(server, 'GET', '/api/me', key)).status).toBe(200)

		expect([...checked].map(String).sort()).toEqual(Object.keys(SHAPES).sort())
	}, 120_000)
})
