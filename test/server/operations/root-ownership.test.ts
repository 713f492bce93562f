import { describe, expect, test } from 'bun:test'
import { chownSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { openWithMasterKey } from '../../../src/server/boot'
import { loadConfig } from '../../../src/server/config'
import { serverCli } from '../../support/source-cli'
import { tempDir } from '../../support/temp'

/** docs/operations.md: admin commands run as root leave what they create or replace owned by the data directory's owner. */
const SERVICE_USER = { uid: 65534, gid: 65534 } // nobody:nogroup
const asRoot = process.getuid?.() === 0

const ownersIn = (dir: string) =>
	Object.fromEntries(readdirSync(dir).map((name) => [name, `${statSync(join(dir, name)).uid}`]))

describe.skipIf(!asRoot || process.env.CFGSYNC_TEST_ENGINE === 'postgres')('admin commands run as root', () => {
	test('backup, restore (also a failed one) and user add leave every file to the service user', async () => {
		const dir = tempDir('root-owned')
		const data = join(dir, 'data')
		;(await openWithMasterKey(loadConfig({ dataDir: data }))).store.close()
		for (const name of ['', ...readdirSync(data)]) chownSync(join(data, name), SERVICE_USER.uid, SERVICE_USER.gid)
		chownSync(dir, SERVICE_USER.uid, SERVICE_USER.gid)

		const add = ['user', 'add', '--email', 'a@example.test', '--username', 'a', '--password', 'password-a']
		expect((await serverCli([...add, '--data-dir', data])).code).toBe(0)
		const backup = join(dir, 'nightly.db')
		expect((await serverCli(['backup', backup, '--data-dir', data])).code).toBe(0)
		expect(statSync(backup).uid).toBe(SERVICE_USER.uid)

		rmSync(join(data, 'cfgsync.lock'), { force: true })
		writeFileSync(join(dir, 'garbage.db'), 'not a database')
		expect((await serverCli(['restore', join(dir, 'garbage.db'), '--data-dir', data])).code).toBe(1)
		const service = String(SERVICE_USER.uid)
		expect(Object.values(ownersIn(data)).every((uid) => uid === service)).toBe(true)

		const restored = await serverCli(['restore', backup, '--data-dir', data])
		expect(restored.code).toBe(0)
		const owners = ownersIn(data)
		expect(Object.keys(owners)).toContain('cfgsync.db')
		expect(Object.keys(owners)).toContain('cfgsync.lock')
		expect(Object.entries(owners).filter(([, uid]) => uid !== service)).toEqual([])
	}, 30_000)
})
