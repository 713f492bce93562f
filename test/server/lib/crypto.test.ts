import { describe, expect, test } from 'bun:test'
import {
	API_KEY_PATTERN,
	createSealer,
	generateApiKey,
	generateMasterKey,
	parseMasterKey
} from '../../../src/server/lib/crypto'

describe('sealing config data (docs/operations.md)', () => {
	const sealer = createSealer(generateMasterKey())

	test('round-trips text, and the ciphertext does not contain it', () => {
		const plaintext = '{"secret":"marker-7f3a"}'
		const sealed = sealer.seal(plaintext, 'config-1:version-1')
		expect(Buffer.from(sealed).includes(Buffer.from('marker-7f3a'))).toBe(false)
		expect(sealer.open(sealed, 'config-1:version-1')).toBe(plaintext)
	})

	test('a fresh nonce per record: sealing the same text twice differs', () => {
		expect(Buffer.from(sealer.seal('same', 'a')).equals(Buffer.from(sealer.seal('same', 'a')))).toBe(false)
	})

	test('a record moved to another row (other ids) does not open', () => {
		const sealed = sealer.seal('data', 'config-1:version-1')
		expect(() => sealer.open(sealed, 'config-2:version-1')).toThrow()
	})

	test('another key, or a flipped bit, does not open', () => {
		const sealed = sealer.seal('data', 'aad')
		expect(() => createSealer(generateMasterKey()).open(sealed, 'aad')).toThrow()
		const tampered = Buffer.from(sealed)
		tampered[14] = (tampered[14] ?? 0) ^ 1
		expect(() => sealer.open(tampered, 'aad')).toThrow()
	})

	test('master keys must be base64 of exactly 32 bytes', () => {
		const key = generateMasterKey()
		expect(parseMasterKey(`${key.toString('base64')}\n`).equals(key)).toBe(true)
		expect(() => parseMasterKey('not base64!')).toThrow('not valid base64')
		expect(() => parseMasterKey(Buffer.alloc(16).toString('base64'))).toThrow('32 bytes')
	})

	test('API keys are cs_ and 64 lowercase hex characters', () => {
		const key = generateApiKey()
		expect(key).toHaveLength(67)
		expect(API_KEY_PATTERN.test(key)).toBe(true)
		expect(generateApiKey()).not.toBe(key)
	})
})
