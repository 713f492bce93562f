import { onlyFiles } from '../../shared/config-files'
import { diffArrays, diffWords, diffWordsWithSpace } from 'diff'

/** One block of a config as a person reads it: a file of a `{"files": …}` config, or the whole data. */
export interface Block {
	/** The file's path; null for a config that is not a set of files. */
	path: string | null
	text: string
}

/** A config's data as blocks: one per file (sorted by path), else the string itself or indented JSON. */
export function blocksOf(data: unknown): Block[] {
	const files = onlyFiles(data)
	if (files) {
		return Object.keys(files)
			.sort()
			.map((path) => ({ path, text: files[path] as string }))
	}
	return [{ path: null, text: typeof data === 'string' ? data : JSON.stringify(data, null, 2) }]
}

export type LineKind = 'same' | 'added' | 'removed'

/** A piece of a changed line: `changed` marks the words that differ from the line it replaces. */
export interface LinePart {
	text: string
	changed: boolean
}

export interface DiffLine {
	kind: LineKind
	text: string
	/** A removed or added line paired with the line that replaced it: its text split into changed and kept words. */
	parts?: LinePart[]
	/** Line number in the older text (removed and same lines). */
	from?: number
	/** Line number in the newer text (added and same lines). */
	to?: number
}

/** Unchanged lines folded between two changes: shown as one "N unchanged lines" row that expands to them. */
export interface Gap {
	kind: 'gap'
	count: number
	lines: DiffLine[]
}

/** How a comparison treats whitespace: `ignore` compares lines with every space, tab and indent left out. */
export type Whitespace = 'show' | 'ignore'

export interface FileDiff {
	path: string | null
	status: 'added' | 'removed' | 'changed' | 'unchanged'
	lines: (DiffLine | Gap)[]
	added: number
	removed: number
}

/** Unchanged lines kept around each change. */
const CONTEXT = 3

/**
 * docs/web.md: a comparison's cost is bounded. The line diff gets about 100 ms in all (every file
 * together) and gives up past an edit distance no reader would follow; texts longer than
 * MAX_LINES, or diffs longer than MAX_SHOWN rows, are not attempted at all. Past any of these the
 * page says "too large to compare here" and offers both versions for download, so no request can
 * keep the server (one thread for every request) from answering the others.
 */
export const DIFF_LIMITS = {
	/** Milliseconds of diffing per comparison, all files together. */
	budgetMs: 100,
	/** The most edits (lines removed plus lines added) a diff may hold. */
	maxEditLength: 10_000,
	/** The most lines either version may have, all files together. */
	maxLines: 20_000,
	/** The most rows a comparison may show (unchanged runs folded). */
	maxShown: 10_000,
	/**
	 * Word marks (which words of a changed line changed) are made only for a removed line paired with
	 * the added line that replaced it, both at most this long, within what is left of the same budget;
	 * past it the lines are shown whole, unmarked.
	 */
	wordMaxLineLength: 1_000,
	/** The most word edits in one line pair: beyond, the line changed too much for marks to help. */
	wordMaxEditLength: 100
}

/** Thrown when a comparison would cost more than DIFF_LIMITS allows. */
export class TooLargeToCompare extends Error {
	constructor(readonly why: 'lines' | 'time' | 'edits' | 'shown') {
		super(`too large to compare (${why})`)
	}
}

/** The clock a comparison's budget runs on: by default the process's, replaceable in tests. */
export interface DiffBudget {
	deadline: number
	now: () => number
}

export const newBudget = (limits = DIFF_LIMITS, now: () => number = Date.now): DiffBudget => ({
	deadline: now() + limits.budgetMs,
	now
})

const lineCount = (text: string) => {
	let count = 0
	for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++
	return count + (text === '' || text.endsWith('\n') ? 0 : 1)
}

const splitLines = (value: string): string[] => {
	const lines = value.split('\n')
	if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop()
	return lines
}

const same = (text: string, older: number, newer: number): DiffLine => ({
	kind: 'same',
	text,
	from: older + 1,
	to: newer + 1
})

/**
 * The line diff itself, or undefined past the time or edit limits. A line found on one side only can
 * never be common to both, so only the lines found on both sides go through Myers' algorithm (its
 * cost grows with the edits between what it is given): a re-indented or rewritten file costs next to
 * nothing, and the result is as short as diffing every line. Ignoring whitespace, lines are compared
 * with every space left out; an unchanged line shows the newer text. A missing final newline is no
 * change of its own.
 */
function lineDiff(
	older: string,
	newer: string,
	timeout: number,
	limits: typeof DIFF_LIMITS,
	whitespace: Whitespace
): DiffLine[] | undefined {
	const before = splitLines(older)
	const after = splitLines(newer)
	const keyOf = whitespace === 'ignore' ? (line: string) => line.replace(/\s+/g, '') : (line: string) => line
	const beforeKeys = before.map(keyOf)
	const afterKeys = after.map(keyOf)
	const inBefore = new Set(beforeKeys)
	const inAfter = new Set(afterKeys)
	const keptBefore = beforeKeys.flatMap((key, i) => (inAfter.has(key) ? [i] : []))
	const keptAfter = afterKeys.flatMap((key, i) => (inBefore.has(key) ? [i] : []))
	const changes = diffArrays(
		keptBefore.map((i) => beforeKeys[i] as string),
		keptAfter.map((i) => afterKeys[i] as string),
		{ timeout, maxEditLength: limits.maxEditLength }
	)
	if (changes === undefined) return undefined
	const lines: DiffLine[] = []
	let i = 0
	let j = 0
	/** Every line before `untilBefore` and `untilAfter` not yet shown: removed, then added. */
	const changedUpTo = (untilBefore: number, untilAfter: number) => {
		for (; i < untilBefore; i++) lines.push({ kind: 'removed', text: before[i] as string, from: i + 1 })
		for (; j < untilAfter; j++) lines.push({ kind: 'added', text: after[j] as string, to: j + 1 })
	}
	let k = 0
	let l = 0
	for (const change of changes) {
		const count = change.count ?? change.value.length
		if (change.removed) k += count
		else if (change.added) l += count
		else
			for (let n = 0; n < count; n++) {
				const b = keptBefore[k++] as number
				const a = keptAfter[l++] as number
				changedUpTo(b, a)
				lines.push(same(after[a] as string, b, a))
				i = b + 1
				j = a + 1
			}
	}
	changedUpTo(before.length, after.length)
	return lines
}

/**
 * Line diff of two texts, with runs of unchanged lines beyond CONTEXT folded into gaps; throws
 * TooLargeToCompare when the budget runs out first (docs/web.md).
 */
export function diffText(
	older: string,
	newer: string,
	budget: DiffBudget = newBudget(),
	limits = DIFF_LIMITS,
	whitespace: Whitespace = 'show'
): { lines: (DiffLine | Gap)[]; added: number; removed: number } {
	const remaining = budget.deadline - budget.now()
	if (remaining <= 0) throw new TooLargeToCompare('time')
	const all =
		older === newer
			? splitLines(older).map((text, i) => same(text, i, i))
			: lineDiff(older, newer, remaining, limits, whitespace)
	if (all === undefined) throw new TooLargeToCompare(budget.now() > budget.deadline ? 'time' : 'edits')
	let added = 0
	let removed = 0
	for (const line of all) {
		if (line.kind === 'added') added++
		else if (line.kind === 'removed') removed++
	}
	markWords(all, budget, limits, whitespace)
	const near = all.map(() => false)
	all.forEach((line, index) => {
		if (line.kind === 'same') return
		for (let i = Math.max(0, index - CONTEXT); i <= Math.min(all.length - 1, index + CONTEXT); i++) near[i] = true
	})
	const lines: (DiffLine | Gap)[] = []
	for (let i = 0; i < all.length; i++) {
		if (near[i]) {
			lines.push(all[i] as DiffLine)
			continue
		}
		const last = lines[lines.length - 1]
		if (last?.kind === 'gap') {
			last.count++
			last.lines.push(all[i] as DiffLine)
		} else lines.push({ kind: 'gap', count: 1, lines: [all[i] as DiffLine] })
	}
	return { lines, added, removed }
}

const joined = (parts: LinePart[]) => parts.map((part) => part.text).join('')

/**
 * Marks the changed words of each removed line paired with the added line that replaced it (the
 * k-th removed with the k-th added of a change, as side by side shows them). Bounded (docs/web.md):
 * only lines up to wordMaxLineLength, at most wordMaxEditLength word edits each, within what is left
 * of the comparison's budget; a pair past any of these is shown whole, unmarked, and once the budget
 * is spent no more pairs are tried. Ignoring whitespace, changes of whitespace alone are not marked.
 */
function markWords(all: DiffLine[], budget: DiffBudget, limits: typeof DIFF_LIMITS, whitespace: Whitespace) {
	let i = 0
	while (i < all.length) {
		if ((all[i] as DiffLine).kind !== 'removed') {
			i++
			continue
		}
		const removed: DiffLine[] = []
		const added: DiffLine[] = []
		while (i < all.length && (all[i] as DiffLine).kind === 'removed') removed.push(all[i++] as DiffLine)
		while (i < all.length && (all[i] as DiffLine).kind === 'added') added.push(all[i++] as DiffLine)
		for (let k = 0; k < Math.min(removed.length, added.length); k++) {
			const before = removed[k] as DiffLine
			const after = added[k] as DiffLine
			if (before.text.length > limits.wordMaxLineLength || after.text.length > limits.wordMaxLineLength) continue
			const remaining = budget.deadline - budget.now()
			if (remaining <= 0) return
			const options = { timeout: remaining, maxEditLength: limits.wordMaxEditLength }
			const changes =
				whitespace === 'ignore'
					? diffWords(before.text, after.text, options)
					: diffWordsWithSpace(before.text, after.text, options)
			if (changes === undefined) continue
			// Nothing in common but spaces: the whole line changed, and marking every word would say nothing more.
			if (!changes.some((change) => !change.added && !change.removed && change.value.trim() !== '')) continue
			const beforeParts = changes
				.filter((change) => !change.added)
				.map((change) => ({ text: change.value, changed: change.removed }))
			const afterParts = changes
				.filter((change) => !change.removed)
				.map((change) => ({ text: change.value, changed: change.added }))
			// The parts must spell each line exactly (ignoring whitespace, kept words carry the newer spacing).
			if (joined(beforeParts) === before.text) before.parts = beforeParts
			if (joined(afterParts) === after.text) after.parts = afterParts
		}
	}
}

/**
 * The difference between two versions' data, file by file for `{"files": …}` configs; throws
 * TooLargeToCompare past DIFF_LIMITS (docs/web.md: a comparison's cost is bounded).
 */
export function diffData(
	older: unknown,
	newer: unknown,
	budget: DiffBudget = newBudget(),
	limits = DIFF_LIMITS,
	whitespace: Whitespace = 'show'
): FileDiff[] {
	const files = diffFiles(older, newer, budget, limits, whitespace)
	const shown = files.reduce((sum, file) => sum + file.lines.filter((line) => line.kind !== 'gap').length, 0)
	if (shown > limits.maxShown) throw new TooLargeToCompare('shown')
	return files
}

function diffFiles(
	older: unknown,
	newer: unknown,
	budget: DiffBudget,
	limits: typeof DIFF_LIMITS,
	whitespace: Whitespace
): FileDiff[] {
	const beforeBlocks = blocksOf(older)
	const afterBlocks = blocksOf(newer)
	for (const blocks of [beforeBlocks, afterBlocks])
		if (blocks.reduce((sum, block) => sum + lineCount(block.text), 0) > limits.maxLines)
			throw new TooLargeToCompare('lines')
	const before = new Map(beforeBlocks.map((block) => [block.path ?? '', block]))
	const after = new Map(afterBlocks.map((block) => [block.path ?? '', block]))
	// One files config and one plain one: compare them as wholes.
	const sameShape = ([...before.values()][0]?.path === null) === ([...after.values()][0]?.path === null)
	if (!sameShape) {
		const whole = (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data, null, 2))
		const { lines, added, removed } = diffText(whole(older), whole(newer), budget, limits, whitespace)
		return [{ path: null, status: added + removed === 0 ? 'unchanged' : 'changed', lines, added, removed }]
	}
	const paths = [...new Set([...before.keys(), ...after.keys()])].sort()
	return paths.map((key) => {
		const a = before.get(key)
		const b = after.get(key)
		const path = (a ?? b)?.path ?? null
		const { lines, added, removed } = diffText(a?.text ?? '', b?.text ?? '', budget, limits, whitespace)
		const status = !a ? 'added' : !b ? 'removed' : added + removed === 0 ? 'unchanged' : 'changed'
		return { path, status, lines: a && b ? lines : lines.filter((line) => line.kind !== 'gap'), added, removed }
	})
}

export interface SideBySideRow {
	left?: DiffLine
	right?: DiffLine
	gap?: Gap
}

/** Unified lines paired for a two-column view: removed lines beside the added lines that replace them. */
export function sideBySide(lines: (DiffLine | Gap)[]): SideBySideRow[] {
	const rows: SideBySideRow[] = []
	let i = 0
	while (i < lines.length) {
		const line = lines[i] as DiffLine | Gap
		if (line.kind === 'gap') {
			rows.push({ gap: line })
			i++
		} else if (line.kind === 'same') {
			rows.push({ left: line, right: line })
			i++
		} else {
			const removed: DiffLine[] = []
			const added: DiffLine[] = []
			while (i < lines.length && (lines[i] as DiffLine).kind === 'removed') removed.push(lines[i++] as DiffLine)
			while (i < lines.length && (lines[i] as DiffLine).kind === 'added') added.push(lines[i++] as DiffLine)
			for (let k = 0; k < Math.max(removed.length, added.length); k++) rows.push({ left: removed[k], right: added[k] })
		}
	}
	return rows
}
