import { describe, expect, test } from 'bun:test'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { api, BINARY, emptyDir, run, serversOfThisFile, startServer, userWithKey } from '../../support/harness'

// docs/operations.md: a server holds a flock on a file in its data directory for its whole life; restore and
// db copy refuse while it is held, also when the server runs in another PID namespace (a container
// running it as pid 1), where pid files tell nothing.

const servers = serversOfThisFile()
const env = { CFGSYNC_MASTER_KEY: randomBytes(32).toString('base64') }
const UNSHARE = Bun.which('unshare')

/** `serve` as pid 1 of a PID namespace of its own, as in a container. */
async function serveInOwnPidNamespace(dir: string) {
	if (!UNSHARE) throw new Error('this test needs unshare (util-linux)')
	const proc = Bun.spawn(
		[UNSHARE, '--pid', '--fork', '--mount-proc', '--kill-child', BINARY, 'serve', '--port', '0', '--host', '127.0.0.1'],
		{
			cwd: dir,
			env: { PATH: process.env.PATH ?? '', ...env },
			stdout: 'pipe',
			stderr: 'pipe'
		}
	)
	let output = ''
	const reader = (async () => {
		for await (const chunk of proc.stdout) output += new TextDecoder().decode(chunk)
	})()
	const deadline = Date.now() + 15_000
	let url: string | undefined
	while (!url && Date.now() < deadline) {
		const match = output.match(/"msg":"listening","url":"http:\/\/[^:]+:(\d+)","database":"[^"]*","pid":(\d+)/)
		if (match) {
			expect(match[2]).toBe('1')
			url = `http://127.0.0.1:${match[1]}`
		} else await Bun.sleep(20)
	}
	if (!url) throw new Error(`the namespaced server did not start: ${output}${await new Response(proc.stderr).text()}`)
	return {
		url,
		async stop() {
			// unshare --fork ignores SIGTERM while it waits; killing it kills its child (--kill-child).
			proc.kill('SIGKILL')
			await proc.exited
			await reader
		}
	}
}

const inOtherNamespace = (dir: string, args: string[]) => run(dir, [...args], { env })

describe('the data directory lock', () => {
	test('restore and db copy (run in another PID namespace) refuse while a server that is pid 1 of its own namespace uses the data dir; both work once it stops', async () => {
		const dir = emptyDir()
		const first = await startServer(dir, { env })
		servers.push(first)
		const alice = await userWithKey(dir, 'alice', 'pro', env)
		expect((await api(first, 'POST', '/api/configs', alice.key, { name: 'c', data: { v: 'backed up' } })).status).toBe(
			201
		)
		expect((await run(dir, ['backup', join(dir, 'b.db')], { env })).code).toBe(0)
		await first.stop()

		const server = await serveInOwnPidNamespace(dir)
		const proc = Bun.spawn(
			[UNSHARE as string, '--pid', '--fork', '--mount-proc', BINARY, 'restore', join(dir, 'b.db')],
			{ cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, stderr: 'pipe', stdout: 'pipe' }
		)
		const [restoreErr, restoreCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited])
		expect(restoreCode).not.toBe(0)
		expect(restoreErr).toContain('is using')
		expect(restoreErr).toContain('stop it first')
		const copy = await inOtherNamespace(dir, ['db', 'copy', '--to', join(dir, 'copy', 'cfgsync.db')])
		expect(copy.code).not.toBe(0)
		expect(copy.stderr).toContain('is using')
		// The server still serves what it had.
		expect(
			(
				await fetch(`${server.url}/api/configs/latest?name=c&tool=claude-code`, {
					headers: { authorization: `Bearer ${alice.key}` }
				})
			).status
		).toBe(200)
		await server.stop()

		expect((await run(dir, ['restore', join(dir, 'b.db')], { env })).code).toBe(0)
		const copied = await run(dir, ['db', 'copy', '--to', join(dir, 'copy', 'cfgsync.db')], { env })
		expect(copied.stderr).toBe('')
		expect(copied.code).toBe(0)
	}, 60_000)

	test('a server does not start while a restore holds the lock, and says why', async () => {
		const dir = emptyDir()
		const first = await startServer(dir, { env })
		await first.stop()
		// flock(1) stands in for a restore that holds the lock exclusively.
		const holder = Bun.spawn(['flock', '--exclusive', join(dir, 'data', 'cfgsync.lock'), 'sleep', '30'])
		await Bun.sleep(200)
		const refused = await run(dir, ['serve', '--port', '0'], { env })
		holder.kill()
		expect(refused.code).not.toBe(0)
		expect(refused.stderr).toContain('a restore or db copy is running')
	}, 30_000)
})
