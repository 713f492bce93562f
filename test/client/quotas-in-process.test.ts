import { describe, expect, test } from 'bun:test'
import { login } from '../support/client/machines'
import { inProcessWorld } from '../support/client/in-process'

/** The server's quotas as the client shows them (docs/operations.md, "Quotas and the lockout rule"), in process. */

describe('quotas (CFGSYNC_QUOTA_BYTES, CFGSYNC_QUOTA_PUSHES_PER_MINUTE)', () => {
	test('whoami shows what is stored against the limits; past the pushes a minute a push is refused, naming the limit', async () => {
		const world = inProcessWorld({ quotas: { bytes: 2_000_000, pushesPerMinute: 3 } })
		const ada = await world.user('team', 'ada')
		const m = world.machine()
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
