import { Database } from 'bun:sqlite'
import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, emptyDir, run, serversOfThisFile, startServer, userWithKey } from '../../support/harness'

const servers = serversOfThisFile()

describe('the audit log on the compiled binary', () => {
	test('admin commands record their events as "admin command"; API calls record the device and the address', async () => {
		const dir = emptyDir()
		const server = await startServer(dir)
		servers.push(server)
		const ada = await userWithKey(dir, 'ada', 'pro')
		await api(server, 'POST', '/api/configs', ada.key, { name: 'c', data: { v: 1 } })
		for (const args of [
			['user', 'set-plan', 'ada', 'team'],
			['user', 'set-admin', 'ada', 'on'],
			['user', 'unlock', 'ada'],
			['backup', join(dir, 'b.db')]
		]) {
			expect((await run(dir, args)).code).toBe(0)
		}
		await server.stop()
		expect((await run(dir, ['restore', join(dir, 'b.db')])).code).toBe(0)
		expect((await run(dir, ['rekey'])).code).toBe(0)
		// A backup from before the rotation opens only under the old key, and restore says where that key is.
		const refused = await run(dir, ['restore', join(dir, 'b.db')])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toMatch(
			/made before a key rotation, restore it with the old key: CFGSYNC_MASTER_KEY=.*master\.key\.before-rekey-/
		)
		const db = new Database(join(dir, 'data', 'cfgsync.db'), { readonly: true })
		const rows = db
			.query<{ type: string; actor_device: string | null; address: string | null }, []>(
				'SELECT type, actor_device, address FROM audit_events ORDER BY id'
			)
			.all()
		db.close()
		// The restored database holds what the backup held, then the restore itself.
		// A first start on an empty database made the setup address (docs/web.md) before the first user.
		expect(rows.map((r) => r.type)).toEqual([
			'signup_link.created',
			'user.created',
			'key.issued',
			'config.pushed',
			'user.plan_changed',
			'user.admin_changed',
			'user.unlocked',
			'backup.restored',
			'master_key.rotated'
		])
		expect(
			rows
				.filter((r) => r.type !== 'config.pushed' && r.type !== 'signup_link.created')
				.every((r) => r.actor_device === 'admin command' && r.address === null)
		).toBe(true)
		expect(rows.find((r) => r.type === 'config.pushed')).toEqual({
			type: 'config.pushed',
			actor_device: 'e2e',
			address: '127.0.0.1'
		})
		const kept = new Database(
			join(
				dir,
				'data',
				(await Array.fromAsync(new Bun.Glob('cfgsync.db.before-restore-*').scan(join(dir, 'data'))))[0] as string
			),
			{ readonly: true }
		)
		expect(
			kept
				.query<{ type: string }, []>('SELECT type FROM audit_events ORDER BY id')
				.all()
				.map((r) => r.type)
				.slice(-1)
		).toEqual(['backup.written'])
		kept.close()
	}, 60_000)
})
