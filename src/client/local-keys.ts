import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { writeAtomically } from './files'
import { sha256 } from './hash'
import { stateDir } from './paths'
import { type Files, ownValue } from './sync/engine'
import {
	entriesOf,
	hasKeys,
	everywhereIn,
	ignoredSettings,
	type Kept,
	keptFrom,
	keyText,
	type LocalEntry,
	sameEntry,
	valueAt
} from './sync/local-keys'
import { knownFiles, localKey, shown } from './tools'
import { readLocal } from './files'
import { isObject, type Json, MISSING, parseJsonc, same } from './sync/json'
import { tomlValue } from './sync/toml-edit'
import type { Tool } from '../shared/constants'
import { getState } from './state'

/**
 * Where this machine's local keys live (docs/sync-model.md, "Settings that
 * stay on one machine"): one small file per config beside the client's state,
 * $XDG_STATE_HOME/cfgsync/local-keys/<config>.json, so they outlast the
 * config's state (a config synced again later keeps them) and never travel.
 */

const dir = () => join(stateDir(), 'local-keys')
const fileOf = (configKey: string) => join(dir(), `${sha256(configKey).slice(0, 24)}.json`)

/** The keys and files made local on this machine alone (`cfgsync local`), for one config. */
export function machineEntries(configKey: string): LocalEntry[] {
	try {
		return entriesOf(readFileSync(fileOf(configKey), 'utf8'))
	} catch {
		return []
	}
}

export function setMachineEntries(configKey: string, entries: LocalEntry[]): void {
	mkdirSync(dir(), { recursive: true, mode: 0o700 })
	const body = { config: configKey, local: entries.map((e) => (e.path === undefined ? { file: e.file } : e)) }
	writeAtomically(fileOf(configKey), `${JSON.stringify(body, null, 2)}\n`, 0o600)
}

export type Origin = 'here' | 'everywhere' | 'ignoredSettings' | 'personal'

/** Every local key of a config on this machine, and where it comes from. */
export function localEntries(
	configKey: string,
	remote: Files | undefined,
	local: Files | undefined
): { entry: LocalEntry; origin: Origin }[] {
	const out: { entry: LocalEntry; origin: Origin }[] = []
	const add = (entry: LocalEntry, origin: Origin) => {
		if (!out.some((o) => sameEntry(o.entry, entry))) out.push({ entry, origin })
	}
	for (const entry of machineEntries(configKey)) add(entry, 'here')
	for (const entry of everywhereIn(remote)) add(entry, 'everywhere')
	const editorKeys = new Set([...Object.keys(remote ?? {}), ...Object.keys(local ?? {})])
	for (const key of editorKeys)
		for (const entry of ignoredSettings(key, ownValue(local, key), ownValue(remote, key))) add(entry, 'ignoredSettings')
	return out
}

/**
 * Personal stays personal (docs/sync-model.md): what a team config on this
 * machine never sends, on top of its own local keys — the local keys of the
 * personal config of the same tool and name (this machine's, and its
 * `--everywhere` list as last synced), and the values that came from the
 * personal config: a key the team's copy of a file does not hold and never
 * held here (not in the team config's base), whose value here is the personal
 * config's as last synced. Computed on each run, never stored: an edit of such
 * a value here, made since, is the team's to receive.
 */
export function personalEntries(
	personalKey: string,
	local: Files,
	remote: Files | undefined,
	teamBase: Record<string, { content?: string }> | undefined
): Located[] {
	const personal = getState(personalKey)
	const out: Located[] = []
	const add = (entry: LocalEntry) => {
		if (out.length < MAX_PERSONAL && !out.some((o) => sameEntry(o.entry, entry)))
			out.push({ entry, origin: 'personal' })
	}
	for (const entry of machineEntries(personalKey)) add(entry)
	for (const entry of entriesOf(personal?.everywhere)) add(entry)
	for (const [file, here] of Object.entries(local)) {
		const there = ownValue(remote, file)
		const mine = ownValue(personal?.files, file)?.content
		if (there === undefined || mine === undefined || !hasKeys(file) || here === there) continue
		const base = ownValue(teamBase, file)?.content
		for (const path of onlyHere(parsedOf(file, here), parsedOf(file, there), [])) {
			const value = valueAt(file, here, path)
			if (value !== MISSING && valueAt(file, base, path) === MISSING && same(valueAt(file, mine, path), value))
				add({ file, path })
		}
	}
	return out
}

/** How many keys a team config keeps back for the personal config, at most. */
const MAX_PERSONAL = 200

const parsedOf = (file: string, text: string): Json | undefined =>
	/\.toml$/i.test(file) ? (tomlValue(text) as Json | undefined) : parseJsonc(text)?.value

/** The paths of keys `here` holds that `there` does not, as deep as both hold objects (at most 2,000). */
function onlyHere(here: Json | undefined, there: Json | undefined, path: string[], found: string[][] = []): string[][] {
	if (!isObject(here) || !isObject(there) || path.length > 32) return found
	for (const key of Object.keys(here)) {
		if (found.length >= 2_000) break
		if (!Object.hasOwn(there, key)) found.push([...path, key])
		else onlyHere(here[key] as Json, there[key] as Json, [...path, key], found)
	}
	return found
}

/** What the engine keeps to this machine for a config (Sides.kept). */
export const keptFor = (configKey: string, remote: Files | undefined, local: Files | undefined): Kept =>
	keptFrom(localEntries(configKey, remote, local).map((o) => o.entry))

export type Located = { entry: LocalEntry; origin: Origin }

/** The --json form of a local key: its file as a config key and here, the key (null: the whole file), where it comes from. */
export const localJson = (o: Located) => ({
	path: o.entry.file,
	file: shown(o.entry.file),
	key: keyText(o.entry.path) ?? null,
	origin: o.origin
})

/** How many words `cfgsync __complete keys TOOL` offers at most. */
const COMPLETIONS_CAP = 1000

/**
 * The keys a Tab offers after `cfgsync local TOOL`: every key of the tool's
 * JSON, JSONC and TOML files here (objects followed down, lists not: a key
 * inside a list entry cannot be local), prefixed with the file when the
 * tool has several such files here, and the files themselves. Read from
 * this machine only, so a Tab never waits on the network.
 */
export function settingWords(tool: Tool): string[] {
	const files = readLocal(knownFiles(tool).filter(hasKeys))
	const keys = Object.keys(files).sort()
	const out: string[] = []
	for (const key of keys) {
		const path = `~/${localKey(key) ?? key}`
		out.push(path)
		const text = files[key] as string
		const value = /\.toml$/i.test(key) ? tomlValue(text) : parseJsonc(text)?.value
		const walk = (at: unknown, trail: string[]) => {
			if (out.length >= COMPLETIONS_CAP || !isObject(at as Json) || trail.length > 6) return
			for (const name of Object.keys(at as object)) {
				const next = [...trail, name]
				const text = keyText(next) as string
				out.push(keys.length > 1 ? `${path}:${text}` : text)
				walk((at as Record<string, unknown>)[name], next)
			}
		}
		walk(value, [])
	}
	return out.slice(0, COMPLETIONS_CAP)
}
