import { isAbsolute, join, relative, sep } from 'node:path'
import type { Tool } from '../lib/constants'
import { home } from './paths'

/** Where VS Code and its forks keep user settings, relative to home when it is under home. */
function editorUserDir(app: string): string {
	const base =
		process.platform === 'darwin'
			? join(home(), 'Library', 'Application Support')
			: process.platform === 'win32'
				? process.env.APPDATA || join(home(), 'AppData', 'Roaming')
				: process.env.XDG_CONFIG_HOME || join(home(), '.config')
	return join(base, app, 'User')
}

/**
 * The files `cfgsync push TOOL` collects when no PATH is given, as paths
 * relative to home with forward slashes (the keys of `data.files`). Pull
 * writes these, files this machine synced before, or PATHs it is given.
 */
export function knownFiles(tool: Tool): string[] {
	const editor = (app: string) => ['settings.json', 'keybindings.json'].map((file) => join(editorUserDir(app), file))
	const files: Record<Tool, string[]> = {
		'claude-code': [join(home(), '.claude', 'settings.json'), join(home(), '.claude', 'CLAUDE.md')],
		cursor: [...editor('Cursor'), join(home(), '.cursor', 'mcp.json')],
		windsurf: [...editor('Windsurf'), join(home(), '.codeium', 'windsurf', 'mcp_config.json'), join(home(), '.codeium', 'windsurf', 'memories', 'global_rules.md')],
		vscode: editor('Code'),
		codex: [join(home(), '.codex', 'config.toml'), join(home(), '.codex', 'AGENTS.md')],
		'gemini-cli': [join(home(), '.gemini', 'settings.json'), join(home(), '.gemini', 'GEMINI.md')]
	}
	return files[tool].map(homeRelative).filter((path): path is string => path !== undefined)
}

/** `path` (absolute or relative to the working directory) as a home-relative key, or undefined outside home. */
export function homeRelative(path: string): string | undefined {
	const absolute = isAbsolute(path) ? path : join(process.cwd(), path)
	const rel = relative(home(), absolute)
	if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return undefined
	return rel.split(sep).join('/')
}
