import { afterAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { createGzip } from 'node:zlib'
import { ApiError, createApi, MAX_RESPONSE_BYTES, timeoutMs } from '../../src/client/api'
import { requestTimeout } from '../../src/client/context'
import { CliFailure, EXIT } from '../../src/client/output'

/**
 * docs/client.md, "A broken or hostile server": every request ends within
 * CFGSYNC_TIMEOUT (connecting, the answer's headers and its body), and an
 * answer past 16 MiB is refused while it arrives, with or without a declared
 * length. The servers here are raw sockets, so they can misbehave in ways no
 * HTTP library allows: never answer, stall after the headers, drip, flood.
 * Against a client without these limits the first three never end (the
 * test's time-out fails them) and the floods read all 600 MB into memory.
 */

const KEY = `cs_${'a'.repeat(64)}`
const MiB = 1024 * 1024
const FLOOD = 600 * MiB

interface Hostile {
	url: string
	/** Bytes of body the server managed to hand to the socket. */
	sent: () => number
	/** Whether the client has closed the connection. */
	closed: () => boolean
}

const servers: Server[] = []
const sockets = new Set<Socket>()
afterAll(() => {
	for (const socket of sockets) socket.destroy()
	for (const server of servers) server.close()
})

/** A server that reads a request's head and then does `answer` with the raw socket. */
async function hostile(
	answer: (socket: Socket, count: (bytes: number) => void) => void | Promise<void>
): Promise<Hostile> {
	let sent = 0
	let closed = false
	const server = createServer((socket) => {
		sockets.add(socket)
		socket.on('error', () => {})
		socket.on('close', () => {
			closed = true
			sockets.delete(socket)
		})
		let head = ''
		socket.on('data', (data) => {
			if (head.includes('\r\n\r\n')) return
			head += data.toString('latin1')
			if (head.includes('\r\n\r\n'))
				void answer(socket, (bytes) => {
					sent += bytes
				})
		})
	})
	servers.push(server)
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
	const address = server.address()
	if (address === null || typeof address === 'string') throw new Error('no port')
	return { url: `http://127.0.0.1:${address.port}`, sent: () => sent, closed: () => closed }
}

/** Writes `total` bytes of `{"username":"xxx…` as fast as the client reads them, chunked or with a Content-Length. */
async function flood(socket: Socket, count: (bytes: number) => void, framing: 'chunked' | 'length', total = FLOOD) {
	socket.write(
		`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n${framing === 'chunked' ? 'transfer-encoding: chunked' : `content-length: ${total}`}\r\n\r\n`
	)
	const chunk = Buffer.alloc(MiB, 'x')
	chunk.write('{"username":"')
	for (let written = 0; written < total && !socket.destroyed; written += chunk.length) {
		const framed = framing === 'chunked' ? [`${chunk.length.toString(16)}\r\n`, chunk, '\r\n'] : [chunk]
		let room = true
		for (const piece of framed) room = socket.write(piece)
		count(chunk.length)
		if (!room)
			await new Promise<void>((resolve) => {
				const go = () => {
					socket.off('drain', go).off('close', go)
					resolve()
				}
				socket.on('drain', go).on('close', go)
			})
	}
}

/** The most memory this process held while `run` ran, above what it held before, in MiB. */
async function peakGrowth(run: () => Promise<unknown>): Promise<number> {
	const rss = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024
	Bun.gc(true)
	const before = rss()
	let peak = before
	const sampler = setInterval(() => {
		peak = Math.max(peak, rss())
	}, 5)
	try {
		await run()
	} finally {
		clearInterval(sampler)
	}
	return Math.max(peak, rss()) - before
}

async function failureOf(call: Promise<unknown>): Promise<ApiError> {
	const error = await call.then(
		() => undefined,
		(caught: unknown) => caught
	)
	if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`)
	return error
}

describe('a server that does not answer: every request ends within the time-out', () => {
	const limits = { timeoutMs: 500 }

	test('one that accepts the connection and never answers', async () => {
		const server = await hostile(() => {})
		const error = await failureOf(createApi(server.url, KEY, limits).me())
		expect(error.code).toBe('unreachable')
		expect(error.message).toBe(
			`${server.url} did not answer within 0.5 s: check that the server is running and reachable, then try again (CFGSYNC_TIMEOUT=SECONDS waits longer)`
		)
	})

	test('one that sends the headers and then stalls in the body', async () => {
		const server = await hostile((socket) => {
			socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"username":')
		})
		const error = await failureOf(createApi(server.url, KEY, limits).me())
		expect(error.code).toBe('unreachable')
		expect(error.message).toStartWith(`${server.url} did not answer within 0.5 s`)
	})

	test('one that drips a byte at a time: the time-out is for the whole answer, not between bytes', async () => {
		const server = await hostile((socket) => {
			socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n')
			const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : socket.write('1\r\n \r\n')), 50)
		})
		const error = await failureOf(createApi(server.url, KEY, limits).me())
		expect(error.code).toBe('unreachable')
		expect(error.message).toStartWith(`${server.url} did not answer within 0.5 s`)
	})

	test('a push to a server that never answers ends too (its body sent, no answer read)', async () => {
		const server = await hostile(() => {})
		const error = await failureOf(
			createApi(server.url, KEY, limits).configs.push(
				{ name: 'default', tool: 'claude-code', data: { files: { 'CLAUDE.md': 'x' } } },
				{ ifNoneMatch: '*' }
			)
		)
		expect(error.code).toBe('unreachable')
	})
})

describe('CFGSYNC_TIMEOUT', () => {
	test('seconds, 30 by default; anything but a number above 0 is refused', () => {
		expect(timeoutMs(undefined)).toBe(30_000)
		expect(timeoutMs('')).toBe(30_000)
		expect(timeoutMs('5')).toBe(5000)
		expect(timeoutMs(' 1.5 ')).toBe(1500)
		for (const bad of ['0', '-1', 'abc', '10s', '1e3', 'Infinity', '86401']) expect(timeoutMs(bad)).toBeUndefined()
	})

	test('a bad value is a usage error that names the variable and the fix', () => {
		const saved = process.env.CFGSYNC_TIMEOUT
		process.env.CFGSYNC_TIMEOUT = '10s'
		try {
			let failure: unknown
			try {
				requestTimeout()
			} catch (error) {
				failure = error
			}
			expect(failure).toBeInstanceOf(CliFailure)
			expect((failure as CliFailure).exitCode).toBe(EXIT.usage)
			expect((failure as CliFailure).message).toBe(
				'CFGSYNC_TIMEOUT is "10s": give the seconds to wait for the server, a number above 0 and up to 86400 (default 30), or unset it'
			)
		} finally {
			if (saved === undefined) delete process.env.CFGSYNC_TIMEOUT
			else process.env.CFGSYNC_TIMEOUT = saved
		}
	})
})

describe('an answer larger than 16 MiB is refused while it arrives, before anything is parsed', () => {
	const tooLarge = (url: string) =>
		`${url} sent an answer larger than 16 MiB, more than any config holds: it was refused and nothing from it was written. Check that ${url} is your cfgsync server (not a proxy or another service answering for it)`

	for (const framing of ['chunked', 'length'] as const) {
		test(`600 MB ${framing === 'chunked' ? 'without a length (chunked)' : 'with its length declared'}: memory stays bounded, reading stops`, async () => {
			const server = await hostile((socket, count) => flood(socket, count, framing))
			let error: ApiError | undefined
			const growth = await peakGrowth(async () => {
				error = await failureOf(createApi(server.url, KEY).me())
			})
			expect(error?.code).toBe('bad_response')
			expect(error?.message).toBe(tooLarge(server.url))
			// The 600 MB never reached memory: what a client holds is the cap and the socket's buffers.
			expect(growth).toBeLessThan(150)
			// And the client hung up instead of draining the rest.
			expect(server.sent()).toBeLessThan(100 * MiB)
			for (let i = 0; i < 100 && !server.closed(); i++) await Bun.sleep(10)
			expect(server.closed()).toBe(true)
		}, 30_000)
	}

	test('a small gzip answer that inflates past 16 MiB: counted as decoded', async () => {
		// 200 MB of spaces, gzip-compressed to a few hundred KB, with the compressed length declared.
		const gzip = createGzip()
		const parts: Buffer[] = []
		gzip.on('data', (part: Buffer) => parts.push(part))
		const done = new Promise((resolve) => gzip.on('end', resolve))
		gzip.write('{"username":"')
		const spaces = Buffer.alloc(MiB, ' ')
		for (let i = 0; i < 200; i++) gzip.write(spaces)
		gzip.end('"}')
		await done
		const body = Buffer.concat(parts)
		expect(body.length).toBeLessThan(MAX_RESPONSE_BYTES)
		const server = await hostile((socket) => {
			socket.write(
				`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-encoding: gzip\r\ncontent-length: ${body.length}\r\n\r\n`
			)
			socket.write(body)
		})
		let error: ApiError | undefined
		const growth = await peakGrowth(async () => {
			error = await failureOf(createApi(server.url, KEY).me())
		})
		expect(error?.code).toBe('bad_response')
		expect(error?.message).toBe(tooLarge(server.url))
		expect(growth).toBeLessThan(150)
	}, 30_000)

	test('an answer just under the cap is read whole', async () => {
		const size = MAX_RESPONSE_BYTES - 64
		const name = 'y'.repeat(size - '{"email":"a@b","username":""}'.length)
		const server = await hostile((socket) => {
			socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${size}\r\n\r\n`)
			socket.end(`{"email":"a@b","username":"${name}"}`)
		})
		const me = await createApi(server.url, KEY).me()
		expect(me.username.length).toBe(name.length)
	}, 30_000)
})

describe('a server whose answer is not what the API says', () => {
	/** A server answering every request with `body` as JSON, status 200. */
	const answering = (body: string) =>
		hostile((socket) => {
			socket.end(
				`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
			)
		})

	test('a list with an entry of the wrong shape, a missing field, a wrong type: a sentence naming the route, never a crash', async () => {
		const summary = {
			id: '0190a5b4-7c3e-7a1b-9c2d-3e4f5a6b7c8d',
			name: 'default',
			tool: 'claude-code' as const,
			version: 1,
			hash: 'h',
			updatedAt: '2026-11-26T05:00:00.000Z'
		}
		for (const [body, where] of [
			[JSON.stringify([summary, 7]), 'at 1'],
			[JSON.stringify([{ ...summary, name: undefined }]), 'at 0.name'],
			[JSON.stringify([{ ...summary, version: '1' }]), 'at 0.version'],
			[JSON.stringify({ configs: [] }), '']
		] as const) {
			const server = await answering(body)
			const error = await failureOf(createApi(server.url, KEY).configs.list({}))
			expect(error.code).toBe('bad_response')
			expect(error.message).toStartWith(
				`${server.url} answered GET /api/configs with something cfgsync does not understand (`
			)
			expect(error.message).toContain(`${where});`)
			expect(error.message).toContain('nothing was done with it')
		}
		const whoami = await answering('{"username": 5}')
		expect((await failureOf(createApi(whoami.url, KEY).me())).code).toBe('bad_response')
		// The same answer, well formed, is read.
		const fine = await answering(JSON.stringify([summary]))
		expect(await createApi(fine.url, KEY).configs.list({})).toEqual([summary])
	})
})
