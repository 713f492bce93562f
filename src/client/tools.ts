import { isAbsolute, join, relative, sep } from 'node:path'
import type { Tool } from '../shared/constants'
import { home, platform } from './paths'
import { editorKey, isNeutral, toLocal, toNeutral, type EditorApp } from './sync/paths'
import { CliFailure } from './output'

/**
 * The files `cfgsync push TOOL` collects when no PATH is given, as keys of
 * `data.files`: paths relative to home with `/`, editor user-directory files
 * in their platform-neutral form (`@Code/User/settings.json`). Pull writes
 * these, files this machine synced before, or PATHs it is given.
 */
export function knownFiles(tool: Tool): string[] {
	// Editor files have no place on a machine whose application directory is outside home.
	return WELL_KNOWN[tool].files.filter((key) => toLocal(key, platform()) !== undefined)
}

/** Directories whose text files `cfgsync push TOOL` syncs whole (issue 20), as key prefixes without the final `/`. */
export const knownDirs = (tool: Tool): string[] => WELL_KNOWN[tool].dirs

const editor = (app: EditorApp) => [editorKey(app, 'settings.json'), editorKey(app, 'keybindings.json')]

/** The README's table of well-known files is this one (test/client/readme.test.ts compares them). */
export const WELL_KNOWN: Record<Tool, { files: string[]; dirs: string[] }> = {
	'claude-code': { files: ['.claude/settings.json', '.claude/CLAUDE.md', '.claude.json#mcpServers'], dirs: ['.claude/commands', '.claude/agents'] },
	cursor: { files: [...editor('Cursor'), '.cursor/mcp.json'], dirs: ['.cursor/rules'] },
	windsurf: { files: [...editor('Windsurf'), '.codeium/windsurf/mcp_config.json'], dirs: ['.codeium/windsurf/memories'] },
	vscode: { files: editor('Code'), dirs: [] },
	codex: { files: ['.codex/config.toml', '.codex/AGENTS.md'], dirs: [] },
	'gemini-cli': { files: ['.gemini/settings.json', '.gemini/GEMINI.md'], dirs: [] }
}

/**
 * Files of which only one top-level key is synced, stored under the key
 * `FILE#MEMBER` (issue 20): ~/.claude.json also holds caches, account and
 * per-project state, so only its `mcpServers` travel, and a pull merges them
 * back into the rest of the file without touching its other keys.
 */
export const PARTS: Record<string, { file: string; member: string }> = {
	'.claude.json#mcpServers': { file: '.claude.json', member: 'mcpServers' }
}
export const partOf = (key: string): { file: string; member: string } | undefined =>
	Object.prototype.hasOwnProperty.call(PARTS, key) ? PARTS[key] : undefined
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
	if (isNeutral(key)) throw new CliFailure(`~/${key} starts with "@", which cfgsync keeps for editor directories; it cannot be synced`, 2)
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
