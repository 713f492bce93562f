/**
 * The line-by-line merge of text files (docs/sync-model.md, "Text files"):
 * Markdown, TOML, commands and rules are merged against the base the way
 * diff3 does, so changes in different places of a file merge and only
 * overlapping (or touching) ones conflict. Lines keep their own line
 * endings, so a merge gives every untouched line back byte for byte.
 */

import { diffArrays } from 'diff'

/** A run of lines both sides agree on, or a clash: this machine's lines and the server's for one place. */
export type Region = { ok: string[] } | { mine: string[]; theirs: string[] }

/** The lines of a text, each with its line ending: joined, they give the text back byte for byte. */
export function splitLines(text: string): string[] {
	const lines: string[] = []
	let start = 0
	for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
		lines.push(text.slice(start, end + 1))
		start = end + 1
	}
	if (start < text.length) lines.push(text.slice(start))
	return lines
}

/**
 * Bounds on a diff. Content may come from the server, and nothing run on it
 * may take long or take much memory (docs/client.md): once the lines common to
 * the start and the end are set aside, what is left of the two versions may
 * be at most about 2,000 × 2,000 lines (MAX_CELLS, their product), and they
 * may differ by at most MAX_EDITS lines added and removed. Past either, a
 * file is not merged line by line and stays a whole-file conflict.
 * (node-diff3's own LCS took minutes on 4,000 lines of repeated content, so
 * it is not used.)
 */
const MAX_CELLS = 4_000_000
const MAX_EDITS = 2_000

/** `o[oStart, oEnd)` became `x[start, end)`. */
export interface Hunk {
	oStart: number
	oEnd: number
	start: number
	end: number
}

/**
 * Where `x` differs from `o`, as hunks in order: jsdiff's `diffArrays` (a
 * Myers diff) over what is left between the common start and end. Undefined
 * when that is too large; `equal` compares two items.
 */
export function diffHunks<T>(o: T[], x: T[], equal: (a: T, b: T) => boolean = (a, b) => a === b): Hunk[] | undefined {
	let prefix = 0
	while (prefix < o.length && prefix < x.length && equal(o[prefix] as T, x[prefix] as T)) prefix++
	let suffix = 0
	while (
		suffix < o.length - prefix &&
		suffix < x.length - prefix &&
		equal(o[o.length - 1 - suffix] as T, x[x.length - 1 - suffix] as T)
	)
		suffix++
	const n = o.length - prefix - suffix
	const m = x.length - prefix - suffix
	if (n === 0 && m === 0) return []
	if (n === 0 || m === 0) return [{ oStart: prefix, oEnd: prefix + n, start: prefix, end: prefix + m }]
	if ((n + 1) * (m + 1) > MAX_CELLS) return undefined
	const changes = diffArrays(o.slice(prefix, prefix + n), x.slice(prefix, prefix + m), {
		comparator: equal,
		maxEditLength: MAX_EDITS
	})
	if (changes === undefined) return undefined
	const hunks: Hunk[] = []
	let open: Hunk | undefined
	let [i, j] = [prefix, prefix]
	for (const change of changes) {
		const count = change.value.length
		if (!change.added && !change.removed) {
			if (open) hunks.push(open)
			open = undefined
			i += count
			j += count
			continue
		}
		open ??= { oStart: i, oEnd: i, start: j, end: j }
		if (change.removed) {
			i += count
			open.oEnd = i
		} else {
			j += count
			open.end = j
		}
	}
	if (open) hunks.push(open)
	return hunks
}

/** Joins neighbouring agreed runs; drops empty ones. */
function tidy(regions: Region[]): Region[] {
	const out: Region[] = []
	for (const region of regions) {
		if ('ok' in region) {
			if (region.ok.length === 0) continue
			const last = out[out.length - 1]
			if (last && 'ok' in last) last.ok.push(...region.ok)
			else out.push({ ok: [...region.ok] })
		} else out.push(region)
	}
	return out
}

/**
 * Where two versions of the same place differ, line by line (git's "zealous"
 * merge): the lines they share stay outside the clash, so a conflict names
 * (and marks) only the lines that really differ. Undefined when too large.
 */
export function twoWay(mine: string[], theirs: string[]): Region[] | undefined {
	const hunks = diffHunks(mine, theirs)
	if (hunks === undefined) return undefined
	const regions: Region[] = []
	let at = 0
	for (const h of hunks) {
		regions.push(
			{ ok: mine.slice(at, h.oStart) },
			{ mine: mine.slice(h.oStart, h.oEnd), theirs: theirs.slice(h.start, h.end) }
		)
		at = h.oEnd
	}
	regions.push({ ok: mine.slice(at) })
	return tidy(regions)
}

const sameLines = (a: string[], b: string[]) => a.length === b.length && a.every((line, i) => line === b[i])

/**
 * diff3 of three texts: changes made on one side only are taken, the same
 * change on both sides is taken once, and changes of both sides to the same
 * or touching lines are clashes (refined to the lines that differ).
 * Undefined when the files are too large to diff.
 */
export function mergeLines(base: string, local: string, remote: string): Region[] | undefined {
	const [o, a, b] = [splitLines(base), splitLines(local), splitLines(remote)]
	const [ha, hb] = [diffHunks(o, a), diffHunks(o, b)]
	if (ha === undefined || hb === undefined) return undefined
	const hunks = [...ha.map((h) => ({ ...h, side: a })), ...hb.map((h) => ({ ...h, side: b }))].sort(
		(x, y) => x.oStart - y.oStart || x.oEnd - y.oEnd
	)
	const regions: Region[] = []
	let at = 0
	for (let k = 0; k < hunks.length; ) {
		// One region: the hunks that overlap or touch, on either side.
		const first = hunks[k] as (typeof hunks)[number]
		const start = first.oStart
		let end = first.oEnd
		const group = [first]
		for (k++; k < hunks.length && (hunks[k] as (typeof hunks)[number]).oStart <= end; k++) {
			const h = hunks[k] as (typeof hunks)[number]
			group.push(h)
			end = Math.max(end, h.oEnd)
		}
		regions.push({ ok: o.slice(at, start) })
		at = end
		// Each side's lines for o[start, end): its hunks there, and around them what it kept of o.
		const lines = (side: string[]) => {
			const own = group.filter((h) => h.side === side)
			const head = own[0]
			const tail = own[own.length - 1]
			if (head === undefined || tail === undefined) return undefined
			return side.slice(head.start - (head.oStart - start), tail.end + (end - tail.oEnd))
		}
		const [mine, theirs] = [lines(a), lines(b)]
		if (mine === undefined) regions.push({ ok: theirs ?? [] })
		else if (theirs === undefined || sameLines(mine, theirs)) regions.push({ ok: mine })
		else {
			const refined = twoWay(mine, theirs)
			if (refined === undefined) return undefined
			regions.push(...refined)
		}
	}
	regions.push({ ok: o.slice(at) })
	return tidy(regions)
}

/** The text with every clash taken from one side. */
export function pick(regions: Region[], side: 'mine' | 'theirs'): string {
	return regions.map((region) => ('ok' in region ? region.ok : region[side]).join('')).join('')
}

export const hasClash = (regions: Region[]): boolean => regions.some((region) => !('ok' in region))

/** The clashes as this machine's file numbers its lines: `lines 3–5`, `line 7`, `after line 9` (lines only the server has there). */
export function clashedLines(regions: Region[]): string[] {
	const names: string[] = []
	let line = 0
	for (const region of regions) {
		if ('ok' in region) {
			line += region.ok.length
			continue
		}
		const count = region.mine.length
		if (count === 0) names.push(line === 0 ? 'before line 1' : `after line ${line}`)
		else if (count === 1) names.push(`line ${line + 1}`)
		else names.push(`lines ${line + 1}–${line + count}`)
		line += count
	}
	return names
}

export const MARK_MINE = '<<<<<<< this machine'
export const MARK_SPLIT = '======='
export const markTheirs = (version: number | undefined): string =>
	version === undefined ? '>>>>>>> server' : `>>>>>>> server (version ${version})`

/**
 * The file with git-style conflict markers around each clash, for the person
 * to edit (`resolve --edit`): this machine's lines, then the server's. A side
 * whose last line has no line ending gets one, so each marker has its own line.
 */
export function withMarkers(regions: Region[], version: number | undefined): string {
	const all = regions.flatMap((region) => ('ok' in region ? region.ok : [...region.mine, ...region.theirs]))
	const eol = all.some((line) => line.endsWith('\r\n')) ? '\r\n' : '\n'
	const lines = (list: string[]) => {
		const text = list.join('')
		return text === '' || text.endsWith('\n') ? text : `${text}${eol}`
	}
	return regions
		.map((region) =>
			'ok' in region
				? region.ok.join('')
				: `${MARK_MINE}${eol}${lines(region.mine)}${MARK_SPLIT}${eol}${lines(region.theirs)}${markTheirs(version)}${eol}`
		)
		.join('')
}

/**
 * The line (from 1) of the first conflict left by `resolve --edit` — a
 * `<<<<<<<` line followed by a `=======` line and a `>>>>>>>` line — or
 * undefined when there is none. One pass over the lines.
 */
export function conflictMarkerLine(text: string): number | undefined {
	let opened: number | undefined
	let split = false
	let line = 0
	for (const raw of splitLines(text)) {
		line++
		const content = raw.replace(/\r?\n$/, '')
		if (/^<{7}(?: |$)/.test(content)) {
			if (opened === undefined) opened = line
			split = false
		} else if (opened !== undefined && content === MARK_SPLIT) split = true
		else if (opened !== undefined && split && /^>{7}(?: |$)/.test(content)) return opened
	}
	return undefined
}
