import { diffArrays } from 'diff'
import { parseJsonc, tokensIn } from './edits'

/**
 * When a reported conflict is certainly not one (docs/sync-model.md): the two
 * sides hold the same content, this machine never changed the file since it
 * last synced, or both sides changed it only in different places (other keys
 * of a JSON file, comments, lines of a text file apart from each other). The
 * base a machine judges against is not visible from outside, so the model
 * keeps every version it could be (after a kill, the old one and the new
 * one) and calls a conflict wrong only when it is wrong against each.
 */

type Leaves = Map<string, string>

function leaves(value: unknown, prefix: string, into: Leaves): Leaves {
	if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
		for (const [key, inner] of Object.entries(value)) leaves(inner, prefix ? `${prefix}.${key}` : key, into)
		if (Object.keys(value).length === 0 && prefix) into.set(prefix, '{}')
	} else into.set(prefix, JSON.stringify(value))
	return into
}

/** Each leaf of a JSON value by its dotted path, as JSON text; undefined when the text does not parse. */
export function leavesOf(text: string | undefined): Leaves | undefined {
	const value = text === undefined ? undefined : parseJsonc(text)
	return value === undefined ? undefined : leaves(value, '', new Map())
}

/** The keys both sides changed from the base to different values; undefined when a side does not parse. */
export function clashingKeys(base: string, local: string, remote: string): string[] | undefined {
	const [b, l, r] = [base, local, remote].map(parseJsonc)
	if (b === undefined || l === undefined || r === undefined) return undefined
	const [bl, ll, rl] = [b, l, r].map((v) => leaves(v, '', new Map()))
	const keys = new Set([...(bl as Leaves).keys(), ...(ll as Leaves).keys(), ...(rl as Leaves).keys()])
	return [...keys].filter((key) => {
		const [vb, vl, vr] = [bl, ll, rl].map((m) => (m as Leaves).get(key))
		return vl !== vb && vr !== vb && vl !== vr
	})
}

/** The base lines each side changed, as [start, end) ranges (an insertion is an empty range). */
function changedRanges(base: string[], other: string[]): [number, number][] {
	const ranges: [number, number][] = []
	let at = 0
	for (const part of diffArrays(base, other)) {
		const count = part.count ?? part.value.length
		if (part.removed) {
			ranges.push([at, at + count])
			at += count
		} else if (part.added) ranges.push([at, at])
		else at += count
	}
	return ranges
}

/** Do both sides' line changes lie apart, with at least one unchanged line between any two? */
export function linesApart(base: string, local: string, remote: string): boolean {
	const lines = (text: string) => text.split('\n')
	const mine = changedRanges(lines(base), lines(local))
	const theirs = changedRanges(lines(base), lines(remote))
	return mine.every(([a1, a2]) => theirs.every(([b1, b2]) => a2 < b1 || b2 < a1))
}

/** Must a three-way merge of this file succeed? Only a certain yes counts. */
export function mergesCleanly(path: string, base: string | undefined, local: string, remote: string): boolean {
	if (base === undefined) return false
	if (base === local || base === remote || local === remote) return true
	if (path.endsWith('.json')) return clashingKeys(base, local, remote)?.length === 0
	return linesApart(base, local, remote)
}

/** What a command's `--json` report says of one config, as far as its bases go. */
export interface Reported {
	unpulled?: unknown[]
	refused?: unknown[]
}

/**
 * Did a command that ran to its end put every file of the config on the
 * version it names? Not when it left some on their old base: a resolve (it
 * settles only the conflicted files), a push that did not write the server's
 * changes (`unpulled`) or refused some files, and a command given PATHs,
 * which looks at those files only, so the config's other files keep theirs
 * and say nothing of it (docs/sync-model.md). The model names files by their
 * absolute path.
 */
export function movesEveryBase(kind: string, args: string[], report: Reported): boolean {
	if (kind === 'resolve') return false
	if (args.some((arg) => arg.startsWith('/'))) return false
	return (report.unpulled?.length ?? 0) === 0 && (report.refused?.length ?? 0) === 0
}

export interface ConflictCase {
	path: string
	/** This machine's file before the command, the server's latest then, and each base it could have. */
	local: string | undefined
	remote: string | undefined
	bases: (string | undefined)[]
	/** Did the person change this file here since it was last known to equal this machine's base? */
	editedHere: boolean
	/** For a JSON file, the keys the person changed here since then. */
	keysEditedHere: Set<string>
}

/** Why this conflict is wrong, or undefined when it may be a real one. */
export function wrongConflict(c: ConflictCase): string | undefined {
	if (c.bases.length === 0) return undefined
	if (c.local !== undefined && c.local === c.remote) return 'both sides hold the same content'
	if (!c.editedHere && c.bases.some((base) => base === c.local))
		return 'nothing was changed in it on this machine since it last synced (its file is the synced version)'
	const { local, remote } = c
	if (local === undefined || remote === undefined) return undefined
	if (c.bases.every((base) => mergesCleanly(c.path, base, local, remote)))
		return c.path.endsWith('.json')
			? 'the two sides changed different keys or only comments, which merge'
			: 'the two sides changed lines apart from each other, which merge'
	// A key this machine holds as it last synced it (the person did not touch it here) is no change of this side's.
	const localLeaves = leavesOf(local)
	const baseLeaves = c.bases.map(leavesOf)
	if (!c.path.endsWith('.json') || !localLeaves || baseLeaves.some((b) => b === undefined)) return undefined
	const changedHere = (key: string) =>
		c.keysEditedHere.has(key) || !baseLeaves.some((b) => b?.get(key) === localLeaves.get(key))
	const clashes = c.bases.map((base) => (base === undefined ? undefined : clashingKeys(base, local, remote)))
	if (clashes.some((keys) => keys === undefined)) return undefined
	const real = clashes.flatMap((keys) => (keys ?? []).filter(changedHere))
	if (real.length === 0) {
		const named = [...new Set(clashes.flat())].join(', ')
		return `the keys both sides changed (${named}) were not changed on this machine: it holds them as it last synced them`
	}
	return undefined
}

/** A run of changed lines: base lines [start, end) replaced by `lines` (an insertion when start = end). */
interface Hunk {
	start: number
	end: number
	lines: string[]
}

/** The hunks that turn `base` into `other`, consecutive removals and additions taken together. */
function hunks(base: string[], other: string[]): Hunk[] {
	const found: Hunk[] = []
	let at = 0
	let open: Hunk | undefined
	for (const part of diffArrays(base, other)) {
		const count = part.count ?? part.value.length
		if (!part.added && !part.removed) {
			open = undefined
			at += count
			continue
		}
		if (!open) {
			open = { start: at, end: at, lines: [] }
			found.push(open)
		}
		if (part.removed) {
			at += count
			open.end = at
		} else open.lines.push(...part.value)
	}
	return found
}

/** Two hunks clash when they overlap or touch: no unchanged line between them (docs/sync-model.md). */
const touch = (a: Hunk, b: Hunk) => !(a.end < b.start || b.end < a.start)

/** The lines of `losing`'s hunks that clash with the other side's, following chains of touching hunks (as diff3 does). */
function clashingLines(base: string, local: string, remote: string, losing: 'local' | 'remote'): string[] {
	const lines = (text: string) => text.split('\n')
	const sides = { local: hunks(lines(base), lines(local)), remote: hunks(lines(base), lines(remote)) }
	const all = [...sides.local.map((h) => ({ h, side: 'local' })), ...sides.remote.map((h) => ({ h, side: 'remote' }))]
	// Connected groups of touching hunks; a group with hunks of both sides is one clash.
	const group = all.map((_, i) => i)
	const root = (i: number): number => (group[i] === i ? i : root(group[i] as number))
	for (let i = 0; i < all.length; i++)
		for (let j = i + 1; j < all.length; j++)
			if (touch((all[i] as { h: Hunk }).h, (all[j] as { h: Hunk }).h)) group[root(j)] = root(i)
	const sidesOf = new Map<number, Set<string>>()
	for (const [i, { side }] of all.entries()) sidesOf.set(root(i), (sidesOf.get(root(i)) ?? new Set()).add(side))
	return all.flatMap(({ h, side }, i) => (side === losing && sidesOf.get(root(i))?.size === 2 ? h.lines : []))
}

/**
 * The edits (tokens) on the `losing` side that settling a conflict of this
 * file may drop: those in the keys (JSON) or lines (text) that clash, judged
 * against every base the machine could hold; the whole file when it was
 * deleted on one side or a side cannot be merged at all. Every other edit of
 * either side must survive `resolve --mine|--theirs` (docs/sync-model.md).
 */
export function droppable(
	path: string,
	bases: (string | undefined)[],
	local: string | undefined,
	remote: string | undefined,
	losing: 'local' | 'remote'
): Set<string> {
	const lost = losing === 'local' ? local : remote
	const found = new Set<string>()
	if (lost === undefined || local === remote) return found
	const whole = () => {
		for (const token of tokensIn(lost)) found.add(token)
	}
	for (const base of bases.length > 0 ? bases : [undefined]) {
		if (base === undefined || local === undefined || remote === undefined) {
			whole()
			continue
		}
		if (path.endsWith('.json')) {
			const clashes = clashingKeys(base, local, remote)
			const leavesLost = leavesOf(lost)
			if (clashes === undefined || leavesLost === undefined) {
				whole()
				continue
			}
			for (const [key, value] of leavesLost)
				if (clashes.some((c) => key === c || key.startsWith(`${c}.`) || c.startsWith(`${key}.`)))
					for (const token of tokensIn(value)) found.add(token)
			continue
		}
		for (const line of clashingLines(base, local, remote, losing)) for (const token of tokensIn(line)) found.add(token)
	}
	return found
}

/** Is this file certainly a conflict: against every base the machine could hold, both sides changed the same key or touching lines? */
export function certainConflict(
	path: string,
	bases: (string | undefined)[],
	local: string | undefined,
	remote: string | undefined
): boolean {
	if (bases.length === 0 || local === remote) return false
	return bases.every((base) => {
		if (base === local || base === remote) return false
		// Deleted on one side and changed on the other (a file both sides created is left unjudged).
		if (base === undefined) return false
		if (local === undefined || remote === undefined) return true
		if (path.endsWith('.json')) return (clashingKeys(base, local, remote)?.length ?? 0) > 0
		return !linesApart(base, local, remote)
	})
}

/**
 * The edits that settling a certain conflict of this file must keep: every
 * change either side made (a token in no base it could have) but the losing
 * side's in what clashes. Undefined when the file is not certainly a conflict.
 */
export function mustKeep(
	path: string,
	bases: (string | undefined)[],
	local: string | undefined,
	remote: string | undefined,
	losing: 'local' | 'remote'
): Set<string> | undefined {
	if (!certainConflict(path, bases, local, remote)) return undefined
	const inBases = new Set(bases.flatMap((base) => [...tokensIn(base)]))
	const dropped = droppable(path, bases, local, remote, losing)
	return new Set(
		[...tokensIn(local), ...tokensIn(remote)].filter((token) => !inBases.has(token) && !dropped.has(token))
	)
}
