import { describe, expect, test } from 'bun:test'
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { BootError, DATABASE_FILE, MASTER_KEY_FILE, openWithMasterKey } from '../../src/server/boot'
import { loadConfig } from '../../src/server/config'
import { generateMasterKey } from '../../src/server/lib/crypto'
import { tempDir as newTempDir } from '../support/temp'

const tempDir = () => join(newTempDir('boot'), 'data')
const configFor = (dataDir: string, env: Record<string, string> = {}) => loadConfig({ dataDir }, env)
const fileBytes = (dataDir: string) => readFileSync(join(dataDir, DATABASE_FILE))

describe('master key (docs/operations.md)', () => {
	test('first start creates the data dir and a 0600 master.key holding base64 and a newline', async () => {
		const dataDir = tempDir()
		const { store, createdKeyFile } = await openWithMasterKey(configFor(dataDir))
		store.close()
		expect(createdKeyFile).toBe(true)
		const keyFile = join(dataDir, MASTER_KEY_FILE)
		expect(statSync(keyFile).mode & 0o777).toBe(0o600)
		expect(statSync(dataDir).mode & 0o777).toBe(0o700)
		expect(readFileSync(keyFile, 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/)
	})

	test('a restart reuses the file, and data sealed before opens after', async () => {
		const dataDir = tempDir()
		const first = await openWithMasterKey(configFor(dataDir))
		const sealed = first.sealer.seal('hello', 'aad')
		first.store.close()
		const keyBefore = readFileSync(join(dataDir, MASTER_KEY_FILE), 'utf8')
		const second = await openWithMasterKey(configFor(dataDir))
		second.store.close()
		expect(second.createdKeyFile).toBe(false)
		expect(readFileSync(join(dataDir, MASTER_KEY_FILE), 'utf8')).toBe(keyBefore)
		expect(second.sealer.open(sealed, 'aad')).toBe('hello')
	})

	test('CFGSYNC_MASTER_KEY is used instead of a file, and no file is created', async () => {
		const dataDir = tempDir()
		const key = generateMasterKey().toString('base64')
		const { store } = await openWithMasterKey(configFor(dataDir, { CFGSYNC_MASTER_KEY: key }))
		store.close()
		expect(existsSync(join(dataDir, MASTER_KEY_FILE))).toBe(false)
		const again = await openWithMasterKey(configFor(dataDir, { CFGSYNC_MASTER_KEY: key }))
		again.store.close()
	})

	test('a malformed key stops the start with a clear message', async () => {
		for (const bad of ['not-base64!!', Buffer.alloc(31).toString('base64')]) {
			const dataDir = tempDir()
			const start = openWithMasterKey(configFor(dataDir, { CFGSYNC_MASTER_KEY: bad }))
			await expect(start).rejects.toBeInstanceOf(BootError)
			await expect(start).rejects.toThrow('CFGSYNC_MASTER_KEY')
		}
	})

	test('a wrong key for an existing database refuses to start and changes nothing', async () => {
		const dataDir = tempDir()
		const { store } = await openWithMasterKey(configFor(dataDir))
		store.close()
		const before = fileBytes(dataDir)
		const wrong = generateMasterKey().toString('base64')
		const start = openWithMasterKey(configFor(dataDir, { CFGSYNC_MASTER_KEY: wrong }))
		await expect(start).rejects.toThrow('does not match the database')
		expect(fileBytes(dataDir).equals(before)).toBe(true)
	})

	test('a missing key file for an existing database refuses to start and does not make a new key', async () => {
		const dataDir = tempDir()
		const { store } = await openWithMasterKey(configFor(dataDir))
		store.close()
		const keyFile = join(dataDir, MASTER_KEY_FILE)
		await Bun.write(`${keyFile}.moved`, Bun.file(keyFile))
		await Bun.file(keyFile).delete()
		await expect(openWithMasterKey(configFor(dataDir))).rejects.toThrow('there is no master key')
		expect(existsSync(keyFile)).toBe(false)
	})
})

describe('configuration', () => {
	test('flags beat environment beat defaults', () => {
		expect(loadConfig({}, {})).toMatchObject({ port: 8787, host: '0.0.0.0', defaultPlan: 'team' })
		expect(loadConfig({}, { PORT: '9000' }).port).toBe(9000)
		expect(loadConfig({}, { PORT: '9000', CFGSYNC_PORT: '9001' }).port).toBe(9001)
		expect(loadConfig({ port: '9002' }, { CFGSYNC_PORT: '9001' }).port).toBe(9002)
		expect(loadConfig({}, { CFGSYNC_DATA_DIR: '/srv/cfgsync' }).dataDir).toBe('/srv/cfgsync')
	})

	test('a bad value is one clear error', () => {
		expect(() => loadConfig({ port: 'eighty' }, {})).toThrow('invalid setting --port / CFGSYNC_PORT')
		expect(() => loadConfig({}, { CFGSYNC_DEFAULT_PLAN: 'gold' })).toThrow('invalid setting CFGSYNC_DEFAULT_PLAN')
		expect(() => loadConfig({}, { CFGSYNC_TRUSTED_PROXIES: '10.0.0.0/8, proxy.lan' })).toThrow(
			'invalid setting CFGSYNC_TRUSTED_PROXIES: "proxy.lan" is not an IP address or CIDR range'
		)
	})
})
