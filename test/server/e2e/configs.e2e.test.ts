import { expect, test } from 'bun:test'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { api, emptyDir, startServer, userWithKey, serversOfThisFile } from '../../support/harness'

const servers = serversOfThisFile()

test('push → latest → versions → rollback through the compiled binary, data encrypted on disk', async () => {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const alice = await userWithKey(dir, 'alice', 'pro')
	const marker = `marker-${crypto.randomUUID()}`

	const created = await api(server, 'POST', '/api/configs', alice.key, {
		tool: 'vscode',
		name: 'main',
		data: { editor: { fontSize: 13 }, note: marker }
	})
	expect(created.status).toBe(201)
	const id = created.body.id
	expect(
		(
			await api(server, 'POST', '/api/configs', alice.key, {
				tool: 'vscode',
				name: 'main',
				data: { note: marker, editor: { fontSize: 13 } }
			})
		).body.noChange
	).toBe(true)
	expect(
		(
			await api(server, 'POST', '/api/configs', alice.key, {
				tool: 'vscode',
				name: 'main',
				data: { editor: { fontSize: 14 } }
			})
		).body.version
	).toBe(2)

	const latest = await api(server, 'GET', '/api/configs/latest?name=main&tool=vscode', alice.key)
	expect(latest).toMatchObject({ status: 200, body: { version: 2, data: { editor: { fontSize: 14 } } } })
	expect(latest.headers.get('etag')).toBe(`"${latest.body.hash}"`)
	expect(
		(
			await api(server, 'GET', '/api/configs/latest?name=main&tool=vscode', alice.key, undefined, {
				'if-none-match': latest.headers.get('etag')!
			})
		).status
	).toBe(304)

	const versions = await api(server, 'GET', `/api/configs/${id}/versions`, alice.key)
	expect(versions.body.map((v: { version: number }) => v.version)).toEqual([2, 1])
	const rolled = await api(server, 'POST', `/api/configs/${id}/rollback`, alice.key, { versionId: versions.body[1].id })
	expect(rolled).toMatchObject({ status: 200, body: { version: 3, hash: versions.body[1].hash, isCurrent: true } })
	expect((await api(server, 'GET', `/api/configs/${id}`, alice.key)).body.data).toEqual({
		editor: { fontSize: 13 },
		note: marker
	})

	const stale = await api(
		server,
		'POST',
		'/api/configs',
		alice.key,
		{ tool: 'vscode', name: 'main', data: { x: 1 } },
		{ 'if-match': latest.headers.get('etag')! }
	)
	expect(stale).toMatchObject({ status: 412, body: { code: 'precondition_failed', currentVersion: 3 } })

	// 20 clients at once against the real server: contiguous versions, none lost.
	const results = await Promise.all(
		Array.from({ length: 20 }, (_, i) =>
			api(server, 'POST', '/api/configs', alice.key, { tool: 'vscode', name: 'main', data: { client: i } })
		)
	)
	expect(results.map((r) => r.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 4))
	expect((await api(server, 'GET', `/api/configs/${id}/versions`, alice.key)).body).toHaveLength(23)

	const stored = ['cfgsync.db', 'cfgsync.db-wal'].map((f) => join(dir, 'data', f)).filter(existsSync)
	for (const file of stored) expect(readFileSync(file).includes(Buffer.from(marker))).toBe(false)
	expect(server.log()).not.toContain(marker)

	expect((await api(server, 'DELETE', `/api/configs/${id}`, alice.key)).status).toBe(204)
	expect((await api(server, 'GET', `/api/configs/${id}`, alice.key)).status).toBe(404)
})
