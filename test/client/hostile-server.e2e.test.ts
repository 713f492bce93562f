import { beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { CLI, login, machine, nodeBundle, serverWithUsers, type Machine, type User } from '../support/client/machines'
import { emptyDir, serversOfThisFile, type Server } from '../support/harness'

/**
 * docs/client.md, "A broken or hostile server", on the compiled client and on
 * Node (the npm package's bundle): a pull through a proxy that hangs, stalls
 * after the headers, or floods 600 MB into a config's CLAUDE.md ends with one
 * line naming the server, exit 1, and leaves every file and the sync state as
 * they were; memory stays bounded. A client without these limits hangs (the
 * guard below kills it after a minute) or writes the 600 MB to disk.
 */

const MiB = 1024 * 1024
const FLOOD = 600 * MiB
const GUARD_MS = 60_000

type Mode = 'pass' | 'hang' | 'stall' | 'flood'

const servers = serversOfThisFile()
let server: Server
let ada: User
let proxy: { url: string; mode: Mode; stop: () => void }
let bundle: string

/** A proxy in front of the real server that misbehaves on demand. */
function startProxy(upstream: string) {
	const encode = (text: string) => new TextEncoder().encode(text)
	const state = { mode: 'pass' as Mode }
	const listener = Bun.serve({
		port: 0,
		hostname: '127.0.0.1',
		idleTimeout: 0,
		async fetch(request) {
			const url = new URL(request.url)
			if (state.mode === 'hang') return new Promise<Response>(() => {})
			if (state.mode === 'stall')
				return new Response(
					new ReadableStream({
						start: (controller) => controller.enqueue(encode('{"id":'))
					}),
					{ headers: { 'content-type': 'application/json' } }
				)
			const reply = await fetch(`${upstream}${url.pathname}${url.search}`, {
				method: request.method,
				headers: request.headers,
				body: request.method === 'GET' ? undefined : await request.arrayBuffer(),
				redirect: 'manual'
			})
			if (state.mode === 'flood' && url.pathname === '/api/configs/latest' && reply.status === 200) {
				// The real answer, with 600 MB of "x" inside CLAUDE.md's text, streamed as fast as it is read.
				const text = await reply.text()
				const at = text.indexOf('MARKER')
				const chunk = new Uint8Array(MiB).fill(0x78)
				let sent = -1
				return new Response(
					new ReadableStream(
						{
							pull: (controller) => {
								if (sent === -1) controller.enqueue(encode(text.slice(0, at)))
								else if (sent >= FLOOD) {
									controller.enqueue(encode(text.slice(at)))
									controller.close()
									return
								} else controller.enqueue(chunk)
								sent += sent === -1 ? 1 : MiB
							}
						},
						{ highWaterMark: 0 }
					),
					{ headers: { 'content-type': 'application/json' } }
				)
			}
			const headers = new Headers(reply.headers)
			for (const name of ['content-encoding', 'content-length', 'transfer-encoding']) headers.delete(name)
			return new Response(reply.body, { status: reply.status, headers })
		}
	})
	return {
		url: `http://127.0.0.1:${listener.port}`,
		get mode() {
			return state.mode
		},
		set mode(mode: Mode) {
			state.mode = mode
		},
		stop: () => listener.stop(true)
	}
}

/** Every file under a machine's home with its content's hash: files, backups, state and lock alike. */
function snapshot(home: string): Record<string, string> {
	const out: Record<string, string> = {}
	const visit = (dir: string) => {
		for (const name of readdirSync(dir)) {
			const full = join(dir, name)
			if (statSync(full).isDirectory()) visit(full)
			else out[full.slice(home.length + 1)] = createHash('sha256').update(readFileSync(full)).digest('hex')
		}
	}
	visit(home)
	return out
}

/** Runs the client with a guard: killed after a minute if it has not ended; the peak memory of its process. */
async function guarded(m: Machine, args: string[], env: Record<string, string>) {
	const proc = m.start(args, { env })
	let peak = 0
	const status = `/proc/${proc.pid}/status`
	const sampler = setInterval(() => {
		try {
			const hwm = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(status, 'utf8'))?.[1])
			if (hwm) peak = Math.max(peak, hwm / 1024)
		} catch {
			// ended
		}
	}, 10)
	let killed = false
	const guard = setTimeout(() => {
		killed = true
		proc.kill('SIGKILL')
	}, GUARD_MS)
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout as ReadableStream).text(),
		new Response(proc.stderr as ReadableStream).text(),
		proc.exited
	])
	clearTimeout(guard)
	clearInterval(sampler)
	return { code, stdout, stderr, killed, peakMiB: peak }
}

beforeAll(async () => {
	;({ server, ada } = await serverWithUsers(servers))
	proxy = startProxy(server.url)
	const out = emptyDir()
	bundle = await nodeBundle(out)
}, 60_000)

const clients: [string, () => string[]][] = [
	['the compiled client', () => [CLI]],
	['the client on Node', () => ['node', bundle]]
]

for (const [label, command] of clients) {
	describe(`${label} against a broken or hostile server`, () => {
		test('a hang, a stall and a 600 MB flood each end with one line, exit 1, nothing written', async () => {
			proxy.mode = 'pass'
			const viaProxy = { ...server, url: proxy.url }
			const a = machine(server, { command: command() })
			const b = machine(viaProxy, { command: command() })
			expect((await login(a, ada, 'hostile-a')).code).toBe(0)
			expect((await login(b, ada, 'hostile-b')).code).toBe(0)
			const name = ['--name', `hostile-${label.includes('Node') ? 'node' : 'bun'}`]
			a.file('.claude/CLAUDE.md', 'first MARKER\n')
			expect((await a.cfgsync(['push', 'claude-code', ...name])).code).toBe(0)
			expect((await b.cfgsync(['pull', 'claude-code', ...name])).code).toBe(0)
			expect(b.file('.claude/CLAUDE.md')).toBe('first MARKER\n')
			a.file('.claude/CLAUDE.md', 'second MARKER\n')
			expect((await a.cfgsync(['push', 'claude-code', ...name])).code).toBe(0)

			const before = snapshot(b.home)
			const env = { CFGSYNC_TIMEOUT: '1' }
			for (const mode of ['hang', 'stall'] as const) {
				proxy.mode = mode
				const run = await guarded(b, ['pull', 'claude-code', ...name], env)
				expect({ mode, killed: run.killed, code: run.code, stderr: run.stderr }).toEqual({
					mode,
					killed: false,
					code: 1,
					stderr: `cfgsync: ${proxy.url} did not answer within 1 s: check that the server is running and reachable, then try again (CFGSYNC_TIMEOUT=SECONDS waits longer)\n`
				})
				expect(snapshot(b.home)).toEqual(before)
			}

			proxy.mode = 'flood'
			// 10 s, not 1: on a loaded machine the first 16 MiB can take over a second to arrive, and then
			// the time-out, not the size, would end the pull.
			const flood = await guarded(b, ['pull', 'claude-code', ...name], { CFGSYNC_TIMEOUT: '10' })
			expect({ killed: flood.killed, code: flood.code, stderr: flood.stderr }).toEqual({
				killed: false,
				code: 1,
				stderr: `cfgsync: ${proxy.url} sent an answer larger than 16 MiB, more than any config holds: it was refused and nothing from it was written. Check that ${proxy.url} is your cfgsync server (not a proxy or another service answering for it)\n`
			})
			expect(snapshot(b.home)).toEqual(before)
			// The client's whole process, runtime included, never came near the 600 MB.
			expect(flood.peakMiB).toBeGreaterThan(0)
			expect(flood.peakMiB).toBeLessThan(300)

			// A bad time-out is a usage error before anything is asked of the server.
			const bad = await guarded(b, ['pull', 'claude-code', ...name], { CFGSYNC_TIMEOUT: 'soon' })
			expect(bad.code).toBe(2)
			expect(bad.stderr).toContain('CFGSYNC_TIMEOUT is "soon"')

			// Once the server behaves, the same pull takes the change: the state was never touched.
			proxy.mode = 'pass'
			const pulled = await b.cfgsync(['pull', 'claude-code', ...name], { env })
			expect(pulled.code).toBe(0)
			expect(b.file('.claude/CLAUDE.md')).toBe('second MARKER\n')
			expect(existsSync(join(b.home, '.claude', 'CLAUDE.md'))).toBe(true)
		}, 240_000)
	})
}
