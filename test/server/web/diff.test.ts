import { describe, expect, test } from 'bun:test'
import { blocksOf, diffData, diffText, type Gap, sideBySide } from '../../../src/server/web/diff'

describe('server-rendered diffs', () => {
	test('a {"files": …} config is one block per file, sorted by path; anything else is one block', () => {
		expect(blocksOf({ files: { 'b.md': 'B', 'a.json': 'A' } })).toEqual([
			{ path: 'a.json', text: 'A' },
			{ path: 'b.md', text: 'B' }
		])
		expect(blocksOf('plain text')).toEqual([{ path: null, text: 'plain text' }])
		expect(blocksOf({ files: { a: 'x' }, other: 1 })).toEqual([
			{ path: null, text: JSON.stringify({ files: { a: 'x' }, other: 1 }, null, 2) }
		])
	})

	test('line numbers on both sides; unchanged runs beyond 3 lines of context fold into gaps', () => {
		const older = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')
		const newer = older.replace('line 10', 'line ten')
		const { lines, added, removed } = diffText(older, newer)
		expect({ added, removed }).toEqual({ added: 1, removed: 1 })
		expect(lines[0]).toMatchObject({ kind: 'gap', count: 6 })
		expect((lines[0] as Gap).lines.map((line) => line.text)).toEqual([
			'line 1',
			'line 2',
			'line 3',
			'line 4',
			'line 5',
			'line 6'
		])
		expect(lines.find((line) => line.kind === 'removed')).toMatchObject({ kind: 'removed', text: 'line 10', from: 10 })
		expect(lines.find((line) => line.kind === 'added')).toMatchObject({ kind: 'added', text: 'line ten', to: 10 })
		expect(lines[lines.length - 1]).toMatchObject({ kind: 'gap', count: 7 })
	})

	test('per file: added, removed, changed and unchanged files', () => {
		const files = diffData(
			{ files: { keep: 'same\n', gone: 'old\n', edit: 'a\nb\n' } },
			{ files: { keep: 'same\n', edit: 'a\nc\n', new: 'fresh\n' } }
		)
		expect(files.map((file) => [file.path, file.status, file.added, file.removed])).toEqual([
			['edit', 'changed', 1, 1],
			['gone', 'removed', 0, 1],
			['keep', 'unchanged', 0, 0],
			['new', 'added', 1, 0]
		])
	})

	test('side by side pairs removed lines with the added lines that replace them', () => {
		const { lines } = diffText('a\nb\nc\n', 'a\nB\nc\nd\n')
		const rows = sideBySide(lines)
		expect(rows.map((row) => [row.left?.text ?? null, row.right?.text ?? null])).toEqual([
			['a', 'a'],
			['b', 'B'],
			['c', 'c'],
			[null, 'd']
		])
	})
})
