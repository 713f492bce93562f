import fc from 'fast-check'
import { applyEdits, createScanner, modify } from 'jsonc-parser/lib/esm/main.js'
import { decide, reconcile, type Bases, type Files, type Mode, type Side } from '../../../src/client/sync/engine'
import { isObject, parseJsonc, stableJson, type Json } from '../../../src/client/sync/json'
import { contentHash, sha256 } from '../../../src/client/hash'

/**
 * Random histories of edits on three machines with syncs in between, played
 * through the same engine the commands use. Checked after every step:
 * - nothing on the server is replaced that the pushing machine had not seen
 *   (its base held it), unless the person chose `mine` (push --force, resolve);
 * - nothing here is overwritten or deleted that was not synced (the base held
 *   it), unless the person chose `theirs` (pull --force, resolve);
 * at JSON-leaf level for JSON files (comments count as leaves) and whole
 * files otherwise; and in the end, once every machine syncs and settles its
 * conflicts, all machines hold the server's files.
 * CI runs at least 1,000 histories (CI=true); locally fewer.
 */

const FILES = ['a.json', 'b.json', 'notes.md'] as const
const KEYS = ['k0', 'k1', 'k2']
export const MACHINES = 3

type Edit =
	| { kind: 'set'; file: number; key: number; nested: boolean }
	| { kind: 'unset'; file: number; key: number }
	| { kind: 'comment'; file: number; key: number }
	| { kind: 'reformat'; file: number; tabs: boolean; crlf: boolean; bom: boolean }
	| { kind: 'break'; file: number }
	| { kind: 'delete'; file: number }
	| { kind: 'text'; file: number }

export type Step =
	| { kind: 'edit'; machine: number; edit: Edit }
	| { kind: 'cmd'; machine: number; mode: Mode; choose?: Side; interleave?: number; file?: number }

const edit: fc.Arbitrary<Edit> = fc.oneof(
	{
		weight: 8,
		arbitrary: fc.record({ kind: fc.constant('set' as const), file: fc.nat(1), key: fc.nat(2), nested: fc.boolean() })
	},
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant('unset' as const), file: fc.nat(1), key: fc.nat(2) }) },
	{ weight: 2, arbitrary: fc.record({ kind: fc.constant('comment' as const), file: fc.nat(1), key: fc.nat(3) }) },
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('reformat' as const),
			file: fc.nat(1),
			tabs: fc.boolean(),
			crlf: fc.boolean(),
			bom: fc.boolean()
		})
	},
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('break' as const), file: fc.nat(1) }) },
	{ weight: 1, arbitrary: fc.record({ kind: fc.constant('delete' as const), file: fc.nat(2) }) },
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant('text' as const), file: fc.constant(2) }) }
)
const machine = fc.nat(MACHINES - 1)
export const step: fc.Arbitrary<Step> = fc.oneof(
	{ weight: 4, arbitrary: fc.record({ kind: fc.constant('edit' as const), machine, edit }) },
	{
		weight: 5,
		arbitrary: fc.record(
			{
				kind: fc.constant('cmd' as const),
				machine,
				mode: fc.constantFrom<Mode>('pull', 'push', 'sync'),
				interleave: machine,
				file: fc.nat(2)
			},
			{ requiredKeys: ['kind', 'machine', 'mode'] }
		)
	},
	{
		weight: 1,
		arbitrary: fc.record({
			kind: fc.constant('cmd' as const),
			machine,
			mode: fc.constantFrom<Mode>('resolve', 'push', 'pull'),
			choose: fc.constantFrom<Side>('mine', 'theirs')
		})
	}
)

/** JSON leaves (path → value) plus comments, or undefined for text that is not JSON. */
function leaves(key: string, text: string | undefined): Map<string, string> | undefined {
	const out = new Map<string, string>()
	if (text === undefined) return out
	if (!key.endsWith('.json')) return undefined
	const parsed = parseJsonc(text)
	if (!parsed) return undefined
	const walk = (value: Json, path: string) => {
		// Every object is a leaf of its own ("there is an object here"), its keys are leaves below it.
		if (isObject(value)) {
			out.set(path, 'object')
			for (const k of Object.keys(value)) walk(value[k] as Json, `${path}/${k}`)
		} else out.set(path, stableJson(value))
	}
	walk(parsed.value, '')
	const scanner = createScanner(text.replace(/^\uFEFF/, ''), false)
	for (let t = scanner.scan(); t !== 17; t = scanner.scan())
		if (t === 12 || t === 13)
			out.set(`#${text.replace(/^\uFEFF/, '').substr(scanner.getTokenOffset(), scanner.getTokenLength())}`, 'comment')
	return out
}

/** Is replacing `before` by `after` allowed for someone whose base is `base`? Only what the base held may go. */
export function knowing(
	key: string,
	base: string | undefined,
	before: string | undefined,
	after: string | undefined
): string | undefined {
	if (before === after) return undefined
	const [lb, lx, ly] = [leaves(key, base), leaves(key, before), leaves(key, after)]
	if (lb === undefined || lx === undefined || ly === undefined) {
		return base === before
			? undefined
			: `${key}: replaced ${JSON.stringify(before)} by ${JSON.stringify(after)} without having seen it (base ${JSON.stringify(base)})`
	}
	for (const path of new Set([...lx.keys(), ...ly.keys()])) {
		if (lx.get(path) === ly.get(path)) continue
		if (lb.get(path) !== lx.get(path))
			return `${key}${path}: replaced ${lx.get(path)} by ${ly.get(path)} without having seen it (base ${lb.get(path)})`
	}
	return undefined
}

/** What the histories exercised (printed by the property test, so a weak generator shows). */
export const stats: Record<string, number> = {}
const count = (what: string) => {
	stats[what] = (stats[what] ?? 0) + 1
}

interface Machine {
	local: Files
	base?: Bases
}

export function simulate(steps: Step[]): void {
	let counter = 0
	const token = () => `t${++counter}`
	const server: { files?: Files; hash?: string } = {}
	const machines: Machine[] = Array.from({ length: MACHINES }, () => ({ local: {} }))
	const violations: string[] = []

	const applyEdit = (m: Machine, e: Edit) => {
		const key = FILES[e.file] as string
		const text = m.local[key]
		const json = key.endsWith('.json')
		const fmt = { insertSpaces: true, tabSize: 2, eol: text?.includes('\r\n') ? '\r\n' : '\n' }
		const valid = text !== undefined && parseJsonc(text) !== undefined
		const start = valid ? (text as string) : '{}\n'
		switch (e.kind) {
			case 'set':
			case 'unset': {
				if (!json) return
				const path = e.kind === 'set' && e.nested ? [KEYS[e.key] as string, 's'] : [KEYS[e.key] as string]
				const value = e.kind === 'set' ? token() : undefined
				try {
					const body = start.replace(/^\uFEFF/, '')
					const next = applyEdits(body, modify(body, path, value, { formattingOptions: fmt }))
					m.local[key] = start.startsWith('\uFEFF') ? `\uFEFF${next}` : next
				} catch {
					m.local[key] = `${JSON.stringify({ [KEYS[e.key] as string]: token() })}\n`
				}
				return
			}
			case 'comment':
				// Above a key's line, or at the top.
				if (!json) return
				if (e.key < KEYS.length && start.includes(`"${KEYS[e.key]}"`))
					m.local[key] = start.replace(`"${KEYS[e.key]}"`, `// note ${token()}\n"${KEYS[e.key]}"`)
				else m.local[key] = start.replace('{', `{\n// note ${token()}`)
				return
			case 'reformat': {
				if (!json || !valid) return
				let next = JSON.stringify(parseJsonc(start)?.value, null, e.tabs ? '\t' : 2)
				if (e.crlf) next = next.replace(/\n/g, '\r\n')
				m.local[key] = `${e.bom ? '\uFEFF' : ''}${next}\n`
				return
			}
			case 'break':
				m.local[key] = `{"broken": ${token()}`
				return
			case 'delete':
				delete m.local[key]
				return
			case 'text':
				m.local[key] = `${text ?? ''}${token()}\n`
				return
		}
	}

	// `file`: the command names one PATH (push TOOL PATH, pull TOOL PATH); the other files keep their state.
	const command = (
		index: number,
		mode: Mode,
		choose?: Side,
		interleave?: number,
		retry = true,
		file?: number
	): void => {
		const m = machines[index] as Machine
		const remote = server.files
		const remoteHash = server.hash
		const scope = file === undefined ? [...FILES] : [FILES[file] as string]
		const sides = {
			base: m.base,
			local: Object.fromEntries(Object.entries(m.local).filter(([k]) => scope.includes(k))),
			remote,
			scope
		}
		const { decisions } = decide(sides, sha256)
		const outcome = reconcile(sides, decisions, { mode, choose: choose ? { side: choose } : undefined }, sha256)
		const explicit = choose !== undefined
		for (const d of decisions)
			count(
				`verdict ${d.verdict.kind}${d.verdict.kind === 'conflict' ? ` ${d.verdict.why}${d.verdict.keys.length ? ' (keys)' : ''}` : ''}`
			)
		for (const w of outcome.writes) count(`write ${w.kind}`)
		for (const w of outcome.writes) {
			if (!explicit) {
				const problem = knowing(w.key, m.base?.[w.key]?.content, m.local[w.key], w.content ?? undefined)
				if (problem) violations.push(`machine ${index} ${mode} wrote ${problem}`)
			}
			if (w.content === null) delete m.local[w.key]
			else m.local[w.key] = w.content
		}
		if (outcome.push) {
			// Another machine may push between this one's read and its push: the If-Match then fails.
			if (interleave !== undefined && interleave !== index) command(interleave, 'push', undefined, undefined, false)
			if (server.hash !== remoteHash) {
				count('push refused by If-Match')
				if (retry) command(index, mode, choose, undefined, false, file)
				return
			}
			if (!explicit) {
				for (const key of new Set([...Object.keys(remote ?? {}), ...Object.keys(outcome.push)])) {
					const problem = knowing(key, m.base?.[key]?.content, remote?.[key], outcome.push[key])
					if (problem) violations.push(`machine ${index} ${mode} pushed over ${problem}`)
				}
			}
			count('push')
			server.files = outcome.push
			server.hash = contentHash({ files: outcome.push })
		}
		m.base = outcome.base
	}

	// Usually the machines start from one synced config (the first machine pushed it, the others pulled);
	// sometimes each starts on its own (new machines with files of their own).
	if (steps.length % 3 !== 0) {
		const first = machines[0] as Machine
		first.local = {
			'a.json': '{\n  "k0": "a0",\n  "k1": "a1"\n}\n',
			'b.json': '{"k2": {"s": "b2"}}',
			'notes.md': 'notes\n'
		}
		command(0, 'push')
		for (let i = 1; i < MACHINES; i++) command(i, 'pull')
	}

	for (const s of steps) {
		if (s.kind === 'edit') applyEdit(machines[s.machine] as Machine, s.edit)
		else command(s.machine, s.mode, s.choose, s.interleave, true, s.file)
		if (violations.length > 0)
			throw new Error(`${violations.join('\n')}\nafter ${JSON.stringify(steps.slice(0, steps.indexOf(s) + 1))}`)
	}

	// Settle: every machine syncs; a conflict is settled by taking the server's side; all end equal.
	for (let round = 0; round < 4; round++) {
		for (let i = 0; i < MACHINES; i++) {
			command(i, 'sync')
			command(i, 'resolve', 'theirs')
			command(i, 'sync')
		}
	}
	if (violations.length > 0) throw new Error(violations.join('\n'))
	for (const [i, m] of machines.entries()) {
		const mine = Object.fromEntries(Object.entries(m.local).filter(([k]) => (FILES as readonly string[]).includes(k)))
		if (JSON.stringify(Object.entries(mine).sort()) !== JSON.stringify(Object.entries(server.files ?? {}).sort())) {
			throw new Error(
				`machine ${i} did not converge: ${JSON.stringify(mine)} here, ${JSON.stringify(server.files)} on the server`
			)
		}
		const sides = { base: m.base, local: m.local, remote: server.files, scope: [...FILES] }
		if (!reconcile(sides, decide(sides, sha256).decisions, { mode: 'sync' }, sha256).idle)
			throw new Error(`machine ${i}: a sync after settling still acts`)
	}
}
