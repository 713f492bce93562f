import { describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { canonicalJson, compareCodePoints, contentHash, InexactValueError } from '../../src/shared/content-hash'

const sha = (text: string) => createHash('sha256').update(text).digest('hex')

describe('canonical JSON (docs/api.md)', () => {
	test('sorts object keys at every depth and drops whitespace', () => {
		expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
			'{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}'
		)
	})

	test('two objects differing only in key order hash the same', () => {
		expect(contentHash({ theme: 'dark', font: { size: 14, family: 'mono' } })).toBe(
			contentHash({ font: { family: 'mono', size: 14 }, theme: 'dark' })
		)
	})

	test('the hash is lowercase hex SHA-256 of the canonical text, as a client would compute it', () => {
		expect(contentHash({ b: true, a: 'x' })).toBe(sha('{"a":"x","b":true}'))
		expect(contentHash({})).toBe(sha('{}'))
	})

	test('a string hashes as its JSON string literal', () => {
		expect(contentHash('line 1\nline "2"')).toBe(sha('"line 1\\nline \\"2\\""'))
	})

	test('strings and numbers are written as JSON.stringify writes them', () => {
		expect(canonicalJson({ s: 'é\u2028\ud800', n: [1.5, -0.25, 1e-7, 100] })).toBe(
			JSON.stringify({ n: [1.5, -0.25, 1e-7, 100], s: 'é\u2028\ud800' })
		)
	})

	test('keys are ordered by code point, not by UTF-16 unit', () => {
		// U+FF61 is one unit 0xFF61; U+1F600 is the surrogate pair 0xD83D 0xDE00. By code point U+FF61 comes first.
		const keys = ['\u{1F600}', '\uFF61', 'a', 'B']
		expect(keys.sort(compareCodePoints)).toEqual(['B', 'a', '\uFF61', '\u{1F600}'])
		expect(canonicalJson({ '\u{1F600}': 1, '\uFF61': 2 })).toBe('{"\uFF61":2,"\u{1F600}":1}')
	})

	test('__proto__ and constructor are ordinary keys', () => {
		const data = JSON.parse('{"constructor":{"prototype":1},"__proto__":{"x":1}}')
		expect(canonicalJson(data)).toBe('{"__proto__":{"x":1},"constructor":{"prototype":1}}')
	})

	test('refuses numbers that cannot be stored exactly, naming where they are', () => {
		const cases: [unknown, string][] = [
			[JSON.parse('{"a":{"b":[1,1e400]}}'), 'a.b.1'],
			[{ big: 2 ** 53 }, 'big'],
			[{ small: -(2 ** 53) }, 'small']
		]
		for (const [data, path] of cases) {
			try {
				canonicalJson(data)
				throw new Error('accepted')
			} catch (error) {
				expect(error).toBeInstanceOf(InexactValueError)
				expect((error as InexactValueError).path.join('.')).toBe(path)
			}
		}
		expect(canonicalJson({ max: Number.MAX_SAFE_INTEGER, min: Number.MIN_SAFE_INTEGER })).toBe(
			'{"max":9007199254740991,"min":-9007199254740991}'
		)
	})
})
