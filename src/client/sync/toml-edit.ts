import { parse as parseToml, stringify as stringifyToml } from 'smol-toml'
import { isObject, type Json, MISSING, type Slot, same } from './json'
import { eolOf, hasBom, stripBom } from './text'

/**
 * One key of a TOML file set or removed in its text, the rest of the file
 * (comments, order, blank lines) as it is: what local keys need to keep a
 * machine's value out of what it sends and in what a pull writes
 * (docs/sync-model.md, "Settings that stay on one machine"). Only plain
 * `key = value` lines and `[table]` sections are edited; anything else falls
 * back to the file printed again from its value (its comments lost), which
 * the result is always checked against.
 */

type Table = Record<string, unknown>

export function tomlValue(text: string): Table | undefined {
	try {
		return parseToml(stripBom(text)) as Table
	} catch {
		return undefined
	}
}

/** The value at `path` in a parsed file (dates as their text), or MISSING. */
export function tomlGet(value: Table | undefined, path: readonly string[]): Slot {
	let at: unknown = value
	for (const part of path) {
		if (!isPlainTable(at) || !Object.hasOwn(at, part)) return MISSING
		at = at[part]
	}
	return asJson(at)
}

const isPlainTable = (value: unknown): value is Table =>
	typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)

function asJson(value: unknown): Json {
	if (value instanceof Date) return value.toISOString()
	if (Array.isArray(value)) return value.map(asJson)
	if (isPlainTable(value)) {
		const out: Record<string, Json> = {}
		for (const key of Object.keys(value)) out[key] = asJson(value[key])
		return out
	}
	return value as Json
}

const bare = (key: string) => (/^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key))
const keyText = (path: readonly string[]) => path.map(bare).join('.')

/** A value as inline TOML (JSON's string escapes are all valid TOML). */
function inline(value: Json): string {
	if (Array.isArray(value)) return `[${value.map(inline).join(', ')}]`
	if (isObject(value))
		return `{ ${Object.keys(value)
			.map((key) => `${bare(key)} = ${inline(value[key] as Json)}`)
			.join(', ')} }`
	if (value === null) return '""'
	return typeof value === 'string' ? JSON.stringify(value) : String(value)
}

/** A `[a."b c"]` header or `a.b = ` key read as its path; undefined when the line is neither. */
function readKeys(text: string): { path: string[]; rest: string } | undefined {
	const path: string[] = []
	let i = 0
	const space = () => {
		while (text[i] === ' ' || text[i] === '\t') i++
	}
	for (;;) {
		space()
		const quote = text[i]
		if (quote === '"' || quote === "'") {
			const end = text.indexOf(quote, i + 1)
			if (end < 0) return undefined
			const raw = text.slice(i, end + 1)
			path.push(quote === '"' ? safeJsonString(raw) : raw.slice(1, -1))
			i = end + 1
		} else {
			const match = /^[A-Za-z0-9_-]+/.exec(text.slice(i))
			if (!match) return undefined
			path.push(match[0])
			i += match[0].length
		}
		space()
		if (text[i] !== '.') return { path, rest: text.slice(i) }
		i++
	}
}

const safeJsonString = (raw: string): string => {
	try {
		return JSON.parse(raw) as string
	} catch {
		return raw.slice(1, -1)
	}
}

interface Line {
	/** The table the line is in (`[]` at the top; undefined in an array of tables). */
	table?: string[]
	/** The path a `key = value` starting on this line sets, or a header's. */
	key?: string[]
	header?: boolean
}

const samePath = (a: readonly string[] | undefined, b: readonly string[]) =>
	a !== undefined && a.length === b.length && a.every((part, i) => part === b[i])
const under = (a: readonly string[] | undefined, prefix: readonly string[]) =>
	a !== undefined && a.length >= prefix.length && prefix.every((part, i) => part === a[i])

function lineInfo(lines: string[]): Line[] {
	let table: string[] | undefined = []
	let open = 0
	return lines.map((line): Line => {
		const trimmed = line.trim()
		// Inside a multi-line value (counted roughly by its brackets and triple quotes): no keys start here.
		if (open > 0) {
			open += depthChange(trimmed)
			return { table }
		}
		if (trimmed.startsWith('[[')) {
			table = undefined
			return { header: true }
		}
		if (trimmed.startsWith('[')) {
			const read = readKeys(trimmed.slice(1))
			table = read?.rest.startsWith(']') ? read.path : undefined
			return { header: true, key: table }
		}
		const read = readKeys(line)
		if (read === undefined || !read.rest.startsWith('=') || table === undefined) return { table }
		open = Math.max(0, depthChange(read.rest.slice(1)))
		return { table, key: [...table, ...read.path] }
	})
}

/** How many brackets or triple-quoted strings a line leaves open (strings and comments aside, roughly). */
function depthChange(text: string): number {
	if ((text.match(/"""|'''/g)?.length ?? 0) % 2 === 1) return 1
	const code = text.replace(/"(?:[^"\\]|\\.)*"|'[^']*'/g, '').replace(/#.*$/, '')
	let depth = 0
	for (const c of code) {
		if (c === '[' || c === '{') depth++
		else if (c === ']' || c === '}') depth--
	}
	return depth
}

/** The lines [start, end) that the key or table at `path` takes, and the table a key line is in; undefined when none does. */
function span(
	lines: string[],
	info: Line[],
	path: readonly string[]
): { start: number; end: number; table?: string[] } | undefined {
	for (let i = 0; i < lines.length; i++) {
		const at = info[i] as Line
		if (samePath(at.key, path) && !at.header) {
			let end = i + 1
			while (end < lines.length && (info[end] as Line).key === undefined && !(info[end] as Line).header) {
				// A value continued on the next lines (a multi-line array or string) belongs to it.
				if (
					tomlValue(
						`x ${lines
							.slice(i, end)
							.join('\n')
							.replace(/^[^=]*/, '')}`
					) !== undefined
				)
					break
				end++
			}
			return { start: i, end, table: at.table }
		}
		if (at.header && samePath(at.key, path)) {
			let end = i + 1
			while (end < lines.length && !((info[end] as Line).header && !under((info[end] as Line).key, path))) end++
			// Blank lines and comments after the table's last key are not its: they stay (docs/sync-model.md).
			while (end > i + 1 && /^\s*(#.*)?$/.test(lines[end - 1] as string)) end--
			return { start: i, end }
		}
	}
	return undefined
}

/** Where a new `rest = value` goes: the end of the deepest table that holds the path, and the key relative to it. */
function insertion(lines: string[], info: Line[], path: readonly string[]): { at: number; rest: readonly string[] } {
	let best = { at: -1, depth: -1 }
	let firstHeader = lines.length
	for (let i = 0; i < lines.length; i++) {
		const at = info[i] as Line
		if (at.header && firstHeader === lines.length) firstHeader = i
		if (!at.header || at.key === undefined || at.key.length >= path.length || !under(path, at.key)) continue
		if (at.key.length <= best.depth) continue
		let end = i + 1
		while (end < lines.length && !(info[end] as Line).header) end++
		best = { at: end, depth: at.key.length }
	}
	if (best.depth < 0) best = { at: firstHeader, depth: 0 }
	let at = best.at
	while (at > 0 && (lines[at - 1] as string).trim() === '') at--
	return { at, rest: path.slice(best.depth) }
}

/** Where a new key goes to sit as it does in `like`: after the key before it there, else before the key after it. */
function beside(
	lines: string[],
	like: string | undefined,
	path: readonly string[]
): { at: number; rest: readonly string[] } | undefined {
	if (like === undefined) return undefined
	const theirs = stripBom(like).split(/\r?\n/)
	const theirInfo = lineInfo(theirs)
	const at = theirInfo.findIndex((line) => !line.header && samePath(line.key, path))
	const table = theirInfo[at]?.table
	if (at < 0 || table === undefined) return undefined
	const info = lineInfo(lines)
	const here = (key: string[] | undefined) =>
		key === undefined
			? -1
			: info.findIndex((line) => !line.header && samePath(line.key, key) && samePath(line.table, table))
	for (let i = at - 1; i >= 0 && !(theirInfo[i] as Line).header; i--) {
		const key = (theirInfo[i] as Line).key
		if (here(key) >= 0) {
			const after = span(lines, info, key as string[])
			if (after !== undefined) return { at: after.end, rest: path.slice(table.length) }
		}
	}
	for (let i = at + 1; i < theirs.length && !(theirInfo[i] as Line).header; i++) {
		const found = here((theirInfo[i] as Line).key)
		if (found >= 0) return { at: found, rest: path.slice(table.length) }
	}
	return undefined
}

/**
 * A table `like` has as a section of its own (`[a.b]` and its sub-tables), copied with its comments into `lines`
 * where it sits in `like`: before the next section there that `lines` has too, else after the one before it, else
 * before the first section (a local table put back through a pull stays in its place, docs/sync-model.md).
 */
function sectionAsIn(lines: string[], like: string | undefined, path: readonly string[]): string[] | undefined {
	if (like === undefined) return undefined
	const theirs = stripBom(like).split(/\r?\n/)
	const theirInfo = lineInfo(theirs)
	const cut = span(theirs, theirInfo, path)
	if (cut === undefined || cut.table !== undefined) return undefined
	const block = theirs.slice(cut.start, cut.end)
	const info = lineInfo(lines)
	const headerAt = (key: string[] | undefined) =>
		key === undefined ? -1 : info.findIndex((line) => line.header && samePath(line.key, key))
	let at: number | undefined
	for (let i = cut.end; i < theirs.length && at === undefined; i++) {
		const line = theirInfo[i] as Line
		if (line.header && line.key !== undefined && !under(line.key, path) && headerAt(line.key) >= 0)
			at = headerAt(line.key)
	}
	for (let i = cut.start - 1; i >= 0 && at === undefined; i--) {
		const line = theirInfo[i] as Line
		if (!line.header || line.key === undefined || headerAt(line.key) < 0) continue
		at = span(lines, info, line.key)?.end
	}
	if (at === undefined) {
		const first = info.findIndex((line) => line.header)
		at = first >= 0 ? first : lines.length
		while (at === lines.length && at > 0 && (lines[at - 1] as string).trim() === '') at--
	}
	const out = [...lines]
	const before = at > 0 && (out[at - 1] as string).trim() !== '' ? [''] : []
	const after = at < out.length && (out[at] as string).trim() !== '' ? [''] : at === out.length ? [''] : []
	out.splice(at, 0, ...before, ...block, ...after)
	return out
}

/**
 * The text with the value at `path` set (MISSING: removed). Undefined when the
 * value cannot be put there (a parent that is not a table).
 */
export function tomlSet(text: string, path: readonly string[], slot: Slot, like?: string): string | undefined {
	const edited = tomlEdit(text, path, slot, like)
	if (edited !== undefined) return edited
	const value = tomlValue(text)
	if (value === undefined || path.length === 0) return undefined
	// The edit did not come out right: the file printed again from its value (its comments are lost).
	const next = setIn(asJson(value), path, slot)
	if (next === undefined) return undefined
	try {
		return stringifyToml(next)
	} catch {
		return undefined
	}
}

/**
 * Can the value at `path` be set and removed by editing its lines, comments and all, as a local key is kept
 * (docs/sync-model.md)? Not inside an inline table (`env = { TOKEN = "…" }`) or a list of tables.
 */
export function tomlEditable(text: string, path: readonly string[]): boolean {
	return ['cfgsync probe', MISSING].every((slot) => tomlEdit(text, path, slot as Slot) !== undefined)
}

/**
 * A table set over a table: key by key, so its place, its comments and every
 * key that did not change stay as they are (docs/sync-model.md: a local key
 * masks values only, never the lines around them). Undefined when a key
 * cannot be edited in place (an inline table).
 */
function tableEdit(
	text: string,
	path: readonly string[],
	slot: Record<string, Json>,
	like?: string
): string | undefined {
	const current = tomlGet(tomlValue(text), path)
	if (!isObject(current)) return undefined
	let out = text
	for (const key of [...Object.keys(current), ...Object.keys(slot).filter((k) => !Object.hasOwn(current, k))]) {
		const next = tomlEdit(out, [...path, key], Object.hasOwn(slot, key) ? (slot[key] as Json) : MISSING, like)
		if (next === undefined) return undefined
		out = next
	}
	return out
}

/** `key = value  # comment` with its value replaced, its key, spacing and comment kept; undefined when the line is no such line. */
function withLineValue(line: string, slot: Json): string | undefined {
	const eq = line.indexOf('=')
	if (eq < 0) return undefined
	const rest = line.slice(eq + 1)
	const lead = /^\s*/.exec(rest)?.[0] ?? ''
	let comment = ''
	for (let at = rest.indexOf('#'); at >= 0; at = rest.indexOf('#', at + 1)) {
		const before = rest.slice(0, at)
		if (tomlValue(`x =${before}`) !== undefined) {
			comment = `${/\s*$/.exec(before)?.[0] ?? ''}${rest.slice(at)}`
			break
		}
	}
	return `${line.slice(0, eq + 1)}${lead}${inline(slot)}${comment}`
}

/** `tomlSet` by editing lines only: undefined when that cannot give exactly the value asked for. */
function tomlEdit(text: string, path: readonly string[], slot: Slot, like?: string): string | undefined {
	const value = tomlValue(text)
	if (value === undefined || path.length === 0) return undefined
	if (same(tomlGet(value, path), slot)) return text
	for (let i = 1; i < path.length; i++) {
		const parent = tomlGet(value, path.slice(0, i))
		if (parent !== MISSING && !isObject(parent)) return undefined
	}
	if (isObject(slot)) {
		const edited = tableEdit(text, path, slot, like)
		if (edited !== undefined && sameExcept(asJson(tomlValue(edited)), asJson(value), path, slot)) return edited
	}
	const eol = eolOf(text)
	const lines = stripBom(text).split(/\r?\n/)
	const cut = span(lines, lineInfo(lines), path)
	// A value set again on its one line: only the value changes, its comment stays.
	if (cut?.table !== undefined && cut.end - cut.start === 1 && slot !== MISSING && !isObject(slot)) {
		const line = withLineValue(lines[cut.start] as string, slot)
		if (line !== undefined) {
			lines[cut.start] = line
			const edited = (hasBom(text) ? '\uFEFF' : '') + lines.join(eol)
			const check = tomlValue(edited)
			if (check !== undefined && sameExcept(asJson(check), asJson(value), path, slot)) return edited
			lines.splice(0, lines.length, ...stripBom(text).split(/\r?\n/))
		}
	}
	if (cut !== undefined) {
		// A section taken out takes one of the blank lines around it, so the lines left read as before it was added.
		const blank = (i: number) => i >= 0 && i < lines.length && (lines[i] as string).trim() === ''
		const extra =
			cut.table === undefined && blank(cut.start - 1) && (blank(cut.end) || cut.end === lines.length) ? 1 : 0
		lines.splice(cut.start - extra, cut.end - cut.start + extra)
	}
	const placed = cut === undefined && isObject(slot) ? sectionAsIn(lines, like, path) : undefined
	if (placed !== undefined) {
		const edited = (hasBom(text) ? '\uFEFF' : '') + placed.join(eol)
		const check = tomlValue(edited)
		if (check !== undefined && sameExcept(asJson(check), asJson(value), path, slot)) return edited
	}
	if (isObject(slot)) {
		// A table is its own section, at the end of the file.
		while (lines.length > 0 && (lines.at(-1) as string).trim() === '') lines.pop()
		lines.push(
			'',
			`[${keyText(path)}]`,
			...Object.keys(slot).map((key) => `${bare(key)} = ${inline(slot[key] as Json)}`),
			''
		)
	} else if (slot !== MISSING) {
		// A key set again stays on its line; a new one goes beside its neighbours in `like` (the copy it comes
		// from), so that a line-by-line merge sees the same order on both sides, else at the end of its table.
		const spot =
			cut?.table !== undefined
				? { at: cut.start, rest: path.slice(cut.table.length) }
				: (beside(lines, like, path) ?? insertion(lines, lineInfo(lines), path))
		lines.splice(spot.at, 0, `${keyText(spot.rest)} = ${inline(slot)}`)
	}
	const edited = (hasBom(text) ? '\uFEFF' : '') + lines.join(eol)
	const check = tomlValue(edited)
	return check !== undefined && sameExcept(asJson(check), asJson(value), path, slot) ? edited : undefined
}

/** Is `after` the `before` with `path` set, empty tables aside (a table whose last key went may go with it)? */
export function sameExcept(after: Json, before: Json, path: readonly string[], slot: Slot): boolean {
	const expected = setIn(before, path, slot)
	return expected !== undefined && same(pruned(after), pruned(expected))
}

function pruned(value: Json): Json {
	if (!isObject(value)) return value
	const out: Record<string, Json> = {}
	for (const key of Object.keys(value)) {
		const child = pruned(value[key] as Json)
		if (!(isObject(child) && Object.keys(child).length === 0)) define(out, key, child)
	}
	return out
}

/** A copy of an object with the value at `path` set (MISSING: removed); parents made as needed. */
export function setIn(root: Json, path: readonly string[], slot: Slot): Json | undefined {
	if (path.length === 0) return slot === MISSING ? undefined : slot
	if (!isObject(root)) return undefined
	const [head, ...rest] = path as [string, ...string[]]
	const copy: Record<string, Json> = {}
	for (const key of Object.keys(root)) define(copy, key, root[key] as Json)
	const child = Object.hasOwn(root, head) ? (root[head] as Json) : MISSING
	if (rest.length === 0) {
		if (slot === MISSING) delete copy[head]
		else define(copy, head, slot)
	} else {
		if (child === MISSING && slot === MISSING) return root
		const next = setIn(child === MISSING ? {} : child, rest, slot)
		if (next === undefined) return undefined
		define(copy, head, next)
	}
	return copy
}

function define(target: Record<string, Json>, key: string, value: Json): void {
	Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
}
