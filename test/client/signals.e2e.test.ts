import { beforeAll, describe, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { api, serversOfThisFile, type Server } from '../support/harness'
import { login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'
import { until } from '../support/eventually'

/**
 * Nothing hangs (docs/sync-model.md): only regular files are read, so a FIFO
 * at a tool's path is skipped with a message, never opened; SIGINT and
 * SIGTERM stop a command (exit 130 / 143) and release the lock, even in the
 * middle of a request the server never answers.
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
beforeAll(async () => {
	;({ server, ada } = await serverWithUsers(servers))
}, 60_000)

const stored = async (name: string) =>
	(await api(server, 'GET', `/api/configs/latest?name=${name}&tool=codex`, ada.key)).body.data.files as Record<
		string,
		string
	>

async function loggedIn(on: Server = server): Promise<Machine> {
	const m = machine(on)
	expect((await login(m, ada, `s-${Math.random().toString(36).slice(2, 8)}`)).code).toBe(0)
	return m
}

/** A proxy that forwards to the server until told to stall: then it never answers a config read. */
function stallingProxy() {
	const state = { stall: false, stalled: 0 }
	const proxy = Bun.serve({
		hostname: '127.0.0.1',
		port: 0,
		idleTimeout: 0,
		async fetch(request) {
			const url = new URL(request.url)
			if (state.stall && url.pathname.startsWith('/api/configs')) {
				state.stalled++
				return new Promise<Response>(() => {})
			}
			const headers = new Headers(request.headers)
			headers.delete('host')
			const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer()
			const answer = await fetch(`${server.url}${url.pathname}${url.search}`, {
				method: request.method,
				headers,
				body,
				decompress: false
			})
			const out = new Headers(answer.headers)
			out.delete('content-length')
			out.delete('transfer-encoding')
			return new Response(answer.body, { status: answer.status, headers: out })
		}
	})
	return { state, server: { ...server, url: `http://127.0.0.1:${proxy.port}` } as Server, stop: () => proxy.stop(true) }
}

describe('nothing hangs', () => {
	test('a FIFO at ~/.codex/AGENTS.md: sync and status finish, name it, never open it; the other file is sent and the server keeps its AGENTS.md', async () => {
		const m = await loggedIn()
		m.file('.codex/config.toml', 'model = "o3"\n')
		m.file('.codex/AGENTS.md', '# agents\n')
		expect((await m.cfgsync(['push', 'codex', '--name', 'fifo'])).code).toBe(0)
		await Bun.$`rm ${join(m.home, '.codex/AGENTS.md')} && mkfifo ${join(m.home, '.codex/AGENTS.md')}`
		m.file('.codex/config.toml', 'model = "o4"\n')
		const synced = await m.cfgsync(['sync', 'codex', '--name', 'fifo'], { env: { CFGSYNC_LOCK_TIMEOUT: '5' } })
		expect(synced.stderr + synced.stdout).toContain('FIFO')
		expect(await stored('fifo')).toEqual({ '.codex/config.toml': 'model = "o4"\n', '.codex/AGENTS.md': '# agents\n' })
		const status = await m.cfgsync(['status', 'codex', '--name', 'fifo'])
		expect(status.stdout + status.stderr).toContain('FIFO')
		expect(existsSync(join(m.home, '.local/state/cfgsync/lock'))).toBe(false)
	}, 60_000)

	for (const [signal, code] of [
		['SIGINT', 130],
		['SIGTERM', 143]
	] as const) {
		test(`${signal} during a request the server never answers: the command stops (exit ${code}) and releases the lock`, async () => {
			const proxy = stallingProxy()
			try {
				const m = await loggedIn(proxy.server)
				m.file('.codex/AGENTS.md', '# agents\n')
				expect((await m.cfgsync(['push', 'codex', '--name', `sig${code}`])).code).toBe(0)
				proxy.state.stall = true
				const proc = m.start(['pull', 'codex', '--name', `sig${code}`], { env: { CFGSYNC_TIMEOUT: '600' } })
				await until(() => proxy.state.stalled > 0)
				proc.kill(signal)
				await proc.exited
				expect(proc.exitCode).toBe(code)
				const lock = join(m.home, '.local/state/cfgsync/lock')
				expect(existsSync(lock)).toBe(false)
				// status, which takes no lock, stops the same way.
				const status = m.start(['status', 'codex', '--name', `sig${code}`], { env: { CFGSYNC_TIMEOUT: '600' } })
				const before = proxy.state.stalled
				await until(() => proxy.state.stalled > before)
				status.kill(signal)
				await status.exited
				expect(status.exitCode).toBe(code)
				// The next command is not kept waiting.
				proxy.state.stall = false
				expect((await m.cfgsync(['pull', 'codex', '--name', `sig${code}`])).code).toBe(0)
			} finally {
				proxy.stop()
			}
		}, 30_000)
	}
})

describe('offline status', () => {
	test('a key local on every machine (--everywhere) is not counted as a change here when the server cannot be asked', async () => {
		const proxy = stallingProxy()
		const m = await loggedIn(proxy.server)
		const path = '.config/Code/User/settings.json'
		m.file(path, '{\n  "editor.fontSize": 14,\n  "editor.tabSize": 2\n}\n')
		expect((await m.cfgsync(['push', 'vscode', '--name', 'offline'])).code).toBe(0)
		expect((await m.cfgsync(['local', 'vscode', '--name', 'offline', '--everywhere', 'editor.fontSize'])).code).toBe(0)
		expect((await m.cfgsync(['sync', 'vscode', '--name', 'offline'])).code).toBe(0)
		m.file(path, '{\n  "editor.fontSize": 20,\n  "editor.tabSize": 2\n}\n')
		const online = await m.cfgsync(['status', 'vscode', '--name', 'offline'])
		expect({ code: online.code, out: online.stdout }).toMatchObject({ code: 0 })
		proxy.stop()
		const offline = await m.cfgsync(['status', 'vscode', '--name', 'offline'])
		expect(offline.stdout).toContain('server unreachable')
		expect(offline.stdout).not.toContain('changed here')
	}, 60_000)
})
