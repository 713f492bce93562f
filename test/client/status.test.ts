import { describe, expect, test } from 'bun:test'
import {
	classify,
	conflictsFirst,
	fileLine,
	memberLine,
	type Observed,
	statusEnd
} from '../../src/client/commands/status'
import { fileHash } from '../../src/client/hash'
import { CliFailure, EXIT } from '../../src/client/output'
import type { Target } from '../../src/client/target'
import { homePerTest } from '../support/client/home'

/** Status's judging and ending, as values: no server, no files read. */

const t: Target = {
	tool: 'gemini-cli',
	name: 'default',
	key: 'k',
	label: 'gemini-cli/default',
	args: '',
	latest: { name: 'default', tool: 'gemini-cli' }
}
const remote = (files: Record<string, string>, version = 2) => ({
	id: 'c1',
	version,
	hash: `h${version}`,
	files,
	duplicates: []
})
const base = (files: Record<string, string>, version = 2) => ({
	format: 2 as const,
	server: 's',
	username: 'ada',
	tool: 'gemini-cli' as const,
	name: 'default',
	version,
	hash: `h${version}`,
	files: Object.fromEntries(Object.entries(files).map(([k, c]) => [k, { content: c, hash: fileHash(c) }])),
	pushedFiles: {},
	syncedAt: '2026-01-01T00:00:00.000Z'
})
const observed = (o: Partial<Observed>): Observed => ({
	t,
	scoped: { keys: ['a.md'], skipped: [], excluded: [], foreign: [], elsewhere: [] },
	linked: [],
	local: {},
	locals: [],
	...o
})

// A file's name is shown from this machine's home (src/client/paths.ts): a fresh one each test.
homePerTest('status')

describe('status: where a config stands', () => {
	test('in sync, changed here, changed there, and a conflict', () => {
		const state = base({ 'a.md': 'one\n' })
		expect(
			classify(observed({ remote: remote({ 'a.md': 'one\n' }), state, local: { 'a.md': 'one\n' } }))
		).toMatchObject({
			standing: 'in sync',
			base: 2,
			files: []
		})
		const here = classify(observed({ remote: remote({ 'a.md': 'one\n' }), state, local: { 'a.md': 'two\n' } }))
		expect(here.standing).toBe('local changes')
		expect(here.files).toEqual([{ key: 'a.md', verdict: 'local', detail: undefined }])
		const there = classify(observed({ remote: remote({ 'a.md': 'two\n' }, 3), state, local: { 'a.md': 'one\n' } }))
		expect(there.standing).toBe('remote changes')
		const both = classify(observed({ remote: remote({ 'a.md': 'two\n' }, 3), state, local: { 'a.md': 'three\n' } }))
		expect(both.standing).toBe('conflict')
		expect(both.files[0]).toMatchObject({ key: 'a.md', verdict: 'conflict' })
	})

	test('not on the server; a link out of home and a file owned elsewhere are skipped, not changes', () => {
		expect(classify(observed({ local: { 'a.md': 'x\n' } })).standing).toBe('not on the server')
		const row = classify(
			observed({
				remote: remote({}),
				scoped: {
					keys: ['a.md', 'b.md'],
					skipped: [{ key: 'c.md', why: 'synced with team x here' }],
					excluded: [],
					foreign: [],
					elsewhere: ['c.md']
				},
				linked: ['b.md']
			})
		)
		expect(row.standing).toBe('in sync')
		expect(row.files.map((f) => [f.key, f.verdict])).toEqual([
			['c.md', 'skipped'],
			['b.md', 'skipped']
		])
	})

	test('conflicts are listed first, and a member is told where changes stay', () => {
		const files = [
			{ key: 'a', verdict: 'local' },
			{ key: 'b', verdict: 'conflict', detail: 'both changed' }
		]
		expect(conflictsFirst(files).map((f) => f.key)).toEqual(['b', 'a'])
		expect(fileLine(files[1] as (typeof files)[number])).toBe('  ~/b: conflict: both changed')
		const row = { t, standing: 'local changes' as const, files }
		expect(memberLine(row, undefined)).toBeUndefined()
		expect(memberLine(row, 'a plain member')).toContain('stay on this machine (a plain member)')
	})

	test('how it ends: unreachable first, then conflicts (exit 3), then changes waiting', () => {
		const synced = { t, standing: 'in sync' as const, files: [] }
		const conflict = { ...synced, standing: 'conflict' as const }
		const down = new CliFailure('server down', EXIT.error, 'unreachable')
		expect((statusEnd([conflict], down) as CliFailure).code).toBe('unreachable')
		expect((statusEnd([conflict], undefined) as CliFailure).exitCode).toBe(EXIT.conflict)
		expect(statusEnd([synced], undefined)).toBe('in sync')
		expect(statusEnd([synced, { ...synced, standing: 'remote changes' }], undefined)).toBe('changes')
	})
})
