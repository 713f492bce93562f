import { isAbsolute, join, relative, sep } from 'node:path'
import type { Tool } from '../lib/constants'
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
	const editor = (app: EditorApp) => [editorKey(app, 'settings.json'), editorKey(app, 'keybindings.json')]
	const files: Record<Tool, string[]> = {
		'claude-code': ['.claude/settings.json', '.claude/CLAUDE.md'],
		cursor: [...editor('Cursor'), '.cursor/mcp.json'],
		windsurf: [...editor('Windsurf'), '.codeium/windsurf/mcp_config.json', '.codeium/windsurf/memories/global_rules.md'],
		vscode: editor('Code'),
		codex: ['.codex/config.toml', '.codex/AGENTS.md'],
		'gemini-cli': ['.gemini/settings.json', '.gemini/GEMINI.md']
	}
	// Editor files have no place on a machine whose application directory is outside home.
	return files[tool].filter((key) => toLocal(key, platform()) !== undefined)
}

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
	return toNeutral(key, platform())
}

/** Where a key lives on this machine, relative to home (`/`); undefined when it has no place here. */
export const localKey = (key: string): string | undefined => toLocal(key, platform())

/** How a file is named to a person: `~/.config/Code/User/settings.json` (or the key when it has no place here). */
export const shown = (key: string): string => {
	const local = localKey(key)
	return local === undefined ? key : `~/${local}`
}
