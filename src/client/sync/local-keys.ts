import { LOCAL_KEYS_FILE, type LocalKey, localKeysOf, MAX_LOCAL_KEYS } from '../../shared/config-files'
import { isJsonKey, isObject, type Json, MISSING, parseJsonc, rewrite, type Slot, same } from './json'
import { setIn, tomlGet, tomlSet, tomlValue } from './toml-edit'

/**
 * Settings that stay on one machine (docs/sync-model.md): keys of a config's
 * JSON, JSONC or TOML files, or whole files, that this machine keeps to
 * itself. Pure functions on the engine's three-way merge: on the way out a
 * local key's value is masked (replaced by the server's, or left out when the
 * server has none), so the merge never sees it change, never sends it and
 * never calls it a conflict; on the way in every write puts this machine's
 * value back (or leaves the key absent when it was absent here).
 */

/** One local key (`path`) of a file, or the whole file (no `path`). `file` is the config's key for it. */
export type LocalEntry = LocalKey

/** Per file: local on the whole, or these paths. */
export interface KeptFile {
	whole: boolean
	paths: string[][]
}
export type Kept = Record<string, KeptFile>

/**
 * The list kept in the config itself by `cfgsync local --everywhere`, so it
 * versions, diffs and rolls back with the files. It is never written here:
 * the client reads it from the server's data.
 */
export const EVERYWHERE_FILE = LOCAL_KEYS_FILE

/** VS Code's, Cursor's and Windsurf's settings.json, where `settingsSync.ignoredSettings` counts. */
export const isEditorSettings = (key: string): boolean => /^@(Code|Cursor|Windsurf)\/User\/settings\.json$/.test(key)

export const sameEntry = (a: LocalEntry, b: LocalEntry): boolean =>
	a.file === b.file && (a.path ?? []).join('\0') === (b.path ?? []).join('\0') && !!a.path === !!b.path

export function keptFrom(entries: readonly LocalEntry[]): Kept {
	const kept: Kept = Object.create(null)
	for (const entry of entries) {
		const file = kept[entry.file] ?? { whole: false, paths: [] }
		kept[entry.file] = file
		if (entry.path === undefined) file.whole = true
		else if (!file.paths.some((p) => same(p, entry.path as string[]))) file.paths.push(entry.path)
	}
	return kept
}

/** The `--everywhere` list in a config's data (an unreadable one counts as empty). */
export function everywhereIn(files: Record<string, string> | undefined): LocalEntry[] {
	return entriesOf(files !== undefined && Object.hasOwn(files, EVERYWHERE_FILE) ? files[EVERYWHERE_FILE] : undefined)
}

/** A `{"local": [{"file", "path"?}]}` list (the --everywhere file, or this machine's own); anything else counts for nothing. */
export const entriesOf = (text: string | undefined): LocalEntry[] => localKeysOf(text)

/** The `--everywhere` list as the file's text. */
export const everywhereText = (entries: readonly LocalEntry[]): string =>
	`${JSON.stringify({ local: entries.map((e) => (e.path === undefined ? { file: e.file } : e)) }, null, 2)}\n`

/** Settings a VS Code family editor's own `settingsSync.ignoredSettings` names, in any of the given copies of the file. */
export function ignoredSettings(key: string, ...copies: (string | undefined)[]): LocalEntry[] {
	if (!isEditorSettings(key)) return []
	const names = new Set<string>()
	for (const copy of copies) {
		const value = copy === undefined ? undefined : parseJsonc(copy)?.value
		const list = isObject(value) ? value['settingsSync.ignoredSettings'] : undefined
		// `-name` takes a setting VS Code ignores by default back into sync: nothing to keep here.
		if (Array.isArray(list))
			for (const name of list) if (typeof name === 'string' && !name.startsWith('-')) names.add(name)
	}
	return [...names].slice(0, MAX_LOCAL_KEYS).map((name) => ({ file: key, path: [name] }))
}

/** Files whose keys can be local: JSON (JSONC) and TOML. */
export const hasKeys = (key: string): boolean => isJsonKey(key) || /\.toml$/i.test(key)

/** The value at `path` in a file's text (MISSING: absent, or the file is absent or does not parse). */
export function valueAt(key: string, text: string | undefined, path: readonly string[]): Slot {
	if (text === undefined) return MISSING
	if (isJsonKey(key)) {
		const parsed = parseJsonc(text)
		return parsed === undefined ? MISSING : jsonGet(parsed.value, path)
	}
	return tomlGet(tomlValue(text), path)
}

function jsonGet(value: Json, path: readonly string[]): Slot {
	let at: Slot = value
	for (const part of path) {
		if (!isObject(at) || !Object.hasOwn(at, part)) return MISSING
		at = at[part] as Json
	}
	return at
}

/** The text with the value at `path` set (MISSING: removed), its comments and formatting kept; as it was when it cannot be. */
export function withValue(key: string, text: string, path: readonly string[], slot: Slot, like?: string): string {
	if (isJsonKey(key)) {
		const parsed = parseJsonc(text)
		if (parsed === undefined || same(jsonGet(parsed.value, path), slot)) return text
		const next = setIn(parsed.value, path, slot)
		if (next === undefined) return text
		return rewrite(text, parsed.value, next) ?? `${JSON.stringify(next, null, 2)}\n`
	}
	return tomlSet(text, path, slot, like) ?? text
}

/**
 * What the engine judges and sends for this machine's copy (or the base):
 * the text with each local key's value replaced by `source`'s (the server's
 * copy), or removed when the server has none; a whole local file is the
 * server's copy itself.
 */
export function masked(
	key: string,
	text: string | undefined,
	source: string | undefined,
	kept: KeptFile
): string | undefined {
	if (kept.whole) return source
	if (text === undefined || !hasKeys(key)) return text
	return withValuesOf(key, text, source, kept.paths)
}

/**
 * What a write here becomes: `content` with each local key as it is `here`
 * (absent here: left out). A whole local file is never written. A file the
 * pull removes is removed (its local keys with it).
 */
export function keptHere(key: string, content: string | null, here: string | undefined, kept: KeptFile): string | null {
	if (kept.whole) return here ?? null
	if (content === null || !hasKeys(key)) return content
	return withValuesOf(key, content, here, kept.paths)
}

/**
 * A file that goes away (discard of a file never synced here) but holds keys that stay on this machine:
 * a file of those keys alone, as they are here; null when it holds none of them (or they are the whole file's).
 */
export function keptAlone(key: string, here: string | undefined, kept: KeptFile): string | null {
	if (kept.whole || here === undefined || !hasKeys(key)) return null
	const empty = isJsonKey(key) ? '{}\n' : ''
	const alone = withValuesOf(key, empty, here, kept.paths)
	return alone === empty ? null : alone
}

/** `text` with each of `paths` as `source` has it; each text parsed once for JSON, so the cost grows with the file, not with paths × file. */
function withValuesOf(key: string, text: string, source: string | undefined, paths: string[][]): string {
	if (!isJsonKey(key)) {
		const from = source === undefined ? undefined : tomlValue(source)
		let out = text
		for (const path of paths)
			out = withValue(key, out, path, source === undefined ? MISSING : tomlGet(from, path), source)
		return out
	}
	const parsed = parseJsonc(text)
	if (parsed === undefined) return text
	const from = source === undefined ? undefined : parseJsonc(source)
	let next: Json = parsed.value
	for (const path of paths) next = setIn(next, path, from === undefined ? MISSING : jsonGet(from.value, path)) ?? next
	if (same(next, parsed.value)) return text
	return rewrite(text, parsed.value, next) ?? `${JSON.stringify(next, null, 2)}\n`
}

/** A KEY as typed: segments, each quoted (taken literally) or plain (matched as a key, then split at its dots). */
export interface KeySegment {
	text: string
	quoted: boolean
}

export function parseKey(text: string): KeySegment[] | undefined {
	const segments: KeySegment[] = []
	let i = 0
	while (i < text.length) {
		if (text[i] === '"') {
			const end = text.indexOf('"', i + 1)
			if (end < 0 || end === i + 1) return undefined
			segments.push({ text: text.slice(i + 1, end), quoted: true })
			i = end + 1
		} else {
			let end = i
			while (end < text.length && !(text[end] === '.' && text[end + 1] === '"')) end++
			const plain = text.slice(i, end)
			if (plain === '' || plain.startsWith('.') || plain.endsWith('.') || plain.includes('..')) return undefined
			segments.push({ text: plain, quoted: false })
			i = end
		}
		if (i < text.length) {
			if (text[i] !== '.') return undefined
			i++
			if (i === text.length) return undefined
		}
	}
	return segments.length > 0 ? segments : undefined
}

export type Resolved = { path: string[] } | { error: string }

/**
 * A KEY's path in a file's value: each plain segment is matched first as one
 * literal key at its level (VS Code's `editor.fontSize`), then split at a dot
 * into a key that exists and the rest. A key that does not exist yet is
 * taken as one literal key in an editor's settings.json (as VS Code writes
 * them) and as a dotted path elsewhere. Arrays are refused: an array entry
 * has no stable name to keep.
 */
export function resolveKey(value: Slot, segments: KeySegment[], literalWhenNew: boolean): Resolved {
	const path: string[] = []
	let at: Slot = value
	const step = (key: string): string | undefined => {
		if (Array.isArray(at))
			return `${path.join('.') || 'the file'} is a list: a key inside a list entry cannot be local (make the whole list local instead)`
		path.push(key)
		at = isObject(at) && Object.hasOwn(at, key) ? (at[key] as Json) : MISSING
		return undefined
	}
	for (const segment of segments) {
		let rest = segment.text
		if (segment.quoted) {
			const error = step(rest)
			if (error) return { error }
			continue
		}
		while (rest !== '') {
			if (Array.isArray(at)) return { error: step(rest) as string }
			const object = isObject(at) ? at : undefined
			if (object && Object.hasOwn(object, rest)) {
				step(rest)
				break
			}
			const dots = [...rest.matchAll(/\./g)].map((m) => m.index as number)
			const prefix = object ? dots.find((i) => Object.hasOwn(object, rest.slice(0, i))) : undefined
			if (prefix !== undefined) {
				step(rest.slice(0, prefix))
				rest = rest.slice(prefix + 1)
				continue
			}
			// Nothing there yet.
			if (literalWhenNew) step(rest)
			else for (const part of rest.split('.')) step(part)
			break
		}
	}
	return { path }
}

/** A local key as a person reads and types it: `editor.fontSize`, `mcpServers.local-db`; a whole file: undefined. */
export const keyText = (path: readonly string[] | undefined): string | undefined =>
	path?.map((part) => (part === '' || /["]/.test(part) ? JSON.stringify(part) : part)).join('.')
