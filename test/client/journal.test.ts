import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { removeLeftTemporaries } from '../../src/client/files'
import { fileHash } from '../../src/client/hash'
import {
	afterHash,
	baseWithoutPush,
	fingerprint,
	type Journal,
	journalFor,
	pendingState,
	readJournal,
	settle,
	settleJournal,
	writeJournal
} from '../../src/client/journal'
import { installedPaths, type Paths, usePaths } from '../../src/client/paths'
import { getState, setState, type SyncState } from '../../src/client/state'
import type { Bases, Files, Write } from '../../src/client/sync/engine'
import { pathsIn } from '../support/client/home'
import { tempDir } from '../support/temp'

/**
 * docs/sync-model.md, "Crashes": how the next command settles the journal a
 * killed one left — which files count as the server's version, which keep
 * their old base, and when a push counts as stored.
 */

const base = (files: Files): Bases =>
	Object.fromEntries(Object.entries(files).map(([key, content]) => [key, { content, hash: fileHash(content) }]))
const contents = (bases: Bases) => Object.fromEntries(Object.entries(bases).map(([key, file]) => [key, file.content]))

const stateOf = (version: number, files: Files, hash = `hash-${version}`): SyncState => ({
	format: 2,
	server: 'http://cfgsync.test',
	username: 'ada',
	tool: 'claude-code',
	name: 'default',
	version,
	hash,
	files: base(files),
	syncedAt: '2026-11-25T00:00:00.000Z'
})

/** A pull of three files (a, b, c, written in that order) from version 2; d was the same on both sides. */
const old = stateOf(1, { a: 'a1', b: 'b1', c: 'c1', d: 'd' })
const pulledWrites: Write[] = [
	{ key: 'a', content: 'a2', kind: 'updated', before: 'a1' },
	{ key: 'b', content: 'b2', kind: 'updated', before: 'b1' },
	{ key: 'c', content: null, kind: 'deleted', before: 'c1' }
]
const pullJournal = (): Journal => ({
	format: 1,
	command: 'pull',
	startedAt: '2026-11-25T00:00:01.000Z',
	basedOn: 'unused by settle',
	pulled: stateOf(2, { a: 'a2', b: 'b2', d: 'd' }),
	writes: pulledWrites.map((w) => ({
		key: w.key,
		before: w.before === undefined ? null : fileHash(w.before),
		beforeContent: w.before ?? null,
		after: afterHash(w.key, w.content)
	})),
	places: []
})
const reading =
	(files: Record<string, string | null>) =>
	(key: string): string | null =>
		files[key] === null || files[key] === undefined ? null : fileHash(files[key] as string)

describe('settling a pull cut short', () => {
	test('written files take the server version as base; files not reached keep their old base; the version stays the old one', () => {
		const settled = settle(pullJournal(), old, reading({ a: 'a2', b: 'b1', c: 'c1' }), undefined)
		expect(contents(settled.state.files)).toEqual({ a: 'a2', b: 'b1', c: 'c1', d: 'd' })
		expect([settled.state.version, settled.state.hash]).toEqual([1, 'hash-1'])
		expect([settled.landed, settled.untouched, settled.edited]).toEqual([['a'], ['b', 'c'], []])
	})

	test('every file written (killed before the state was saved): the pull is complete, version 2', () => {
		const settled = settle(pullJournal(), old, reading({ a: 'a2', b: 'b2', c: null }), undefined)
		expect(contents(settled.state.files)).toEqual({ a: 'a2', b: 'b2', d: 'd' })
		expect([settled.state.version, settled.state.hash]).toEqual([2, 'hash-2'])
		expect(settled.landed).toEqual(['a', 'b', 'c'])
	})

	test('a file edited since: written before a file found written, it is an edit of the server version; after it, its old base stands (no telling, so no silent revert)', () => {
		const earlier = settle(pullJournal(), old, reading({ a: 'mine', b: 'b2', c: 'c1' }), undefined)
		expect(contents(earlier.state.files)).toEqual({ a: 'a2', b: 'b2', c: 'c1', d: 'd' })
		expect(earlier.edited).toEqual(['a'])
		const later = settle(pullJournal(), old, reading({ a: 'a2', b: 'mine', c: 'c1' }), undefined)
		expect(contents(later.state.files)).toEqual({ a: 'a2', b: 'b1', c: 'c1', d: 'd' })
		expect(later.edited).toEqual(['b'])
	})

	test('a new machine (no state before): files not reached have no base, so they are judged as on a new machine', () => {
		const journal = pullJournal()
		const settled = settle(journal, undefined, reading({ a: 'a2', b: 'b1', c: 'c1' }), undefined)
		expect(contents(settled.state.files)).toEqual({ a: 'a2', d: 'd' })
		expect([settled.state.version, settled.state.hash]).toEqual([0, ''])
	})
})

describe('settling a push', () => {
	/** A sync: `m` merged (written here and sent), `x` changed here (sent), from version 2 on the server. */
	const before = stateOf(1, { m: 'm1', x: 'x1', y: 'y' })
	const remote: Files = { m: 'm-theirs', x: 'x1', y: 'y' }
	const sent: Files = { m: 'm-merged', x: 'x-mine', y: 'y' }
	const writes: Write[] = [{ key: 'm', content: 'm-merged', kind: 'merged', before: 'm-mine' }]
	const landed = base(sent)
	const journal = (): Journal => ({
		format: 1,
		command: 'sync',
		startedAt: '2026-11-25T00:00:01.000Z',
		basedOn: 'unused by settle',
		pulled: { ...stateOf(2, {}), files: baseWithoutPush(landed, before.files, remote, sent, writes) },
		push: {
			hash: 'sent-hash',
			after: 2,
			state: { ...stateOf(0, sent, 'sent-hash'), pushedFiles: { x: fileHash('x-mine') } }
		},
		writes: writes.map((w) => ({
			key: w.key,
			before: fileHash(w.before as string),
			beforeContent: w.before ?? null,
			after: afterHash(w.key, w.content)
		})),
		places: []
	})

	test('stored (the latest holds what was sent): every file sent is the base, at the version the server gave it', () => {
		const settled = settle(journal(), before, reading({ m: 'm-merged' }), 3)
		expect(contents(settled.state.files)).toEqual(sent)
		expect([settled.state.version, settled.state.hash, settled.stored]).toEqual([3, 'sent-hash', 3])
		expect(settled.state.pushedFiles).toEqual({ x: fileHash('x-mine') })
	})

	test('stored, but the merge was never written here: its base is what is here, so the next pull writes the merge', () => {
		const settled = settle(journal(), before, reading({ m: 'm-mine' }), 3)
		expect(contents(settled.state.files)).toEqual({ m: 'm-mine', x: 'x-mine', y: 'y' })
	})

	test("stored, and the merged file changed here since: its base is what was sent, so only the later edit is this machine's", () => {
		// The writes come before the push (sync-step/commit.ts): a stored push means the merge was written, then edited.
		const settled = settle(journal(), before, reading({ m: 'm-merged, edited later' }), 3)
		expect(contents(settled.state.files)).toEqual(sent)
		expect(settled.edited).toEqual(['m'])
	})

	test('not stored: the written merge has the server version as base, the change not sent keeps its old base (still to send)', () => {
		const settled = settle(journal(), before, reading({ m: 'm-merged' }), undefined)
		expect(contents(settled.state.files)).toEqual({ m: 'm-theirs', x: 'x1', y: 'y' })
		expect(settled.state.version).toBe(2)
		expect(settled.stored).toBeUndefined()
	})

	test('a file a push takes out of the config keeps its old base when the push is not stored', () => {
		const without = baseWithoutPush(
			base({ y: 'y' }),
			base({ gone: 'g', y: 'y' }),
			{ gone: 'g', y: 'y' },
			{ y: 'y' },
			[]
		)
		expect(contents(without)).toEqual({ gone: 'g', y: 'y' })
	})
})

test("a part of a file (.claude.json's mcpServers) is compared as it reads back, re-serialised", () => {
	const sent = '{"mcpServers": {"docs": {"command": "docs-server"}}}'
	expect(afterHash('.claude.json#mcpServers', sent)).toBe(
		fileHash(`${JSON.stringify({ mcpServers: { docs: { command: 'docs-server' } } }, null, 2)}\n`)
	)
	expect(afterHash('.claude/CLAUDE.md', '# x\n')).toBe(fileHash('# x\n'))
	expect(afterHash('.claude/CLAUDE.md', null)).toBeNull()
})

describe('on disk', () => {
	let before: Paths | undefined
	let home: string
	const key = 'http://cfgsync.test ada personal claude-code default'
	beforeAll(() => {
		before = installedPaths()
	})
	beforeEach(() => {
		home = tempDir('journal')
		usePaths(pathsIn(home))
	})
	afterAll(() => {
		usePaths(before)
	})
	const write = (path: string, content: string) => {
		mkdirSync(join(home, path, '..'), { recursive: true })
		writeFileSync(join(home, path), content)
	}
	/** A process id no process has (above Linux's largest). */
	const DEAD = 99_999_999

	test('the next command settles the journal once: the state is written, the journal and the temporary files a killed writer left are gone, a running one keeps its own', async () => {
		const files = { '.claude/commands/a.md': 'a1', '.claude/commands/b.md': 'b1' }
		for (const [path, content] of Object.entries(files)) write(path, content)
		const start = { ...stateOf(1, files), server: 'http://cfgsync.test' }
		setState(key, start)
		const writes: Write[] = [
			{ key: '.claude/commands/a.md', content: 'a2', kind: 'updated', before: 'a1' },
			{ key: '.claude/commands/b.md', content: 'b2', kind: 'updated', before: 'b1' }
		]
		writeJournal(
			key,
			journalFor({
				command: 'pull',
				old: getState(key),
				pulled: stateOf(2, { '.claude/commands/a.md': 'a2', '.claude/commands/b.md': 'b2' }),
				writes
			})
		)
		// Killed after the first file and while the second one's temporary copy was written.
		write('.claude/commands/a.md', 'a2')
		write(`.claude/commands/.b.md.cfgsync-${DEAD}-0badc0de.tmp`, 'b2')
		write(`.claude/commands/.b.md.cfgsync-${process.pid}-0000beef.tmp`, 'another command, running')
		write('.claude/commands/.notes.tmp', 'not ours')

		// status reads it as it will be settled, and changes nothing.
		expect(contents(pendingState(key)?.files ?? {})).toEqual({
			'.claude/commands/a.md': 'a2',
			'.claude/commands/b.md': 'b1'
		})
		expect(getState(key)).toEqual(start)

		let asked = 0
		const settled = await settleJournal(key, async () => {
			asked++
			return undefined
		})
		expect(asked).toBe(0) // no push: the server is not asked
		expect(settled?.landed).toEqual(['.claude/commands/a.md'])
		expect(contents(getState(key)?.files ?? {})).toEqual({
			'.claude/commands/a.md': 'a2',
			'.claude/commands/b.md': 'b1'
		})
		expect(readJournal(key)).toBeUndefined()
		expect(readdirSync(join(home, '.claude', 'commands')).sort()).toEqual([
			`.b.md.cfgsync-${process.pid}-0000beef.tmp`,
			'.notes.tmp',
			'a.md',
			'b.md'
		])
		expect(await settleJournal(key, async () => undefined)).toBeUndefined()
	})

	test("another config's killed command: its temporary files go with the next command of any config, its journal stays for its own", async () => {
		const otherKey = `${key} other`
		write('.gemini/GEMINI.md', 'g1')
		setState(otherKey, stateOf(1, { '.gemini/GEMINI.md': 'g1' }))
		writeJournal(
			otherKey,
			journalFor({
				command: 'sync',
				old: getState(otherKey),
				pulled: stateOf(2, { '.gemini/GEMINI.md': 'g2' }),
				writes: [{ key: '.gemini/GEMINI.md', content: 'g2', kind: 'updated', before: 'g1' }]
			})
		)
		// Killed while the temporary copy of GEMINI.md was written.
		write(`.gemini/.GEMINI.md.cfgsync-${DEAD}-0badc0de.tmp`, 'g2')
		setState(key, stateOf(1, {}))

		expect(await settleJournal(key, async () => undefined)).toBeUndefined()
		expect(readdirSync(join(home, '.gemini'))).toEqual(['GEMINI.md'])
		expect(readJournal(otherKey)).toBeDefined()
	})

	test('a journal whose command saved its state (killed just before removing the journal) is dropped, the state kept', async () => {
		setState(key, stateOf(1, { a: 'a1' }))
		writeJournal(key, journalFor({ command: 'pull', old: getState(key), pulled: stateOf(2, { a: 'a2' }), writes: [] }))
		const done = stateOf(2, { a: 'a2' })
		setState(key, done)
		expect(await settleJournal(key, async () => undefined)).toBeUndefined()
		expect(getState(key)).toEqual(done)
		expect(readJournal(key)).toBeUndefined()
	})

	test('a push in the journal is settled as the server says: stored at the version holding what was sent, else not', async () => {
		setState(key, stateOf(1, { a: 'a1' }))
		const journal = journalFor({
			command: 'push',
			old: getState(key),
			pulled: stateOf(1, { a: 'a1' }),
			push: { hash: 'sent', after: 1, state: stateOf(0, { a: 'a-mine' }, 'sent') },
			writes: []
		})
		writeJournal(key, journal)
		const asked: unknown[] = []
		const notStored = await settleJournal(key, async (push) => {
			asked.push(push)
			return undefined
		})
		expect(asked).toMatchObject([{ hash: 'sent', after: 1 }])
		expect(notStored?.stored).toBeUndefined()
		expect(getState(key)?.files.a?.content).toBe('a1')
		setState(key, stateOf(1, { a: 'a1' }))
		writeJournal(key, { ...journal, basedOn: fingerprint(getState(key)) })
		expect((await settleJournal(key, async () => 7))?.stored).toBe(7)
		expect(getState(key)).toMatchObject({ version: 7, hash: 'sent', files: { a: { content: 'a-mine' } } })
	})

	test('with no journal, the next command still removes what a killed writer of state, journal or login left', async () => {
		const left = [
			join('.local', 'state', 'cfgsync', 'configs', `.0123.json.cfgsync-${DEAD}-aaaaaaaa.tmp`),
			join('.local', 'state', 'cfgsync', 'journal', `.0123.json.cfgsync-${DEAD}-bbbbbbbb.tmp`),
			join('.config', 'cfgsync', `.credentials.json.cfgsync-${DEAD}-cccccccc.tmp`)
		]
		for (const path of left) write(path, '{')
		write(join('.config', 'cfgsync', 'credentials.json'), '{}')
		expect(await settleJournal(key, async () => undefined)).toBeUndefined()
		for (const path of left) expect(existsSync(join(home, path))).toBe(false)
		expect(readdirSync(join(home, '.config', 'cfgsync'))).toEqual(['credentials.json'])
	})

	test('left temporary files are removed only by name and only when their writer is gone, below a backup too', () => {
		const dir = join(home, 'backups', '2026-11-25T00-00-00-000Z', '.claude')
		mkdirSync(dir, { recursive: true })
		writeFileSync(join(dir, `.settings.json.cfgsync-${DEAD}-12345678.tmp`), 'x')
		writeFileSync(join(dir, 'settings.json.cfgsync-1-12345678.tmp.keep'), 'x')
		expect(removeLeftTemporaries(join(home, 'backups'))).toBe(0)
		// Two levels down (the backup's time, then .claude); one is not enough, and the walk stops there.
		expect(removeLeftTemporaries(join(home, 'backups'), 1)).toBe(0)
		expect(removeLeftTemporaries(join(home, 'backups'), 2)).toBe(1)
		expect(readdirSync(dir)).toEqual(['settings.json.cfgsync-1-12345678.tmp.keep'])
		expect(removeLeftTemporaries(join(home, 'nowhere'))).toBe(0)
		expect(existsSync(join(home, 'nowhere'))).toBe(false)
	})
})
