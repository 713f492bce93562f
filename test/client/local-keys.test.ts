import { describe, expect, test } from 'bun:test'
import { sha256 } from '../../src/client/hash'
import { decide, type Mode, type Outcome, reconcile, type Sides } from '../../src/client/sync/engine'
import { MISSING, parseJsonc } from '../../src/client/sync/json'
import {
	everywhereIn,
	everywhereText,
	ignoredSettings,
	keptFrom,
	type LocalEntry,
	masked,
	parseKey,
	resolveKey,
	valueAt
} from '../../src/client/sync/local-keys'
import { sameExcept, tomlEditable, tomlSet, tomlValue } from '../../src/client/sync/toml-edit'

/**
 * Settings that stay on one machine (docs/sync-model.md): local keys are
 * masked on the way out and kept on the way in, through the same engine
 * every sync command uses.
 */

const hash = sha256
const base = (content: string) => ({ content, hash: hash(content) })
const S = '.claude/settings.json'
const VS = '@Code/User/settings.json'
const TOML = '.codex/config.toml'

function run(
	mode: Mode,
	files: { key: string; base?: string; local?: string; remote?: string }[],
	entries: LocalEntry[],
	choose?: Sides['remoteVersion'] extends never ? never : { side: 'mine' | 'theirs' | 'edit' }
): Outcome {
	const sides: Sides = {
		base: Object.fromEntries(files.filter((f) => f.base !== undefined).map((f) => [f.key, base(f.base as string)])),
		local: Object.fromEntries(files.filter((f) => f.local !== undefined).map((f) => [f.key, f.local as string])),
		remote: Object.fromEntries(files.filter((f) => f.remote !== undefined).map((f) => [f.key, f.remote as string])),
		scope: files.map((f) => f.key),
		kept: keptFrom(entries)
	}
	const { decisions } = decide(sides, hash)
	return reconcile(sides, decisions, { mode, choose }, hash)
}

const value = (text: string | null | undefined) => (text ? parseJsonc(text)?.value : undefined)
const written = (outcome: Outcome, key: string) => outcome.writes.find((w) => w.key === key)?.content

describe('local keys in the engine: masked on the way out, kept on the way in', () => {
	const font = [{ file: VS, path: ['editor.fontSize'] }]

	test("a push sends the server's value of a local key, and the other keys' changes", () => {
		const out = run(
			'push',
			[
				{
					key: VS,
					base: '{\n  "editor.fontSize": 12,\n  "workbench.colorTheme": "Light"\n}\n',
					local: '{\n  "editor.fontSize": 18,\n  "workbench.colorTheme": "Dark"\n}\n',
					remote: '{\n  "editor.fontSize": 12,\n  "workbench.colorTheme": "Light"\n}\n'
				}
			],
			font
		)
		expect(value(out.push?.[VS])).toEqual({ 'editor.fontSize': 12, 'workbench.colorTheme': 'Dark' })
		expect(out.conflicts).toEqual([])
	})

	test('a push leaves a local key out when the server has none', () => {
		const out = run('push', [{ key: VS, local: '{\n  "editor.fontSize": 18,\n  "a": 1\n}\n' }], font)
		expect(value(out.push?.[VS])).toEqual({ a: 1 })
	})

	test('only a local key changed here: nothing to push', () => {
		const synced = '{\n  "editor.fontSize": 12,\n  "a": 1\n}\n'
		const out = run('sync', [{ key: VS, base: synced, local: synced.replace('12', '20'), remote: synced }], font)
		expect(out.idle).toBe(true)
	})

	test('a pull never writes over a local key, and takes every other change', () => {
		const out = run(
			'pull',
			[
				{
					key: VS,
					base: '{\n  "editor.fontSize": 12,\n  "a": 1\n}\n',
					local: '{\n  "editor.fontSize": 18,\n  "a": 1\n}\n',
					remote: '{\n  "editor.fontSize": 14,\n  "a": 2\n}\n'
				}
			],
			font
		)
		expect(written(out, VS)).toBe('{\n  "editor.fontSize": 18,\n  "a": 2\n}\n')
		expect(out.conflicts).toEqual([])
	})

	test('a pull never deletes a local key, nor adds one that is absent here', () => {
		const kept = run(
			'pull',
			[
				{
					key: VS,
					base: '{\n  "a": 1\n}\n',
					local: '{\n  "a": 1,\n  "editor.fontSize": 18\n}\n',
					remote: '{\n  "a": 2\n}\n'
				}
			],
			font
		)
		expect(value(written(kept, VS))).toEqual({ a: 2, 'editor.fontSize': 18 })
		const absent = run(
			'pull',
			[
				{
					key: VS,
					base: '{\n  "a": 1\n}\n',
					local: '{\n  "a": 1\n}\n',
					remote: '{\n  "a": 2,\n  "editor.fontSize": 9\n}\n'
				}
			],
			font
		)
		expect(value(written(absent, VS))).toEqual({ a: 2 })
	})

	test('both sides changed a local key: no conflict, each keeps its own', () => {
		const out = run(
			'sync',
			[
				{
					key: S,
					base: '{"model": "a", "theme": "x"}',
					local: '{"model": "mine", "theme": "x"}',
					remote: '{"model": "team", "theme": "y"}'
				}
			],
			[{ file: S, path: ['model'] }]
		)
		expect(out.conflicts).toEqual([])
		expect(value(written(out, S))).toEqual({ model: 'mine', theme: 'y' })
		expect(out.push).toBeUndefined()
	})

	test('a conflict waiting on a key goes away once the key is local; the file merges', () => {
		const files = [
			{ key: S, base: '{"model": "a", "x": 1}', local: '{"model": "b", "x": 1}', remote: '{"model": "c", "x": 2}' }
		]
		expect(run('pull', files, []).conflicts.map((d) => d.verdict.kind === 'conflict' && d.verdict.keys)).toEqual([
			['model']
		])
		const out = run('pull', files, [{ file: S, path: ['model'] }])
		expect(out.conflicts).toEqual([])
		expect(value(written(out, S))).toEqual({ model: 'b', x: 2 })
	})

	test('a conflict on another key keeps the local key out of both sides, and settling it keeps the local value', () => {
		const files = [
			{
				key: S,
				base: '{"model": "a", "x": 1}',
				local: '{"model": "b", "x": 2}',
				remote: '{"model": "c", "x": 3}'
			}
		]
		const model = [{ file: S, path: ['model'] }]
		const waiting = run('push', files, model)
		expect(waiting.conflicts.map((d) => d.verdict.kind === 'conflict' && d.verdict.keys)).toEqual([['x']])
		const mine = run('push', files, model, { side: 'mine' })
		expect(value(mine.push?.[S])).toEqual({ model: 'c', x: 2 })
		const theirs = run('pull', files, model, { side: 'theirs' })
		expect(value(written(theirs, S))).toEqual({ model: 'b', x: 3 })
	})

	test('nested keys: a server entry of a local MCP server is neither sent nor taken', () => {
		const out = run(
			'sync',
			[
				{
					key: S,
					base: '{"mcpServers": {"shared": {"command": "a"}}}',
					local: '{"mcpServers": {"shared": {"command": "a"}, "local-db": {"command": "/opt/db"}}}',
					remote: '{"mcpServers": {"shared": {"command": "b"}}}'
				}
			],
			[{ file: S, path: ['mcpServers', 'local-db'] }]
		)
		expect(value(written(out, S))).toEqual({
			mcpServers: { shared: { command: 'b' }, 'local-db': { command: '/opt/db' } }
		})
		expect(out.push).toBeUndefined()
	})

	test('JSONC: comments here stay through a pull that keeps a local key', () => {
		const local = '{\n  // my laptop\'s size\n  "editor.fontSize": 18,\n  /* theme */\n  "a": 1\n}\n'
		const out = run(
			'pull',
			[
				{
					key: VS,
					base: '{\n  "editor.fontSize": 12,\n  "a": 1\n}\n',
					local,
					remote: '{\n  "editor.fontSize": 12,\n  "a": 5\n}\n'
				}
			],
			font
		)
		expect(written(out, VS)).toBe(local.replace('"a": 1', '"a": 5'))
	})

	test('TOML: a local key is kept through a pull, and the other keys flow; comments stay', () => {
		const b = '# codex\nmodel = "o3"\n\n[tui]\ntheme = "light"\n'
		const local = '# codex\nmodel = "mine" # here\n\n[tui]\ntheme = "light"\n'
		const remote = '# codex\nmodel = "team"\n\n[tui]\ntheme = "dark"\n'
		const out = run('sync', [{ key: TOML, base: b, local, remote }], [{ file: TOML, path: ['model'] }])
		expect(out.conflicts).toEqual([])
		const text = written(out, TOML) as string
		expect(tomlValue(text)).toEqual({ model: 'mine', tui: { theme: 'dark' } })
		expect(text.startsWith('# codex\n')).toBe(true)
		// The comment on the local key's line is no value: like any comment, it travels (the value does not).
		expect(out.push?.[TOML]).toBe('# codex\nmodel = "team" # here\n\n[tui]\ntheme = "dark"\n')
	})

	test('TOML: a local table the server lacks stays where it is in the file through a pull', () => {
		const fs = '[mcp_servers.fs]\ncommand = "npx"\nargs = ["fs"]\n'
		const b = '# codex\nmodel = "o3"\n\n[tui]\ntheme = "light"\n'
		const local = `# codex\nmodel = "o3"\n\n${fs}\n[tui]\ntheme = "light"\n`
		const remote = '# codex\nmodel = "o3"\n\n[tui]\ntheme = "dark"\n# theirs\n'
		const out = run('sync', [{ key: TOML, base: b, local, remote }], [{ file: TOML, path: ['mcp_servers', 'fs'] }])
		expect(out.conflicts).toEqual([])
		expect(written(out, TOML)).toBe(`# codex\nmodel = "o3"\n\n${fs}\n[tui]\ntheme = "dark"\n# theirs\n`)
		expect(out.push).toBeUndefined()
	})

	test('TOML: a local key in the middle keeps the shared comment on its line and the lines around it', () => {
		const b = '# codex\nmodel = "o3" # the team model\nsandbox = "on"\n'
		const local = '# codex\nmodel = "mine" # the team model\nsandbox = "on"\n'
		const remote = '# codex\nmodel = "o4" # the team model\nsandbox = "off"\n'
		const out = run('sync', [{ key: TOML, base: b, local, remote }], [{ file: TOML, path: ['model'] }])
		expect(written(out, TOML)).toBe('# codex\nmodel = "mine" # the team model\nsandbox = "off"\n')
	})

	test("TOML: a push sends the server's value of a local key in a table", () => {
		const b = '[tui]\ntheme = "light"\nsize = 1\n'
		const out = run(
			'push',
			[{ key: TOML, base: b, local: '[tui]\ntheme = "dark"\nsize = 3\n', remote: b }],
			[{ file: TOML, path: ['tui', 'size'] }]
		)
		expect(tomlValue(out.push?.[TOML] as string)).toEqual({ tui: { theme: 'dark', size: 1 } })
	})

	test('TOML: a local key absent here is masked in beside its neighbours, so the line merge sees one order', () => {
		// Found by the property: appended at the end, the masked keys reordered the file, and the line merge
		// of that order with the server's wrote `model` twice.
		const kept = keptFrom([
			{ file: TOML, path: ['theme'] },
			{ file: TOML, path: ['font'] }
		])[TOML]
		const server = '# e\ntheme = "v1"\nfont = "v0"\nmodel = "v2"\n'
		expect(masked(TOML, '# e\nmodel = "v2"\n', server, kept as never)).toBe(server)
		const out = run(
			'sync',
			[{ key: TOML, base: server, local: '# e\nmodel = "v2"\n', remote: server }],
			[
				{ file: TOML, path: ['theme'] },
				{ file: TOML, path: ['font'] }
			]
		)
		expect(out.idle).toBe(true)
	})

	test('a whole local file is never sent and never written here', () => {
		const md = '.claude/CLAUDE.md'
		const whole = [{ file: md }]
		const pull = run('pull', [{ key: md, base: 'a\n', local: 'mine\n', remote: 'theirs\n' }], whole)
		expect(pull.writes).toEqual([])
		expect(pull.conflicts).toEqual([])
		const push = run('push', [{ key: md, base: 'a\n', local: 'mine\n', remote: 'a\n' }], whole)
		expect(push.push).toBeUndefined()
		const created = run(
			'push',
			[
				{ key: md, local: 'mine\n' },
				{ key: S, local: '{"a":1}' }
			],
			whole
		)
		expect(Object.keys(created.push ?? {})).toEqual([S])
		const absent = run('pull', [{ key: md, remote: 'theirs\n' }], whole)
		expect(absent.writes).toEqual([])
	})

	test('resolve --edit draws its markers with the local value kept', () => {
		const out = run(
			'resolve',
			[
				{
					key: S,
					base: '{\n  "model": "a",\n  "x": 1\n}\n',
					local: '{\n  "model": "b",\n  "x": 2\n}\n',
					remote: '{\n  "model": "c",\n  "x": 3\n}\n'
				}
			],
			[{ file: S, path: ['model'] }],
			{ side: 'edit' }
		)
		const text = written(out, S) as string
		expect(text).toContain('"model": "b"')
		expect(text).not.toContain('"model": "c"')
		expect(text).toContain('<<<<<<<')
	})
})

describe('KEY: literal at its level first, then a dotted path', () => {
	const vs = { 'editor.fontSize': 14, '[python]': { 'editor.tabSize': 4 }, list: [{ a: 1 }] }
	const claude = { permissions: { additionalDirectories: ['/x'] }, mcpServers: { 'local-db': {} } }
	const cases: [string, unknown, boolean, string[] | 'error'][] = [
		['editor.fontSize', vs, true, ['editor.fontSize']],
		['[python].editor.tabSize', vs, true, ['[python]', 'editor.tabSize']],
		['"[python]"."editor.tabSize"', vs, true, ['[python]', 'editor.tabSize']],
		['editor.wordWrap', vs, true, ['editor.wordWrap']],
		['permissions.additionalDirectories', claude, false, ['permissions', 'additionalDirectories']],
		['mcpServers.local-db', claude, false, ['mcpServers', 'local-db']],
		['env.NEW_ONE', claude, false, ['env', 'NEW_ONE']],
		['"a.b"', {}, false, ['a.b']],
		['list.0.a', vs, true, 'error'],
		['permissions.additionalDirectories.0', claude, false, 'error']
	]
	for (const [text, file, literal, expected] of cases)
		test(`${text} → ${expected === 'error' ? 'refused' : expected.join(' / ')}`, () => {
			const segments = parseKey(text)
			expect(segments).toBeDefined()
			const resolved = resolveKey(file as never, segments ?? [], literal)
			if (expected === 'error') expect('error' in resolved && resolved.error).toContain('list')
			else expect(resolved).toEqual({ path: expected })
		})

	test('a KEY that is not one: refused', () => {
		for (const bad of ['', '.a', 'a.', '"open', '""', 'a."b"c']) expect(parseKey(bad)).toBeUndefined()
	})
})

describe('the --everywhere list and ignoredSettings', () => {
	test('the list reads back as written; anything else in it counts for nothing', () => {
		const entries: LocalEntry[] = [{ file: S, path: ['model'] }, { file: '.claude/CLAUDE.md' }]
		const files = { '.cfgsync/local-keys.json': everywhereText(entries) }
		expect(everywhereIn(files)).toEqual(entries)
		expect(
			everywhereIn({ '.cfgsync/local-keys.json': '{"local": [1, {"file": 2}, {"file": "x", "path": []}]}' })
		).toEqual([])
		expect(everywhereIn({ '.cfgsync/local-keys.json': 'not json' })).toEqual([])
	})

	test('a list counts its first 100 keys only, so a hostile one cannot make every run slow', () => {
		const many = Array.from({ length: 5000 }, (_, i) => ({ file: S, path: [`k${i}`] }))
		expect(everywhereIn({ '.cfgsync/local-keys.json': everywhereText(many) })).toHaveLength(100)
		const names = Array.from({ length: 5000 }, (_, i) => `k${i}`)
		expect(ignoredSettings(VS, JSON.stringify({ 'settingsSync.ignoredSettings': names }))).toHaveLength(100)
	})

	test("VS Code's settingsSync.ignoredSettings names local keys of its settings.json", () => {
		const here = '{"settingsSync.ignoredSettings": ["editor.fontSize", "-editor.tabSize"]}'
		const there = '{"settingsSync.ignoredSettings": ["window.zoomLevel"]}'
		expect(ignoredSettings(VS, here, there)).toEqual([
			{ file: VS, path: ['editor.fontSize'] },
			{ file: VS, path: ['window.zoomLevel'] }
		])
		expect(ignoredSettings(S, here)).toEqual([])
	})
})

describe('TOML edits keep the rest of the file', () => {
	const text =
		'# top\nmodel = "a"\n\n[tui]\n# theme\ntheme = "x"\n\n[mcp_servers.db]\ncommand = "db"\nargs = [\n  "a",\n]\n'
	const cases: [string, string[], unknown][] = [
		['set a top key', ['model'], 'b'],
		['remove a top key', ['model'], MISSING],
		['add a top key', ['approval'], 'never'],
		['set a table key', ['tui', 'theme'], 'y'],
		['add a table key', ['tui', 'size'], 3],
		['remove a multi-line array', ['mcp_servers', 'db', 'args'], MISSING],
		['set a multi-line array', ['mcp_servers', 'db', 'args'], ['b']],
		['remove a whole table', ['mcp_servers', 'db'], MISSING],
		['add a whole table', ['mcp_servers', 'new'], { command: 'n' }],
		['add under a missing table', ['profiles', 'x', 'model'], 'm']
	]
	for (const [name, path, slot] of cases)
		test(name, () => {
			const out = tomlSet(text, path, slot as never) as string
			expect(out).toBeDefined()
			expect(valueAt(TOML, out, path)).toEqual(slot as never)
			expect(out).toContain('# top\n')
			if (!(path[0] === 'tui' && path.length === 1)) expect(out).toContain('# theme\n')
			// Everything else is as it was.
			expect(sameExcept(tomlValue(out) as never, tomlValue(text) as never, path, slot as never)).toBe(true)
		})
})

describe('a local TOML key masks values only, never the lines around them (docs/sync-model.md)', () => {
	const text =
		'model = "o3" # the shared model\n\n[mcp_servers.fs]\ncommand = "npx"\nargs = ["fs"]\n# B: fs needs the path\n\n# the next server\n[mcp_servers.gh]\ncommand = "gh"\n'
	test('a key set keeps the comment on its line', () => {
		expect(tomlSet(text, ['model'], 'o4')).toBe(text.replace('"o3"', '"o4"'))
	})
	test('a table set keeps its place and every comment in and after it; only the values that differ change', () => {
		expect(tomlSet(text, ['mcp_servers', 'fs'], { command: 'npx', args: ['fs', '/home/a'] })).toBe(
			text.replace('args = ["fs"]', 'args = ["fs", "/home/a"]')
		)
		expect(tomlSet(text, ['mcp_servers', 'fs'], { command: 'npx' })).toBe(text.replace('args = ["fs"]\n', ''))
	})
	test('a table removed takes its keys, not the comments after them', () => {
		const out = tomlSet(text, ['mcp_servers', 'fs'], MISSING) as string
		expect(out).toContain('# B: fs needs the path\n')
		expect(out).toContain('# the next server\n[mcp_servers.gh]')
		expect(tomlValue(out)).toEqual({ model: 'o3', mcp_servers: { gh: { command: 'gh' } } })
	})
	test("the file's last table local on A: B's comment after it survives A's model edit and both syncs", () => {
		const entries: LocalEntry[] = [{ file: TOML, path: ['mcp_servers', 'fs'] }]
		const shared = 'model = "o3"\n\n[mcp_servers.fs]\ncommand = "npx"\n'
		const onA = 'model = "o3"\n\n[mcp_servers.fs]\ncommand = "npx"\nargs = ["/home/a"]\n'
		const withComment = `${shared}# B: keep fs read-only\n`
		// A pulls B's comment: written around A's local table.
		const pulled = run('sync', [{ key: TOML, base: shared, local: onA, remote: withComment }], entries)
		const aText = written(pulled, TOML) as string
		expect(aText).toContain('# B: keep fs read-only')
		expect(aText).toContain('args = ["/home/a"]')
		// A edits model and syncs: the comment goes back with it, A's args do not.
		const edited = aText.replace('"o3"', '"o4"')
		const pushed = run('sync', [{ key: TOML, base: withComment, local: edited, remote: withComment }], entries)
		expect(pushed.push?.[TOML]).toBe(withComment.replace('"o3"', '"o4"'))
	})
})

describe('TOML keys that cannot be kept by editing lines are refused, not printed again', () => {
	const text =
		'# servers\n[mcp_servers.db]\ncommand = "db"\nenv = { TOKEN = "x", HOST = "h" }\n\n[[profiles]]\nname = "a"\n'
	test('a key on its own line can be local; one inside an inline table or a list of tables cannot', () => {
		expect(tomlEditable(text, ['mcp_servers', 'db', 'command'])).toBe(true)
		expect(tomlEditable(text, ['mcp_servers', 'db', 'env'])).toBe(true)
		expect(tomlEditable(text, ['mcp_servers', 'db', 'new'])).toBe(true)
		expect(tomlEditable(text, ['mcp_servers', 'db', 'env', 'TOKEN'])).toBe(false)
		// Printing the file again would have lost its comment: that is why such a key is refused.
		expect(tomlSet(text, ['mcp_servers', 'db', 'env', 'TOKEN'], 'y')).not.toContain('# servers')
	})
})
