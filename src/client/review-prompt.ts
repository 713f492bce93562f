import { safe } from './output'
import type { FileReview } from './sync/review'
import { shown } from './tools'

/**
 * How a review is put before the person (docs/sync-model.md, "the review hides
 * nothing"): the changes that run code or widen what a tool may do first,
 * file by file, then every other change; every change, each value whole. A
 * line longer than the width (a terminal's) wraps onto indented
 * continuation lines; it is never cut.
 */

export interface Asked {
	key: string
	deleted: boolean
	review: FileReview
}

const CODE_HEADING = 'Changes that run code or widen what the tool may do:'
const OTHER_HEADING = 'Other changes:'

export function reviewText(heading: string, asked: readonly Asked[], options: { width?: number } = {}): string[] {
	const out: string[] = []
	const add = (indent: string, line: string) => wrap(out, indent, safe(line), options.width)
	add('', heading)
	const section = (title: string, code: boolean) => {
		let titled = false
		for (const { key, deleted, review } of asked) {
			const lines = review.diff.filter((_, i) => review.code[i] === code)
			if (lines.length === 0) continue
			if (!titled) add('', title)
			titled = true
			add('  ', `${shown(key)}${deleted ? ' (deleted)' : ''}`)
			for (const line of lines) add('    ', line)
		}
	}
	section(CODE_HEADING, true)
	section(OTHER_HEADING, false)
	return out
}

/** Continuation lines are indented this much further than the line they continue. */
const CONTINUED = '      '

/** Pushes `indent + line`, split into pieces of at most `width` characters (no width: whole). Linear in the line. */
function wrap(out: string[], indent: string, line: string, width: number | undefined): void {
	const first = indent + line
	if (width === undefined || first.length <= width) {
		out.push(first)
		return
	}
	const room = Math.max(width - indent.length, 20)
	const more = Math.max(width - indent.length - CONTINUED.length, 20)
	out.push(indent + line.slice(0, room))
	for (let at = room; at < line.length; at += more) out.push(indent + CONTINUED + line.slice(at, at + more))
}
