import { describe, expect, test } from 'bun:test'
import { emptyDir, serversOfThisFile, startServer, userWithKey } from '../support/harness'
import { login, machine } from '../support/client/machines'

const servers = serversOfThisFile()

/** Quotas (docs/operations.md) on the compiled binaries: the variables, the refusals as the client shows them, whoami. */
describe('quotas (CFGSYNC_QUOTA_BYTES, CFGSYNC_QUOTA_PUSHES_PER_MINUTE)', () => {
	test('whoami shows what is stored against the limits; past the pushes a minute a push is refused, naming the limit', async () => {
		const dir = emptyDir()
		const server = await startServer(dir, {
			env: { CFGSYNC_QUOTA_BYTES: '2000000', CFGSYNC_QUOTA_PUSHES_PER_MINUTE: '3' }
		})
		servers.push(server)
		const ada = await userWithKey(dir, 'ada', 'team')
		const m = machine(server)
		expect((await login(m, ada, 'laptop')).code).toBe(0)
		const codes: number[] = []
		for (let i = 0; i < 3; i++) {
			m.file('.gemini/settings.json', `{"theme": "t${i}", "pad": "${'x'.repeat(1000)}"}\n`)
			codes.push((await m.cfgsync(['push', 'gemini-cli'])).code)
		}
		expect(codes).toEqual([0, 0, 0])
		m.file('.gemini/settings.json', '{"theme": "one too many"}\n')
		const refused = await m.cfgsync(['push', 'gemini-cli'])
		expect(refused.code).not.toBe(0)
		expect(refused.stderr).toContain('3 pushes a minute')

		const who = await m.cfgsync(['whoami'])
		expect(who.code).toBe(0)
		expect(who.stdout).toMatch(/Storage: \d+(\.\d)? KiB of 1\.9 MiB/)
		expect(who.stdout).toContain('Pushes: at most 3 a minute')
		const asJson = JSON.parse((await m.cfgsync(['whoami', '--json'])).stdout)
		expect(asJson.scope).toBe('read-write')
		expect(asJson.usage.bytes.limit).toBe(2_000_000)
		expect(asJson.usage.bytes.used).toBeGreaterThan(3000)
		expect(asJson.usage.pushesPerMinute).toBe(3)
	})
})
