import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { ERROR_CODES, ERROR_STATUS, isErrorCode } from '../../src/shared/api/errors'

test("docs/api.md's error table lists every code with its status, and nothing else", () => {
	const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8')
	const section = doc.slice(doc.indexOf('## Errors'))
	const rows = [...section.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map(([, code, status]) => [
		code,
		Number(status)
	])
	expect(Object.fromEntries(rows)).toEqual(ERROR_STATUS)
	expect(rows.map(([code]) => code)).toEqual(ERROR_CODES)
})

test('isErrorCode knows the list and nothing else', () => {
	expect(ERROR_CODES.every(isErrorCode)).toBe(true)
	for (const other of ['unreachable', 'toString', '__proto__', '', 404, undefined])
		expect(isErrorCode(other)).toBe(false)
})
