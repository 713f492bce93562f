import { parse as parseToml } from 'smol-toml'
import { isJsonKey, jsonSyntaxError } from './json'
import { conflictMarkerLine, MARK_MINE, MARK_SPLIT, splitLines } from './text-merge'

/**
 * Does a file parse as its format? A push never sends a settings file its
 * tool could not read (docs/sync-model.md, "What a config holds"): the tools'
 * descriptors (src/client/tools/) keep their settings and MCP servers in JSON
 * (`.json`, with comments where VS Code and Gemini CLI allow them) or TOML
 * (Codex's `config.toml`), and a file's name says which. Other text (Markdown,
 * rules) has no syntax to check.
 */

export interface FileSyntaxError {
	format: 'JSON' | 'TOML'
	line: number
	column?: number
	problem: string
}

const isTomlKey = (key: string) => /\.toml$/i.test(key)

/** The first syntax error of a file of a checked format; undefined when it parses or has no format to check. */
export function syntaxError(key: string, content: string): FileSyntaxError | undefined {
	if (isJsonKey(key)) {
		const error = jsonSyntaxError(content)
		return error && { format: 'JSON', ...error }
	}
	if (!isTomlKey(key)) return undefined
	try {
		parseToml(content.replace(/^\uFEFF/, ''))
		return undefined
	} catch (error) {
		// smol-toml's message quotes the file's lines after its first one: only that first line is kept.
		const { line, column, message } = error as { line?: number; column?: number; message?: string }
		const problem = (message ?? 'it does not parse').split('\n')[0]?.replace(/^Invalid TOML document:\s*/, '')
		return { format: 'TOML', line: line ?? 1, column, problem: problem || 'it does not parse' }
	}
}

/** `line 3, column 5: a comma is missing` */
export const whereText = (error: FileSyntaxError): string =>
	`line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`}: ${error.problem}`

/**
 * Why a file must not be sent while it holds any conflict-marker line `resolve
 * --edit` wrote (docs/sync-model.md): every other machine would get them, and
 * removing only some of them (the `<<<<<<<` line) leaves both sides' text.
 * The opening and closing lines say who wrote them (`this machine`, `server`);
 * a `=======` line alone may be a Markdown heading's underline, so it counts
 * only beyond `plainSplits`, the number of such lines the file had when the
 * markers were written (undefined: no markers were written into it).
 * Undefined when it holds none.
 */
export function markersLeft(content: string, plainSplits?: number): string | undefined {
	let line = conflictMarkerLine(content)
	if (line === undefined) {
		let splits = 0
		let n = 0
		for (const raw of splitLines(content)) {
			n++
			const text = raw.replace(/\r?\n$/, '')
			if (text === MARK_MINE || /^>{7} server(?: \(version \d+\))?$/.test(text)) {
				line = n
				break
			}
			if (text === MARK_SPLIT && plainSplits !== undefined && ++splits > plainSplits) {
				line = n
				break
			}
		}
	}
	if (line === undefined) return undefined
	return `still marked with conflict markers (the first at line ${line}, from cfgsync resolve --edit): keep the lines you want between <<<<<<< and >>>>>>>, delete the marker lines`
}

/** How many `=======` lines of a file `resolve --edit` marked are not its markers (a heading's underline). */
export function plainSplitsOf(marked: string): number {
	let splits = 0
	let opened = 0
	for (const raw of splitLines(marked)) {
		const text = raw.replace(/\r?\n$/, '')
		if (text === MARK_SPLIT) splits++
		else if (text === MARK_MINE) opened++
	}
	return Math.max(0, splits - opened)
}
