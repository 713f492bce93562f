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
 * docs/web.md: a comparison is decided by size, never by the clock, so the same two versions always
 * get the same answer: shown when neither version has more than MAX_LINES lines (every file together)
 * and the edit script has at most maxEdits edits (lines removed plus lines added, every file
 * together); else the page says "too large to compare here" and offers both versions for download.
 * What that costs is bounded too, and it runs away from the requests (web/comparisons.ts: one
 * comparison per core at once, in worker threads).
 */
export const DIFF_LIMITS = {
	/** The most lines either version may have, all files together. */
	maxLines: 20_000,
	/** The most edits (lines removed plus lines added) a comparison may hold, all files together. */
	maxEdits: 10_000,
	/**
	 * Word marks (which words of a changed line changed) are made only for a removed line paired with
	 * the added line that replaced it, both at most this long; past it the lines are shown whole, unmarked.
	 */
	wordMaxLineLength: 1_000,
	/** The most word edits in one line pair: beyond, the line changed too much for marks to help. */
	wordMaxEditLength: 100,
	/** The most characters of line pairs marked in one comparison: the pairs after it are shown unmarked. */
	wordMaxChars: 200_000
}

export type DiffLimits = typeof DIFF_LIMITS

/** Thrown when a comparison is past DIFF_LIMITS. */
export class TooLargeToCompare extends Error {
	constructor(readonly why: 'lines' | 'edits') {
		super(`too large to compare (${why})`)
	}
}

/** What is left of one comparison's limits, shared by all its files. */
export interface DiffAllowance {
	edits: number
	wordChars: number
}

export const newAllowance = (limits: DiffLimits = DIFF_LIMITS): DiffAllowance => ({
	edits: limits.maxEdits,
	wordChars: limits.wordMaxChars
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

/** What lines are compared by: the line itself, or ignoring whitespace the line with every space left out. */
const lineKey = (whitespace: Whitespace) =>
	whitespace === 'ignore' ? (line: string) => line.replace(/\s+/g, '') : (line: string) => line

/**
 * The line diff itself, or undefined past the edits left. A line found on one side only can never be
 * common to both, so only the lines found on both sides go through Myers' algorithm (its cost grows
 * with the edits between what it is given, here at most the edits left): a re-indented or rewritten
 * file costs next to nothing, and the result is as short as diffing every line. Ignoring whitespace,
 * lines are compared with every space left out; an unchanged line shows the newer text. A missing
 * final newline is no change of its own.
 */
function lineDiff(older: string, newer: string, edits: number, whitespace: Whitespace): DiffLine[] | undefined {
	const before = splitLines(older)
	const after = splitLines(newer)
	const keyOf = lineKey(whitespace)
	const beforeKeys = before.map(keyOf)
	const afterKeys = after.map(keyOf)
	const inBefore = new Set(beforeKeys)
	const inAfter = new Set(afterKeys)
	const keptBefore = beforeKeys.flatMap((key, i) => (inAfter.has(key) ? [i] : []))
	const keptAfter = afterKeys.flatMap((key, i) => (inBefore.has(key) ? [i] : []))
	// Each line of one side only is an edit already: what is left bounds Myers' work.
	const left = edits - (before.length - keptBefore.length) - (after.length - keptAfter.length)
	if (left < 0) return undefined
	const changes = diffArrays(
		keptBefore.map((i) => beforeKeys[i] as string),
		keptAfter.map((i) => afterKeys[i] as string),
		{ maxEditLength: left }
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
 * TooLargeToCompare past the edits the comparison has left (docs/web.md).
 */
export function diffText(
	older: string,
	newer: string,
	allowance: DiffAllowance = newAllowance(),
	limits: DiffLimits = DIFF_LIMITS,
	whitespace: Whitespace = 'show'
): { lines: (DiffLine | Gap)[]; added: number; removed: number } {
	const all =
		older === newer
			? splitLines(older).map((text, i) => same(text, i, i))
			: lineDiff(older, newer, allowance.edits, whitespace)
	if (all === undefined) throw new TooLargeToCompare('edits')
	let added = 0
	let removed = 0
	for (const line of all) {
		if (line.kind === 'added') added++
		else if (line.kind === 'removed') removed++
	}
	allowance.edits -= added + removed
	markWords(all, allowance, limits, whitespace)
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
 * only lines up to wordMaxLineLength, at most wordMaxEditLength word edits each, and wordMaxChars
 * characters of pairs in the whole comparison; a pair past any of these is shown whole, unmarked.
 * Ignoring whitespace, changes of whitespace alone are not marked.
 */
function markWords(all: DiffLine[], allowance: DiffAllowance, limits: DiffLimits, whitespace: Whitespace) {
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
			allowance.wordChars -= before.text.length + after.text.length
			if (allowance.wordChars < 0) return
			const options = { maxEditLength: limits.wordMaxEditLength }
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
 * TooLargeToCompare past DIFF_LIMITS (docs/web.md: decided by size, so always the same answer).
 */
export function diffData(
	older: unknown,
	newer: unknown,
	limits: DiffLimits = DIFF_LIMITS,
	whitespace: Whitespace = 'show'
): FileDiff[] {
	// What it shows is bounded by these too: at most maxEdits changed rows and maxLines unchanged ones.
	return diffFiles(older, newer, newAllowance(limits), limits, whitespace)
}

function diffFiles(
	older: unknown,
	newer: unknown,
	allowance: DiffAllowance,
	limits: DiffLimits,
	whitespace: Whitespace
): FileDiff[] {
	const beforeBlocks = blocksOf(older)
	const afterBlocks = blocksOf(newer)
	for (const blocks of [beforeBlocks, afterBlocks])
		if (blocks.reduce((sum, block) => sum + lineCount(block.text), 0) > limits.maxLines)
			throw new TooLargeToCompare('lines')
	return pairsOf(older, newer, beforeBlocks, afterBlocks).map(({ path, before, after }) => {
		const { lines, added, removed } = diffText(before ?? '', after ?? '', allowance, limits, whitespace)
		const status =
			before === undefined ? 'added' : after === undefined ? 'removed' : added + removed === 0 ? 'unchanged' : 'changed'
		return {
			path,
			status,
			lines: before !== undefined && after !== undefined ? lines : lines.filter((line) => line.kind !== 'gap'),
			added,
			removed
		}
	})
}

/** One file as a comparison pairs it: its text in each version (undefined where that version has no such file). */
interface FilePair {
	path: string | null
	before: string | undefined
	after: string | undefined
}

/**
 * The texts a comparison diffs, file by file in the order it shows them (by path); a files config and one that
 * is not are compared as wholes (their JSON or string), under no path.
 */
function pairsOf(
	older: unknown,
	newer: unknown,
	beforeBlocks = blocksOf(older),
	afterBlocks = blocksOf(newer)
): FilePair[] {
	const before = new Map(beforeBlocks.map((block) => [block.path ?? '', block]))
	const after = new Map(afterBlocks.map((block) => [block.path ?? '', block]))
	const sameShape = (beforeBlocks[0]?.path === null) === (afterBlocks[0]?.path === null)
	if (!sameShape) {
		const whole = (data: unknown) => (typeof data === 'string' ? data : JSON.stringify(data, null, 2))
		return [{ path: null, before: whole(older), after: whole(newer) }]
	}
	const paths = [...new Set([...before.keys(), ...after.keys()])].sort()
	return paths.map((key) => {
		const a = before.get(key)
		const b = after.get(key)
		return { path: (a ?? b)?.path ?? null, before: a?.text, after: b?.text }
	})
}

/**
 * The most lines one folded run shows when opened: as many as a version may have, so every fold a comparison
 * shows opens in one request (docs/web.md).
 */
export const MAX_FOLD_LINES = DIFF_LIMITS.maxLines

/**
 * A folded run, as its address names it: the file (null: the whole data), its first and last line in the
 * newer version, and its first line in the older one.
 */
export interface FoldQuery {
	path: string | null
	start: number
	end: number
	old: number
}

/** A run that is not one to show: no such file, past either version's end, too long, or not the same in both. */
export class FoldRefused extends Error {}

/**
 * The lines of a folded run of unchanged lines (docs/web.md: fetched when the fold is opened), and the index
 * of its file among those the comparison shows. Nothing is diffed: each line must be the same in both versions
 * (compared as the comparison compares lines), so an address can show nothing but unchanged lines, and its cost
 * is the run's length. Throws FoldRefused for any other run.
 */
export function foldOf(
	older: unknown,
	newer: unknown,
	query: FoldQuery,
	whitespace: Whitespace
): { index: number; lines: DiffLine[] } {
	const pairs = pairsOf(older, newer)
	const index = pairs.findIndex((pair) => pair.path === query.path)
	const pair = pairs[index]
	if (pair?.before === undefined || pair.after === undefined)
		throw new FoldRefused('These versions do not both have that file.')
	const count = query.end - query.start + 1
	if (count < 1) throw new FoldRefused('The run ends before it starts.')
	if (count > MAX_FOLD_LINES)
		throw new FoldRefused(`A run shows at most ${MAX_FOLD_LINES.toLocaleString('en')} lines at once.`)
	const before = splitLines(pair.before)
	const after = splitLines(pair.after)
	if (query.end > after.length || query.old - 1 + count > before.length)
		throw new FoldRefused('Those lines are past the end of the file.')
	const keyOf = lineKey(whitespace)
	const lines: DiffLine[] = []
	for (let k = 0; k < count; k++) {
		const was = before[query.old - 1 + k] as string
		const is = after[query.start - 1 + k] as string
		if (keyOf(was) !== keyOf(is)) throw new FoldRefused('Those lines are not the same in both versions.')
		lines.push(same(is, query.old - 1 + k, query.start - 1 + k))
	}
	return { index, lines }
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
