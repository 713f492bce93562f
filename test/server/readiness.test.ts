import { expect, test } from 'bun:test'
import { KEY_CHECK, sealKeyCheck } from '../../src/server/lib/key-check'
import { testApp } from '../support/helpers'

test('/readyz opens the newest stored version too: 503 when its sealed data does not open, though the check value does', async () => {
	const t = testApp()
	await t.store.meta.set(KEY_CHECK.meta, sealKeyCheck(t.sealer))
	const alice = await t.user('pro')
	expect((await t.call('GET', '/readyz')).status).toBe(200)
	expect((await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v: 1 } } })).status).toBe(
		201
	)
	expect((await t.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v: 2 } } })).status).toBe(
		200
	)
	expect((await t.call('GET', '/readyz')).body).toMatchObject({
		status: 'ready',
		checks: { database: 'ok', masterKey: 'ok' }
	})

	// The newest version's record damaged (or sealed under a key this server lacks): every read of it would be a 500.
	const newest = await t.store.configs.newestSealed()
	expect(newest).toBeDefined()
	const damaged = Uint8Array.from(newest!.sealed)
	damaged[20] = (damaged[20] ?? 0) ^ 0xff
	expect(await t.store.configs.reseal([{ id: newest!.id, from: newest!.sealed, to: damaged }])).toBe(1)
	const unready = await t.call('GET', '/readyz')
	expect(unready.status).toBe(503)
	expect(unready.body).toMatchObject({ status: 'unavailable', checks: { database: 'ok', masterKey: 'failed' } })
	t.store.close()
})

test('/healthz when the database does not answer: 500, and one "does not answer" error line per 10 s naming the cause, no stack', async () => {
	const t = testApp()
	const down = { ...t.store, ping: async () => false }
	const broken = testApp({ store: down })
	for (let i = 0; i < 3; i++) {
		const res = await broken.call('GET', '/healthz')
		expect(res.status).toBe(500)
		expect(res.body.code).toBe('internal')
	}
	broken.logger.flush()
	const lines = broken.logger.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
	expect(lines.filter((line) => line.msg === 'unhandled error')).toEqual([])
	const errors = lines.filter((line) => line.level === 'error')
	expect(errors).toHaveLength(1)
	expect(errors[0]).toMatchObject({ msg: 'the database does not answer' })
	expect(String(errors[0]?.cause)).toContain(
		t.store.engine === 'sqlite' ? 'SQLite file is gone, replaced or damaged' : 'PostgreSQL database does not answer'
	)
	expect(JSON.stringify(errors[0])).not.toContain('stack')
	t.store.close()
})
