import { onlyFiles } from '../../shared/config-files'
import { diffLines } from 'diff'

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

export interface DiffLine {
	kind: LineKind
	text: string
	/** Line number in the older text (removed and same lines). */
	from?: number
	/** Line number in the newer text (added and same lines). */
	to?: number
}

/** Unchanged lines left out between two changes: shown as one "N unchanged lines" row. */
export interface Gap {
	kind: 'gap'
	count: number
}

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
	maxShown: 10_000
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

/**
 * Line diff of two texts, with runs of unchanged lines beyond CONTEXT folded into gaps; throws
 * TooLargeToCompare when the budget runs out first (docs/web.md).
 */
export function diffText(
	older: string,
	newer: string,
	budget: DiffBudget = newBudget(),
	limits = DIFF_LIMITS
): { lines: (DiffLine | Gap)[]; added: number; removed: number } {
	const all: DiffLine[] = []
	let from = 1
	let to = 1
	let added = 0
	let removed = 0
	// Each text ends with a newline for the diff, so a missing final newline is no change of its own.
	// (An empty text stays empty: it has no lines at all.)
	const terminated = (text: string) => (text === '' || text.endsWith('\n') ? text : `${text}\n`)
	const remaining = budget.deadline - budget.now()
	if (remaining <= 0) throw new TooLargeToCompare('time')
	const changes =
		older === newer
			? [{ value: older, added: false, removed: false, count: 0 }]
			: diffLines(terminated(older), terminated(newer), { timeout: remaining, maxEditLength: limits.maxEditLength })
	if (changes === undefined) throw new TooLargeToCompare(budget.now() > budget.deadline ? 'time' : 'edits')
	for (const change of changes) {
		for (const text of splitLines(change.value)) {
			if (change.added) {
				all.push({ kind: 'added', text, to: to++ })
				added++
			} else if (change.removed) {
				all.push({ kind: 'removed', text, from: from++ })
				removed++
			} else all.push({ kind: 'same', text, from: from++, to: to++ })
		}
	}
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
		if (last?.kind === 'gap') last.count++
		else lines.push({ kind: 'gap', count: 1 })
	}
	return { lines, added, removed }
}

/**
 * The difference between two versions' data, file by file for `{"files": …}` configs; throws
 * TooLargeToCompare past DIFF_LIMITS (docs/web.md: a comparison's cost is bounded).
 */
export function diffData(
	older: unknown,
	newer: unknown,
	budget: DiffBudget = newBudget(),
	limits = DIFF_LIMITS
): FileDiff[] {
	const files = diffFiles(older, newer, budget, limits)
	const shown = files.reduce((sum, file) => sum + file.lines.filter((line) => line.kind !== 'gap').length, 0)
	if (shown > limits.maxShown) throw new TooLargeToCompare('shown')
	return files
}

function diffFiles(older: unknown, newer: unknown, budget: DiffBudget, limits: typeof DIFF_LIMITS): FileDiff[] {
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
		const { lines, added, removed } = diffText(whole(older), whole(newer), budget, limits)
		return [{ path: null, status: added + removed === 0 ? 'unchanged' : 'changed', lines, added, removed }]
	}
	const paths = [...new Set([...before.keys(), ...after.keys()])].sort()
	return paths.map((key) => {
		const a = before.get(key)
		const b = after.get(key)
		const path = (a ?? b)?.path ?? null
		const { lines, added, removed } = diffText(a?.text ?? '', b?.text ?? '', budget, limits)
		const status = !a ? 'added' : !b ? 'removed' : added + removed === 0 ? 'unchanged' : 'changed'
		return { path, status, lines: a && b ? lines : lines.filter((line) => line.kind !== 'gap'), added, removed }
	})
}

export interface SideBySideRow {
	left?: DiffLine
	right?: DiffLine
	gap?: number
}

/** Unified lines paired for a two-column view: removed lines beside the added lines that replace them. */
export function sideBySide(lines: (DiffLine | Gap)[]): SideBySideRow[] {
	const rows: SideBySideRow[] = []
	let i = 0
	while (i < lines.length) {
		const line = lines[i] as DiffLine | Gap
		if (line.kind === 'gap') {
			rows.push({ gap: line.count })
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
