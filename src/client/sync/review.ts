import { parse as parseToml } from 'smol-toml'
import type { Tool } from '../../shared/constants'
import { nameMatches, type KeyPath } from '../tools/descriptor'
import { ALWAYS_REVIEWED, DESCRIPTORS, type ReviewedKey } from '../tools/registry'
import {
	copyMap,
	emptyMap,
	ownValue,
	sameFiles,
	type Bases,
	type Files,
	type Hasher,
	type Outcome,
	type Write
} from './engine'
import { isJsonKey, isObject, MISSING, parseJsonc, same, type Json, type Slot } from './json'
import { findSecrets } from './secrets'

/**
 * The review of content someone else pushed (docs/sync-model.md): an
 * allowlist, not a denylist. A file's change is written without asking only
 * when every key it touches is one its tool's descriptor lists as inert
 * (`inert` in src/client/tools/<tool>.ts: colour theme, fonts, formatting,
 * layout) and none of the keys that are never inert (`ALWAYS_REVIEWED`: what
 * runs a program, MCP servers, what widens what a tool may do). Anything else
 * — another key, a file that is not a settings file (commands, agents, rules,
 * memory files), a settings file that does not parse — is shown as a diff of
 * what changes and asked about first.
 *
 * The review hides nothing (docs/sync-model.md): every change is shown, each value
 * whole, and what runs code or widens what a tool may do comes first.
 *
 * Pure functions, linear in the content's size whoever wrote it: each key is
 * matched once against the patterns still alive at its depth, and each value
 * is written out once.
 */

export interface FileReview {
	key: string
	/** Every change touches only inert settings: written without asking. */
	inert: boolean
	/**
	 * A change runs code or widens what the tool may do: a key the
	 * descriptors never let pass (`runsCode`, `widens`, MCP servers), or a
	 * file that is not a settings file (commands, agents, rules, memory
	 * files), or one that cannot be compared key by key.
	 */
	runsCode: boolean
	/**
	 * What changes, every change, one line each, in the file's order: key
	 * paths with before → after for a settings file, `-`/`+` lines for text.
	 * Plain text from the server: escape it before it reaches a terminal.
	 * Values that look like secrets are never shown.
	 */
	diff: string[]
	/** Per line of `diff`: it shows a change that runs code or widens what the tool may do. */
	code: boolean[]
}

const SECRET_SHOWN = '(a secret-looking value, not shown)'

type Format = 'json' | 'toml' | 'text'
const formatOf = (key: string): Format => (isJsonKey(key) ? 'json' : /\.toml$/i.test(key) ? 'toml' : 'text')

/**
 * A settings file (JSON or TOML), as opposed to a file whose text is itself
 * what the tool reads (commands, agents, rules, memory files). Another
 * device's change is reviewed only in settings (docs/sync-model.md).
 */
export const isSettingsFile = (key: string): boolean => formatOf(key) !== 'text'

/** A settings file's value, or undefined when it does not parse. */
function parsed(format: 'json' | 'toml', text: string): Json | undefined {
	if (format === 'json') return parseJsonc(text)?.value
	try {
		// TOML dates and other objects as plain JSON, so values compare by content.
		return JSON.parse(JSON.stringify(parseToml(text.replace(/^\uFEFF/, '')))) as Json
	} catch {
		return undefined
	}
}

/** Secret-looking values as text scanning finds them, line by line (a name without an extension is scanned as text). */
function textSecrets(secrets: Set<string>, ...texts: (string | null | undefined)[]): Set<string> {
	for (const text of texts) if (text) for (const secret of findSecrets('text', text)) secrets.add(secret.value)
	return secrets
}

/** How one write of someone else's content is reviewed: `before` is the file here (absent: none), `after` null deletes it. */
export function reviewWrite(tool: Tool, key: string, before: string | undefined, after: string | null): FileReview {
	const format = formatOf(key)
	if (format === 'text') return asCode(key, lineDiff(before, after, textSecrets(new Set(), before, after)))
	let secrets = new Set<string>()
	try {
		for (const text of [before, after]) if (text) for (const secret of findSecrets(key, text)) secrets.add(secret.value)
		const old = before === undefined ? MISSING : parsed(format, before)
		const next = after === null ? MISSING : parsed(format, after)
		if (old !== undefined && next !== undefined) return { key, ...settingsChanges(tool, old, next, secrets) }
	} catch (error) {
		// Nested deeper than the stack goes (parsing, scanning or comparing): reviewed as text.
		if (!(error instanceof RangeError)) throw error
		secrets = new Set()
	}
	// Shown line by line: the values found as settings, and what text scanning finds.
	const note = `(not compared key by key: not valid ${format.toUpperCase()} here or on the server, or nested too deep)`
	return asCode(key, lineDiff(before, after, textSecrets(secrets, before, after), note))
}

/** A file reviewed line by line: every line of it may run (a command, an agent, a memory file, a file that does not parse). */
const asCode = (key: string, diff: string[]): FileReview => ({
	key,
	inert: false,
	runsCode: true,
	diff,
	code: diff.map(() => true)
})

/** The patterns a key path may still match: a pattern and how many of its names have matched. */
interface Alive<T> {
	pattern: T
	path: KeyPath
}

/** The patterns among `alive` whose name at `depth` matches `name`. Each key is matched once per pattern alive at its depth. */
const step = <T>(alive: Alive<T>[], depth: number, name: string): Alive<T>[] =>
	alive.length === 0
		? alive
		: alive.filter((a) => {
				const pattern = a.path[depth] as string
				return pattern === name || (pattern.includes('*') && nameMatches(pattern, name))
			})

interface Walk {
	tool: Tool
	secrets: Set<string>
	path: string[]
	inert: boolean
	runsCode: boolean
	diff: string[]
	code: boolean[]
}

/** Where a walk stands on its path: the inert and reviewed patterns still alive, and what fully matched above. */
interface Place {
	inert: Alive<null>[]
	reviewed: Alive<ReviewedKey>[]
	/** An inert key matched this path or one above it. */
	underInert: boolean
	/** The innermost never-inert key this path lies in, and the depth its last name matched at. */
	underReviewed?: { key: ReviewedKey; depth: number }
}

function settingsChanges(tool: Tool, before: Slot, after: Slot, secrets: Set<string>): Omit<FileReview, 'key'> {
	const walk: Walk = { tool, secrets, path: [], inert: true, runsCode: false, diff: [], code: [] }
	const start: Place = {
		inert: DESCRIPTORS[tool].inert.map((path) => ({ pattern: null, path })),
		reviewed: ALWAYS_REVIEWED.map((key) => ({ pattern: key, path: key.path })),
		underInert: false
	}
	compare(walk, start, before, after)
	return { inert: walk.inert, runsCode: walk.runsCode, diff: walk.diff, code: walk.code }
}

/** Compares two values at the walk's path: objects key by key, anything else as one value. */
function compare(walk: Walk, at: Place, before: Slot, after: Slot): void {
	const objects = (isObject(before) || before === MISSING) && (isObject(after) || after === MISSING)
	const empty = (value: Slot) => isObject(value) && Object.keys(value).length === 0
	if (!objects || (before === MISSING && empty(after)) || (after === MISSING && empty(before))) {
		if (!same(before, after)) change(walk, at, before, after)
		return
	}
	const depth = walk.path.length
	const old = isObject(before) ? before : emptyMap<Json>()
	const next = isObject(after) ? after : emptyMap<Json>()
	const names = [...Object.keys(old), ...Object.keys(next).filter((name) => !Object.hasOwn(old, name))]
	for (const name of names) {
		const inert = step(at.inert, depth, name)
		const reviewed = step(at.reviewed, depth, name)
		const matched = reviewed.find((a) => a.path.length === depth + 1)
		const inner: Place = {
			inert: inert.filter((a) => a.path.length > depth + 1),
			reviewed: reviewed.filter((a) => a.path.length > depth + 1),
			underInert: at.underInert || inert.some((a) => a.path.length === depth + 1),
			underReviewed: matched ? { key: matched.pattern, depth } : at.underReviewed
		}
		walk.path.push(name)
		compare(
			walk,
			inner,
			Object.hasOwn(old, name) ? (old[name] as Json) : MISSING,
			Object.hasOwn(next, name) ? (next[name] as Json) : MISSING
		)
		walk.path.pop()
	}
}

/**
 * One changed value. It is inert when an inert key covers it and no key that
 * is never inert covers it or lies inside it (a value replacing a whole
 * object could hold one).
 */
function change(walk: Walk, at: Place, before: Slot, after: Slot): void {
	// A whole object added, removed or replaced counts as code when it holds a never-inert key (an empty one holds none).
	const depth = walk.path.length
	const code = at.underReviewed !== undefined || holds(at.reviewed, depth, before) || holds(at.reviewed, depth, after)
	if (!at.underInert || code) walk.inert = false
	if (code) walk.runsCode = true
	walk.code.push(code)
	const where = keyText(walk.path)
	const why = at.underReviewed ? ` (${label(walk.path, at.underReviewed)})` : ''
	const shown = (value: Json) => preview(value, walk.secrets)
	if (before === MISSING) walk.diff.push(`+ ${where}: ${shown(after as Json)}${why}`)
	else if (after === MISSING) walk.diff.push(`- ${where}: ${shown(before)}${why}`)
	else walk.diff.push(`~ ${where}: ${shown(before)} → ${shown(after)}${why}`)
}

/** Does `value` (at `depth`) hold a key one of the `alive` patterns names? Each of its keys is looked at once. */
function holds(alive: Alive<ReviewedKey>[], depth: number, value: Slot): boolean {
	if (alive.length === 0 || !isObject(value)) return false
	for (const [name, inner] of Object.entries(value)) {
		const next = step(alive, depth, name)
		if (next.some((a) => a.path.length === depth + 1)) return true
		if (holds(next, depth + 1, inner as Json)) return true
	}
	return false
}

/** How many names of a key path are shown, and characters of one name. */
const SHOWN_NAMES = 16
const SHOWN_NAME = 100

/**
 * A key path as people write it: names joined with dots (VS Code's
 * `editor.fontSize` is one name, and reads as it does in the file), a name
 * with other characters in quotes. A hostile path's length is clipped, so
 * each line costs the same however deep the key.
 */
function keyText(path: string[]): string {
	if (path.length === 0) return '(the whole file)'
	const name = (text: string) => {
		const clipped = text.length > SHOWN_NAME ? `${text.slice(0, SHOWN_NAME)}…` : text
		return /^[\w$@-]+(\.[\w$@-]+)*$/.test(clipped) ? clipped : JSON.stringify(clipped)
	}
	if (path.length <= SHOWN_NAMES) return path.map(name).join('.')
	const head = path.slice(0, SHOWN_NAMES / 2).map(name)
	const tail = path.slice(1 - SHOWN_NAMES / 2).map(name)
	return [...head, `…${path.length - head.length - tail.length} more…`, ...tail].join('.')
}

/** What the review says of a change inside a never-inert key: an MCP server's field that says what runs is a program. */
function label(path: string[], under: { key: ReviewedKey; depth: number }): string {
	const { key, depth } = under
	if (key.why !== 'an MCP server' || key.runs === undefined) return key.why
	const field = path[depth + 2]
	if (key.runs === 'entry' || field === undefined || key.runs.includes(field)) return 'an MCP server: what it runs'
	return 'an MCP server'
}

/** A value as compact JSON, whole (docs/sync-model.md: never cut), secret-looking strings replaced. */
function preview(value: Json, secrets: ReadonlySet<string>): string {
	const parts: string[] = []
	const visit = (item: Json): void => {
		if (typeof item === 'string') parts.push(secrets.has(item) ? SECRET_SHOWN : JSON.stringify(item))
		else if (Array.isArray(item)) {
			parts.push('[')
			for (let i = 0; i < item.length; i++) {
				if (i > 0) parts.push(',')
				visit(item[i] as Json)
			}
			parts.push(']')
		} else if (isObject(item)) {
			parts.push('{')
			const names = Object.keys(item)
			for (let i = 0; i < names.length; i++) {
				const name = names[i] as string
				parts.push(`${i > 0 ? ',' : ''}${JSON.stringify(name)}:`)
				visit(item[name] as Json)
			}
			parts.push('}')
		} else parts.push(JSON.stringify(item))
	}
	visit(value)
	return parts.join('')
}

/** The strings quoted in a line ("…" with JSON escapes, '…' as TOML literals), as their values. */
function quoted(line: string): string[] {
	const found: string[] = []
	for (const match of line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'/g)) {
		if (match[2] !== undefined) found.push(match[2])
		else {
			found.push(match[1] as string)
			try {
				found.push(JSON.parse(match[0]) as string)
			} catch {
				// not a JSON string: its raw text is looked up
			}
		}
	}
	return found
}

/** A text's lines, without their line endings (a final newline ends the last line, it starts none). */
const linesOf = (text: string) => {
	const lines = text.split('\n').map((line) => line.replace(/\r$/, ''))
	if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop()
	return lines
}

/**
 * The changed lines of a text file: the run between the common first and
 * last lines, as `-` and `+` lines (linear, unlike a minimal diff; `cfgsync
 * diff` shows the full one). Lines that look like they hold a secret are not
 * shown. `note` comes first when given.
 */
function lineDiff(
	before: string | undefined,
	after: string | null,
	secrets: ReadonlySet<string>,
	note?: string
): string[] {
	const lines = note === undefined ? [] : [note]
	if (after === null) return [...lines, '(the file is deleted)']
	const old = before === undefined ? [] : linesOf(before)
	const next = linesOf(after)
	let head = 0
	while (head < old.length && head < next.length && old[head] === next[head]) head++
	let tail = 0
	while (
		tail < old.length - head &&
		tail < next.length - head &&
		old[old.length - 1 - tail] === next[next.length - 1 - tail]
	)
		tail++
	const removed = old.length - tail - head
	const added = next.length - tail - head
	if (before === undefined) lines.push('(a new file)')
	else if (removed + added === 0) lines.push('(only invisible characters change: line endings or the final newline)')
	else lines.push(`@@ line ${head + 1} @@`)
	// A line holding any secret-looking value (a whole line, for text) is not shown. Every line is shown now, so
	// the check stays linear: each quoted string of a line is looked up whole, and the substring search that also
	// finds a value inside a longer string runs only while lines × values stays small.
	const values = [...secrets].filter((value) => value !== '')
	const substrings = values.length * (removed + added) <= 1_000_000
	const hidden = (line: string) =>
		secrets.has(line.trim()) ||
		quoted(line).some((text) => secrets.has(text)) ||
		(substrings && values.some((value) => line.includes(value)))
	const shown = (mark: string, line: string) => `${mark} ${hidden(line) ? SECRET_SHOWN : line}`
	for (let i = 0; i < removed + added; i++)
		lines.push(i < removed ? shown('-', old[head + i] as string) : shown('+', next[head + i - removed] as string))
	return lines
}

/**
 * The outcome with these files left exactly as they are here: not written,
 * their base kept at what it was (so the next pull finds the same change and
 * asks again, rather than taking this machine's copy for a change of its own
 * to send back), and nothing of them sent (the server keeps its copy).
 */
export function leaveAsTheyAre(
	outcome: Outcome,
	keys: ReadonlySet<string>,
	base: Bases | undefined,
	remote: Files | undefined
): Outcome {
	if (keys.size === 0) return outcome
	const writes = outcome.writes.filter((w) => !keys.has(w.key))
	const nextBase = copyMap(outcome.base)
	let push = outcome.push === undefined ? undefined : copyMap(outcome.push)
	for (const key of keys) {
		const was = ownValue(base, key)
		if (was === undefined) delete nextBase[key]
		else nextBase[key] = was
		if (push === undefined) continue
		const theirs = ownValue(remote, key)
		if (theirs === undefined) delete push[key]
		else push[key] = theirs
	}
	if (push !== undefined && remote !== undefined && sameFiles(push, remote)) push = undefined
	return { ...outcome, writes, base: nextBase, push, idle: writes.length === 0 && push === undefined }
}

/** Per file, the hashes of content this machine accepted after a review (the newest last). */
export type Accepted = Record<string, string[]>

/** How many accepted contents are remembered per file. */
const REMEMBERED = 8

/** Was this content accepted here before? Then it is not asked about again; any other content is. */
export const wasAccepted = (
	accepted: Accepted | undefined,
	key: string,
	content: string | null,
	hash: Hasher
): boolean => content !== null && (ownValue(accepted, key) ?? []).includes(hash(content))

/** The memory of accepted content once `writes` are accepted, for the files still synced (`keep`). */
export function remember(
	accepted: Accepted | undefined,
	writes: Write[],
	keep: (key: string) => boolean,
	hash: Hasher
): Accepted {
	const next = emptyMap<string[]>()
	for (const [key, hashes] of Object.entries(accepted ?? {})) if (keep(key)) next[key] = hashes
	for (const w of writes) {
		if (w.content === null || !keep(w.key)) continue
		const digest = hash(w.content)
		next[w.key] = [...(ownValue(next, w.key) ?? []).filter((known) => known !== digest), digest].slice(-REMEMBERED)
	}
	return next
}
