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

/**
 * Appearance, fonts, formatting and layout: the review's allowlist for the
 * editors (docs/sync-model.md). Not the integrated terminal's (every
 * `terminal.*` setting is reviewed), nor what formats a file on save (that
 * runs an extension's formatter over your files).
 */
export const EDITOR_INERT: readonly KeyPath[] = [
	'workbench.colorTheme',
	'workbench.iconTheme',
	'workbench.productIconTheme',
	'workbench.colorCustomizations',
	'editor.tokenColorCustomizations',
	'editor.fontFamily',
	'editor.fontSize',
	'editor.fontWeight',
	'editor.fontLigatures',
	'editor.lineHeight',
	'editor.letterSpacing',
	'editor.tabSize',
	'editor.insertSpaces',
	'editor.detectIndentation',
	'editor.wordWrap',
	'editor.wordWrapColumn',
	'editor.rulers',
	'editor.lineNumbers',
	'editor.cursorStyle',
	'editor.cursorBlinking',
	'editor.renderWhitespace',
	'editor.renderLineHighlight',
	'editor.minimap.enabled',
	'editor.bracketPairColorization.enabled',
	'workbench.sideBar.location',
	'workbench.activityBar.location',
	'workbench.statusBar.visible',
	'workbench.editor.showTabs',
	'window.zoomLevel',
	'window.titleBarStyle',
	'breadcrumbs.enabled'
].map((name) => [name])

/** The terminal, programs found by path, workspace trust and tool auto-approval (`*` matches any characters of a name). */
export const EDITOR_WIDENS: readonly KeyPath[] = [
	['terminal.*'],
	['*.path'],
	['*Path'],
	['*.executable'],
	['security.workspace.trust.*'],
	['chat.tools.autoApprove']
]
