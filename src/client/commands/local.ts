import { join } from 'node:path'
import type { Tool } from '../../shared/constants'
import { ApiError } from '../api'
import { type Session, tool as toolArg } from '../context'
import { readLocal } from '../files'
import { withLock } from '../lock'
import { type Located, localEntries, localJson, machineEntries, setMachineEntries } from '../local-keys'
import { CliFailure, EXIT, failure, safe, type Printer } from '../output'
import { home } from '../paths'
import { fetchRemote, type Remote, resolveTarget, type Target } from '../run'
import { isToolFile } from '../scope'
import { getState } from '../state'
import { type Files, ownValue } from '../sync/engine'
import { isObject, parseJsonc } from '../sync/json'
import {
	EVERYWHERE_FILE,
	everywhereIn,
	everywhereText,
	hasKeys,
	isEditorSettings,
	keyText,
	type LocalEntry,
	parseKey,
	resolveKey,
	sameEntry
} from '../sync/local-keys'
import { tomlEditable, tomlValue } from '../sync/toml-edit'
import { homeRelative, knownFiles, partOf, shown } from '../tools'
import { defineCommand, type Input, TARGET, TOOL } from './command'

export const LOCAL_HELP = `cfgsync local TOOL [-n|--name N] [--team SLUG] [--remove] [--everywhere] [KEY|PATH...]

Settings that stay on this machine: a local key's value here is never sent
(a push sends the server's value, or leaves the key out when the server has
none) and never written over or deleted by a pull; it is never a conflict.
The other keys of the same file sync as before.

KEY is a dotted path into a JSON, JSONC or TOML file of the config:
editor.fontSize, permissions.additionalDirectories, mcpServers.local-db,
prefixed with the file when the config has several
(~/.claude/settings.json:model). Each part is matched first as one key at
its level (VS Code's editor.fontSize is one key), then as a dotted path;
quotes force one key ('"[python]".editor.tabSize'). A key inside a list
entry or a TOML inline table cannot be local. A PATH makes a whole file local.

Without KEY, lists the config's local keys: this machine's, those local on
every machine, and those VS Code's, Cursor's or Windsurf's own
settingsSync.ignoredSettings names.
  --remove      shares the keys again
  --everywhere  records the keys in the config itself (${EVERYWHERE_FILE}),
                so they are local on every machine that syncs it; with
                --remove, takes them out of that list`

const options = { ...TARGET, remove: { type: 'boolean' }, everywhere: { type: 'boolean' } } as const

/** The config's files that have keys (JSON, JSONC, TOML): here, synced before or on the server. */
function keyedFiles(tool: Tool, remote: Files | undefined, local: Files, synced: string[]): string[] {
	const keys = new Set([...knownFiles(tool), ...Object.keys(remote ?? {}), ...synced])
	return [...keys]
		.filter((key) => key !== EVERYWHERE_FILE && hasKeys(key) && isToolFile(tool, key))
		.filter((key) => ownValue(local, key) !== undefined || ownValue(remote, key) !== undefined)
		.sort()
}

/** A `~/…` or absolute path as the config's key for it; undefined when it names no file of the tool. */
function fileKey(tool: Tool, path: string): string | undefined {
	if (!path.startsWith('~/') && !path.startsWith('/')) return undefined
	const key = homeRelative(path.startsWith('~/') ? join(home(), path.slice(2)) : path)
	return key !== undefined && isToolFile(tool, key) ? key : undefined
}

function parsedValue(key: string, text: string | undefined): unknown {
	if (text === undefined) return undefined
	return hasKeys(key) && /\.toml$/i.test(key) ? tomlValue(text) : parseJsonc(text)?.value
}

/** One KEY or PATH argument as a local entry (usage errors name the argument). */
function entryFor(tool: Tool, word: string, files: string[], remote: Files | undefined, local: Files): LocalEntry {
	const usage = (why: string) => new CliFailure(`${safe(word)}: ${why} (see cfgsync local --help)`, EXIT.usage)
	let file: string | undefined
	let keyPart = word
	// A file prefix: the longest `~/…` or absolute path before a ":" that names a file of the tool.
	for (let i = word.lastIndexOf(':'); i > 0; i = word.lastIndexOf(':', i - 1)) {
		const key = fileKey(tool, word.slice(0, i))
		if (key !== undefined) {
			file = key
			keyPart = word.slice(i + 1)
			break
		}
	}
	if (file === undefined) {
		const whole = fileKey(tool, word)
		if (whole !== undefined) return { file: whole }
		if (word.startsWith('~/') || word.startsWith('/'))
			throw usage(`not a ${tool} file (nor one followed by :KEY); a config holds only its tool's files`)
	}
	const segments = parseKey(keyPart)
	if (segments === undefined) throw usage('not a key: parts are separated by single dots, quotes around a part')
	// A file of which one member is synced (~/.claude.json's mcpServers) holds that member only: the KEY starts with it.
	const inFile = (key: string) => {
		const m = partOf(key)?.member
		const first = segments[0] as { text: string; quoted: boolean }
		return m === undefined || first.text === m || (!first.quoted && first.text.startsWith(`${m}.`))
			? segments
			: undefined
	}
	if (file !== undefined && partOf(file) === undefined) {
		const whole = files.find((key) => partOf(key)?.file === file)
		if (whole !== undefined) file = whole
	}
	let candidates = file !== undefined ? [file] : files.filter((key) => inFile(key) !== undefined)
	if (candidates.length > 1) {
		// Several files could hold it: the one where it exists, if only one does.
		const holding = candidates.filter((key) => {
			const rest = inFile(key)
			const value = parsedValue(key, ownValue(local, key) ?? ownValue(remote, key))
			const found = rest && resolveKey(value as never, rest, isEditorSettings(key))
			return found && 'path' in found && exists(value, found.path)
		})
		if (holding.length === 1) candidates = holding
		else
			throw usage(
				`the config has several files with keys; name the file: ${candidates.map((key) => `${shown(key).replace(/ \(.*\)$/, '')}:${keyPart}`).join(' or ')}`
			)
	}
	const target = candidates[0]
	const rest = target === undefined ? undefined : inFile(target)
	if (target === undefined || rest === undefined)
		throw usage(`the config has no JSON, JSONC or TOML file for it here or on the server`)
	const text = ownValue(local, target) ?? ownValue(remote, target)
	const value = parsedValue(target, text)
	const resolved = resolveKey((value ?? {}) as never, rest, isEditorSettings(target))
	if ('error' in resolved) throw usage(resolved.error)
	// A key is kept by editing its lines; inside an inline table that cannot be done without printing the
	// whole file again, which would drop its comments on every pull.
	if (text !== undefined && /\.toml$/i.test(target) && !tomlEditable(text, resolved.path))
		throw usage(
			`${keyText(resolved.path)} is inside an inline table or a list of tables: a key there cannot be local (make ${keyText(resolved.path.slice(0, -1)) || 'the file'} local instead)`
		)
	return { file: target, path: resolved.path }
}

function exists(value: unknown, path: string[]): boolean {
	let at = value
	for (const part of path) {
		if (!isObject(at as never) || !Object.hasOwn(at as object, part)) return false
		at = (at as Record<string, unknown>)[part]
	}
	return true
}

const named = (e: LocalEntry) => {
	const file = shown(e.file)
	const key = keyText(e.path)
	return key === undefined ? `${file} (the whole file)` : `${file}: ${key}`
}

const WHERE: Record<Located['origin'], string> = {
	here: 'this machine',
	everywhere: `every machine (${EVERYWHERE_FILE} in the config)`,
	ignoredSettings: "every machine (the editor's settingsSync.ignoredSettings)",
	personal: 'this machine, from its personal config (never sent to a team)'
}

/** The server's copy; offline, this machine's own list still works (only --everywhere needs the server). */
async function remoteOf(s: Session, t: Target, needed: boolean, out: Printer): Promise<Remote | undefined> {
	try {
		return (await fetchRemote(s, t)) as Remote | undefined
	} catch (error) {
		if (needed || !(error instanceof CliFailure) || error.code !== 'unreachable') throw error
		out.warn(`${error.message}: the keys local on every machine (the config's own list) are not known offline.`)
		return undefined
	}
}

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'local')
	const words = positionals.slice(1)
	if (words.length === 0 && (values.remove || values.everywhere))
		throw new CliFailure(
			`which keys? cfgsync local ${tool}${values.everywhere ? ' --everywhere' : ''}${values.remove ? ' --remove' : ''} KEY...`,
			EXIT.usage
		)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const remote = await remoteOf(s, t, values.everywhere === true, out)
	const synced = Object.keys(getState(t.key)?.files ?? {})
	const local = readLocal(
		knownFiles(tool)
			.filter((key) => !synced.includes(key))
			.concat(synced)
	)
	const list = () => localEntries(t.key, remote?.files, local)
	if (words.length === 0) return show(t, list(), values.json, out)
	const files = keyedFiles(tool, remote?.files, local, synced)
	const entries = words.map((word) => entryFor(tool, word, files, remote?.files, local))
	if (values.everywhere) {
		const done = await everywhere(s, t, remote, entries, values.remove === true)
		if (values.json)
			return out.json({ config: configOf(t), local: localEntries(t.key, done.files, local).map(localJson) })
		const it = entries.length === 1 ? 'it' : 'them'
		return out.say(
			values.remove
				? `${out.green('Shared again')} on every machine: ${entries.map(named).join(', ')} (version ${done.version} of ${t.label}). A machine that made ${it} local itself keeps ${it} so.`
				: `${out.green('Local on every machine')} that syncs ${t.label}: ${entries.map(named).join(', ')} (version ${done.version}).`
		)
	}
	await withLock(
		'local',
		async () => {
			const mine = machineEntries(t.key)
			if (values.remove) {
				const shared = list()
				const elsewhere = entries.filter(
					(e) => !mine.some((m) => sameEntry(m, e)) && shared.some((o) => sameEntry(o.entry, e))
				)
				if (elsewhere.length > 0) {
					const o = shared.find((x) => sameEntry(x.entry, elsewhere[0] as LocalEntry)) as Located
					throw new CliFailure(
						o.origin === 'everywhere'
							? `${named(o.entry)} is local on every machine (the config's list): cfgsync local ${tool}${t.args} --everywhere --remove ${safe(words[entries.indexOf(elsewhere[0] as LocalEntry)] ?? '')}`
							: `${named(o.entry)} is in the editor's own settingsSync.ignoredSettings: take it out of that list in settings.json`
					)
				}
				setMachineEntries(
					t.key,
					mine.filter((m) => !entries.some((e) => sameEntry(m, e)))
				)
			} else {
				const added = [...mine]
				for (const e of entries) if (!added.some((m) => sameEntry(m, e))) added.push(e)
				setMachineEntries(t.key, added)
			}
		},
		io.stderr
	)
	if (values.json) return out.json({ config: configOf(t), local: list().map(localJson) })
	out.say(
		values.remove
			? `${out.green('Shared again')}: ${entries.map(named).join(', ')} of ${t.label} sync${entries.length === 1 ? 's' : ''} like the other keys from the next sync.`
			: `${out.green('Local to this machine')}: ${entries.map(named).join(', ')} of ${t.label}: never sent, never written over by a pull.`
	)
}

/** Records the keys in (or, with remove, takes them out of) the config's own list: a new version of the config. */
async function everywhere(s: Session, t: Target, remote: Remote | undefined, entries: LocalEntry[], remove: boolean) {
	if (!remote)
		throw new CliFailure(
			`${t.label} is not on ${s.server}: --everywhere records keys in the config itself. Push it first: cfgsync push ${t.tool}${t.args}`
		)
	const before = everywhereIn(remote.files)
	const after = remove
		? before.filter((b) => !entries.some((e) => sameEntry(b, e)))
		: [...before, ...entries.filter((e) => !before.some((b) => sameEntry(b, e)))]
	const files: Files = { ...remote.files }
	if (after.length === before.length) return { version: remote.version, files }
	if (after.length === 0) delete files[EVERYWHERE_FILE]
	else files[EVERYWHERE_FILE] = everywhereText(after)
	const body = { name: t.name, tool: t.tool, data: { files }, ...(t.teamId ? { teamId: t.teamId } : {}) }
	try {
		const result = await s.api.configs.push(body, { ifMatch: [remote.hash] })
		return { version: ('version' in result ? result.version : undefined) ?? remote.version + 1, files }
	} catch (error) {
		if (error instanceof ApiError && error.code === 'precondition_failed')
			throw new CliFailure(`${t.label} changed on the server meanwhile; nothing was recorded. Run the command again.`)
		if (error instanceof ApiError)
			throw failure(error, { server: s.server, what: t.team ? `Team "${t.team}"` : undefined })
		throw error
	}
}

function show(t: Target, found: Located[], asJson: boolean | undefined, out: Printer) {
	if (asJson) return out.json({ config: configOf(t), local: found.map(localJson) })
	if (found.length === 0)
		return out.say(
			`No key of ${t.label} is local: every key syncs. To keep one to this machine: cfgsync local ${t.tool}${t.args} KEY`
		)
	out.say(`Local keys of ${t.label} (never sent, never written over by a pull):`)
	for (const o of found) out.say(`  ${safe(named(o.entry))}  (local on ${WHERE[o.origin]})`)
}

const configOf = (t: Target) => ({ tool: t.tool, name: t.name, team: t.team ?? t.teamId ?? null })

export const local = defineCommand({
	name: 'local',
	group: 'Sync',
	summary: 'keep settings to this machine',
	usage: ['local TOOL [KEY|PATH...] [--remove] [--everywhere]'],
	help: LOCAL_HELP,
	args: [TOOL, { name: 'KEY', completes: 'setting', repeats: true }],
	options,
	run
})
