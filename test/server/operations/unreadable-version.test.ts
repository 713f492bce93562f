import { expect, test } from 'bun:test'
import { testApp } from '../../support/helpers'

/** docs/operations.md and issue 37.1: a version that cannot be opened never takes its config down. */
test('one unreadable version answers 500 unreadable alone, named in one log line; latest and the others still answer', async () => {
	const t = testApp()
	const alice = await t.user('pro')
	let id = ''
	for (let v = 1; v <= 3; v++) {
		const pushed = await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v } } })
		id = pushed.body.id
	}
	// Version 2's record damaged (or sealed under a retired key, as an older instance did during a rotation).
	const records = await t.store.configs.sealedPage(null, 10)
	const versions = (await t.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as {
		id: string
		version: number
	}[]
	const second = versions.find((version) => version.version === 2) as { id: string }
	const record = records.find((candidate) => candidate.id === second.id)
	expect(record).toBeDefined()
	const damaged = Uint8Array.from(record!.sealed)
	damaged[20] = (damaged[20] ?? 0) ^ 0xff
	expect(await t.store.configs.reseal([{ id: record!.id, from: record!.sealed, to: damaged }])).toBe(1)

	const latest = await t.call('GET', '/api/configs/latest?name=c&tool=claude-code', { key: alice.key })
	expect({ status: latest.status, body: latest.body }).toMatchObject({ status: 200, body: { data: { v: 3 } } })
	expect((await t.call('GET', `/api/configs/${id}`, { key: alice.key })).status).toBe(200)
	const first = versions.find((version) => version.version === 1) as { id: string }
	expect((await t.call('GET', `/api/configs/${id}/versions/${first.id}`, { key: alice.key })).body.data).toEqual({
		v: 1
	})
	const broken = await t.call('GET', `/api/configs/${id}/versions/${second.id}`, { key: alice.key })
	expect(broken.status).toBe(500)
	expect(broken.body.code).toBe('unreadable')
	t.logger.flush()
	const errors = t.logger.lines
		.map((line) => JSON.parse(line) as Record<string, unknown>)
		.filter((l) => l.level === 'error')
	expect(errors).toHaveLength(1)
	expect(errors[0]?.versionId).toBe(second.id)
	expect(JSON.stringify(errors[0])).not.toContain('stack')
	t.store.close()
})
