import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { openWithMasterKey } from '../../../src/server/boot'
import { loadConfig } from '../../../src/server/config'
import { newPostgresDatabase, TEST_ENGINE } from '../../support/engine'
import { serverCli } from '../../support/source-cli'
import { tempDir } from '../../support/temp'

/**
 * docs/operations.md and issue 37.1: `rekey` in a mixed fleet. An instance with a heartbeat in the last minute that does
 * not take the new key (an older release that reports no keys it learns, a frozen process) stops it
 * before anything is re-encrypted, exit 1, naming it.
 */
const KEY = Buffer.alloc(32, 3).toString('base64')

describe('rekey with an instance that does not take the new key', () => {
	test('exits 1 naming it, re-encrypts nothing, and finishes once that instance is gone', async () => {
		const dataDir = tempDir('rekey-fleet')
		const databaseUrl = TEST_ENGINE === 'postgres' ? await newPostgresDatabase() : undefined
		const config = { ...loadConfig({ dataDir }), databaseUrl, masterKey: KEY, databasePool: 2 }
		;(await openWithMasterKey(config)).store.close()
		const statement = async (text: string) => {
			if (databaseUrl === undefined) {
				const database = new Database(join(dataDir, 'cfgsync.db'))
				database.run(text)
				database.close()
			} else {
				const client = new SQL({ url: databaseUrl, max: 1 })
				await client.unsafe(text)
				await client.close()
			}
		}
		// An instance of an older release: its heartbeat says it lives (20 s ago), its key never changes.
		await statement(
			`INSERT INTO server_instances (id, key_id, seen_at) VALUES ('older-release-instance', 'its-old-key', ${Date.now() - 20_000})`
		)
		const env: Record<string, string> = {
			CFGSYNC_MASTER_KEY: KEY,
			...(databaseUrl ? { CFGSYNC_DATABASE_URL: databaseUrl } : {})
		}
		const refused = await serverCli(['rekey', '--wait-seconds', '1', '--data-dir', dataDir], env)
		expect(refused.code).toBe(1)
		expect(refused.stderr.trim().split('\n')).toHaveLength(1)
		expect(refused.stderr).toContain('instance older-release-instance')
		expect(refused.stderr).toContain('nothing was re-encrypted')
		// The key check is still the old key's: a server starts with it as before.
		;(await openWithMasterKey(config)).store.close()

		await statement(`DELETE FROM server_instances WHERE id = 'older-release-instance'`)
		const finished = await serverCli(['rekey', '--wait-seconds', '1', '--data-dir', dataDir], env)
		expect(finished.code).toBe(0)
	}, 30_000)
})
