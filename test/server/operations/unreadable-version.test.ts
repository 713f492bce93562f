import { describe, expect, test } from 'bun:test'
import type { Store } from '../../../src/server/store/types'
import { textOf, webApp } from '../../support/web'

/**
 * docs/operations.md and issue 37.1: a version that cannot be opened (its record damaged, or sealed under a key the
 * server no longer holds) never takes its config down: latest, the history (API and web page) and the
 * other versions still answer; that one version answers 500 `unreadable`, named in one log line.
 */
type Listed = { id: string; version: number; data: unknown; unreadable?: boolean }

async function configOfThreeVersions() {
	const w = webApp()
	const alice = await w.user('pro', 'alice')
	let id = ''
	for (let v = 1; v <= 3; v++)
		id = (await w.call('POST', '/api/configs', { key: alice.key, body: { name: 'c', data: { v } } })).body.id
	const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as Listed[]
	const idOf = (n: number) => (versions.find((version) => version.version === n) as Listed).id
	return { w, alice, id, idOf }
}

/** Flips one byte of the version's ciphertext: GCM's tag then fails, as under a key the server lacks. */
async function damage(store: Store, versionId: string) {
	const record = (await store.configs.sealedPage(null, 100)).find((candidate) => candidate.id === versionId)
	expect(record).toBeDefined()
	const damaged = Uint8Array.from(record!.sealed)
	damaged[20] = (damaged[20] ?? 0) ^ 0xff
	expect(await store.configs.reseal([{ id: record!.id, from: record!.sealed, to: damaged }])).toBe(1)
}

const errorLines = (w: ReturnType<typeof webApp>) => {
	w.logger.flush()
	return w.logger.lines
		.map((line) => JSON.parse(line) as Record<string, unknown>)
		.filter((line) => line.level === 'error')
}

describe('one unreadable version', () => {
	test('answers 500 unreadable alone, named in one log line; latest, the list (marking it) and the others still answer', async () => {
		const { w, alice, id, idOf } = await configOfThreeVersions()
		await damage(w.store, idOf(2))

		const latest = await w.call('GET', '/api/configs/latest?name=c&tool=claude-code', { key: alice.key })
		expect({ status: latest.status, body: latest.body }).toMatchObject({ status: 200, body: { data: { v: 3 } } })
		expect((await w.call('GET', `/api/configs/${id}`, { key: alice.key })).status).toBe(200)
		expect((await w.call('GET', `/api/configs/${id}/versions/${idOf(1)}`, { key: alice.key })).body.data).toEqual({
			v: 1
		})
		const list = await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })
		expect(list.status).toBe(200)
		expect((list.body as Listed[]).map(({ version, data, unreadable }) => ({ version, data, unreadable }))).toEqual([
			{ version: 3, data: { v: 3 }, unreadable: undefined },
			{ version: 2, data: null, unreadable: true },
			{ version: 1, data: { v: 1 }, unreadable: undefined }
		])
		// The list marks it without a log line of its own: only the version's own 500 is logged.
		expect(errorLines(w)).toEqual([])

		const broken = await w.call('GET', `/api/configs/${id}/versions/${idOf(2)}`, { key: alice.key })
		expect(broken.status).toBe(500)
		expect(broken.body.code).toBe('unreadable')
		const errors = errorLines(w)
		expect(errors).toHaveLength(1)
		expect(errors[0]?.versionId).toBe(idOf(2))
		expect(errors[0]?.configId).toBe(id)
		expect(JSON.stringify(errors[0])).not.toContain('stack')
		w.store.close()
	})

	test("the config's web page answers with its whole history, whichever version is unreadable", async () => {
		const { w, alice, id, idOf } = await configOfThreeVersions()
		const browser = await w.signIn(alice)
		await damage(w.store, idOf(2))
		const page = await w.get(`/configs/${id}`, browser)
		expect(page.status).toBe(200)
		for (const row of ['3 current', 'Compare version 2', 'Compare version 1']) expect(textOf(page.html)).toContain(row)
		expect(textOf(page.html)).toContain('"v": 3')

		// The current version itself: the page still answers, with the history and a message in place of the data.
		await damage(w.store, idOf(3))
		const current = await w.get(`/configs/${id}`, browser)
		expect(current.status).toBe(200)
		for (const row of ['3 current', 'Compare version 2', 'Compare version 1'])
			expect(textOf(current.html)).toContain(row)
		expect(textOf(current.html)).toContain('cannot be decrypted')
		expect((await w.call('GET', '/api/configs/latest?name=c&tool=claude-code', { key: alice.key })).body.code).toBe(
			'unreadable'
		)
		w.store.close()
	})
})
