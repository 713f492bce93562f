import { describe, expect, test } from 'bun:test'
import type { AuditEventView, ConfigVersion } from '../../src/client/api'
import { patchesOf, withKeptShown } from '../../src/client/commands/diff'
import { addAuthors, type Author, authorText, morePages, unknownNote } from '../../src/client/commands/history'
import { homePerTest } from '../support/client/home'

/** history's and diff's pure parts: what the audit log says of versions, and the patches compared. */

const version = (n: number, at: string) => ({ version: n, createdAt: at }) as unknown as ConfigVersion
const event = (n: number, at: string, id = `e${n}`, restored?: number) =>
	({
		id,
		at,
		target: { id: 'c1' },
		actor: { username: 'ada', device: 'laptop' },
		details: { version: n, ...(restored === undefined ? {} : { restored }) }
	}) as unknown as AuditEventView

// A file's name is shown from this machine's home (src/client/paths.ts): a fresh one each test.
homePerTest('history-diff')

describe('history: who pushed each version', () => {
	test('events of this config name their versions; the newest event of a version wins; others are ignored', () => {
		const by = new Map<number, Author>()
		addAuthors(
			by,
			[event(3, 'c', 'x', 1), event(3, 'b'), { ...event(2, 'a'), target: { id: 'other' } } as AuditEventView],
			'c1'
		)
		expect([...by]).toEqual([[3, { username: 'ada', device: 'laptop', rollbackTo: 1 }]])
		expect(authorText(by.get(3))).toBe('ada on laptop (rollback to 1)')
		expect(authorText(undefined)).toBe('?')
	})

	test('paging stops on a short page, an event older than the oldest version, or every version known', () => {
		const versions = [version(1, '2026-01-02'), version(2, '2026-01-03')]
		const full = Array.from({ length: 200 }, () => event(9, '2026-01-05'))
		expect(morePages(full, '2026-01-02', versions, new Map())).toBe(true)
		expect(morePages(full.slice(1), '2026-01-02', versions, new Map())).toBe(false)
		expect(morePages([...full.slice(1), event(9, '2026-01-01')], '2026-01-02', versions, new Map())).toBe(false)
		const known = new Map<number, Author>([1, 2].map((n) => [n, { username: 'a', device: null, rollbackTo: null }]))
		expect(morePages(full, '2026-01-02', versions, known)).toBe(false)
		expect(morePages([], '2026-01-02', versions, new Map())).toBe(false)
	})

	test('the note names versions the log does not hold', () => {
		const versions = [version(1, 'a'), version(2, 'b'), version(3, 'c')]
		const one = new Map<number, Author>([[3, { username: 'a', device: null, rollbackTo: null }]])
		expect(unknownNote(versions, one)).toStartWith('Versions 1, 2 are not in the audit log')
		expect(unknownNote(versions, new Map())).toStartWith('No version is not in the audit log')
		expect(unknownNote([version(3, 'c')], one)).toBeNull()
	})
})

describe('diff: the patches', () => {
	test('one patch per file that differs, in key order, with invisible differences shown', () => {
		const patches = patchesOf({
			before: { 'b.md': 'same\n', 'a.md': 'x\n', 'c.md': 'gone\n' },
			after: { 'b.md': 'same\n', 'a.md': 'x\r\n' },
			labels: ['server v2', 'local']
		})
		expect(patches.map((p) => p.key)).toEqual(['a.md', 'c.md'])
		expect(patches[0]?.patch).toContain('+x\\r')
		expect(patches[1]?.patch).toContain('-gone')
	})

	test('a whole file that stays on this machine is shown as the server has it', () => {
		const kept = { 'a.json': { whole: true } } as never
		expect(withKeptShown(kept, ['a.json'], { 'a.json': 'mine' }, { 'a.json': 'theirs' })).toEqual({
			'a.json': 'theirs'
		})
		expect(withKeptShown(kept, [], { 'a.json': 'mine' }, { 'a.json': 'theirs' })).toEqual({ 'a.json': 'mine' })
	})
})
