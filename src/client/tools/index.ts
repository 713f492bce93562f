import { isAbsolute, join, relative, sep } from 'node:path'
import { TOOLS, type Tool } from '../../shared/constants'
import { CliFailure } from '../output'
import { home, platform } from '../paths'
import { isNeutral, toLocal, toNeutral, type Os } from '../sync/paths'
import { partKey, type Part } from './descriptor'
import { DESCRIPTORS } from './registry'

/**
 * The tools cfgsync syncs, one descriptor each in this directory
 * (docs/architecture.md), and the path map built on them: which files a
 * tool's config holds on this machine, and how a path is named as a key.
 */

export type { KeyPath, McpServers, McpTable, McpTransport, Part, Places, ToolDescriptor } from './descriptor'
export { ALWAYS_REVIEWED, DESCRIPTORS, MCP_CONTAINERS, MCP_SECRET_FIELDS } from './registry'

const OSES: readonly Os[] = ['linux', 'darwin', 'win32']

/**
 * The files `cfgsync push TOOL` collects when no PATH is given, as keys of
 * `data.files`: paths relative to home with `/`, editor user-directory files
 * in their platform-neutral form (`@Code/User/settings.json`). Pull writes
 * these, files this machine synced before, or PATHs it is given.
 */
export function knownFiles(tool: Tool): string[] {
	const { os } = platform()
	// Editor files have no place on a machine whose application directory is outside home.
	return (DESCRIPTORS[tool].platforms[os]?.files ?? []).filter((key) => toLocal(key, platform()) !== undefined)
}

/** Directories whose text files `cfgsync push TOOL` syncs whole, as key prefixes without the final `/`. */
export const knownDirs = (tool: Tool): string[] => [...(DESCRIPTORS[tool].platforms[platform().os]?.dirs ?? [])]

/** Every OS's files and directories in one list (the same on each today). */
const onAnyOs = (tool: Tool, kind: 'files' | 'dirs'): string[] => [
	...new Set(OSES.flatMap((os) => DESCRIPTORS[tool].platforms[os]?.[kind] ?? []))
]

/** docs/client.md's table of well-known files is this one (test/client/readme.test.ts compares them). */
export const WELL_KNOWN: Record<Tool, { files: string[]; dirs: string[] }> = Object.fromEntries(
	TOOLS.map((tool) => [tool, { files: onAnyOs(tool, 'files'), dirs: onAnyOs(tool, 'dirs') }])
) as Record<Tool, { files: string[]; dirs: string[] }>

/**
 * Files of which only one top-level key is synced, stored under the key
 * `FILE#MEMBER`: ~/.claude.json also holds caches, account and per-project
 * state, so only its `mcpServers` travel, and a pull merges them back into
 * the rest of the file without touching its other keys.
 */
export const PARTS: Record<string, Part> = Object.fromEntries(
	TOOLS.flatMap((tool) =>
		DESCRIPTORS[tool].parts.map((part) => [partKey(part), { file: part.file, member: part.member }])
	)
)
export const partOf = (key: string): Part | undefined => (Object.hasOwn(PARTS, key) ? PARTS[key] : undefined)
const partKeyOfFile = (file: string): string | undefined => Object.keys(PARTS).find((key) => PARTS[key]?.file === file)

/**
 * `path` (absolute or relative to the working directory) as a key: relative
 * to home, editor user directories in neutral form. Undefined outside home.
 */
export function homeRelative(path: string): string | undefined {
	const absolute = isAbsolute(path) ? path : join(process.cwd(), path)
	const rel = relative(home(), absolute)
	if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined
	const key = rel.split(sep).join('/')
	// A name that starts with @ would read as a neutral key.
	if (isNeutral(key))
		throw new CliFailure(`~/${key} starts with "@", which cfgsync keeps for editor directories; it cannot be synced`, 2)
	return partKeyOfFile(key) ?? toNeutral(key, platform())
}

/** Where a key lives on this machine, relative to home (`/`); undefined when it has no place here. */
export const localKey = (key: string): string | undefined => partOf(key)?.file ?? toLocal(key, platform())

/** How a file is named to a person: `~/.config/Code/User/settings.json` (or the key when it has no place here). */
export const shown = (key: string): string => {
	const part = partOf(key)
	if (part) return `~/${part.file} (${part.member})`
	const local = localKey(key)
	return local === undefined ? key : `~/${local}`
}
