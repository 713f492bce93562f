import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../../src/server/config'
import { textOf, webApp } from '../support/web'

/**
 * Quotas (docs/operations.md): CFGSYNC_QUOTA_BYTES (256 MiB stored per user or team by default) and
 * CFGSYNC_QUOTA_PUSHES_PER_MINUTE (120 per user): 413 quota_exceeded or 429 rate_limited with Retry-After,
 * naming the limit; the Account page and GET /api/usage (what `cfgsync whoami` shows) say what is used.
 */
const KB = 1024
/** `n` KiB of data that differs by `tag`: each push of a new tag stores a new version of about that size. */
const bulk = (n: number, tag: string) => ({ tag, filler: 'x'.repeat(n * KB - 40) })

describe('quotas (docs/operations.md, "Quotas and the lockout rule")', () => {
	test('the defaults and the variables', () => {
		expect(loadConfig({}, {})).toMatchObject({ quotaBytes: 256 * 1024 * 1024, quotaPushesPerMinute: 120 })
		expect(loadConfig({}, { CFGSYNC_QUOTA_BYTES: '1000000', CFGSYNC_QUOTA_PUSHES_PER_MINUTE: '5' })).toMatchObject({
			quotaBytes: 1_000_000,
			quotaPushesPerMinute: 5
		})
		expect(() => loadConfig({}, { CFGSYNC_QUOTA_BYTES: 'lots' })).toThrow('CFGSYNC_QUOTA_BYTES')
	})

	test('storage: a push past the bytes stored per user is 413 quota_exceeded naming the limit; nothing is stored; deleting frees it', async () => {
		const t = webApp({ quotas: { bytes: 1_000_000, pushesPerMinute: 120 } })
		const fred = await t.user('free', 'fred')
		const other = await t.user('free', 'other')
		const statuses: number[] = []
		let first: string | undefined
		for (let i = 0; i < 4; i++) {
			const res = await t.call('POST', '/api/configs', {
				key: fred.key,
				body: { name: 'big', data: bulk(300, `v${i}`) }
			})
			statuses.push(res.status)
			first ??= res.body.id
			if (res.status === 413) {
				expect(res.body.code).toBe('quota_exceeded')
				expect(res.body.error).toContain('1,000,000 bytes')
				expect(res.body.error).toContain('CFGSYNC_QUOTA_BYTES')
			}
		}
		expect(statuses).toEqual([201, 200, 200, 413])
		const latest = await t.call('GET', '/api/configs/latest?name=big&tool=claude-code', { key: fred.key })
		expect(latest.body.version).toBe(3)
		// A push that changes nothing stores nothing, so it is never refused.
		const same = await t.call('POST', '/api/configs', { key: fred.key, body: { name: 'big', data: bulk(300, 'v2') } })
		expect(same.body.noChange).toBe(true)
		// Other users are not affected.
		expect(
			(await t.call('POST', '/api/configs', { key: other.key, body: { name: 'big', data: bulk(300, 'o') } })).status
		).toBe(201)
		// What is used, and what frees it.
		const usage = await t.call('GET', '/api/usage', { key: fred.key })
		expect(usage.status).toBe(200)
		expect(usage.body.bytes.limit).toBe(1_000_000)
		expect(usage.body.bytes.used).toBeGreaterThan(900_000)
		expect(usage.body.bytes.used).toBeLessThanOrEqual(1_000_000)
		expect(usage.body.pushesPerMinute).toBe(120)
		expect((await t.call('DELETE', `/api/configs/${first}`, { key: fred.key })).status).toBe(204)
		expect((await t.call('GET', '/api/usage', { key: fred.key })).body.bytes.used).toBe(0)
		expect(
			(await t.call('POST', '/api/configs', { key: fred.key, body: { name: 'big', data: bulk(300, 'v9') } })).status
		).toBe(201)
	})

	test("a team's configs count against the team, not against whoever pushed them; rollbacks count too", async () => {
		const t = webApp({ quotas: { bytes: 700_000, pushesPerMinute: 120 } })
		const tom = await t.user('team', 'tom')
		const team = (await t.call('POST', '/api/teams', { key: tom.key, body: { name: 'Crew' } })).body
		const first = await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'p', data: bulk(300, 'a') } })
		expect(first.status).toBe(201)
		expect(
			(await t.call('POST', '/api/configs', { key: tom.key, body: { name: 'p', data: bulk(300, 'b') } })).status
		).toBe(200)
		const teamPush = await t.call('POST', '/api/configs', {
			key: tom.key,
			body: { name: 'c', teamId: team.id, data: bulk(300, 'a') }
		})
		expect(teamPush.status).toBe(201)
		const usage = (await t.call('GET', '/api/usage', { key: tom.key })).body
		expect(usage.teams).toEqual([
			{ id: team.id, slug: team.slug, name: 'Crew', bytes: { used: expect.any(Number), limit: 700_000 } }
		])
		expect(usage.teams[0].bytes.used).toBeGreaterThan(300_000)
		// Rolling back stores a version too: past the quota it is refused like a push.
		const versions = (await t.call('GET', `/api/configs/${first.body.id}/versions`, { key: tom.key })).body
		const rolledBack = await t.call('POST', `/api/configs/${first.body.id}/rollback`, {
			key: tom.key,
			body: { versionId: versions[1].id }
		})
		expect(rolledBack.status).toBe(413)
		expect(rolledBack.body.code).toBe('quota_exceeded')
	})

	test('pushes per minute: past the limit 429 rate_limited with Retry-After, naming the limit; the next minute they go through', async () => {
		const t = webApp({ quotas: { bytes: 256 * 1024 * 1024, pushesPerMinute: 20 } })
		const ann = await t.user('free', 'ann')
		const bob = await t.user('free', 'bob')
		const statuses: number[] = []
		for (let i = 0; i < 20; i++) {
			t.clock.advance(100)
			statuses.push((await t.call('POST', '/api/configs', { key: ann.key, body: { data: { n: i } } })).status)
		}
		expect(statuses.every((status) => status === 200 || status === 201)).toBe(true)
		const limited = await t.call('POST', '/api/configs', { key: ann.key, body: { data: { n: 'one more' } } })
		expect(limited.status).toBe(429)
		expect(limited.body.code).toBe('rate_limited')
		expect(limited.body.error).toContain('20 pushes a minute')
		const retry = Number(limited.headers.get('retry-after'))
		expect(retry).toBeGreaterThan(0)
		expect(retry).toBeLessThanOrEqual(60)
		// An unchanged push stores nothing: not refused.
		expect((await t.call('POST', '/api/configs', { key: ann.key, body: { data: { n: 19 } } })).body.noChange).toBe(true)
		// Another user is not affected.
		expect((await t.call('POST', '/api/configs', { key: bob.key, body: { data: { n: 1 } } })).status).toBe(201)
		t.clock.advance(retry * 1000)
		expect((await t.call('POST', '/api/configs', { key: ann.key, body: { data: { n: 'later' } } })).status).toBe(200)
	})

	test('the Account page shows what is stored and the limits', async () => {
		const t = webApp({ quotas: { bytes: 1_000_000, pushesPerMinute: 120 } })
		const fred = await t.user('free', 'fred')
		await t.call('POST', '/api/configs', { key: fred.key, body: { name: 'big', data: bulk(300, 'a') } })
		const browser = await t.signIn(fred)
		const page = textOf((await t.get('/account', browser)).html)
		expect(page).toMatch(/Storage/)
		expect(page).toMatch(/300\.\d KiB of 976\.6 KiB/)
		expect(page).toContain('120 pushes a minute')
	})
})
