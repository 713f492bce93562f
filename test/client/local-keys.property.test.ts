import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { sha256 } from '../../src/client/hash'
import { type Bases, decide, type Files, type Mode, reconcile } from '../../src/client/sync/engine'
import { MISSING, parseJsonc, stableJson } from '../../src/client/sync/json'
import { keptFrom, type LocalEntry, valueAt } from '../../src/client/sync/local-keys'

/**
 * Settings that stay on one machine (docs/sync-model.md), over random
 * histories on three machines, each with its own random local keys, random
 * edits and syncs, through the same engine the commands use:
 * - a local key's value never leaves its machine (no value this machine gave
 *   one of its local keys ever reaches the server);
 * - no command changes a local key's value here (nor adds or removes it),
 *   also for a key made local in the middle of a history;
 * - once every machine has synced, every other key is the same everywhere.
 * CI runs at least 1,000 histories (CI=true); locally 200 unless PROPERTY_RUNS says otherwise.
 */

const RUNS =
	process.env.CI === 'true'
		? Math.max(1000, Number(process.env.PROPERTY_RUNS ?? 1000))
		: Number(process.env.PROPERTY_RUNS ?? 200)
const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31

const MACHINES = 3
const JSON_FILE = '.gemini/settings.json'
const TOML_FILE = '.codex/config.toml'
const FILES = [JSON_FILE, TOML_FILE] as const
/** Keys of each file: top-level and nested (`t.size` lives in a table). */
const PATHS: string[][] = [['model'], ['theme'], ['font'], ['t', 'size'], ['t', 'wrap']]
const hash = sha256

type Step =
	| { kind: 'set'; machine: number; file: number; path: number }
	| { kind: 'unset'; machine: number; file: number; path: number }
	| { kind: 'sync'; machine: number; mode: Mode }
	/** `cfgsync local` in the middle of a history: from then on the key stays on that machine. */
	| { kind: 'mark'; machine: number; file: number; path: number }

const step: fc.Arbitrary<Step> = fc.oneof(
	{
		weight: 5,
		arbitrary: fc.record({
			kind: fc.constant('set' as const),
			machine: fc.nat(MACHINES - 1),
			file: fc.nat(1),
			path: fc.nat(PATHS.length - 1)
		})
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('unset' as const),
			machine: fc.nat(MACHINES - 1),
			file: fc.nat(1),
			path: fc.nat(PATHS.length - 1)
		})
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('mark' as const),
			machine: fc.nat(MACHINES - 1),
			file: fc.nat(1),
			path: fc.nat(PATHS.length - 1)
		})
	},
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('sync' as const),
			machine: fc.nat(MACHINES - 1),
			mode: fc.constantFrom<Mode>('sync', 'sync', 'push', 'pull')
		})
	}
)

/** Each machine's local keys: a path of one file, or one whole file, at random. */
const localKeys = fc.array(
	fc.array(
		fc.oneof(
			{ weight: 6, arbitrary: fc.record({ file: fc.nat(1), path: fc.nat(PATHS.length - 1) }) },
			{ weight: 1, arbitrary: fc.record({ file: fc.nat(1) }) }
		),
		{ maxLength: 3 }
	),
	{ minLength: MACHINES, maxLength: MACHINES }
)

type Tree = Record<string, unknown>
const read = (file: string, text: string): Tree =>
	(file.endsWith('.toml') ? parseToml(text) : (parseJsonc(text)?.value ?? {})) as Tree
/** Files as a person's editor saves them: printed again, with a comment. */
const print = (file: string, tree: Tree): string =>
	file.endsWith('.toml')
		? `# edited by hand\n${stringifyToml(tree)}`
		: `// edited by hand\n${JSON.stringify(tree, null, 2)}\n`

function edit(file: string, text: string | undefined, path: string[], value: string | undefined): string {
	const tree = text === undefined ? {} : read(file, text)
	if (path.length === 2 && tree[path[0] as string] === undefined) tree[path[0] as string] = {}
	const parent = path.length === 2 ? (tree[path[0] as string] as Tree) : tree
	const key = path.at(-1) as string
	if (value === undefined) delete parent[key]
	else parent[key] = value
	return print(file, tree)
}

interface Machine {
	files: Files
	base?: Bases
	entries: LocalEntry[]
	/** Values this machine gave its local keys: none may ever reach the server. */
	secrets: Set<string>
}

export function simulate(keys: { file: number; path?: number }[][], steps: Step[]): void {
	const server: { files?: Files } = {}
	const machines: Machine[] = keys.map((list) => ({
		files: {},
		entries: list.map((k) =>
			k.path === undefined
				? { file: FILES[k.file] as string }
				: { file: FILES[k.file] as string, path: PATHS[k.path] as string[] }
		),
		secrets: new Set()
	}))
	let counter = 0
	const isLocal = (m: Machine, file: string, path: string[]) =>
		m.entries.some(
			(e) =>
				e.file === file &&
				(e.path === undefined || (e.path.length <= path.length && e.path.every((p, i) => p === path[i])))
		)
	const localValues = (m: Machine) =>
		m.entries.map((e) =>
			e.path === undefined ? m.files[e.file] : stableSlot(valueAt(e.file, m.files[e.file], e.path))
		)

	const command = (m: Machine, mode: Mode) => {
		const scope = [...FILES]
		const sides = { base: m.base, local: m.files, remote: server.files, scope, kept: keptFrom(m.entries) }
		const { decisions } = decide(sides, hash)
		let outcome = reconcile(sides, decisions, { mode }, hash)
		// A conflict on a shared key is settled the way a person would: keep this machine's side.
		if (outcome.conflicts.length > 0 && mode !== 'pull')
			outcome = reconcile(sides, decisions, { mode: 'push', choose: { side: 'mine' } }, hash)
		else if (outcome.conflicts.length > 0)
			outcome = reconcile(sides, decisions, { mode: 'pull', choose: { side: 'theirs' } }, hash)
		const before = localValues(m)
		const files = { ...m.files }
		for (const w of outcome.writes) {
			if (w.content === null) delete files[w.key]
			else files[w.key] = w.content
		}
		m.files = files
		if (outcome.push !== undefined) server.files = outcome.push
		m.base = outcome.base
		// No command changes a local key here.
		expect(localValues(m)).toEqual(before)
		// Nothing this machine gave a local key is on the server.
		const sent = Object.values(server.files ?? {}).join('\n')
		for (const machine of machines) for (const secret of machine.secrets) expect(sent).not.toContain(secret)
	}

	for (const s of steps) {
		const m = machines[s.machine] as Machine
		if (s.kind === 'sync') {
			command(m, s.mode)
			continue
		}
		const file = FILES[s.file] as string
		const path = PATHS[s.path] as string[]
		if (s.kind === 'mark') {
			m.entries = [...m.entries, { file, path }]
			continue
		}
		const value = s.kind === 'set' ? `v${counter++}m${s.machine}` : undefined
		if (value !== undefined && isLocal(m, file, path)) m.secrets.add(value)
		m.files = { ...m.files, [file]: edit(file, m.files[file], path, value) }
	}
	// Everyone syncs, three times round (a new machine's merge is sent by its second sync, and reaches
	// the machines before it on the third): every key not local to a machine is then the server's there.
	for (let round = 0; round < 3; round++) for (const m of machines) command(m, 'sync')
	for (const m of machines)
		for (const file of FILES)
			for (const path of PATHS) {
				if (isLocal(m, file, path)) continue
				expect({ file, path, value: stableSlot(valueAt(file, m.files[file], path)) }).toEqual({
					file,
					path,
					value: stableSlot(valueAt(file, server.files?.[file], path))
				})
			}
}

const stableSlot = (slot: ReturnType<typeof valueAt>) => (slot === MISSING ? '(absent)' : stableJson(slot))

describe('settings that stay on one machine (fast-check)', () => {
	test(`random histories on ${MACHINES} machines with random local keys: a local value never leaves its machine, no pull changes it, every other key converges (${RUNS} runs)`, () => {
		console.log(`local keys property: seed ${SEED} (replay with PROPERTY_SEED=${SEED})`)
		fc.assert(fc.property(localKeys, fc.array(step, { minLength: 1, maxLength: 30 }), simulate), {
			numRuns: RUNS,
			seed: SEED
		})
	}, 600_000)
})
