import { expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { openSqliteStore } from '../../src/server/store/sqlite'
import { testApp } from '../support/helpers'
import { tempDir } from '../support/temp'

test('no plaintext config data, password or API key reaches the database file or its WAL', async () => {
	const file = join(tempDir('rest'), 'rest.db')
	// SQLite only: it reads every byte of the database file and its WAL.
	const t = testApp({ store: openSqliteStore(file) })
	const alice = await t.user('pro', 'alice')
	const marker = `marker-${crypto.randomUUID()}`
	// A key name of its own: a word such as "token" is also in the schema's column names.
	const field = `field_${crypto.randomUUID().slice(0, 8)}`
	const login = await t.call('POST', '/api/auth/login', {
		body: { login: 'alice', password: alice.password, device: 'laptop' }
	})
	const pushed = await t.call('POST', '/api/configs', {
		key: alice.key,
		body: { name: 'secret', data: { [field]: marker, nested: [marker] } }
	})
	await t.call('POST', '/api/configs', {
		key: alice.key,
		body: { name: 'secret', tool: 'cursor', data: `text ${marker}` }
	})
	await t.call('POST', `/api/configs/${pushed.body.id}/rollback`, {
		key: alice.key,
		body: { versionId: (await t.call('GET', `/api/configs/${pushed.body.id}/versions`, { key: alice.key })).body[0].id }
	})
	// The data is really there: it reads back decrypted.
	expect((await t.call('GET', `/api/configs/${pushed.body.id}`, { key: alice.key })).body.data[field]).toBe(marker)

	const raw = [file, `${file}-wal`].filter(existsSync).map((f) => readFileSync(f))
	expect(raw.reduce((n, bytes) => n + bytes.length, 0)).toBeGreaterThan(0)
	const needles = [marker, alice.password, alice.key, login.body.apiKey, field]
	for (const bytes of raw) {
		for (const needle of needles) {
			expect({ needle, found: bytes.includes(Buffer.from(needle)) }).toEqual({ needle, found: false })
			// Also not as UTF-16, in case something stored text that way.
			expect(bytes.includes(Buffer.from(needle, 'utf16le'))).toBe(false)
		}
	}
	t.store.close()
})
