import { parse as parseToml } from 'smol-toml'
import { nameMatches, type KeyPath } from '../tools/descriptor'
import { RUNS_CODE, type RunsCodeRules } from '../tools/registry'
import { isJsonKey, isObject, parseJsonc, pathText, stableJson, type Json } from './json'

/**
 * Entries that make a tool run a program (docs/sync-model.md): the keys each
 * tool's descriptor names (src/client/tools/: Claude Code `hooks`,
 * `statusLine` and its helper commands, Gemini's tool commands, Codex
 * `notify`), MCP servers' entries in every tool's files, and script files. A
 * pull of content someone else pushed that adds or changes one is shown and
 * asked about first.
 */

/** Entry path → its content as stable JSON. */
export type Runnables = Map<string, string>

const SCRIPT = /\.(sh|bash|zsh|fish|ps1|bat|cmd|py|js|mjs|cjs|ts|rb|pl)$/i

const baseName = (key: string) => key.slice(key.lastIndexOf('/') + 1)

/** Can this file hold runnable entries at all? */
export function mayRun(key: string): boolean {
	return isJsonKey(key) || /\.toml$/i.test(key) || SCRIPT.test(key)
}

/** The runnable entries of one file; `unparseable` when a file that may hold some cannot be read. */
export function runnables(key: string, content: string | undefined): Runnables | 'unparseable' {
	const found: Runnables = new Map()
	if (content === undefined) return found
	if (SCRIPT.test(key) || content.startsWith('#!')) {
		found.set('(the whole file)', JSON.stringify(content))
		return found
	}
	if (isJsonKey(key)) {
		const parsed = parseJsonc(content)
		if (!parsed) return 'unparseable'
		fromRules(key, parsed.value, RUNS_CODE.json, found)
	} else if (/\.toml$/i.test(key)) {
		let table: unknown
		try {
			table = parseToml(content.replace(/^\uFEFF/, ''))
		} catch {
			return 'unparseable'
		}
		fromRules(key, table as Json, RUNS_CODE.toml, found)
	}
	return found
}

/** Where `path` leads in `value`: each match's concrete path and value (`*` in a name matches any characters). */
function* at(value: Json, path: KeyPath, prefix: (string | number)[] = []): Generator<[(string | number)[], Json]> {
	if (path.length === 0) {
		yield [prefix, value]
		return
	}
	if (!isObject(value)) return
	const [name, ...rest] = path as [string, ...string[]]
	const names = name.includes('*')
		? Object.keys(value).filter((key) => nameMatches(name, key))
		: has(value, name)
			? [name]
			: []
	for (const key of names) yield* at(value[key] as Json, rest, [...prefix, key])
}

/** The entries the descriptors' rules find in one parsed file. */
function fromRules(key: string, value: Json, rules: RunsCodeRules, found: Runnables): void {
	if (!isObject(value)) return
	for (const path of rules.commands)
		for (const [where, command] of at(value, path)) found.set(pathText(where), stableJson(command))
	for (const path of rules.hooks) {
		for (const [where, hooks] of at(value, path)) {
			if (!isObject(hooks)) {
				found.set(pathText(where), stableJson(hooks))
				continue
			}
			for (const event of Object.keys(hooks)) {
				const groups = hooks[event] as Json
				if (Array.isArray(groups)) {
					for (const [i, group] of groups.entries()) found.set(pathText([...where, event, i]), stableJson(group))
				} else found.set(pathText([...where, event]), stableJson(groups))
			}
		}
	}
	for (const rule of rules.mcp) {
		if (rule.onlyIn !== undefined && baseName(key).toLowerCase() !== rule.onlyIn) continue
		for (const [where, servers] of at(value, rule.path)) {
			if (!isObject(servers)) continue
			for (const name of Object.keys(servers)) {
				const server = servers[name] as Json
				if (rule.runs === 'entry') {
					found.set(pathText([...where, name]), stableJson(jsonOf(server)))
					continue
				}
				if (!isObject(server)) {
					found.set(pathText([...where, name]), stableJson(server))
					continue
				}
				const picked: { [key: string]: Json } = {}
				for (const field of rule.runs) if (has(server, field)) picked[field] = server[field] as Json
				if (Object.keys(picked).length > 0) found.set(pathText([...where, name]), stableJson(picked))
			}
		}
	}
}

/** TOML dates and other objects as plain JSON, so entries compare by content. */
const jsonOf = (value: unknown): Json => JSON.parse(JSON.stringify(value ?? null)) as Json

const has = (object: object, key: string) => Object.hasOwn(object, key)

export interface RunnableChange {
	path: string
	/** Stable JSON before (absent: the entry is new). */
	before?: string
	/** Stable JSON after, or a note when the file cannot be read. */
	after: string
}

/** The runnable entries a write adds or changes (removals run nothing and are not listed). */
export function runnableChanges(key: string, before: string | undefined, after: string | null): RunnableChange[] {
	if (after === null || (!mayRun(key) && !after.startsWith('#!'))) return []
	const next = runnables(key, after)
	if (next === 'unparseable')
		return [
			{
				path: '(the whole file)',
				after: 'cannot be read as JSON or TOML, so what it runs cannot be shown: look at the file itself'
			}
		]
	const previous = runnables(key, before)
	const old = previous === 'unparseable' ? new Map<string, string>() : previous
	const changes: RunnableChange[] = []
	for (const [path, value] of next) {
		const was = old.get(path)
		if (was !== value) changes.push({ path, before: was, after: value })
	}
	return changes
}
