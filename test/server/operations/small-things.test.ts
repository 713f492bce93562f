import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { openWithMasterKey } from '../../../src/server/boot'
import { loadConfig } from '../../../src/server/config'
import { writeVerifiedBackup } from '../../../src/server/jobs/backup'
import { manualClock } from '../../../src/server/lib/clock'
import { createSealer, generateMasterKey } from '../../../src/server/lib/crypto'
import { memoryLogger } from '../../../src/server/lib/log'
import { openTestStore } from '../../support/engine'
import { serverCli } from '../../support/source-cli'
import { tempDir } from '../../support/temp'

/** Issue 37.7: the smaller things an operator meets on a bad day. */
const ROOT = resolve(import.meta.dir, '..', '..', '..')

test('the documented nginx block sets X-Forwarded-Host itself, so a client’s own is never passed on', () => {
	const deploy = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8')
	const block = deploy.slice(deploy.indexOf('```nginx'), deploy.indexOf('```', deploy.indexOf('```nginx') + 3))
	expect(block).toMatch(/proxy_set_header X-Forwarded-Host \$http_host;/)
})

test('a scheduled backup that fails half-way leaves no partial file behind', async () => {
	const store = openTestStore()
	const dir = tempDir('backup-fails')
	const failing = {
		...store,
		backup: async (target: string) => {
			writeFileSync(target, 'half a database')
			throw new Error('No space left on device')
		}
	}
	await expect(
		writeVerifiedBackup({
			store: failing,
			sealer: createSealer(generateMasterKey()),
			clock: manualClock(),
			logger: memoryLogger(),
			dir,
			keep: 3
		})
	).rejects.toThrow('No space left on device')
	expect(readdirSync(dir)).toEqual([])
	store.close()
})

describe.skipIf(process.env.CFGSYNC_TEST_ENGINE === 'postgres')('rekey on SQLite (from the terminal)', () => {
	test('ends without asking for restarts; the old key named by where it came from afterwards', async () => {
		const dir = tempDir('rekey-words')
		const data = join(dir, 'data')
		const oldKey = Buffer.alloc(32, 9).toString('base64')
		// What a first start leaves: the database with its key check, and master.key (or none, with the variable).
		const firstStart = async (dataDir: string, masterKey?: string) =>
			(await openWithMasterKey({ ...loadConfig({ dataDir }), databaseUrl: undefined, masterKey })).store.close()
		await firstStart(data)
		const rekey = await serverCli(['rekey', '--wait-seconds', '0', '--data-dir', data])
		expect(rekey.code).toBe(0)
		expect(rekey.stdout + rekey.stderr).not.toContain('Restart every server')

		// A rotation done with the variable: the refusal afterwards names the variable, not master.key.
		const other = join(dir, 'other')
		const env = { CFGSYNC_MASTER_KEY: oldKey }
		await firstStart(other, oldKey)
		expect((await serverCli(['rekey', '--wait-seconds', '0', '--data-dir', other], env)).code).toBe(0)
		const stale = await serverCli(['serve', '--port', '0', '--data-dir', other], env)
		expect(stale.code).toBe(1)
		expect(stale.stderr).toContain('CFGSYNC_MASTER_KEY')
		expect(stale.stderr).not.toContain('master.key')
	}, 30_000)
})
