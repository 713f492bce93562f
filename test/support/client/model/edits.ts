import { applyEdits, type JSONPath, modify, parse, type ParseError } from 'jsonc-parser'
import type { Random } from './random'

/**
 * What a person does to the files between commands, each change carrying a
 * unique token (`w17x`) so that the model can tell, after every step, where
 * every edit went. A token leaves the model's books only by the person's own
 * hand (a later edit of the same key, comment or line, a deleted file) or an
 * explicit choice (the side not picked for a clashing key or line, `discard`).
 */

export interface Birth {
	token: string
	step: number
	machine: string
	path: string
	what: string
	/**
	 * A key's value or a line is strict: it must stay on a machine or in a config's latest version
	 * until the person replaces it or picks the other side of a clash. A comment is formatting: a
	 * merge may drop it where comments collide, so it need only stay somewhere (any version, a backup).
	 */
	strict: boolean
}

export class Tokens {
	private counter = 0
	readonly born = new Map<string, Birth>()
	/** Tokens gone by the person's hand or an explicit choice, and how. */
	readonly excused = new Map<string, string>()

	make(step: number, machine: string, path: string, what: string): string {
		this.counter += 1
		const token = `w${this.counter}x`
		this.born.set(token, { token, step, machine, path, what, strict: what !== 'comment' })
		return token
	}

	excuse(tokens: Iterable<string>, why: string): void {
		for (const token of tokens) if (this.born.has(token) && !this.excused.has(token)) this.excused.set(token, why)
	}

	live(): Birth[] {
		return [...this.born.values()].filter((b) => !this.excused.has(b.token))
	}
}

export const tokensIn = (text: string | undefined): Set<string> => new Set(text?.match(/w[0-9]+x/g) ?? [])

export const minus = (a: Set<string>, b: Set<string>) => [...a].filter((t) => !b.has(t))

/** The value of JSON-with-comments text, undefined when it does not parse. */
export function parseJsonc(text: string): unknown {
	const errors: ParseError[] = []
	const value = parse(text, errors, { allowTrailingComma: true, disallowComments: false })
	return errors.length > 0 ? undefined : value
}

/** The keys a model edit may touch, per JSON file: top-level ones and some inside one object. */
export const KEYS: Record<string, JSONPath[]> = {
	'.gemini/settings.json': [['alpha'], ['beta'], ['gamma'], ['ui', 'size'], ['ui', 'mode'], ['ui', 'extra']],
	'.claude/settings.json': [['k1'], ['k2'], ['k3'], ['extra', 'a'], ['extra', 'b'], ['theme']]
}

function valueAt(value: unknown, path: JSONPath): unknown {
	let here = value
	for (const part of path) {
		if (typeof here !== 'object' || here === null) return undefined
		here = (here as Record<string, unknown>)[part as string]
	}
	return here
}

export interface Edited {
	text: string
	what: string
	/** The key set or removed (dotted), for a key edit. */
	key?: string
}

/** Sets (or, sometimes, removes) one key, keeping the rest of the text as it is. */
export function editKey(
	text: string,
	path: string,
	random: Random,
	token: () => string,
	tabSize = 2
): Edited | undefined {
	const FORMAT = { formattingOptions: { insertSpaces: true, tabSize, eol: '\n' } }
	const value = parseJsonc(text)
	if (value === undefined) return undefined
	const key = random.pick(KEYS[path] ?? [])
	const present = valueAt(value, key) !== undefined
	const name = key.join('.')
	if (present && random.chance(0.15)) {
		return { text: applyEdits(text, modify(text, key, undefined, FORMAT)), what: `remove key ${name}`, key: name }
	}
	const t = token()
	// A new key goes where the person puts it: often last, sometimes among the others, so that two machines
	// adding keys put them in different orders (a merge must still end in one order on both).
	const at = present || random.chance(0.5) ? undefined : random.int(0, 8)
	const options =
		at === undefined ? FORMAT : { ...FORMAT, getInsertionIndex: (keys: string[]) => Math.min(at, keys.length) }
	return {
		text: applyEdits(text, modify(text, key, t, options)),
		what: `set key ${name} = ${t}${at === undefined ? '' : ` (new, at place ${at})`}`,
		key: name
	}
}

const COMMENT = /^(\s*)\/\/ note (w[0-9]+x)\s*$/

/** Adds, changes or removes a `// note wNx` comment line: formatting, never a key. */
export function editComment(text: string, random: Random, token: () => string): Edited | undefined {
	if (parseJsonc(text) === undefined) return undefined
	const lines = text.split('\n')
	const comments = lines.map((line, i) => (COMMENT.test(line) ? i : -1)).filter((i) => i >= 0)
	const keyLines = lines.map((line, i) => (/^\s+"/.test(line) ? i : -1)).filter((i) => i >= 0)
	const kind = random.weighted({
		add: comments.length < 4 ? 3 : 0,
		change: comments.length > 0 ? 3 : 0,
		remove: comments.length > 1 ? 1 : 0
	})
	if (kind === 'add') {
		if (keyLines.length === 0) return undefined
		const at = random.pick(keyLines)
		const indent = (lines[at] as string).match(/^\s*/)?.[0] ?? '  '
		const t = token()
		lines.splice(at, 0, `${indent}// note ${t}`)
		return { text: lines.join('\n'), what: `add comment ${t} above line ${at + 1}` }
	}
	const at = random.pick(comments)
	if (kind === 'remove') {
		const old = lines[at]
		lines.splice(at, 1)
		return { text: lines.join('\n'), what: `remove comment line ${at + 1} (${old?.trim()})` }
	}
	const t = token()
	lines[at] = (lines[at] as string).replace(COMMENT, `$1// note ${t}`)
	return { text: lines.join('\n'), what: `change comment on line ${at + 1} to ${t}` }
}

/** Replaces, inserts or deletes one line of a Markdown file (its heading, line 1, stays). */
export function editLine(text: string, random: Random, token: () => string): Edited {
	const ends = text.endsWith('\n')
	const lines = (ends ? text.slice(0, -1) : text).split('\n')
	const body = lines.length - 1
	const kind = random.weighted({ replace: body > 0 ? 4 : 0, insert: body < 12 ? 3 : 1, remove: body > 4 ? 2 : 0 })
	let what: string
	if (kind === 'insert') {
		const at = random.int(1, lines.length)
		const t = token()
		lines.splice(at, 0, `- ${t}`)
		what = `insert line ${at + 1}: ${t}`
	} else if (kind === 'replace') {
		const at = random.int(1, body)
		const t = token()
		what = `replace line ${at + 1} (${lines[at]}) with ${t}`
		lines[at] = `- ${t}`
	} else {
		const at = random.int(1, body)
		what = `remove line ${at + 1} (${lines[at]})`
		lines.splice(at, 1)
	}
	return { text: `${lines.join('\n')}${ends ? '\n' : ''}`, what }
}

/** Lines indented by something other than whole units of `unit` spaces (a file laid out in 4 spaces that got 2). */
export const offIndent = (text: string, unit: number): string[] =>
	text.split('\n').filter((line) => {
		const lead = /^[ \t]*/.exec(line)?.[0] ?? ''
		return lead.includes('\t') || lead.length % unit !== 0
	})

/** The text with each line's indentation of `unit` spaces a level written as 2 spaces a level: formatting aside. */
export const inTwoSpaces = (text: string, unit: number): string =>
	text.replace(/^ +/gm, (lead) => ' '.repeat((lead.length / unit) * 2))
