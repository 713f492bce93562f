import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { contentHash as clientHash } from '../../src/client/hash'
import { contentHash as serverHash } from '../../src/shared/content-hash'

describe('the client hashes like the server (docs/api.md), with node:crypto', () => {
	test('the same content hash for the same data: key order, unicode, __proto__ keys, strings', () => {
		const samples: unknown[] = [
			{ files: { '.claude/settings.json': '{"a":1}\n', '@Code/User/settings.json': '\uFEFF{}\r\n' } },
			{ b: 1, a: [1, 2, { z: null, y: true }] },
			JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}'),
			{ é: 'ü', '😀': '\u2028', '\uE000': 'astral vs private use order' },
			'a plain string'
		]
		for (const data of samples) expect(clientHash(data)).toBe(serverHash(data))
	})

	test('for any JSON value (and both refuse what cannot be stored exactly)', () => {
		const attempt = (hash: (data: unknown) => string, data: unknown) => {
			try {
				return hash(data)
			} catch (error) {
				return `refused: ${(error as Error).message}`
			}
		}
		fc.assert(
			fc.property(fc.jsonValue(), (value) => {
				const data = { files: { x: JSON.stringify(value) }, value }
				expect(attempt(clientHash, data)).toBe(attempt(serverHash, data))
			}),
			{ numRuns: 300 }
		)
	})
})
