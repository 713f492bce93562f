import fc from 'fast-check'
import { applyEdits, createScanner, modify } from 'jsonc-parser/lib/esm/main.js'
import {
	decide,
	reconcile,
	type Bases,
	type Decision,
	type Files,
	type Mode,
	type Side
} from '../../../src/client/sync/engine'
import { inFormatOf, isJsonKey, isObject, parseJsonc, stableJson, type Json } from '../../../src/client/sync/json'
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
	| { kind: 'comment'; file: number; key: number; op: 'add' | 'change' | 'remove' }
	| { kind: 'reformat'; file: number; tabs: boolean; crlf: boolean; bom: boolean }
	| { kind: 'break'; file: number }
	| { kind: 'delete'; file: number }
	| { kind: 'text'; file: number; line: number; append: boolean }

export type Step =
	| { kind: 'edit'; machine: number; edit: Edit }
	| { kind: 'cmd'; machine: number; mode: Mode; choose?: Side; interleave?: number; file?: number }

const edit: fc.Arbitrary<Edit> = fc.oneof(
	{
		weight: 8,
		arbitrary: fc.record({ kind: fc.constant('set' as const), file: fc.nat(1), key: fc.nat(2), nested: fc.boolean() })
	},
	{ weight: 3, arbitrary: fc.record({ kind: fc.constant('unset' as const), file: fc.nat(1), key: fc.nat(2) }) },
	{
		weight: 3,
		arbitrary: fc.record({
			kind: fc.constant('comment' as const),
			file: fc.nat(1),
			key: fc.nat(3),
			op: fc.constantFrom('add' as const, 'add' as const, 'change' as const, 'remove' as const)
		})
	},
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
	{
		weight: 4,
		arbitrary: fc.record({
			kind: fc.constant('text' as const),
			file: fc.constant(2),
			line: fc.nat(7),
			append: fc.boolean()
		})
	}
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

/** JSON leaves without comments: comments and formatting are not keys. */
function keyLeaves(key: string, text: string | undefined): Map<string, string> | undefined {
	const all = leaves(key, text)
	if (all === undefined) return undefined
	for (const path of [...all.keys()]) if (path.startsWith('#')) all.delete(path)
	return all
}

/** Lines of a text file, for the line oracle. */
const linesOf = (text: string) => text.split(/(?<=\n)/).filter((line) => line !== '')

/**
 * What a conflict must be (docs/sync-model.md), checked independently of the
 * engine: only keys (or lines) both sides changed differently clash, so a
 * conflict names at least one; and whichever side the person chooses, every
 * change that did not clash — from either side — is in the file. For text,
 * checked when both sides only replaced lines (so line N is line N on every
 * side): changes at least one line apart never clash.
 */
export function conflictProblem(d: Decision): string | undefined {
	const v = d.verdict
	if (v.kind !== 'conflict' || d.local === undefined || d.remote === undefined) return undefined
	if (d.base !== undefined && d.base.content === undefined) return undefined
	if (v.keys.length === 0) return `${d.key}: a conflict that names no key or line`
	const base = d.base?.content
	const [lb, ll, lr] = [keyLeaves(d.key, base ?? '{}'), keyLeaves(d.key, d.local), keyLeaves(d.key, d.remote)]
	if (lb !== undefined && ll !== undefined && lr !== undefined) {
		if (base === undefined) lb.clear()
		const clashes = (path: string) => {
			const [b, l, r] = [lb.get(path), ll.get(path), lr.get(path)]
			return b !== l && b !== r && l !== r
		}
		const paths = [...new Set([...ll.keys(), ...lr.keys()])]
		const clashing = paths.filter(clashes)
		if (clashing.length === 0) return `${d.key}: a conflict where no key changed differently on both sides`
		// A path at, under or above a clash takes whatever the chosen side gives the clash.
		const under = (path: string) =>
			clashing.some((c) => path === c || path.startsWith(`${c}/`) || c.startsWith(`${path}/`) || path === '')
		for (const [side, text] of [
			['mine', v.mine],
			['theirs', v.theirs]
		] as const) {
			const chosen = keyLeaves(d.key, text ?? undefined)
			if (chosen === undefined) return `${d.key}: ${side} does not parse`
			for (const path of paths) {
				if (under(path)) continue
				const want = ll.get(path) === lb.get(path) ? lr.get(path) : ll.get(path)
				if (chosen.get(path) !== want)
					return `${d.key}: choosing ${side} loses a change that did not clash at ${path} (${chosen.get(path)} instead of ${want})`
			}
		}
		return undefined
	}
	if (d.key.endsWith('.json') || base === undefined) return undefined
	const [bl, xl, yl] = [linesOf(base), linesOf(d.local), linesOf(d.remote)]
	if (bl.length !== xl.length || bl.length !== yl.length) return undefined
	const changed = (lines: string[]) => lines.flatMap((line, i) => (line !== bl[i] ? [i] : []))
	const [mine, theirs] = [new Set(changed(xl)), new Set(changed(yl))]
	// Changed lines next to each other (on either side) are one place, as in diff3: a place
	// changed on one side only never clashes, and whichever side is chosen keeps its lines.
	const places: number[][] = []
	for (const i of [...new Set([...mine, ...theirs])].sort((p, q) => p - q)) {
		const last = places[places.length - 1]
		if (last !== undefined && i - (last[last.length - 1] as number) <= 1) last.push(i)
		else places.push([i])
	}
	const oneSided = places.filter((place) => !place.some((i) => mine.has(i)) || !place.some((i) => theirs.has(i)))
	if (oneSided.length === places.length)
		return `${d.key}: lines changed in different places (${[...mine]} here, ${[...theirs]} there) make a conflict`
	for (const [side, text] of [
		['mine', v.mine],
		['theirs', v.theirs]
	] as const) {
		const got = linesOf(text ?? '')
		if (got.length !== bl.length) continue
		for (const i of oneSided.flat()) {
			const want = mine.has(i) ? xl[i] : yl[i]
			if (got[i] !== want) return `${d.key}: choosing ${side} loses the change to line ${i + 1} that did not clash`
		}
	}
	return undefined
}

/** Is replacing `before` by `after` allowed for someone whose base is `base`? Only what the base held may go. */
export function knowing(
	key: string,
	base: string | undefined,
	before: string | undefined,
	after: string | undefined
): string | undefined {
	if (before === after) return undefined
	if (!key.endsWith('.json') && base !== undefined && before !== undefined && after !== undefined) {
		// Text merges line by line: every line here that the base did not hold must still be there.
		const left = new Map<string, number>()
		for (const line of linesOf(after)) left.set(line, (left.get(line) ?? 0) + 1)
		const seen = new Map<string, number>()
		for (const line of linesOf(base)) seen.set(line, (seen.get(line) ?? 0) + 1)
		for (const line of linesOf(before)) {
			if ((seen.get(line) ?? 0) > 0) seen.set(line, (seen.get(line) ?? 0) - 1)
			else if ((left.get(line) ?? 0) > 0) left.set(line, (left.get(line) ?? 0) - 1)
			else
				return `${key}: dropped the line ${JSON.stringify(line)} without having seen it (base ${JSON.stringify(base)})`
		}
		return undefined
	}
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
			case 'comment': {
				if (!json) return
				const existing = /\/\/ note t\d+/.exec(start.slice(start.indexOf(`"${KEYS[e.key]}"`) + 1))?.[0]
				if (e.op === 'change' && existing) {
					m.local[key] = start.replace(existing, `// note ${token()}`)
					return
				}
				if (e.op === 'remove' && existing) {
					m.local[key] = start.replace(new RegExp(`[ \\t]*${existing}\\r?\\n?`), '')
					return
				}
				// Added above a key's line, or at the top.
				if (e.key < KEYS.length && start.includes(`"${KEYS[e.key]}"`))
					m.local[key] = start.replace(`"${KEYS[e.key]}"`, `// note ${token()}\n"${KEYS[e.key]}"`)
				else m.local[key] = start.replace('{', `{\n// note ${token()}`)
				return
			}
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
			case 'text': {
				// A line replaced (most edits: the line count stays, which the oracle below relies on) or added.
				const lines = (text ?? '').split(/(?<=\n)/).filter((line) => line !== '')
				if (e.append || lines.length === 0) lines.splice(e.line % (lines.length + 1), 0, `${token()}\n`)
				else lines[e.line % lines.length] = `${token()}\n`
				m.local[key] = lines.join('')
				return
			}
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
		for (const d of decisions) {
			const problem = conflictProblem(d)
			if (problem) violations.push(`machine ${index} ${mode}: ${problem}`)
			if (d.verdict.kind === 'merged' && d.key.endsWith('.md')) count('verdict merged (lines)')
			if (d.verdict.kind === 'conflict' && d.key.endsWith('.md') && d.verdict.keys[0]?.startsWith('line'))
				count('verdict conflict (lines)')
			if (d.verdict.kind === 'merged' && d.base === undefined) count('verdict merged (no base)')
		}
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
			'notes.md': 'n1\nn2\nn3\nn4\nn5\nn6\n'
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
		// Each machine keeps its formatting (docs/sync-model.md): a JSON file may be the server's in this
		// machine's indentation, line endings and BOM; anything else must be the server's, byte for byte.
		const theirs = Object.fromEntries(
			Object.entries(server.files ?? {}).map(([k, text]) => {
				const here = mine[k]
				return [k, here !== undefined && isJsonKey(k) && here === inFormatOf(here, text) ? here : text]
			})
		)
		if (JSON.stringify(Object.entries(mine).sort()) !== JSON.stringify(Object.entries(theirs).sort())) {
			throw new Error(
				`machine ${i} did not converge: ${JSON.stringify(mine)} here, ${JSON.stringify(server.files)} on the server`
			)
		}
		const sides = { base: m.base, local: m.local, remote: server.files, scope: [...FILES] }
		if (!reconcile(sides, decide(sides, sha256).decisions, { mode: 'sync' }, sha256).idle)
			throw new Error(`machine ${i}: a sync after settling still acts`)
	}
}
