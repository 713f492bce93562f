import { diff3Merge, diffIndices } from 'node-diff3'

/**
 * The line-by-line merge of text files (docs/sync-model.md, "Text files"):
 * Markdown, TOML, commands and rules are merged against the base with diff3,
 * so changes in different places of a file merge and only overlapping ones
 * conflict. Lines keep their own line endings, so a merge gives every
 * untouched line back byte for byte.
 */

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
 * The diff's cost grows with the product of the lines that differ (after the
 * lines common to the start and the end are set aside). Content may come from
 * the server, and nothing run on it may take long (docs/client.md): past this
 * many, a file is not merged line by line and stays a whole-file conflict.
 */
const MAX_PRODUCT = 16_000_000

const commonPrefix = (lists: string[][]): number => {
	const shortest = Math.min(...lists.map((list) => list.length))
	let n = 0
	while (n < shortest && lists.every((list) => list[n] === (lists[0] as string[])[n])) n++
	return n
}

const commonSuffix = (lists: string[][], prefix: number): number => {
	const room = Math.min(...lists.map((list) => list.length)) - prefix
	let n = 0
	const at = (list: string[], i: number) => list[list.length - 1 - i]
	while (n < room && lists.every((list) => at(list, n) === at(lists[0] as string[], n))) n++
	return n
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
	const prefix = commonPrefix([mine, theirs])
	const suffix = commonSuffix([mine, theirs], prefix)
	const a = mine.slice(prefix, mine.length - suffix)
	const b = theirs.slice(prefix, theirs.length - suffix)
	if (a.length * b.length > MAX_PRODUCT) return undefined
	const regions: Region[] = [{ ok: mine.slice(0, prefix) }]
	let i = 0
	for (const chunk of diffIndices(a, b)) {
		const [aStart, aLength] = chunk.buffer1
		const [bStart, bLength] = chunk.buffer2
		regions.push({ ok: a.slice(i, aStart) })
		regions.push({ mine: a.slice(aStart, aStart + aLength), theirs: b.slice(bStart, bStart + bLength) })
		i = aStart + aLength
	}
	regions.push({ ok: a.slice(i) }, { ok: mine.slice(mine.length - suffix) })
	return tidy(regions)
}

/**
 * diff3 of three texts: changes made on one side only are taken, the same
 * change on both sides is taken once, and changes of both sides to the same
 * lines are clashes. Undefined when the files are too large to diff.
 */
export function mergeLines(base: string, local: string, remote: string): Region[] | undefined {
	const [o, a, b] = [splitLines(base), splitLines(local), splitLines(remote)]
	const prefix = commonPrefix([o, a, b])
	const suffix = commonSuffix([o, a, b], prefix)
	const middle = (lines: string[]) => lines.slice(prefix, lines.length - suffix)
	const [mo, ma, mb] = [middle(o), middle(a), middle(b)]
	if (mo.length * Math.max(ma.length, mb.length, 1) > MAX_PRODUCT) return undefined
	const regions: Region[] = [{ ok: a.slice(0, prefix) }]
	for (const region of diff3Merge(ma, mo, mb, { excludeFalseConflicts: true })) {
		if (region.ok) regions.push({ ok: region.ok })
		else if (region.conflict) {
			const refined = twoWay(region.conflict.a, region.conflict.b)
			if (refined === undefined) return undefined
			regions.push(...refined)
		}
	}
	regions.push({ ok: a.slice(a.length - suffix) })
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
