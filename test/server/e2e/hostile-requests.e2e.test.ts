import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { emptyDir, run, serversOfThisFile, startServer, userWithKey, type Server } from '../../support/harness'

/**
 * docs/api.md against the compiled binary, over raw sockets (fetch would
 * refuse to send a malformed Host): no request body makes the server hold
 * more than its limit, and a malformed Host is a 400, never a 5xx.
 */
const servers = serversOfThisFile()
const MB = 1024 * 1024

async function start(): Promise<Server> {
	const server = await startServer(emptyDir())
	servers.push(server)
	return server
}

const portOf = (server: Server) => Number(new URL(server.url).port)
const rssOf = (server: Server) =>
	Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.proc.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024

/**
 * Writes `head`, then `bodyBytes` of body (as 1 MiB chunks when `chunked`) as
 * fast as the server takes them, and resolves with everything it answered
 * once it closes the connection or a few seconds after the body was sent.
 */
function raw(port: number, head: string | Buffer, bodyBytes = 0, chunked = false): Promise<string> {
	return new Promise((resolve) => {
		const socket = connect(port, '127.0.0.1')
		let reply = ''
		let done = false
		const finish = () => {
			if (done) return
			done = true
			socket.destroy()
			resolve(reply)
		}
		socket.on('data', (chunk) => (reply += chunk.toString('latin1')))
		socket.on('close', finish)
		socket.on('error', finish)
		socket.write(head)
		const block = Buffer.alloc(MB, 0x61)
		const frame = chunked
			? Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')])
			: block
		let sent = 0
		const pump = () => {
			while (sent < bodyBytes && !done) {
				sent += block.length
				if (!socket.write(frame)) return void socket.once('drain', pump)
			}
			if (chunked && !done) socket.write('0\r\n\r\n')
			// Answered already: the rest is the server's to close; otherwise give it time to answer.
			setTimeout(finish, reply === '' ? 2_000 : 200)
		}
		pump()
		setTimeout(finish, 60_000)
	})
}

const statusOf = (reply: string) => Number(reply.slice(9, 12))
const bodyOf = (reply: string) => reply.slice(reply.indexOf('\r\n\r\n') + 4)

describe('request bodies (docs/api.md)', () => {
	test('300 MB bodies, chunked or declared, to sign-in, a form route, an API route and an unknown path: refused, and resident memory stays within 100 MB of idle', async () => {
		const server = await start()
		const port = portOf(server)
		const { key } = await userWithKey(server.dir, 'ann')
		// Warm the paths up first, so idle memory already holds what serving them costs.
		for (const path of ['/', '/sign-in', '/teams', '/api/configs', '/nope'])
			await raw(
				port,
				`POST ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`
			)
		await Bun.sleep(500)
		const idle = rssOf(server)
		let peak = idle
		const sampler = setInterval(() => (peak = Math.max(peak, rssOf(server))), 10)
		const targets = [
			{ path: '/sign-in', type: 'application/x-www-form-urlencoded', auth: '' },
			{ path: '/teams', type: 'application/x-www-form-urlencoded', auth: '' },
			{ path: '/api/configs', type: 'application/json', auth: `Authorization: Bearer ${key}\r\n` },
			{ path: '/nope', type: 'application/json', auth: '' }
		]
		const seen: string[] = []
		const answers: { path: string; chunked: boolean; status: number; code: string }[] = []
		try {
			for (const target of targets) {
				for (const chunked of [true, false]) {
					const length = chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${300 * MB}`
					const reply = await raw(
						port,
						`POST ${target.path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${target.type}\r\n${target.auth}${length}\r\n\r\n`,
						300 * MB,
						chunked
					)
					const code = statusOf(reply) === 413 ? JSON.parse(bodyOf(reply)).code : ''
					seen.push(
						`${target.path} ${chunked ? 'chunked' : 'declared'}: ${statusOf(reply)} ${code}, peak ${Math.round((peak - idle) / MB)} MB over idle`
					)
					// docs/api.md's 413; an unknown path that declares no length is a 404 (nothing there reads a body).
					answers.push({ path: target.path, chunked, status: statusOf(reply), code })
				}
			}
		} finally {
			clearInterval(sampler)
			console.log(`[hostile] idle RSS ${Math.round(idle / MB)} MB\n  ${seen.join('\n  ')}`)
		}
		expect(answers).toEqual(
			targets.flatMap((target) =>
				[true, false].map((chunked) => ({
					path: target.path,
					chunked,
					...(target.path === '/nope' && chunked
						? { status: 404, code: '' }
						: { status: 413, code: 'payload_too_large' })
				}))
			)
		)
		expect(peak - idle).toBeLessThan(100 * MB)
		const health = await fetch(`${server.url}/healthz`)
		expect(health.status).toBe(200)
	}, 300_000)
})

describe('malformed Host (docs/api.md)', () => {
	test('a Host that is no host is a JSON 400 on every kind of route, and nothing is logged as unhandled', async () => {
		const server = await start()
		const port = portOf(server)
		const answers: string[] = []
		for (const path of [
			'/',
			'/admin',
			'/download',
			'/api/teams/',
			'/api/auth/login',
			'/sign-in',
			'/healthz',
			'/nope'
		]) {
			for (const host of ['exémple', '[::1]:99999', 'a b']) {
				const reply = await raw(
					port,
					Buffer.from(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`, 'utf8')
				)
				answers.push(`${path} ${host} → ${statusOf(reply)}`)
				expect({ path, host, status: statusOf(reply) }).toEqual({ path, host, status: 400 })
				expect(JSON.parse(bodyOf(reply)).code).toBe('invalid_request')
			}
		}
		// A well-formed Host, with a port, still works.
		expect(
			statusOf(await raw(port, `GET /healthz HTTP/1.1\r\nHost: cfgsync.example:8443\r\nConnection: close\r\n\r\n`))
		).toBe(200)
		expect(server.log()).not.toContain('unhandled')
	}, 60_000)

	test('fuzz: random Host values never get a 5xx and never an "unhandled error" line', async () => {
		const server = await start()
		const port = portOf(server)
		const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647)
		console.log(`[hostile] Host fuzz seed ${seed} (FUZZ_SEED=${seed} replays it)`)
		// Header values may carry any byte but CR, LF and NUL; bias toward what hosts are made of.
		const hostChar = fc.oneof(
			fc.constantFrom(..."abcxyz019.-:[]%@_~!$&'()*+,;= \t".split('')),
			fc.integer({ min: 0x21, max: 0xff }).map((code) => String.fromCharCode(code)),
			fc.constantFrom('é', 'ü', '\u200b', '\uff0e', '\u3002', 'ß', '\u00ad')
		)
		const host = fc.oneof(
			fc.array(hostChar, { maxLength: 40 }).map((chars) => chars.join('')),
			fc
				.tuple(
					fc.constantFrom('[::1]', '[fe80::1%25eth0]', '1.2.3.4', '256.1.1.1', '0x7f.1', 'example.test', ''),
					fc.constantFrom('', ':', ':0', ':80', ':65535', ':65536', ':99999', ':-1', ':8a')
				)
				.map(([h, p]) => h + p)
		)
		const path = fc.constantFrom(
			'/',
			'/admin',
			'/download',
			'/api/teams/',
			'/api/auth/login',
			'/healthz',
			'/sign-in',
			'/teams',
			'/nope?x=1'
		)
		const method = fc.constantFrom('GET', 'POST')
		let tried = 0
		await fc.assert(
			fc.asyncProperty(host, path, method, async (value, target, verb) => {
				tried++
				const reply = await raw(
					port,
					Buffer.from(
						`${verb} ${target} HTTP/1.1\r\nHost: ${value.replace(/[\r\n\0]/g, '')}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
						'utf8'
					)
				)
				const status = statusOf(reply)
				// 0: Bun's own parser dropped a request it could not read at all; that is no answer from us.
				if (status !== 0) expect(status).toBeLessThan(500)
			}),
			{ seed, numRuns: 300 }
		)
		expect(tried).toBe(300)
		expect(server.log()).not.toContain('unhandled')
		expect(server.log()).not.toContain('"level":"error"')
	}, 120_000)
})

describe('public URL and the access log (docs/api.md)', () => {
	test('/download prints --public-url whatever Host says, no-store; the access log names the client; a bad --public-url stops the start with one line', async () => {
		const server = await startServer(emptyDir(), { args: ['--public-url', 'https://CfgSync.example.com/'] })
		servers.push(server)
		const reply = await raw(
			portOf(server),
			'GET /download HTTP/1.1\r\nHost: evil.example\r\nX-Forwarded-Proto: http\r\nConnection: close\r\n\r\n'
		)
		expect(statusOf(reply)).toBe(200)
		expect(reply).toMatch(/\r\ncache-control: no-store\r\n/i)
		expect(bodyOf(reply)).toContain('cfgsync login --server https://cfgsync.example.com')
		expect(bodyOf(reply)).not.toContain('evil.example')
		await Bun.sleep(100)
		expect(server.log()).toMatch(/"msg":"request".*"route":"\/download".*"client":"127\.0\.0\.1"/)

		const refused = await run(emptyDir(), ['serve', '--port', '0', '--public-url', 'https://cfgsync.example.com/sync'])
		expect(refused.code).not.toBe(0)
		expect(refused.stderr.trim().split('\n')).toEqual([expect.stringContaining('--public-url / CFGSYNC_PUBLIC_URL')])
	}, 60_000)
})
