import { describe, expect, test } from 'bun:test'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { newPostgresDatabase, TEST_ENGINE } from '../../support/engine'
import { serverCli } from '../../support/source-cli'
import { tempDir } from '../../support/temp'

/** docs/operations.md: only serve, user add, invite create and restore create a database; a bad master key is refused by all. */
const KEY = Buffer.alloc(32, 7).toString('base64')

describe.skipIf(TEST_ENGINE === 'postgres')('a command run on a data directory with no database (SQLite)', () => {
	const readers: string[][] = [
		['backup', '/FILE'],
		['user', 'list'],
		['user', 'set-plan', 'bob', 'pro'],
		['user', 'passwd', 'bob', '--password', 'another-password'],
		['user', 'remove', 'bob'],
		['key', 'issue', 'bob', '--device', 'ci'],
		['purge'],
		['rekey'],
		['db', 'copy', '--to', '/FILE']
	]
	for (const args of readers) {
		test(`${args.slice(0, 2).join(' ')} exits 1 naming the path and creates nothing`, async () => {
			const dir = tempDir('misspelt')
			const result = await serverCli(
				[...args.map((arg) => (arg === '/FILE' ? join(dir, 'out.db') : arg)), '--data-dir', join(dir, 'dtaa')],
				{ CFGSYNC_MASTER_KEY: KEY }
			)
			expect(result.code).toBe(1)
			expect(result.stderr).toContain(join(dir, 'dtaa', 'cfgsync.db'))
			expect(result.stderr.trim().split('\n')).toHaveLength(1)
			expect(readdirSync(dir)).toEqual([])
		})
	}

	test('user add and invite create make one, saying so on stderr', async () => {
		const dir = tempDir('creating')
		const added = await serverCli([
			'user',
			'add',
			'--email',
			'a@example.test',
			'--username',
			'a',
			'--password',
			'password-of-a',
			'--data-dir',
			join(dir, 'one')
		])
		expect(added.code).toBe(0)
		expect(added.stderr).toContain(join(dir, 'one', 'cfgsync.db'))
		const invited = await serverCli(['invite', 'create', '--data-dir', join(dir, 'two')])
		expect(invited.code).toBe(0)
		expect(existsSync(join(dir, 'two', 'cfgsync.db'))).toBe(true)
	})
})

describe('an invalid CFGSYNC_MASTER_KEY', () => {
	test('is refused by every command, naming the variable, before anything is written', async () => {
		const dir = tempDir('bad-key')
		const env: Record<string, string> =
			TEST_ENGINE === 'postgres' ? { CFGSYNC_DATABASE_URL: await newPostgresDatabase() } : {}
		const made = await serverCli(
			[
				'user',
				'add',
				'--email',
				'a@example.test',
				'--username',
				'a',
				'--password',
				'password-of-a',
				'--data-dir',
				join(dir, 'data')
			],
			{ ...env, CFGSYNC_MASTER_KEY: KEY }
		)
		expect(made.code).toBe(0)
		const bad = { ...env, CFGSYNC_MASTER_KEY: 'not-a-key' }
		for (const args of [
			['user', 'list'],
			['user', 'add', '--email', 'b@example.test', '--username', 'b', '--password', 'password-of-b'],
			['invite', 'create'],
			['purge'],
			['key', 'issue', 'a', '--device', 'ci']
		]) {
			const result = await serverCli([...args, '--data-dir', join(dir, 'data')], bad)
			expect({ args, code: result.code, names: result.stderr.includes('CFGSYNC_MASTER_KEY') }).toEqual({
				args,
				code: 1,
				names: true
			})
		}
		const list = await serverCli(['user', 'list', '--json', '--data-dir', join(dir, 'data')], {
			...env,
			CFGSYNC_MASTER_KEY: KEY
		})
		expect((JSON.parse(list.stdout) as unknown[]).length).toBe(1)
	})
})
