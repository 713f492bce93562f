import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { until } from '../../support/eventually'
import { api, emptyDir, serversOfThisFile, startServer } from '../../support/harness'

/** Issue 37 on the compiled binary: what only a real process shows on a bad day (CONTRACT §10). */
const servers = serversOfThisFile()

describe('signals', () => {
	test('SIGHUP is logged and ignored; SIGTERM then drains and removes the pid file', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		servers.push(server)
		server.proc.kill('SIGHUP')
		await until(() => server.log().includes('SIGHUP'))
		expect((await api(server, 'GET', '/healthz')).status).toBe(200)
		expect(server.proc.exitCode).toBeNull()
		expect(await server.stop('SIGTERM')).toBe(0)
		expect(readdirSync(join(dir, 'data')).filter((name) => name.endsWith('.pid'))).toEqual([])
		expect(existsSync(join(dir, 'data', 'cfgsync.db'))).toBe(true)
	})
})
