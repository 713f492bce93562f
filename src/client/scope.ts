import { statSync } from 'node:fs'
import type { Tool } from '../shared/constants'
import { notRegular, notRegularWhy, safeTarget, scanDir } from './files'
import { CliFailure } from './output'
import type { Bases, Files } from './sync/engine'
import { EVERYWHERE_FILE } from './sync/local-keys'
import { knownDirs, knownFiles, shown, WELL_KNOWN } from './tools'

/**
 * Which files a command looks at for one config: the tool's well-known files,
 * the text files in its well-known directories, the files this machine synced
 * before, and the server's files inside those directories (so a file someone
 * added to ~/.claude/commands arrives); or only the PATHs named. A directory
 * over its caps is left out whole (named on the command line, it is an error),
 * so a cap never reads as "these files were deleted here".
 *
 * A config holds only its tool's files (docs/sync-model.md): a key that is
 * none of the tool's well-known files and lies in none of its well-known
 * directories is never in scope, whether the command line, the base or the
 * server's data names it (`~/.bashrc` is nobody's tool file).
 *
 * `heldOnly` (a team config): without PATHs, only the files the config
 * already holds here or on the server, never the tool's other files.
 */

/** A PATH argument naming a directory is marked with a final `/`. */
export const DIR_MARK = '/'

export interface Scope {
	keys: string[]
	/** Files and directories left out, and why (a directory over a cap, a file that is not text). */
	skipped: { key: string; why: string }[]
	/** Directories left out whole: the server's files under them are not "skipped" one by one. */
	excluded: string[]
	/** Keys named, in the base or on the server that are not the tool's files: never written or sent. */
	foreign: string[]
}

/** Is this key one of the tool's files: a well-known file, or inside a well-known directory (on any OS)? */
export function isToolFile(tool: Tool, key: string): boolean {
	const { files, dirs } = WELL_KNOWN[tool]
	// The config's list of keys local on every machine (`cfgsync local --everywhere`) is a member of every config.
	return key === EVERYWHERE_FILE || files.includes(key) || dirs.some((dir) => key.startsWith(`${dir}/`))
}

/** Is this PATH's key (a directory's ending in `/`) the tool's: one of its files, a directory of its or one inside? */
export function isToolPath(tool: Tool, key: string): boolean {
	const plain = key.endsWith(DIR_MARK) ? key.slice(0, -1) : key
	return isToolFile(tool, plain) || WELL_KNOWN[tool].dirs.includes(plain)
}

/** The tool's files and directories as a person reads them: `~/.gemini/settings.json, ~/.gemini/GEMINI.md`. */
export const toolFilesText = (tool: Tool): string =>
	[...WELL_KNOWN[tool].files.map(shown), ...WELL_KNOWN[tool].dirs.map((dir) => `${shown(dir)}/`)].join(', ')

const under = (dir: string) => (key: string) => key.startsWith(`${dir}/`)

export function scopeFor(
	tool: Tool,
	sides: { named?: string[]; base?: Bases; remote?: Files; heldOnly?: boolean }
): Scope {
	const baseKeys = Object.keys(sides.base ?? {})
	const remoteKeys = Object.keys(sides.remote ?? {})
	const keys = new Set<string>()
	const skipped: Scope['skipped'] = []
	const excluded: string[] = []
	const named = sides.named
	const dirs: { key: string; named: boolean }[] = []
	const foreignNamed: string[] = []
	if (named) {
		for (const entry of named) {
			if (!isToolPath(tool, entry)) foreignNamed.push(entry.endsWith(DIR_MARK) ? entry.slice(0, -1) : entry)
			else if (entry.endsWith(DIR_MARK)) dirs.push({ key: entry.slice(0, -1), named: true })
			// A PATH that is no file anywhere but has files under it on the server or in the base is a directory too.
			else if (
				!localFile(entry) &&
				!baseKeys.includes(entry) &&
				!remoteKeys.includes(entry) &&
				[...baseKeys, ...remoteKeys].some(under(entry))
			)
				dirs.push({ key: entry, named: true })
			else keys.add(entry)
		}
	} else if (sides.heldOnly) {
		// A team config without PATHs is only the files it already holds (docs/sync-model.md, "One file, one owner").
		for (const key of [...baseKeys, ...remoteKeys]) keys.add(key)
	} else {
		for (const key of knownFiles(tool)) keys.add(key)
		for (const key of baseKeys) keys.add(key)
		for (const key of knownDirs(tool)) dirs.push({ key, named: false })
	}
	for (const dir of dirs) {
		const scan = scanDir(dir.key)
		if (scan.over) {
			if (dir.named)
				throw new CliFailure(
					`${shown(dir.key)} holds ${scan.over}; nothing was done. Sync the files you need by name, or move some out of it.`
				)
			skipped.push({ key: dir.key, why: scan.over })
			excluded.push(dir.key)
			continue
		}
		for (const key of [...scan.keys, ...baseKeys.filter(under(dir.key)), ...remoteKeys.filter(under(dir.key))])
			keys.add(key)
		skipped.push(...scan.skipped)
	}
	for (const dir of excluded) for (const key of [...keys]) if (under(dir)(key)) keys.delete(key)
	// Something other than a regular file where a file should be (a FIFO, a socket, a device, a directory): that
	// file is left out with why, never opened, and the others go on (docs/sync-model.md).
	for (const key of keys) {
		const other = notRegular(key)
		if (other !== undefined) skipped.push({ key, why: notRegularWhy(other) })
	}
	for (const skip of skipped) keys.delete(skip.key)
	const foreign = new Set(
		[...foreignNamed, ...keys, ...remoteKeys, ...baseKeys].filter((key) => !isToolPath(tool, key))
	)
	for (const key of foreign) keys.delete(key)
	// Read from the server's data, never a file here (docs/sync-model.md, "Settings that stay on one machine").
	keys.delete(EVERYWHERE_FILE)
	return { keys: [...keys], skipped, excluded, foreign: [...foreign].sort() }
}

/** Does a regular file exist at this key here? */
function localFile(key: string): boolean {
	try {
		return statSync(safeTarget(key)).isFile()
	} catch {
		return false
	}
}

/** Is this PATH argument's key a directory here? */
export function localDir(key: string): boolean {
	try {
		return statSync(safeTarget(key)).isDirectory()
	} catch {
		return false
	}
}
