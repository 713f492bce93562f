// Over 500 lines: the JSON(C) three-way merge is one piece (parse, merge by key, carry the comments over, write back
// only the edits), and its helpers share the parse tree and serve nothing else.
// jsonc-parser's package.json points bundlers that target Node at its UMD build, whose
// require() calls a bundle cannot follow; its ES module build bundles cleanly.
import {
	applyEdits,
	createScanner,
	findNodeAtLocation,
	format,
	getNodePath,
	modify,
	parseTree,
	printParseErrorCode,
	type FormattingOptions,
	type JSONPath,
	type Node,
	type ParseError
} from 'jsonc-parser/lib/esm/main.js'
import { diffHunks } from './text-merge'
import { eolOf, hasBom, stripBom } from './text'

/**
 * The three-way JSON merge (docs/sync-model.md): settings, keybindings and MCP
 * files are merged key by key against the base, the way VS Code's
 * settingsMerge does, and the result is written into the local text with
 * jsonc-parser's edits so its comments and formatting stay.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

/** A value absent on one side (a key that was deleted or never there). */
export const MISSING: unique symbol = Symbol('missing')
export type Slot = Json | typeof MISSING

/**
 * Files merged as JSON (with comments and trailing commas, as VS Code writes
 * them), and one member of a JSON file synced on its own
 * (`.claude.json#mcpServers`: only that key of ~/.claude.json).
 */
export const isJsonKey = (key: string): boolean => /\.jsonc?(#[A-Za-z0-9_]+)?$/i.test(key)

const PARSE_OPTIONS = { disallowComments: false, allowTrailingComma: true, allowEmptyContent: false }

/**
 * How deep a JSON file may nest. jsonc-parser, and the merge after it,
 * recurse once per level: a file nested ten thousand levels deep (no tool
 * writes one; a hostile server could) would overflow the stack. Deeper files
 * are refused as not valid, with this reason, before anything recurses.
 */
export const MAX_DEPTH = 2048

/** The offset where `text` first nests deeper than MAX_DEPTH, or undefined. One pass of the scanner, no recursion. */
function tooDeepAt(text: string): number | undefined {
	const scanner = createScanner(text, true)
	let depth = 0
	// 1/3 = { and [, 2/4 = } and ], 17 = end of file (const enums, not importable here)
	for (let token = scanner.scan(); token !== 17; token = scanner.scan()) {
		if (token === 1 || token === 3) {
			if (++depth > MAX_DEPTH) return scanner.getTokenOffset()
		} else if (token === 2 || token === 4) depth--
	}
	return undefined
}

/** The parsed tree of JSON-with-comments text, or undefined when it is not valid (or nests too deeply). */
function treeOf(text: string): Node | undefined {
	if (tooDeepAt(text) !== undefined) return undefined
	const errors: ParseError[] = []
	const tree = parseTree(text, errors, PARSE_OPTIONS)
	return errors.length > 0 ? undefined : tree
}

/** The value of JSON-with-comments text, or undefined when it is not valid. `__proto__` keys are ordinary keys. */
export function parseJsonc(text: string): { value: Json } | undefined {
	const tree = treeOf(stripBom(text))
	return tree === undefined ? undefined : { value: nodeValue(tree) }
}

/** Parse errors in words a person can act on (jsonc-parser's codes by name). */
const PROBLEMS: Record<string, string> = {
	InvalidSymbol: 'an unexpected character',
	InvalidNumberFormat: 'a number is not written right',
	PropertyNameExpected: 'a key (in double quotes) is missing',
	ValueExpected: 'a value is missing',
	ColonExpected: 'a colon is missing',
	CommaExpected: 'a comma is missing',
	CloseBraceExpected: 'a closing } is missing',
	CloseBracketExpected: 'a closing ] is missing',
	EndOfFileExpected: 'there is more after the end of the value',
	InvalidCommentToken: 'a comment is not written right',
	UnexpectedEndOfComment: 'a comment is not closed',
	UnexpectedEndOfString: 'a string is not closed',
	UnexpectedEndOfNumber: 'a number is cut short',
	InvalidUnicode: 'a \\u escape is not written right',
	InvalidEscapeCharacter: 'a backslash escape is not written right',
	InvalidCharacter: 'a string holds a character it may not (a tab or a line break)'
}

/** Line and column (from 1) of an offset in `text`. */
export function lineAndColumn(text: string, offset: number): { line: number; column: number } {
	let line = 1
	let start = 0
	for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
		line++
		start = i + 1
	}
	return { line, column: offset - start + 1 }
}

/**
 * Where JSON-with-comments text stops parsing, and why; undefined when it
 * parses. Comments and trailing commas are allowed (VS Code and Gemini CLI
 * write them, and the merge reads them); an empty file is not a value.
 */
export function jsonSyntaxError(text: string): { line: number; column: number; problem: string } | undefined {
	const body = stripBom(text)
	const deep = tooDeepAt(body)
	if (deep !== undefined)
		return {
			...lineAndColumn(body, deep),
			problem: `it nests more than ${MAX_DEPTH.toLocaleString('en')} levels deep`
		}
	const errors: ParseError[] = []
	parseTree(body, errors, PARSE_OPTIONS)
	const first = errors[0]
	if (first === undefined) return undefined
	if (body.trim() === '') return { line: 1, column: 1, problem: 'the file is empty' }
	const name = printParseErrorCode(first.error)
	return { ...lineAndColumn(body, first.offset), problem: PROBLEMS[name] ?? name }
}

function nodeValue(node: Node): Json {
	switch (node.type) {
		case 'object': {
			const out: JsonObject = {}
			for (const property of node.children ?? []) {
				const [name, value] = property.children ?? []
				if (name === undefined || value === undefined) continue
				define(out, name.value as string, nodeValue(value))
			}
			return out
		}
		case 'array':
			return (node.children ?? []).map(nodeValue)
		default:
			return node.value as Json
	}
}

/** Sets an own property, even one named `__proto__`. */
function define(target: JsonObject, key: string, value: Json): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}

export const isObject = (value: Slot | undefined): value is JsonObject =>
	typeof value === 'object' && value !== null && !Array.isArray(value)

const own = (object: JsonObject, key: string): Slot => (Object.hasOwn(object, key) ? (object[key] as Json) : MISSING)

/** Deep equality of JSON values; object key order does not count, array order does. */
export function same(a: Slot, b: Slot): boolean {
	if (a === b) return true
	if (a === MISSING || b === MISSING || a === null || b === null || typeof a !== 'object' || typeof b !== 'object')
		return false
	if (Array.isArray(a) || Array.isArray(b)) {
		if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
		return a.every((item, i) => same(item, b[i] as Json))
	}
	const keys = Object.keys(a)
	if (keys.length !== Object.keys(b).length) return false
	return keys.every((key) => same(own(a, key), own(b, key)))
}

/** JSON text with object keys sorted: one identity for a value, whatever its key order. */
export function stableJson(value: Json): string {
	if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`
	if (isObject(value)) {
		return `{${Object.keys(value)
			.sort()
			.map((key) => `${JSON.stringify(key)}:${stableJson(value[key] as Json)}`)
			.join(',')}}`
	}
	return JSON.stringify(value)
}

/** A JSON path as people read it: `hooks.PreToolUse[0].command`, quoting keys that are not plain words. */
export function pathText(path: JSONPath): string {
	let out = ''
	for (const part of path) {
		if (typeof part === 'number') out += `[${part}]`
		else if (/^[A-Za-z_$][\w$-]*$/.test(part)) out += out === '' ? part : `.${part}`
		else out += `[${JSON.stringify(part)}]`
	}
	return out === '' ? '(the whole file)' : out
}

export type Prefer = 'local' | 'remote'

/**
 * Three-way merge of values: a side that did not change takes the other
 * side's change; objects are merged key by key (recursively); a root array
 * (keybindings.json) is merged as a set of entries. Anything else changed on
 * both sides differently is a conflict at that path, settled by `prefer`
 * when given, else left at the local value and reported.
 */
export function merge3(base: Slot, local: Slot, remote: Slot, prefer?: Prefer): { value: Slot; conflicts: JSONPath[] } {
	const conflicts: JSONPath[] = []
	const value = mergeAt(base, local, remote, [], conflicts, prefer)
	return { value, conflicts }
}

function mergeAt(base: Slot, local: Slot, remote: Slot, path: JSONPath, conflicts: JSONPath[], prefer?: Prefer): Slot {
	if (same(local, remote)) return local
	if (same(base, local)) return remote
	if (same(base, remote)) return local
	if (isObject(local) && isObject(remote) && (base === MISSING || isObject(base))) {
		const from = isObject(base) ? base : {}
		const out: JsonObject = {}
		const keys = mergedOrder(Object.keys(local), Object.keys(remote))
		for (const key of keys) {
			const merged = mergeAt(own(from, key), own(local, key), own(remote, key), [...path, key], conflicts, prefer)
			if (merged !== MISSING) define(out, key, merged)
		}
		return out
	}
	if (path.length === 0 && Array.isArray(base) && Array.isArray(local) && Array.isArray(remote))
		return mergeEntries(base, local, remote)
	if (prefer === 'remote') return remote
	if (prefer !== 'local') conflicts.push(path)
	return local
}

/**
 * The order of a merged object's keys (docs/sync-model.md, "A sync that
 * nobody needed changes nothing"): the server's order, and each key only this
 * machine has right after the key it follows here (first when it leads). So
 * two machines that merge the same content write the same order, and a merge
 * never reads as a change of its own on the next run.
 */
export function mergedOrder(local: string[], remote: string[]): string[] {
	const inRemote = new Set(remote)
	const leading: string[] = []
	const following = new Map<string, string[]>()
	let after: string | undefined
	for (const key of local) {
		if (inRemote.has(key)) after = key
		else if (after === undefined) leading.push(key)
		else {
			const list = following.get(after) ?? []
			list.push(key)
			following.set(after, list)
		}
	}
	return [...leading, ...remote.flatMap((key) => [key, ...(following.get(key) ?? [])])]
}

/**
 * keybindings.json: entries removed on the server are removed here; the rest
 * in the server's order, an entry only this side added right after the one
 * it follows here, so an entry the server added stays where it put it
 * (docs/sync-model.md). An entry edited on both sides ends up twice rather
 * than lost.
 */
function mergeEntries(base: Json[], local: Json[], remote: Json[]): Json[] {
	const ids = (list: Json[]) => new Set(list.map(stableJson))
	const [inBase, inLocal, inRemote] = [ids(base), ids(local), ids(remote)]
	const kept = local.filter((entry) => {
		const id = stableJson(entry)
		return !(inBase.has(id) && !inRemote.has(id))
	})
	const added = remote.filter((entry) => {
		const id = stableJson(entry)
		return !inBase.has(id) && !inLocal.has(id)
	})
	// One order, as for an object's keys (mergedOrder): the server's, each entry only this side has after the
	// one it follows here; entries written twice keep the old way (this side's order, the server's additions last).
	const keptIds = kept.map(stableJson)
	const remoteIds = remote
		.filter((entry) => !(inBase.has(stableJson(entry)) && !inLocal.has(stableJson(entry))))
		.map(stableJson)
	if (new Set(keptIds).size !== keptIds.length || new Set(remoteIds).size !== remoteIds.length)
		return [...kept, ...added]
	const byId = new Map([...kept, ...remote].map((entry) => [stableJson(entry), entry]))
	return mergedOrder(keptIds, remoteIds).map((id) => byId.get(id) as Json)
}

interface Comment {
	text: string
	offset: number
	length: number
}

/** The comments of a JSONC text without its BOM, in order. */
function commentsIn(body: string): Comment[] {
	const scanner = createScanner(body, false)
	const comments: Comment[] = []
	for (let token = scanner.scan(); token !== 17; token = scanner.scan()) {
		// 12 = LineCommentTrivia, 13 = BlockCommentTrivia (const enums, not importable here)
		if (token === 12 || token === 13)
			comments.push({
				text: body.substr(scanner.getTokenOffset(), scanner.getTokenLength()),
				offset: scanner.getTokenOffset(),
				length: scanner.getTokenLength()
			})
	}
	return comments
}

const commentsOf = (text: string): string[] => commentsIn(stripBom(text)).map((c) => c.text)

const countsOf = (items: string[]): Map<string, number> => {
	const counts = new Map<string, number>()
	for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1)
	return counts
}

/** Takes one of `item` out of `counts` if any is left; says whether it did. */
const take = (counts: Map<string, number>, item: string): boolean => {
	const n = counts.get(item) ?? 0
	if (n === 0) return false
	counts.set(item, n - 1)
	return true
}

/** Multiset difference: the items of `a` left after taking out one per occurrence in `b`. */
function minus(a: string[], b: string[]): string[] {
	const counts = countsOf(b)
	return a.filter((item) => !take(counts, item))
}

/** `body` without the given comments (one occurrence each, in one pass); a line left empty goes with it. */
function withoutComments(body: string, drop: string[]): string {
	const counts = countsOf(drop)
	let out = ''
	let from = 0
	for (const found of commentsIn(body)) {
		if (!take(counts, found.text)) continue
		let start = found.offset
		let end = found.offset + found.length
		const lineStart = body.lastIndexOf('\n', start - 1) + 1
		const lineEnd = body.indexOf('\n', end)
		if (
			start >= from &&
			body.slice(lineStart, start).trim() === '' &&
			body.slice(end, lineEnd === -1 ? body.length : lineEnd).trim() === ''
		) {
			start = Math.max(lineStart, from)
			end = lineEnd === -1 ? body.length : lineEnd + 1
		}
		out += body.slice(from, start)
		from = end
	}
	return out + body.slice(from)
}

/**
 * Where a comment sits, so that the other side's text can be given it at the
 * same place: before the property or entry that follows it, or after the one
 * it trails on the same line. Properties and entries in document order.
 */
function marksOf(tree: Node): Node[] {
	const marks: Node[] = []
	// Depth first, children pushed last to first: marks come out in document order, with no recursion.
	const stack: Node[] = [tree]
	while (stack.length > 0) {
		const node = stack.pop() as Node
		if (node.type === 'property' || node.parent?.type === 'array') marks.push(node)
		const children = node.type === 'property' ? (node.children ?? []).slice(1) : (node.children ?? [])
		for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Node)
	}
	return marks
}

/** The path of a mark (a property: the path of its value; an entry: its index). */
const markPath = (mark: Node): JSONPath =>
	mark.type === 'property' ? getNodePath(mark.children?.[1] ?? mark) : getNodePath(mark)

/** The first mark at or after `offset` (binary search on document order). */
function firstFrom(marks: Node[], offset: number): number {
	let [low, high] = [0, marks.length]
	while (low < high) {
		const mid = (low + high) >> 1
		if ((marks[mid] as Node).offset < offset) low = mid + 1
		else high = mid
	}
	return low
}

/** The mark at `path` in a tree: a property node, or an array entry. */
function markAt(tree: Node, path: JSONPath): Node | undefined {
	const node = findNodeAtLocation(tree, path)
	if (node === undefined) return undefined
	return node.parent?.type === 'property' ? node.parent : node
}

interface Placement {
	at: number
	text: string
	/** The order among placements at the same offset: the order of the source. */
	order: number
}

/**
 * Where `comment` (of the text `source`, parsed as `sourceMarks`) goes in
 * `body` (parsed as `tree`): trailing the line of the property it trailed,
 * or on its own line before the property it preceded — or, when that
 * property is not in `body`, before the next one that is; else at the end.
 */
function placeComment(
	source: string,
	sourceMarks: Node[],
	comment: Comment,
	body: string,
	tree: Node,
	order: number
): Placement {
	const eol = eolOf(body)
	const lineStart = source.lastIndexOf('\n', comment.offset - 1) + 1
	if (source.slice(lineStart, comment.offset).trim() !== '') {
		// Trailing: after the outermost property or entry that ends on this line before it.
		let trailed: Node | undefined
		for (let node = sourceMarks[firstFrom(sourceMarks, comment.offset) - 1]; node; node = node.parent) {
			const end = node.offset + node.length
			if (end > comment.offset) break
			if (end >= lineStart && (node.type === 'property' || node.parent?.type === 'array')) trailed = node
		}
		const target = trailed === undefined ? undefined : markAt(tree, markPath(trailed))
		if (target !== undefined) {
			const end = target.offset + target.length
			let lineEnd = body.indexOf('\n', end)
			if (lineEnd === -1) lineEnd = body.length
			else if (body[lineEnd - 1] === '\r') lineEnd--
			return { at: lineEnd, text: ` ${comment.text}`, order }
		}
	}
	for (let i = firstFrom(sourceMarks, comment.offset + comment.length); i < sourceMarks.length; i++) {
		const target = markAt(tree, markPath(sourceMarks[i] as Node))
		if (target === undefined) continue
		const start = body.lastIndexOf('\n', target.offset - 1) + 1
		const indent = body.slice(start, target.offset)
		if (indent.trim() === '') return { at: start, text: `${indent}${comment.text}${eol}`, order }
		return {
			at: target.offset,
			text: comment.text.startsWith('//') ? `${comment.text}${eol}` : `${comment.text} `,
			order
		}
	}
	const end = body.length
	return { at: end, text: body.endsWith('\n') || end === 0 ? `${comment.text}${eol}` : `${eol}${comment.text}`, order }
}

const insertAll = (body: string, placements: Placement[]): string => {
	let out = body
	const sorted = [...placements].sort((a, b) => b.at - a.at || b.order - a.order)
	for (const p of sorted) out = out.slice(0, p.at) + p.text + out.slice(p.at)
	return out
}

/**
 * Comments merged three-way into `edited` (the local text with the merged
 * value written in): a comment the server's side deleted is deleted here; one
 * it added (or changed: the new text) is put where it sits there, next to the
 * same key; a comment of this side that the key edits took away is put back
 * the same way. Comments never clash: when both sides changed the same
 * comment differently, both texts stay. Undefined if the result would not
 * hold `value` (then the file is a conflict, as before).
 */
function mergeComments(
	base: string | undefined,
	local: string,
	remote: string,
	edited: string,
	value: Json
): string | undefined {
	const [localBody, remoteBody] = [stripBom(local), stripBom(remote)]
	const [baseComments, localComments, remoteComments] = [
		base === undefined ? [] : commentsOf(base),
		commentsIn(localBody),
		commentsIn(remoteBody)
	]
	const [localTexts, remoteTexts] = [localComments.map((c) => c.text), remoteComments.map((c) => c.text)]
	const deletedThere = minus(baseComments, remoteTexts)
	const addedThere = minus(minus(remoteTexts, baseComments), localTexts)
	const wanted = [...minus(localTexts, deletedThere), ...addedThere]
	const bom = hasBom(edited) ? BOM_TEXT : ''
	const body = withoutComments(stripBom(edited), deletedThere)
	const missing = countsOf(minus(wanted, commentsOf(body)))
	if ([...missing.values()].every((n) => n === 0)) return bom + body

	const tree = treeOf(body)
	if (tree === undefined) return undefined
	const placements: Placement[] = []
	const added = countsOf(addedThere)
	const unplaced: string[] = []
	// The missing comments, found in the text they come from (`only`: those of it that may be taken).
	const place = (source: string, comments: Comment[], only?: Map<string, number>) => {
		const sourceTree = treeOf(source)
		const marks = sourceTree === undefined ? [] : marksOf(sourceTree)
		for (const comment of comments) {
			if ((missing.get(comment.text) ?? 0) === 0 || (only !== undefined && !take(only, comment.text))) continue
			take(missing, comment.text)
			if (sourceTree === undefined) unplaced.push(comment.text)
			else placements.push(placeComment(source, marks, comment, body, tree, placements.length))
		}
	}
	place(remoteBody, remoteComments, added)
	place(localBody, localComments)
	const check = (text: string) => {
		const parsed = parseJsonc(text)
		return parsed !== undefined && same(parsed.value, value) && minus(wanted, commentsOf(text)).length === 0
	}
	const atTop = (texts: string[]) => texts.map((text) => `${text}${eolOf(body)}`).join('')
	const placed = insertAll(body, placements)
	if (unplaced.length === 0 && check(placed)) return bom + placed
	// A comment that cannot go next to its key goes at the top of the file: never lost, never a conflict.
	const top = atTop([...unplaced, ...placements.sort((a, b) => a.order - b.order).map((p) => p.text.trim())])
	return check(top + body) ? bom + top + body : undefined
}

const BOM_TEXT = '\uFEFF'

function formattingOf(text: string): FormattingOptions {
	const indent = /\n([ \t]+)\S/.exec(text)?.[1]
	const tabs = indent?.startsWith('\t')
	return {
		insertSpaces: !tabs,
		tabSize: tabs || indent === undefined ? (tabs ? 1 : 2) : indent.length,
		eol: eolOf(text),
		insertFinalNewline: false
	}
}

interface Edit {
	path: JSONPath
	value: Json | undefined
	insert?: boolean
}

/**
 * The edits that turn `from` into `to`, as deep as possible so the rest of the
 * text stays as it is: an entry or key that did not change is never touched
 * (so never reformatted). Arrays are aligned entry by entry (longest common
 * subsequence); changed entries are edited in place, others removed or inserted.
 */
function editsBetween(from: Json, to: Json, path: JSONPath, edits: Edit[]): void {
	if (same(from, to)) return
	if (isObject(from) && isObject(to)) {
		for (const key of Object.keys(from))
			if (own(to, key) === MISSING) edits.push({ path: [...path, key], value: undefined })
		for (const key of Object.keys(to)) {
			const before = own(from, key)
			if (before === MISSING) edits.push({ path: [...path, key], value: to[key] as Json })
			else editsBetween(before, to[key] as Json, [...path, key], edits)
		}
		return
	}
	const hunks =
		Array.isArray(from) && Array.isArray(to) ? diffHunks(from.map(stableJson), to.map(stableJson)) : undefined
	if (Array.isArray(from) && Array.isArray(to) && hunks !== undefined) {
		// From the last difference to the first, so the indexes of those still to edit do not move.
		for (const hunk of hunks.reverse()) {
			const [start, removed] = [hunk.oStart, hunk.oEnd - hunk.oStart]
			const [toStart, inserted] = [hunk.start, hunk.end - hunk.start]
			const paired = Math.min(removed, inserted)
			for (let k = removed - 1; k >= paired; k--) edits.push({ path: [...path, start + k], value: undefined })
			for (let k = paired; k < inserted; k++)
				edits.push({ path: [...path, start + k], value: to[toStart + k] as Json, insert: true })
			for (let k = paired - 1; k >= 0; k--)
				editsBetween(from[start + k] as Json, to[toStart + k] as Json, [...path, start + k], edits)
		}
		return
	}
	edits.push({ path, value: to })
}

/**
 * The text to cut to remove the property or entry at `path`: up to the next
 * one, or from the end of the one before. jsonc-parser's own removal
 * reformats the line after the cut, which would reformat an entry that did
 * not change. Undefined (let jsonc-parser do it) for an only child.
 */
function removalRange(text: string, path: JSONPath): [number, number] | undefined {
	const tree = treeOf(text)
	const node = tree === undefined ? undefined : markAt(tree, path)
	const siblings = node?.parent?.children
	if (node === undefined || siblings === undefined) return undefined
	const i = siblings.indexOf(node)
	const next = siblings[i + 1]
	if (next !== undefined) return [node.offset, next.offset]
	const previous = siblings[i - 1]
	if (previous !== undefined) return [previous.offset + previous.length, node.offset + node.length]
	return undefined
}

/**
 * One edit, formatted within what it inserts only. jsonc-parser formats the
 * whole line around an insertion, which reformats the entry before it.
 */
function editOnly(text: string, edit: Edit, options: FormattingOptions | undefined): string {
	const tree = treeOf(text)
	const container = tree === undefined ? undefined : findNodeAtLocation(tree, edit.path.slice(0, -1))
	const oneLine =
		container !== undefined && !text.slice(container.offset, container.offset + container.length).includes('\n')
	if (options !== undefined && (container === undefined || (container.children ?? []).length === 0 || oneLine))
		// An empty object or list, or one written on one line: no neighbour on a line of its own to spare, so
		// jsonc-parser lays out the line as it always has.
		return applyEdits(
			text,
			modify(text, edit.path, edit.value, { formattingOptions: options, isArrayInsertion: edit.insert === true })
		)
	const raw = modify(text, edit.path, edit.value, { isArrayInsertion: edit.insert === true })
	const edited = applyEdits(text, raw)
	const only = raw.length === 1 ? raw[0] : undefined
	if (options === undefined || only === undefined) return edited
	// From the bracket when the edit is the container's first entry, so it gets its own line too.
	let start = only.offset
	while (start > 0 && /\s/.test(edited.charAt(start - 1))) start--
	const from = edited.charAt(start - 1) === '[' || edited.charAt(start - 1) === '{' ? start - 1 : only.offset
	const length = only.offset + only.content.length - from
	return applyEdits(edited, format(edited, { offset: from, length }, { ...options, keepLines: false }))
}

/** `merged` written into `localText`: its comments, formatting, BOM and line endings stay. Undefined if the edit does not come out right. */
export function rewrite(localText: string, localValue: Json, merged: Json): string | undefined {
	const edits: Edit[] = []
	editsBetween(localValue, merged, [], edits)
	let text = stripBom(localText)
	// jsonc-parser formats the whole line around an insertion or removal: in a file
	// written on one line that would be every entry, so such a file gets compact edits.
	const options = text.trimEnd().includes('\n') ? formattingOf(localText) : undefined
	try {
		for (const edit of edits) {
			const removal = edit.value === undefined ? removalRange(text, edit.path) : undefined
			text = removal !== undefined ? text.slice(0, removal[0]) + text.slice(removal[1]) : editOnly(text, edit, options)
		}
	} catch {
		return undefined
	}
	const check = parseJsonc(text)
	if (!check || !same(check.value, merged)) return undefined
	const ordered = inOrderOf(text, merged) ?? text
	return hasBom(localText) ? `\uFEFF${ordered}` : ordered
}

/** Does the value hold its object keys in the same order as `want`, all the way down? */
const sameOrder = (a: Json, want: Json): boolean => JSON.stringify(a) === JSON.stringify(want)

/**
 * `text` with every object's entries moved into `want`'s key order (the value
 * itself is the same): each entry moves whole, with the comments and blank
 * lines before it, and keeps its bytes, so only the order changes. Undefined
 * when it cannot be done exactly (a key written twice).
 */
function inOrderOf(text: string, want: Json): string | undefined {
	const tree = treeOf(text)
	const value = parseJsonc(text)?.value
	if (tree === undefined || value === undefined) return undefined
	if (sameOrder(value, want)) return text
	const result = text.slice(0, tree.offset) + ordered(text, tree, want) + text.slice(tree.offset + tree.length)
	const check = parseJsonc(result)
	return check !== undefined && sameOrder(check.value, want) ? result : undefined
}

/** One node's text, its objects' entries in `want`'s order. */
function ordered(text: string, node: Node, want: Json): string {
	const end = node.offset + node.length
	const children = node.children ?? []
	if (node.type === 'array' && Array.isArray(want)) {
		let out = ''
		let at = node.offset
		for (const [i, child] of children.entries()) {
			out += text.slice(at, child.offset) + ordered(text, child, want[i] as Json)
			at = child.offset + child.length
		}
		return out + text.slice(at, end)
	}
	if (node.type !== 'object' || !isObject(want)) return text.slice(node.offset, end)
	// Each entry: its key and value, the value's own objects in order too.
	const entries = children.map((property) => {
		const [keyNode, valueNode] = property.children ?? []
		const key = String(keyNode?.value)
		const body =
			valueNode === undefined || !Object.hasOwn(want, key)
				? text.slice(property.offset, property.offset + property.length)
				: text.slice(property.offset, valueNode.offset) +
					ordered(text, valueNode, want[key] as Json) +
					text.slice(valueNode.offset + valueNode.length, property.offset + property.length)
		return { key, property, body }
	})
	const keys = entries.map((e) => e.key)
	const wanted = Object.keys(want)
	const inPlace =
		keys.length !== wanted.length || new Set(keys).size !== keys.length || keys.every((k, i) => k === wanted[i])
	// Where each entry starts (after the comma before it) and the separators between them, which stay put.
	const starts: number[] = []
	const separators: string[] = []
	let from = node.offset + 1
	for (const { property } of entries) {
		starts.push(from)
		const after = property.offset + property.length
		const scanner = createScanner(text, false)
		scanner.setPosition(after)
		let token = scanner.scan()
		// 5 = comma, 17 = end of file
		while (token !== 5 && token !== 17 && scanner.getTokenOffset() < end - 1) token = scanner.scan()
		const next = token === 5 ? scanner.getTokenOffset() + 1 : after
		separators.push(text.slice(after, next))
		from = next
	}
	const piece = (i: number) => {
		const e = entries[i] as (typeof entries)[number]
		return text.slice(starts[i] as number, e.property.offset) + e.body
	}
	const index = new Map(keys.map((key, i) => [key, i]))
	const order = inPlace ? keys.map((_, i) => i) : wanted.map((key) => index.get(key) as number)
	let out = text.slice(node.offset, node.offset + 1)
	for (const [slot, i] of order.entries()) out += piece(i) + (separators[slot] as string)
	return out + text.slice(from, end)
}

export type TextMerge =
	| { ok: true; text: string }
	| { ok: false; conflicts: JSONPath[]; reason: 'keys' | 'unparseable' | 'edit' }

/** Do two JSONC texts hold the same value and the same comments (formatting aside)? */
export function sameContent(a: string, b: string): boolean {
	const [x, y] = [parseJsonc(a), parseJsonc(b)]
	return (
		x !== undefined &&
		y !== undefined &&
		same(x.value, y.value) &&
		minus(commentsOf(a), commentsOf(b)).length === 0 &&
		minus(commentsOf(b), commentsOf(a)).length === 0
	)
}

/**
 * Merges three JSONC texts (docs/sync-model.md). Clean when no key changed
 * differently on both sides; the result is the local text with the server's
 * changes applied (its formatting stays) and the comments merged three-way.
 * Without a base (a machine that never synced the file), the base is empty:
 * keys on one side only are kept, keys on both sides with different values
 * clash. `prefer` settles the clashing keys for one side, and only those.
 * A text that does not parse, or an edit that cannot be made exactly, is
 * reported rather than merged.
 */
export function mergeJsonText(base: string | undefined, local: string, remote: string, prefer?: Prefer): TextMerge {
	const [b, l, r] = [
		base === undefined ? { value: MISSING as Slot } : parseJsonc(base),
		parseJsonc(local),
		parseJsonc(remote)
	]
	if (!b || !l || !r) return { ok: false, conflicts: [[]], reason: 'unparseable' }
	const { value, conflicts } = merge3(b.value, l.value, r.value, prefer)
	if (conflicts.length > 0) return { ok: false, conflicts, reason: 'keys' }
	if (value === MISSING) return { ok: false, conflicts: [[]], reason: 'edit' }
	const edited = rewrite(local, l.value, value)
	if (edited === undefined) return { ok: false, conflicts: [[]], reason: 'edit' }
	const text = mergeComments(base, local, remote, edited, value)
	if (text === undefined) return { ok: false, conflicts: [[]], reason: 'edit' }
	return { ok: true, text }
}

/** The unit an indented JSON text is laid out with (a tab, or N spaces), from its first indented line. */
function indentUnit(text: string): string | undefined {
	const lead = /\n([ \t]+)\S/.exec(text)?.[1]
	if (lead === undefined) return undefined
	return lead.startsWith('\t') ? '\t' : ' '.repeat(lead.length)
}

/**
 * `remote` laid out in `local`'s formatting (docs/sync-model.md, "Each machine
 * keeps its formatting"): its indentation unit, line endings and byte-order
 * mark, every line's depth kept. `remote` itself when the two already agree,
 * when either is not indented, or when the result would not hold the same
 * value and comments.
 */
export function inFormatOf(local: string, remote: string): string {
	const [localBody, remoteBody] = [stripBom(local), stripBom(remote)]
	const [want, have] = [indentUnit(localBody), indentUnit(remoteBody)]
	const eol = eolOf(localBody)
	const bom = hasBom(local) ? BOM_TEXT : ''
	if (want === have && eol === eolOf(remoteBody) && hasBom(local) === hasBom(remote)) return remote
	if (want === undefined || have === undefined) return remote
	const lines = remoteBody.split(/\r?\n/).map((line) => {
		const lead = /^[ \t]*/.exec(line)?.[0] ?? ''
		if (lead === '' || lead.length % have.length !== 0 || lead !== have.repeat(lead.length / have.length)) return line
		return want.repeat(lead.length / have.length) + line.slice(lead.length)
	})
	const text = bom + lines.join(eol)
	return sameContent(text, remote) ? text : remote
}
