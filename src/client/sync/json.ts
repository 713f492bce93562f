// jsonc-parser's package.json points bundlers that target Node at its UMD build, whose
// require() calls a bundle cannot follow; its ES module build bundles cleanly.
import {
	applyEdits,
	createScanner,
	modify,
	parseTree,
	printParseErrorCode,
	type FormattingOptions,
	type JSONPath,
	type Node,
	type ParseError
} from 'jsonc-parser/lib/esm/main.js'
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

/** The value of JSON-with-comments text, or undefined when it is not valid. `__proto__` keys are ordinary keys. */
export function parseJsonc(text: string): { value: Json } | undefined {
	const errors: ParseError[] = []
	const tree = parseTree(stripBom(text), errors, PARSE_OPTIONS)
	if (errors.length > 0 || tree === undefined) return undefined
	return { value: nodeValue(tree) }
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
		const keys = [...Object.keys(local), ...Object.keys(remote).filter((key) => own(local, key) === MISSING)]
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
 * keybindings.json: entries removed on the server are removed here, entries
 * added on the server are appended; local order and local additions stay. An
 * entry edited on both sides ends up twice rather than lost.
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
	return [...kept, ...added]
}

interface Comment {
	text: string
	offset: number
	length: number
}

/** The comments of a JSONC text (offsets in the text without its BOM). */
function commentsIn(text: string): Comment[] {
	const body = stripBom(text)
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

const commentsOf = (text: string): string[] => commentsIn(text).map((c) => c.text)

/** Multiset difference: the items of `a` left after taking out one per occurrence in `b`. */
function minus(a: string[], b: string[]): string[] {
	const counts = new Map<string, number>()
	for (const item of b) counts.set(item, (counts.get(item) ?? 0) + 1)
	return a.filter((item) => {
		const n = counts.get(item) ?? 0
		if (n === 0) return true
		counts.set(item, n - 1)
		return false
	})
}

/** `text` without the given comments (one occurrence each); a line left empty goes with it. */
function withoutComments(text: string, drop: string[]): string {
	const bom = hasBom(text) ? BOM_TEXT : ''
	let body = stripBom(text)
	for (const comment of drop) {
		const found = commentsIn(body).find((c) => c.text === comment)
		if (!found) continue
		let start = found.offset
		let end = found.offset + found.length
		const lineStart = body.lastIndexOf('\n', start - 1) + 1
		const lineEnd = body.indexOf('\n', end)
		if (
			body.slice(lineStart, start).trim() === '' &&
			body.slice(end, lineEnd === -1 ? body.length : lineEnd).trim() === ''
		) {
			start = lineStart
			end = lineEnd === -1 ? body.length : lineEnd + 1
		}
		body = body.slice(0, start) + body.slice(end)
	}
	return bom + body
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

/** The edits that turn `from` into `to`, as deep as possible so the rest of the text stays as it is. */
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
	if (Array.isArray(from) && Array.isArray(to)) {
		// Entries removed and entries appended (what mergeEntries produces): edit them one by one.
		const kept = from.map((entry, i) => ({ entry, i }))
		let j = 0
		const removed: number[] = []
		for (const { entry, i } of kept) {
			if (j < to.length && same(entry, to[j] as Json)) j++
			else removed.push(i)
		}
		const appended = to.slice(j)
		if (from.length - removed.length + appended.length === to.length) {
			for (const i of removed.reverse()) edits.push({ path: [...path, i], value: undefined })
			const length = from.length - removed.length
			for (const [k, entry] of appended.entries())
				edits.push({ path: [...path, length + k], value: entry, insert: true })
			return
		}
	}
	edits.push({ path, value: to })
}

/** `merged` written into `localText`: its comments, formatting, BOM and line endings stay. Undefined if the edit does not come out right. */
export function rewrite(localText: string, localValue: Json, merged: Json): string | undefined {
	const edits: Edit[] = []
	editsBetween(localValue, merged, [], edits)
	const options = formattingOf(localText)
	let text = stripBom(localText)
	try {
		for (const edit of edits) {
			text = applyEdits(
				text,
				modify(text, edit.path, edit.value, { formattingOptions: options, isArrayInsertion: edit.insert === true })
			)
		}
	} catch {
		return undefined
	}
	const check = parseJsonc(text)
	if (!check || !same(check.value, merged)) return undefined
	return hasBom(localText) ? `\uFEFF${text}` : text
}

export type TextMerge =
	| { ok: true; text: string }
	| { ok: false; conflicts: JSONPath[]; reason: 'keys' | 'unparseable' | 'comments' | 'edit' }

/**
 * Merges three JSONC texts. Clean when no key changed differently on both
 * sides; the result is the local text with the server's changes applied. A
 * text that does not parse, comments the server's side changed that the
 * local side does not have, or an edit that cannot be made exactly, make the
 * whole file a conflict instead.
 */
export function mergeJsonText(base: string, local: string, remote: string, prefer?: Prefer): TextMerge {
	const [b, l, r] = [parseJsonc(base), parseJsonc(local), parseJsonc(remote)]
	if (!b || !l || !r) return { ok: false, conflicts: [[]], reason: 'unparseable' }
	const { value, conflicts } = merge3(b.value, l.value, r.value, prefer)
	if (conflicts.length > 0) return { ok: false, conflicts, reason: 'keys' }
	if (value === MISSING) return { ok: false, conflicts: [[]], reason: 'edit' }
	// Comments merge three-way as well: one the server's side wrote must already be here (there is
	// no telling where it goes otherwise); one it deleted goes here too; none of this side's may be lost.
	const [baseComments, localComments, remoteComments] = [commentsOf(base), commentsOf(local), commentsOf(remote)]
	if (prefer !== 'local' && minus(minus(remoteComments, baseComments), localComments).length > 0) {
		if (prefer === 'remote') return { ok: true, text: remote }
		return { ok: false, conflicts: [[]], reason: 'comments' }
	}
	const edited = rewrite(local, l.value, value)
	if (edited === undefined) return { ok: false, conflicts: [[]], reason: 'edit' }
	const deletedThere = minus(baseComments, remoteComments)
	const text = withoutComments(
		edited,
		deletedThere.filter((c) => localComments.includes(c))
	)
	const lost = minus(minus(localComments, commentsOf(text)), deletedThere)
	if (lost.length > 0 && prefer === undefined) return { ok: false, conflicts: [[]], reason: 'comments' }
	const check = parseJsonc(text)
	if (!check || !same(check.value, value)) return { ok: false, conflicts: [[]], reason: 'edit' }
	return { ok: true, text }
}
