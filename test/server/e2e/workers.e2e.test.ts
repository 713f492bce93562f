import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { api, emptyDir, run, startServer, userWithKey, serversOfThisFile } from '../../support/harness'

const servers = serversOfThisFile()

const children = (pid: number) =>
	readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)

test('--workers 2: one port, two processes; writes stay contiguous, throttling holds across them, a dead worker is replaced', async () => {
	const dir = emptyDir()
	const server = await startServer(dir, { args: ['--workers', '2'] })
	servers.push(server)
	await Bun.sleep(300)
	const workers = children(server.proc.pid)
	expect(workers).toHaveLength(2)

	const alice = await userWithKey(dir, 'alice', 'pro')
	const results = await Promise.all(
		Array.from({ length: 40 }, (_, i) =>
			api(server, 'POST', '/api/configs', alice.key, { name: 'shared', data: { i } })
		)
	)
	expect(results.map((r) => r.status).sort()).toEqual([...Array(39).fill(200), 201])
	expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1))

	// Failed logins are counted in the database, so both workers see one budget.
	const burst = await Promise.all(
		Array.from({ length: 24 }, () =>
			api(server, 'POST', '/api/auth/login', undefined, { login: 'alice', password: 'wrong-password', device: 'x' })
		)
	)
	expect(burst.filter((r) => r.status === 401)).toHaveLength(10)
	expect(burst.filter((r) => r.status === 429)).toHaveLength(14)

	process.kill(workers[0]!, 'SIGKILL')
	const deadline = Date.now() + 10_000
	while (!(children(server.proc.pid).length === 2 && !children(server.proc.pid).includes(workers[0]!))) {
		if (Date.now() > deadline) throw new Error('the dead worker was not replaced')
		await Bun.sleep(100)
	}
	for (let i = 0; i < 10; i++)
		expect((await api(server, 'GET', '/api/configs/latest?name=default&tool=claude-code', alice.key)).status).toBe(404)
	expect((await api(server, 'GET', '/healthz')).status).toBe(200)

	const remaining = children(server.proc.pid)
	expect(await server.stop('SIGTERM')).toBe(0)
	for (const pid of remaining) expect(() => process.kill(pid, 0)).toThrow()
	expect(server.log()).toContain('"workers":2')
}, 60_000)

test('--workers 2 on a port another program holds fails with one line instead of retrying forever', async () => {
	const holder = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response('busy') })
	try {
		const started = Date.now()
		const result = await run(emptyDir(), [
			'serve',
			'--host',
			'127.0.0.1',
			'--port',
			String(holder.port),
			'--workers',
			'2'
		])
		expect(result.code).not.toBe(0)
		expect(result.stderr).toContain('a worker could not start')
		expect(Date.now() - started).toBeLessThan(15_000)
	} finally {
		await holder.stop(true)
	}
}, 30_000)

test('--workers 2: a primary killed with SIGKILL takes its workers with it; the port is free again', async () => {
	const dir = emptyDir()
	const server = await startServer(dir, { args: ['--workers', '2'] })
	servers.push(server)
	await Bun.sleep(300)
	const workers = children(server.proc.pid)
	expect(workers).toHaveLength(2)
	const exists = (pid: number) => {
		try {
			process.kill(pid, 0)
			return true
		} catch {
			return false
		}
	}
	try {
		await server.stop('SIGKILL')
		// Orphaned workers would go on serving the port with whatever code and key they started with.
		const deadline = Date.now() + 10_000
		while (workers.some(exists) && Date.now() < deadline) await Bun.sleep(100)
		expect(workers.filter(exists)).toEqual([])
		expect(
			await fetch(`${server.url}/healthz`).then(
				() => 'answered',
				() => 'refused'
			)
		).toBe('refused')
	} finally {
		for (const pid of workers.filter(exists)) process.kill(pid, 'SIGKILL')
	}
}, 30_000)
