import { editorKey, type EditorApp } from '../sync/paths'
import type { KeyPath } from './descriptor'

/**
 * What VS Code and its forks (Cursor, Windsurf) share: a user directory in
 * the OS's application directory, settings written as flat dotted names
 * (`editor.fontSize` is one key), and the same settings that are inert or
 * widen what the editor runs (docs/sync-model.md).
 */

/** The user directory's settings and keybindings, as neutral keys. */
export const editorFiles = (app: EditorApp): string[] => [
	editorKey(app, 'settings.json'),
	editorKey(app, 'keybindings.json')
]

/** Appearance, fonts, formatting and layout. */
export const EDITOR_INERT: readonly KeyPath[] = [
	['workbench.colorTheme'],
	['workbench.iconTheme'],
	['workbench.productIconTheme'],
	['editor.fontFamily'],
	['editor.fontSize'],
	['editor.fontLigatures'],
	['editor.lineHeight'],
	['editor.tabSize'],
	['editor.insertSpaces'],
	['editor.wordWrap'],
	['editor.rulers'],
	['editor.minimap.enabled'],
	['editor.renderWhitespace'],
	['workbench.sideBar.location'],
	['window.zoomLevel']
]

/** The terminal, programs found by path, workspace trust and tool auto-approval (`*` matches any characters of a name). */
export const EDITOR_WIDENS: readonly KeyPath[] = [
	['terminal.*'],
	['*.path'],
	['*Path'],
	['*.executable'],
	['security.workspace.trust.*'],
	['chat.tools.autoApprove']
]
