import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { api, serversOfThisFile, startServer, type Server } from '../support/harness'
import { login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'
import { type Recorded, recordingProxy } from '../support/client/proxy'

/**
 * docs/client.md "cfgsync watch": watch listens to the server's live changes
 * (GET /api/events) and pulls a change within a second, sends no other
 * request while nothing changes, reconnects after an outage saying so once,
 * stops with exit 4 when its key is revoked, and polls (If-None-Match) against
 * a server without live changes or with --poll. Against the compiled client
 * and server; each config has its own name so the tests share one server.
 */

const servers = serversOfThisFile()
let server: Server
let dir: string
let ben: User
let ada: User
beforeAll(async () => {
	;({ server, dir, ben, ada } = await serverWithUsers(servers))
}, 60_000)

async function loggedIn(user: User, to: Server = server): Promise<Machine> {
	const m = machine(to)
	expect((await login(m, user, `w-${Math.random().toString(36).slice(2, 8)}`)).code).toBe(0)
	return m
}

/** A running watch and what it has printed so far. */
function watching(m: Machine, args: string[], env: Record<string, string> = {}) {
	const proc = m.start(['watch', ...args], { env }) as Subprocess<'ignore', 'pipe', 'pipe'>
	const out = { stdout: '', stderr: '' }
	const decoder = new TextDecoder()
	const reading = Promise.all([
		(async () => {
			for await (const chunk of proc.stdout) out.stdout += decoder.decode(chunk)
		})(),
		(async () => {
			for await (const chunk of proc.stderr) out.stderr += decoder.decode(chunk)
		})()
	])
	return {
		proc,
		out,
		async stop(): Promise<number> {
			proc.kill('SIGINT')
			const code = await proc.exited
			await reading
			return code
		}
	}
}

async function until(what: string, check: () => Promise<boolean> | boolean, ms = 15_000): Promise<number> {
	const start = Date.now()
	while (!(await check())) {
		if (Date.now() - start > ms) throw new Error(`watch did not ${what} within ${ms} ms`)
		await Bun.sleep(50)
	}
	return Date.now() - start
}

const latestFile = async (to: Server, user: { key: string }, name: string) =>
	(await api(to, 'GET', `/api/configs/latest?name=${name}&tool=gemini-cli`, user.key)).body?.data?.files?.[
		'.gemini/GEMINI.md'
	]

/** The polls among the requests: GET latest with If-None-Match. */
const polls = (requests: Recorded[]) =>
	requests.filter((r) => r.path === '/api/configs/latest' && r.ifNoneMatch !== null)

/** Two machines of ben with config `name` synced on both; `b` talks to `to`. */
async function pair(name: string, to: Server = server) {
	const a = await loggedIn(ben)
	const b = await loggedIn(ben, to)
	a.file('.gemini/GEMINI.md', 'v1\n')
	expect((await a.cfgsync(['push', 'gemini-cli', '-n', name])).code).toBe(0)
	expect((await b.cfgsync(['pull', 'gemini-cli', '-n', name])).code).toBe(0)
	return { a, b }
}

describe('cfgsync watch on live changes', () => {
	test("pulls another machine's push within 2 s, sends no request but the stream while idle (or for other configs), and does not pull its own push back", async () => {
		const proxy = recordingProxy(server)
		try {
			const { a, b } = await pair('live', proxy.server)
			// A request may take 2 s here; the stream, open far longer, is not cut by that.
			const w = watching(b, ['gemini-cli', '-n', 'live', '--interval', '1s'], { CFGSYNC_TIMEOUT: '2' })
			try {
				await until(
					'connect',
					() => proxy.requests.some((r) => r.path === '/api/events') && /Watching/.test(w.out.stdout)
				)
				await Bun.sleep(1000)
				const idleFrom = proxy.requests.length
				// A change to a config this watch does not cover is no reason for a request either.
				const other = { tool: 'gemini-cli', name: 'not-watched', data: { files: { '.gemini/GEMINI.md': 'x\n' } } }
				expect((await api(server, 'POST', '/api/configs', ben.key, other)).status).toBe(201)
				await Bun.sleep(5000)
				expect(proxy.requests.slice(idleFrom)).toEqual([])
				expect(proxy.requests.filter((r) => r.path === '/api/events')).toHaveLength(1)

				a.file('.gemini/GEMINI.md', 'v2 from a\n')
				expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'live'])).code).toBe(0)
				const took = await until('pull', () => b.file('.gemini/GEMINI.md') === 'v2 from a\n', 2000)
				console.log(`watch pulled a push from another machine ${took} ms after the push command ended`)

				b.file('.gemini/GEMINI.md', 'v3 from b\n')
				await until('push', async () => (await latestFile(server, ben, 'live')) === 'v3 from b\n')
				const pushed = proxy.requests.findLast((r) => r.method === 'POST' && r.path === '/api/configs')
				await Bun.sleep(2500)
				// Its own push's event names the hash it already has: no read of the config follows.
				expect(
					proxy.requests.filter((r) => r.at > (pushed?.at ?? 0) && r.path !== '/api/events').map((r) => r.path)
				).toEqual([])
			} finally {
				expect(await w.stop()).toBe(0)
			}
			expect(w.out.stdout).toContain('live changes from the server')
			expect(w.out.stdout).toContain('Stopped.')
			expect(w.out.stderr).toBe('')
		} finally {
			proxy.stop()
		}
	}, 60_000)

	test('a revoked key stops watch with exit 4, saying to sign in again', async () => {
		const { a, b } = await pair('revoked')
		a.file('.gemini/GEMINI.md', 'v2 from a\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'revoked'])).code).toBe(0)
		const w = watching(b, ['gemini-cli', '-n', 'revoked'])
		// Revoked once its first sync (which pulls v2) is done: only the stream can tell it in time.
		await until('sync at start', () => /1 updated/.test(w.out.stdout))
		const { keyId, apiKey } = JSON.parse(b.file('.config/cfgsync/credentials.json') as string)
		expect((await api(server, 'DELETE', `/api/keys/${keyId}`, apiKey)).status).toBe(204)
		const code = await Promise.race([w.proc.exited, Bun.sleep(5000).then(() => 'still running')])
		if (code === 'still running') await w.stop()
		expect(code).toBe(4)
		await w.stop()
		expect(w.out.stderr).toContain('revoked')
		expect(w.out.stderr).toContain('cfgsync login')
	}, 60_000)

	test('removed from the team while watching its config: says so at once, watches it no more, keeps its files', async () => {
		const owner = await loggedIn(ada)
		expect((await owner.cfgsync(['team', 'create', 'Watchers', '--slug', 'watchers'])).code).toBe(0)
		expect((await owner.cfgsync(['team', 'invite', 'watchers', 'ben', '--role', 'member'])).code).toBe(0)
		owner.file('.gemini/GEMINI.md', 'team rules\n')
		expect(
			(await owner.cfgsync(['push', 'gemini-cli', '--team', 'watchers', join(owner.home, '.gemini/GEMINI.md')])).code
		).toBe(0)
		const member = await loggedIn(ben)
		expect((await member.cfgsync(['invitations', 'accept', 'watchers'])).code).toBe(0)
		expect((await member.cfgsync(['pull', 'gemini-cli', '--team', 'watchers', '--yes'])).code).toBe(0)
		const w = watching(member, ['gemini-cli', '--team', 'watchers'])
		try {
			await until('start', () => /Watching/.test(w.out.stdout))
			expect((await owner.cfgsync(['team', 'remove', 'watchers', 'ben'])).code).toBe(0)
			await until('say it left the team', () => /no longer in team watchers/.test(w.out.stderr), 5_000)
			expect(w.out.stderr).toContain('watched no more')
			expect(member.file('.gemini/GEMINI.md')).toBe('team rules\n')
		} finally {
			await w.stop()
		}
	}, 60_000)

	test('against a server without live changes (404) it polls with If-None-Match as before', async () => {
		const proxy = recordingProxy(server, { noEvents: true })
		try {
			const { a, b } = await pair('nolive', proxy.server)
			const w = watching(b, ['gemini-cli', '-n', 'nolive', '--interval', '1s'])
			try {
				await until('start', () => /Watching/.test(w.out.stdout))
				a.file('.gemini/GEMINI.md', 'v2 from a\n')
				expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'nolive'])).code).toBe(0)
				await until('pull by polling', () => b.file('.gemini/GEMINI.md') === 'v2 from a\n', 4000)
				await until('poll again', () => polls(proxy.requests).length >= 2, 4000)
			} finally {
				expect(await w.stop()).toBe(0)
			}
			expect(w.out.stderr).toContain('has no live changes')
			expect(w.out.stderr).toContain('polling every 1s instead')
			expect(proxy.requests.filter((r) => r.path === '/api/events')).toHaveLength(1)
		} finally {
			proxy.stop()
		}
	}, 60_000)

	test('--poll polls every --interval and never opens the stream', async () => {
		const proxy = recordingProxy(server)
		try {
			const { a, b } = await pair('poll', proxy.server)
			const w = watching(b, ['gemini-cli', '-n', 'poll', '--poll', '--interval', '1s'])
			try {
				await until('start', () => /Watching/.test(w.out.stdout))
				a.file('.gemini/GEMINI.md', 'v2 from a\n')
				expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'poll'])).code).toBe(0)
				await until('pull by polling', () => b.file('.gemini/GEMINI.md') === 'v2 from a\n', 4000)
				await until('poll again', () => polls(proxy.requests).length >= 2, 4000)
			} finally {
				expect(await w.stop()).toBe(0)
			}
			expect(w.out.stdout).toContain('server every 1s')
			expect(proxy.requests.filter((r) => r.path === '/api/events')).toEqual([])
		} finally {
			proxy.stop()
		}
	}, 60_000)

	test('a server restart: one line when the stream is lost, one when it is back, and a push made meanwhile is pulled', async () => {
		// The file's own server, restarted on its port (the last test of the file).
		const port = new URL(server.url).port
		const b = await loggedIn(ben)
		b.file('.gemini/GEMINI.md', 'v1\n')
		expect((await b.cfgsync(['push', 'gemini-cli', '-n', 'restart'])).code).toBe(0)
		const w = watching(b, ['gemini-cli', '-n', 'restart'])
		try {
			await until('start', () => /Watching/.test(w.out.stdout))
			await Bun.sleep(500)
			await server.stop()
			// While it is down, a push through a second instance on the same database.
			const other = await startServer(dir)
			servers.push(other)
			const body = { tool: 'gemini-cli', name: 'restart', data: { files: { '.gemini/GEMINI.md': 'v2 while down\n' } } }
			expect((await api(other, 'POST', '/api/configs', ben.key, body)).status).toBe(200)
			await until('say the stream is lost', () => /Watch keeps trying/.test(w.out.stderr))
			server = await startServer(dir, { args: ['--port', port] })
			servers.push(server)
			const up = Date.now()
			await until('pull after reconnecting', () => b.file('.gemini/GEMINI.md') === 'v2 while down\n')
			console.log(`watch pulled what was pushed while the server was down ${Date.now() - up} ms after it was back`)
			await Bun.sleep(1500)
		} finally {
			expect(await w.stop()).toBe(0)
		}
		const lines = w.out.stderr.split('\n')
		expect(lines.filter((line) => line.includes('Watch keeps trying'))).toHaveLength(1)
		expect(lines.filter((line) => line.includes('answers again; watching'))).toHaveLength(1)
	}, 60_000)
})
