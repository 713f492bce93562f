import { describe, expect, test } from 'bun:test'
import {
	decide,
	judge,
	reconcile,
	standing,
	type BaseFile,
	type Bases,
	type Sides,
	type Verdict
} from '../../src/client/sync/engine'
import { sha256 } from '../../src/client/hash'
import { mergeJsonText } from '../../src/client/sync/json'

const hash = sha256
const base = (content: string): BaseFile => ({ content, hash: hash(content) })
const hashOnly = (content: string): BaseFile => ({ hash: hash(content) })
const A = 'A\n'
const B = 'B\n'
const C = 'C\n'
type Cell = string | undefined

// Every base/local/remote combination for a text file: base absent or A; local and remote absent, A, B or C.
const TEXT_TABLE: [Cell, Cell, Cell, Verdict][] = [
	[undefined, undefined, undefined, { kind: 'same' }],
	[undefined, undefined, B, { kind: 'remote', content: B }],
	[undefined, B, undefined, { kind: 'local', content: B }],
	[undefined, B, B, { kind: 'same' }],
	[undefined, B, C, { kind: 'conflict', why: 'no-base', keys: ['line 1'], mine: B, theirs: C }],
	[A, A, A, { kind: 'same' }],
	[A, A, undefined, { kind: 'remote', content: null }],
	[A, A, B, { kind: 'remote', content: B }],
	[A, undefined, A, { kind: 'local', content: null }],
	[A, B, A, { kind: 'local', content: B }],
	[A, undefined, undefined, { kind: 'same' }],
	[A, B, B, { kind: 'same' }],
	[A, undefined, B, { kind: 'conflict', why: 'deleted-here', keys: [], mine: null, theirs: B }],
	[A, B, undefined, { kind: 'conflict', why: 'deleted-there', keys: [], mine: B, theirs: null }],
	[A, B, C, { kind: 'conflict', why: 'both-changed', keys: ['line 1'], mine: B, theirs: C }]
]

/** With only a hash of the base there is nothing to merge lines against: the whole file clashes. */
const WHOLE = 'the whole file (no copy of the last synced version to merge against)'

describe('judge: every base/local/remote combination', () => {
	for (const [b, l, r, expected] of TEXT_TABLE) {
		const name = `base ${b ?? '-'} local ${l ?? '-'} remote ${r ?? '-'}`.replace(/\n/g, '')
		test(`${name} → ${expected.kind}`, () => {
			expect(judge('.claude/CLAUDE.md', b === undefined ? undefined : base(b), l, r, hash)).toMatchObject(expected)
		})
		// A base written by the older client has only hashes: the same verdicts (nothing merges without content).
		test(`${name} with a hash-only base → ${expected.kind}`, () => {
			const whole =
				expected.kind === 'conflict' && expected.why === 'both-changed' ? { ...expected, keys: [WHOLE] } : expected
			expect(judge('.claude/CLAUDE.md', b === undefined ? undefined : hashOnly(b), l, r, hash)).toMatchObject(whole)
		})
	}

	test('bytes count: a BOM, CRLF line endings or a missing final newline are changes', () => {
		for (const local of [`\uFEFF${A}`, 'A\r\n', 'A'])
			expect(judge('x.md', base(A), local, A, hash)).toEqual({ kind: 'local', content: local })
		expect(judge('x.md', base(A), A, `\uFEFF${A}`, hash)).toEqual({ kind: 'remote', content: `\uFEFF${A}` })
	})
})

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

describe('judge: JSON files merge key by key against the base', () => {
	const settings = '.claude/settings.json'
	test('different keys changed on each side merge cleanly, keeping the local text around them', () => {
		const b = '{\n  // my theme\n  "theme": "dark",\n  "model": "opus"\n}\n'
		const l = '{\n  // my theme\n  "theme": "light",\n  "model": "opus"\n}\n'
		const r = '{\n  // my theme\n  "theme": "dark",\n  "model": "sonnet",\n  "verbose": true\n}\n'
		const v = judge(settings, base(b), l, r, hash)
		expect(v).toEqual({
			kind: 'merged',
			content: '{\n  // my theme\n  "theme": "light",\n  "model": "sonnet",\n  "verbose": true\n}\n'
		})
	})

	test('comments merge three-way too: one deleted on the server is deleted here; one added here stays', () => {
		const b = '{\n  // old note\n  "a": 1,\n  "b": 1\n}\n'
		const l = '{\n  // old note\n  "a": 1,\n  // my note\n  "b": 2\n}\n'
		const r = json({ a: 5, b: 1 })
		expect(judge(settings, base(b), l, r, hash)).toEqual({
			kind: 'merged',
			content: '{\n  "a": 5,\n  // my note\n  "b": 2\n}\n'
		})
	})

	test('a comment of this side that an edit would take away (with a key the server deleted) is kept, before the next key', () => {
		const b = json({ k0: 'a', k1: 'b' })
		const l = '{\n  // about k0, written here\n  "k0": "a",\n  "k1": "b"\n}\n'
		expect(judge(settings, base(b), l, json({ k1: 'b' }), hash)).toEqual({
			kind: 'merged',
			content: '{\n  // about k0, written here\n  "k1": "b"\n}\n'
		})
	})

	test('the same key changed differently is a conflict naming the key; the other changes still merge on either side', () => {
		const b = json({ theme: 'dark', a: 1, b: 1 })
		const l = json({ theme: 'light', a: 2, b: 1 })
		const r = json({ theme: 'solarized', a: 1, b: 2 })
		const v = judge(settings, base(b), l, r, hash)
		expect(v.kind).toBe('conflict')
		if (v.kind !== 'conflict') return
		expect(v.why).toBe('both-changed')
		expect(v.keys).toEqual(['theme'])
		expect(JSON.parse(v.mine as string)).toEqual({ theme: 'light', a: 2, b: 2 })
		expect(JSON.parse(v.theirs as string)).toEqual({ theme: 'solarized', a: 2, b: 2 })
	})

	test('a key deleted on one side and changed on the other is a conflict; deleted on one side and untouched on the other is deleted', () => {
		const b = json({ a: 1, b: 1 })
		expect(judge(settings, base(b), json({ b: 1 }), json({ a: 2, b: 1 }), hash)).toMatchObject({
			kind: 'conflict',
			keys: ['a']
		})
		const v = judge(settings, base(b), json({ b: 1 }), json({ a: 1, b: 2 }), hash)
		expect(v.kind).toBe('merged')
		if (v.kind === 'merged') expect(JSON.parse(v.content)).toEqual({ b: 2 })
	})

	test('MCP servers added on two machines merge; one server changed on both sides is a conflict at that server', () => {
		const b = json({ mcpServers: { a: { command: 'a' } } })
		const l = json({ mcpServers: { a: { command: 'a' }, mine: { command: 'm' } } })
		const r = json({ mcpServers: { a: { command: 'a' }, theirs: { url: 'https://t' } } })
		const v = judge('.cursor/mcp.json', base(b), l, r, hash)
		expect(v.kind).toBe('merged')
		if (v.kind === 'merged')
			expect(JSON.parse(v.content)).toEqual({
				mcpServers: { a: { command: 'a' }, mine: { command: 'm' }, theirs: { url: 'https://t' } }
			})
		const clash = judge(
			'.cursor/mcp.json',
			base(b),
			json({ mcpServers: { a: { command: 'x' } } }),
			json({ mcpServers: { a: { command: 'y' } } }),
			hash
		)
		expect(clash).toMatchObject({ kind: 'conflict', keys: ['mcpServers.a.command'] })
	})

	test('JSONC: comments and trailing commas are read; the local file keeps its comments, tabs, CRLF and BOM', () => {
		const b = '\uFEFF{\r\n\t// editor\r\n\t"a": 1,\r\n\t"b": 1,\r\n}\r\n'
		const l = '\uFEFF{\r\n\t// editor (mine)\r\n\t"a": 1,\r\n\t"b": 1,\r\n}\r\n'
		const r = json({ a: 5, b: 1 })
		const v = judge('@Code/User/settings.json', base(b), l, r, hash)
		expect(v).toEqual({ kind: 'merged', content: '\uFEFF{\r\n\t// editor (mine)\r\n\t"a": 5,\r\n\t"b": 1,\r\n}\r\n' })
	})

	test('a comment added on the server goes before the key it precedes there; a trailing one after its key (never a conflict)', () => {
		const b = json({ a: 1, b: 1 })
		const r = '{\n  // why a is 2\n  "a": 2,\n  "b": 1 // b stays 1\n}\n'
		expect(judge(settings, base(b), '{\n\t"a": 1,\n\t"b": 1,\n\t"c": 3\n}\n', r, hash)).toEqual({
			kind: 'merged',
			content: '{\n\t// why a is 2\n\t"a": 2,\n\t"b": 1, // b stays 1\n\t"c": 3\n}\n'
		})
	})

	test('a comment changed on both sides keeps both texts; one whose key is gone on this side goes before the next key, or at the end', () => {
		const b = '{\n  // note\n  "a": 1,\n  "b": 1\n}\n'
		const l = '{\n  // note (mine)\n  "a": 1,\n  "b": 1\n}\n'
		const r = '{\n  // note (theirs)\n  "a": 1,\n  "b": 1\n}\n'
		expect(judge(settings, base(b), l, r, hash)).toEqual({
			kind: 'merged',
			content: '{\n  // note (mine)\n  // note (theirs)\n  "a": 1,\n  "b": 1\n}\n'
		})
		const gone = judge(
			settings,
			base(b),
			json({ b: 1 }),
			'{\n  "a": 1,\n  // about b\n  "b": 1,\n  // the end\n}\n',
			hash
		)
		expect(gone).toEqual({ kind: 'merged', content: '{\n  // about b\n  "b": 1\n}\n// the end\n' })
	})

	test('a side that does not parse is merged as lines: a conflict naming them', () => {
		expect(judge(settings, base(json({ a: 1 })), '{"a": 2', json({ a: 3, b: 1 }), hash)).toMatchObject({
			kind: 'conflict',
			keys: ['line 1']
		})
	})

	test('a hash-only base cannot merge: whole-file conflict', () => {
		expect(
			judge(settings, hashOnly(json({ a: 1, b: 1 })), json({ a: 2, b: 1 }), json({ a: 1, b: 2 }), hash)
		).toMatchObject({ kind: 'conflict', why: 'both-changed' })
	})

	test('keybindings.json: entries added and removed on each side are merged as a set', () => {
		const k = (key: string, command: string) => ({ key, command })
		const b = json([k('ctrl+a', 'a'), k('ctrl+b', 'b')])
		const l = json([k('ctrl+a', 'a'), k('ctrl+b', 'b'), k('ctrl+l', 'l')])
		const r = json([k('ctrl+b', 'b'), k('ctrl+r', 'r')])
		const v = judge('@Code/User/keybindings.json', base(b), l, r, hash)
		expect(v.kind).toBe('merged')
		if (v.kind === 'merged')
			expect(JSON.parse(v.content)).toEqual([k('ctrl+b', 'b'), k('ctrl+l', 'l'), k('ctrl+r', 'r')])
	})

	test('keybindings.json: an entry changed on the server is edited in place; entries that did not change keep their bytes', () => {
		const b =
			'// Place your key bindings in this file\n[\n    {\n        "key": "ctrl+a",\n        "command": "a"\n    },\n    { "key": "ctrl+b", "command": "b" },\n    {   "key": "ctrl+c",   "command": "c"   }\n]\n'
		const l = b.replace('// Place', '// Mine. Place')
		const r = b.replace('"command": "b"', '"command": "b2"')
		expect(judge('@Code/User/keybindings.json', base(b), l, r, hash)).toEqual({
			kind: 'merged',
			content: l.replace('"command": "b"', '"command": "b2"')
		})
		// An entry removed on the server and one added here: the others stay as they were written.
		const removed = b.replace('    { "key": "ctrl+b", "command": "b" },\n', '')
		const added = b.replace('"c"   }\n', '"c"   },\n    {"key": "ctrl+d", "command": "d"}\n')
		expect(judge('@Code/User/keybindings.json', base(b), added, removed, hash)).toEqual({
			kind: 'merged',
			content: added.replace('    { "key": "ctrl+b", "command": "b" },\n', '')
		})
	})

	test('__proto__ and constructor are ordinary keys', () => {
		const b = '{"__proto__": {"x": 1}, "constructor": 1, "a": 1}'
		const l = '{"__proto__": {"x": 2}, "constructor": 1, "a": 1}'
		const r = '{"__proto__": {"x": 1}, "constructor": 1, "a": 2}'
		const v = judge(settings, base(b), l, r, hash)
		expect(v.kind).toBe('merged')
		if (v.kind === 'merged') expect(v.content).toBe('{"__proto__": {"x": 2}, "constructor": 1, "a": 2}')
		expect(({} as { x?: number }).x).toBeUndefined()
	})

	test('no base: JSON merges against an empty base; only keys with different values on both sides clash', () => {
		expect(judge(settings, undefined, json({ a: 1 }), json({ b: 1 }), hash)).toEqual({
			kind: 'merged',
			content: json({ a: 1, b: 1 })
		})
		const mcp = (servers: Record<string, unknown>) => json({ mcpServers: servers })
		const v = judge(
			'.claude.json#mcpServers',
			undefined,
			mcp({ filesystem: { command: 'fs' }, github: { command: 'gh-local' } }),
			mcp({ github: { command: 'gh' }, postgres: { command: 'pg' } }),
			hash
		)
		expect(v).toMatchObject({ kind: 'conflict', why: 'no-base', keys: ['mcpServers.github.command'] })
		if (v.kind !== 'conflict') return
		expect(JSON.parse(v.mine as string).mcpServers).toEqual({
			filesystem: { command: 'fs' },
			github: { command: 'gh-local' },
			postgres: { command: 'pg' }
		})
		expect(JSON.parse(v.theirs as string).mcpServers).toEqual({
			filesystem: { command: 'fs' },
			github: { command: 'gh' },
			postgres: { command: 'pg' }
		})
		// A new machine whose file holds nothing the server lacks takes the server's bytes.
		expect(judge(settings, undefined, '{"b":1}', json({ b: 1, c: 2 }), hash)).toEqual({
			kind: 'merged',
			content: json({ b: 1, c: 2 })
		})
	})

	test('a TOML file whose line merge would not parse (the same key added on both sides, in different places) is a conflict', () => {
		// Found by the local-keys property (seed 369507753): the merge wrote `size` twice and Codex could not read it.
		const toml = '.codex/config.toml'
		const v = judge(
			toml,
			base('# edited by hand\n[t]\nwrap = "a"\n'),
			'# edited by hand\n[t]\nwrap = "a"\nsize = "mine"\n',
			'# edited by hand\n[t]\nsize = "theirs"\nwrap = "a"\n',
			hash
		)
		expect(v).toMatchObject({ kind: 'conflict', why: 'both-changed' })
		expect((v as { keys: string[] }).keys[0]).toStartWith(
			'the whole file (merged line by line it would not parse as TOML'
		)
		// Other text (no syntax to check) still merges as lines.
		expect(judge('x.md', base('a\n'), 'a\nb\n', 'b\na\n', hash)).toMatchObject({ kind: 'merged' })
	})

	test('text files merge line by line: changes in different places merge; the same or neighbouring lines clash, named by line', () => {
		const toml = '.codex/config.toml'
		expect(judge(toml, base('a = 1\nb = 1\nc = 1\n'), 'a = 2\nb = 1\nc = 1\n', 'a = 1\nb = 1\nc = 2\n', hash)).toEqual({
			kind: 'merged',
			content: 'a = 2\nb = 1\nc = 2\n'
		})
		// Untouched lines come back byte for byte: CRLF, no final newline.
		expect(judge('x.md', base('a\r\nb\r\nc'), 'a\r\nb\r\nc\r\nd', 'A\r\nb\r\nc', hash)).toEqual({
			kind: 'merged',
			content: 'A\r\nb\r\nc\r\nd'
		})
		const v = judge(toml, base('a = 1\nb = 1\nc = 1\n'), 'a = 2\nb = 1\nc = 1\n', 'a = 1\nb = 2\nc = 1\n', hash)
		expect(v).toMatchObject({
			kind: 'conflict',
			why: 'both-changed',
			keys: ['lines 1–2'],
			mine: 'a = 2\nb = 1\nc = 1\n',
			theirs: 'a = 1\nb = 2\nc = 1\n'
		})
		// The clash is only the lines that differ; every other change of both sides is in mine and theirs.
		const md = judge(
			'.claude/CLAUDE.md',
			base('# Rules\n\nuse tabs\n\n## Tests\nrun them\n'),
			'# Rules (laptop)\n\nuse spaces\n\n## Tests\nrun them\n',
			'# Rules\n\nuse two spaces\n\n## Tests\nrun them all\n',
			hash
		)
		expect(md).toMatchObject({
			kind: 'conflict',
			keys: ['line 3'],
			mine: '# Rules (laptop)\n\nuse spaces\n\n## Tests\nrun them all\n',
			theirs: '# Rules (laptop)\n\nuse two spaces\n\n## Tests\nrun them all\n'
		})
	})
})

const sides = (
	b: Record<string, string> | undefined,
	local: Record<string, string>,
	remote: Record<string, string> | undefined,
	scope?: string[]
): Sides => ({
	base: b === undefined ? undefined : (Object.fromEntries(Object.entries(b).map(([k, v]) => [k, base(v)])) as Bases),
	local,
	remote,
	scope: scope ?? [...new Set([...Object.keys(b ?? {}), ...Object.keys(local), ...Object.keys(remote ?? {})])]
})
const run = (s: Sides, options: Parameters<typeof reconcile>[2]) =>
	reconcile(s, decide(s, hash).decisions, options, hash)
const contents = (b: Bases) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v.content]))

describe('reconcile: what pull, push, sync and resolve do with the verdicts', () => {
	// x: changed here; y: changed there; z: in sync; d: deleted here; e: deleted there; c: conflict
	const s = sides(
		{ x: A, y: A, z: A, d: A, e: A, c: A },
		{ x: B, y: A, z: A, e: A, c: B },
		{ x: A, y: B, z: A, d: A, c: C }
	)

	test('pull writes remote changes (deleting what the server removed), keeps local changes, reports the conflict; the conflict keeps its base', () => {
		const o = run(s, { mode: 'pull' })
		expect(o.writes).toEqual([
			{ key: 'e', content: null, kind: 'deleted', before: A },
			{ key: 'y', content: B, kind: 'updated', before: A }
		])
		expect(o.push).toBeUndefined()
		expect(o.conflicts.map((d) => d.key)).toEqual(['c'])
		expect(o.unsent.map((d) => d.key)).toEqual(['d', 'x'])
		expect(contents(o.base)).toEqual({ x: A, y: B, z: A, d: A, c: A })
	})

	test('push with a conflict sends nothing, writes nothing and keeps the base', () => {
		const o = run(s, { mode: 'push' })
		expect(o).toMatchObject({ writes: [], idle: true })
		expect(o.push).toBeUndefined()
		expect(o.conflicts.map((d) => d.key)).toEqual(['c'])
		expect(contents(o.base)).toEqual(contents(s.base as Bases))
	})

	test('push --force (mine) sends local changes and deletions, keeps what only the server changed', () => {
		const o = run(s, { mode: 'push', choose: { side: 'mine' } })
		expect(o.writes).toEqual([])
		expect(o.push).toEqual({ x: B, y: B, z: A, c: B })
		expect(o.unpulled.map((d) => d.key)).toEqual(['e', 'y'])
		expect(contents(o.base)).toEqual({ x: B, y: A, z: A, e: A, c: B })
	})

	test('pull --force (theirs) takes the server side of the conflict, after local changes stay unsent', () => {
		const o = run(s, { mode: 'pull', choose: { side: 'theirs' } })
		expect(o.writes.map((w) => [w.key, w.content, w.kind])).toEqual([
			['c', C, 'theirs'],
			['e', null, 'deleted'],
			['y', B, 'updated']
		])
		expect(o.conflicts).toEqual([])
		expect(contents(o.base)).toMatchObject({ c: C })
	})

	test('sync with a conflict does what pull does; without one it writes and pushes in one go', () => {
		expect(run(s, { mode: 'sync' })).toEqual(run(s, { mode: 'pull' }))
		const clean = sides({ x: A, y: A }, { x: B, y: A }, { x: A, y: C })
		const o = run(clean, { mode: 'sync' })
		expect(o.writes.map((w) => w.key)).toEqual(['y'])
		expect(o.push).toEqual({ x: B, y: C })
		expect(contents(o.base)).toEqual({ x: B, y: C })
	})

	test('resolve --mine keeps the local file and moves its base to the server version, so the next push sends it', () => {
		const o = run(s, { mode: 'resolve', choose: { side: 'mine' } })
		expect(o.writes).toEqual([])
		expect(o.push).toBeUndefined()
		expect(contents(o.base).c).toBe(C)
		const after = { ...s, base: o.base }
		expect(decide(after, hash).decisions.find((d) => d.key === 'c')?.verdict).toEqual({ kind: 'local', content: B })
	})

	test('resolve --theirs PATH takes the server copy even of a file only changed here', () => {
		const o = run(s, { mode: 'resolve', choose: { side: 'theirs', keys: ['x'] } })
		expect(o.writes).toEqual([{ key: 'x', content: A, kind: 'theirs', before: B }])
		expect(o.conflicts.map((d) => d.key)).toEqual(['c'])
	})

	test('a JSON merge is written here; a push also sends it', () => {
		const m = sides(
			{ 's.json': json({ a: 1, b: 1 }) },
			{ 's.json': json({ a: 2, b: 1 }) },
			{ 's.json': json({ a: 1, b: 2 }) }
		)
		const pulled = run(m, { mode: 'pull' })
		expect(pulled.writes).toEqual([
			{ key: 's.json', content: json({ a: 2, b: 2 }), kind: 'merged', before: json({ a: 2, b: 1 }) }
		])
		expect(contents(pulled.base)).toEqual({ 's.json': json({ a: 1, b: 2 }) })
		const pushed = run(m, { mode: 'push' })
		expect(pushed.push).toEqual({ 's.json': json({ a: 2, b: 2 }) })
		expect(contents(pushed.base)).toEqual({ 's.json': json({ a: 2, b: 2 }) })
	})

	test("push PATH keeps the config's other files; so does --only, which sends only its PATHs", () => {
		const p = sides(
			undefined,
			{ '.codex/config.toml': 'model = "o3"\n' },
			{ '.codex/config.toml': 'model = "o3"\n', '.codex/AGENTS.md': 'rules\n' },
			['.codex/config.toml']
		)
		p.local['.codex/config.toml'] = 'model = "o4"\n'
		p.base = { '.codex/config.toml': base('model = "o3"\n') }
		expect(run(p, { mode: 'push' }).push).toEqual({
			'.codex/config.toml': 'model = "o4"\n',
			'.codex/AGENTS.md': 'rules\n'
		})
		p.base['.codex/AGENTS.md'] = base('rules\n')
		const only = run(p, { mode: 'push', only: true })
		expect(only.push).toEqual({ '.codex/config.toml': 'model = "o4"\n', '.codex/AGENTS.md': 'rules\n' })
		// The file left out is still synced here, as it was.
		expect(Object.keys(only.base).sort()).toEqual(['.codex/AGENTS.md', '.codex/config.toml'])
	})

	test('files on the server outside the scope are listed apart and never written', () => {
		const d = decide(sides(undefined, {}, { '.bashrc': 'x', 'a.md': A }, ['a.md']), hash)
		expect(d.outside).toEqual(['.bashrc'])
		expect(d.decisions.map((x) => x.key)).toEqual(['a.md'])
	})

	test('a new machine: differing files are conflicts, files only here are sent, files only there are written', () => {
		const n = sides(undefined, { a: B, only: A }, { a: C, there: A })
		const o = run(n, { mode: 'sync' })
		expect(o.conflicts.map((d) => d.key)).toEqual(['a'])
		expect(o.push).toBeUndefined()
		expect(o.writes.map((w) => [w.key, w.kind])).toEqual([['there', 'created']])
	})

	test('a config that does not exist yet: everything here is pushed', () => {
		const o = run(sides(undefined, { a: A, b: B }, undefined), { mode: 'push' })
		expect(o.push).toEqual({ a: A, b: B })
	})

	test('file names such as __proto__ and constructor are ordinary keys: judged, pushed and kept like any other', () => {
		const weird = JSON.parse('{"__proto__": "p\\n", "constructor": "c\\n", "toString": "t\\n"}') as Record<
			string,
			string
		>
		const s = sides(undefined, { constructor: 'mine\n' }, weird, ['constructor'])
		s.base = JSON.parse(`{"constructor": {"content": "c\\n", "hash": "${hash('c\n')}"}}`)
		const o = run(s, { mode: 'push' })
		expect(Object.hasOwn(o.push ?? {}, '__proto__')).toBe(true)
		expect(JSON.stringify(o.push)).toBe('{"__proto__":"p\\n","constructor":"mine\\n","toString":"t\\n"}')
		expect(Object.keys(o.base)).toEqual(['constructor'])
		// A key with no base entry is not mistaken for Object.prototype's members.
		expect(judge('toString', undefined, 'x', 'y', hash)).toMatchObject({ kind: 'conflict', why: 'no-base' })
		expect(decide(sides({}, {}, weird, ['toString']), hash).decisions[0]?.verdict).toEqual({
			kind: 'remote',
			content: 't\n'
		})
	})

	test('status words', () => {
		const word = (b: Record<string, string>, l: Record<string, string>, r: Record<string, string>) =>
			standing(decide(sides(b, l, r), hash).decisions)
		expect(word({ a: A }, { a: A }, { a: A })).toBe('in sync')
		expect(word({ a: A }, { a: B }, { a: A })).toBe('local changes')
		expect(word({ a: A }, { a: A }, { a: B })).toBe('remote changes')
		expect(word({ a: A, b: A }, { a: B, b: A }, { a: A, b: B })).toBe('local and remote changes')
		expect(word({ a: A }, { a: B }, { a: C })).toBe('conflict')
	})

	test('a new machine: a JSON file merged against an empty base is written here, not sent; the next push sends what only this machine had', () => {
		const settings = '.claude/settings.json'
		const n = sides(undefined, { [settings]: json({ mine: 1 }) }, { [settings]: json({ theirs: 1 }) })
		for (const mode of ['pull', 'push', 'sync'] as const) {
			const o = run(n, { mode })
			expect({ mode, writes: o.writes.map((w) => [w.key, w.kind, w.content]) }).toEqual({
				mode,
				writes: [[settings, 'merged', json({ mine: 1, theirs: 1 })]]
			})
			expect(o.push).toBeUndefined()
			expect(o.unsent.map((d) => d.key)).toEqual([settings])
			expect(contents(o.base)).toEqual({ [settings]: json({ theirs: 1 }) })
			const next = sides({ [settings]: json({ theirs: 1 }) }, { [settings]: json({ mine: 1, theirs: 1 }) }, n.remote)
			expect(run(next, { mode: 'push' }).push).toEqual({ [settings]: json({ mine: 1, theirs: 1 }) })
		}
		// push --force sends it at once.
		expect(run(n, { mode: 'push', choose: { side: 'mine' } }).push).toEqual({
			[settings]: json({ mine: 1, theirs: 1 })
		})
		// resolve with a side settles it the same way; without one (or for --edit) it leaves it.
		expect(run(n, { mode: 'resolve', choose: { side: 'mine' } }).writes.map((w) => w.kind)).toEqual(['merged'])
		expect(run(n, { mode: 'resolve' }).writes).toEqual([])
	})

	test('resolve --edit writes conflict markers and moves the base to the server; a conflict with no lines to mark stays', () => {
		const md = '.claude/CLAUDE.md'
		const s = sides({ [md]: 'a\nb\nc\n', gone: A }, { [md]: 'a\nB\nc\n', gone: B }, { [md]: 'a\nb2\nc\n' })
		const o = reconcile(
			{ ...s, remoteVersion: 7 },
			decide(s, hash).decisions,
			{ mode: 'resolve', choose: { side: 'edit' } },
			hash
		)
		expect(o.writes.map((w) => [w.key, w.kind, w.content])).toEqual([
			[md, 'marked', 'a\n<<<<<<< this machine\nB\n=======\nb2\n>>>>>>> server (version 7)\nc\n']
		])
		expect(contents(o.base)[md]).toBe('a\nb2\nc\n')
		expect(o.conflicts.map((d) => d.key)).toEqual(['gone'])
	})
})

describe('a merge writes one stable key order (docs/sync-model.md)', () => {
	const text = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`
	test("the server's order, a key only this machine added after the key it follows here", () => {
		const merged = mergeJsonText(text({ a: 1, c: 3 }), text({ a: 1, x: 9, c: 3 }), text({ a: 1, b: 2, c: 3 }))
		expect(merged.ok && Object.keys(JSON.parse(merged.text))).toEqual(['a', 'x', 'b', 'c'])
	})
	test('two machines that merge the same content write the same bytes, whichever merged first', () => {
		const base = text({ fs: 1 })
		const [a, b] = [text({ fs: 1, linear: 2 }), text({ fs: 1, sentry: 3 })]
		const onB = mergeJsonText(base, b, a)
		if (!onB.ok) throw new Error('no merge')
		// A receives B's merge as the server's version; its own file is written in that order.
		const onA = mergeJsonText(a, a, onB.text)
		expect(onA.ok && onA.text).toBe(onB.text)
	})
	test('an entry that moves keeps its comment and its bytes', () => {
		const local = '{\n  // the linear server\n  "linear": {"url": "l"},\n  "fs": 1\n}\n'
		const remote = '{\n  "fs": 1,\n  "linear": {\n    "url": "l"\n  }\n}\n'
		const merged = mergeJsonText(remote, local, remote)
		expect(merged.ok && merged.text).toBe(local)
		const reordered = mergeJsonText(remote, local, `${remote.slice(0, -3)},\n  "x": 2\n}\n`)
		expect(reordered.ok && reordered.text).toBe(
			'{\n  "fs": 1,\n  // the linear server\n  "linear": {"url": "l"},\n  "x": 2\n}\n'
		)
	})
})

describe('each machine keeps its formatting (docs/sync-model.md)', () => {
	const key = '@Code/User/settings.json'
	const tabs = (value: unknown) => `${JSON.stringify(value, null, '\t')}\n`
	const spaces = (value: unknown) => `${JSON.stringify(value, null, 4)}\n`
	const windows = (value: unknown) => `\uFEFF${JSON.stringify(value, null, 2).replace(/\n/g, '\r\n')}\r\n`
	const sync = (sides: Sides) => reconcile(sides, decide(sides, hash).decisions, { mode: 'sync' }, hash)

	for (const [name, format] of [
		['4 spaces', spaces],
		['a BOM and CRLF', windows]
	] as const) {
		test(`the server's change (in tabs) is written here in ${name}; the next sync changes nothing`, () => {
			const before = { 'editor.tabSize': 2 }
			const after = { 'editor.tabSize': 2, 'editor.wordWrap': 'on' }
			// This machine's copy as last written here: the server's, in this machine's formatting.
			const first = sync({
				base: { [key]: { ...base(tabs(before)), written: format(before) } },
				local: { [key]: format(before) },
				remote: { [key]: tabs(after) },
				scope: [key]
			})
			const written = first.writes[0]?.content
			expect(written).toBe(format(after))
			expect(first.push).toBeUndefined()
			const again = sync({
				base: first.base,
				local: { [key]: written as string },
				remote: { [key]: tabs(after) },
				scope: [key]
			})
			expect(again.writes).toEqual([])
			expect(again.push).toBeUndefined()
		})

		test(`first contact with the same settings in tabs on the server: ${name} stays, nothing to send`, () => {
			const value = { 'editor.tabSize': 2, 'editor.wordWrap': 'on' }
			const first = sync({ local: { [key]: format(value) }, remote: { [key]: tabs(value) }, scope: [key] })
			expect(first.writes).toEqual([])
			expect(first.push).toBeUndefined()
			expect(first.unsent).toEqual([])
			const again = sync({
				base: first.base,
				local: { [key]: format(value) },
				remote: { [key]: tabs(value) },
				scope: [key]
			})
			expect(again.writes).toEqual([])
			expect(again.push).toBeUndefined()
		})
	}
})

describe('keybindings: an entry the other side added stays where it put it', () => {
	test('added between two entries there, it is written between them here', () => {
		const a = { key: 'ctrl+a', command: 'a' }
		const b = { key: 'ctrl+b', command: 'b' }
		const c = { key: 'ctrl+c', command: 'c' }
		const mine = { key: 'ctrl+m', command: 'm' }
		const text = (list: unknown[]) => `${JSON.stringify(list, null, 2)}\n`
		const merged = mergeJsonText(text([a, c]), text([a, c, mine]), text([a, b, c]))
		expect(merged.ok && JSON.parse(merged.text)).toEqual([a, b, c, mine])
	})

	test('its comment comes with it, and the comments here stay above the entries they were above', () => {
		const base = '[\n  // open\n  { "key": "ctrl+a", "command": "a" },\n  { "key": "ctrl+c", "command": "c" }\n]\n'
		const here = base.replace('}\n]', '},\n  // mine: my own\n  { "key": "ctrl+m", "command": "m" }\n]')
		const there = base.replace(
			'  { "key": "ctrl+c"',
			'  // build: the team\'s build\n  { "key": "ctrl+b", "command": "b" },\n  { "key": "ctrl+c"'
		)
		const merged = mergeJsonText(base, here, there)
		expect(merged.ok).toBe(true)
		const text = merged.ok ? merged.text : ''
		// Each comment is followed by its own entry, with no other entry between them.
		const entryAfter = (comment: string) => /"key": "([^"]+)"/.exec(text.slice(text.indexOf(comment)))?.[1]
		expect(entryAfter('// open')).toBe('ctrl+a')
		expect(entryAfter("// build: the team's build")).toBe('ctrl+b')
		expect(entryAfter('// mine: my own')).toBe('ctrl+m')
		expect(text.indexOf('"ctrl+b"')).toBeLessThan(text.indexOf('"ctrl+c"'))
	})
})
