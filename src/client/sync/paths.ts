import { posix, win32 } from 'node:path'

/**
 * Platform-neutral names for the editors' user directories (docs/sync-model.md).
 * VS Code, Cursor and Windsurf keep settings in the platform's application
 * configuration directory, which differs per OS; the config stores these
 * files as `@Code/User/…`, `@Cursor/User/…` and `@Windsurf/User/…`, and each
 * machine maps them to its own directory. Keys pushed with an OS-specific
 * path by earlier clients are read the same way.
 */

export const EDITOR_APPS = ['Code', 'Cursor', 'Windsurf'] as const
export type EditorApp = (typeof EDITOR_APPS)[number]

export type Os = 'darwin' | 'linux' | 'win32'

/** What the map needs to know about a machine (no I/O: the caller reads the environment). */
export interface Platform {
	os: Os
	home: string
	/** %APPDATA% on Windows. */
	appData?: string
	/** $XDG_CONFIG_HOME on Linux. */
	xdgConfigHome?: string
}

/** OS-specific spellings of the application configuration directory, relative to home. */
const LEGACY_ROOTS = ['Library/Application Support', '.config', 'AppData/Roaming']

const NEUTRAL = /^@(Code|Cursor|Windsurf)\/User\/(.+)$/

/** The neutral key of an editor's user directory file: `@Code/User/settings.json`. */
export const editorKey = (app: EditorApp, file: string): string => `@${app}/User/${file}`

/** Is `key` in the neutral form (starts with `@`)? */
export const isNeutral = (key: string): boolean => key.startsWith('@')

/**
 * The platform's application configuration directory relative to home, with
 * `/` separators; undefined when it lies outside home (then editor files are
 * not synced on this machine).
 */
export function appConfigDir(platform: Platform): string | undefined {
	const path = platform.os === 'win32' ? win32 : posix
	const absolute =
		platform.os === 'darwin'
			? path.join(platform.home, 'Library', 'Application Support')
			: platform.os === 'win32'
				? platform.appData || path.join(platform.home, 'AppData', 'Roaming')
				: platform.xdgConfigHome && path.isAbsolute(platform.xdgConfigHome)
					? platform.xdgConfigHome
					: path.join(platform.home, '.config')
	const rel = path.relative(platform.home, absolute)
	if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return undefined
	return rel.split(path.sep).join('/')
}

/**
 * The key a home-relative path is stored under: editor user-directory files
 * (in any OS's spelling, or this machine's own directory) become neutral;
 * everything else is unchanged.
 */
export function toNeutral(key: string, platform: Platform): string {
	const roots = [...LEGACY_ROOTS]
	const own = appConfigDir(platform)
	if (own !== undefined && !roots.includes(own)) roots.unshift(own)
	for (const root of roots) {
		const prefix = `${root}/`
		if (!key.startsWith(prefix)) continue
		const match = /^(Code|Cursor|Windsurf)\/User\/(.+)$/.exec(key.slice(prefix.length))
		if (match) return `@${match[1]}/User/${match[2]}`
	}
	return key
}

/**
 * The home-relative path (with `/`) a key is written to on this machine, or
 * undefined for a neutral key this machine has no place for (an unknown `@`
 * name, or an application directory outside home).
 */
export function toLocal(key: string, platform: Platform): string | undefined {
	if (!isNeutral(key)) return key
	const match = NEUTRAL.exec(key)
	const dir = appConfigDir(platform)
	if (!match || dir === undefined) return undefined
	return `${dir}/${match[1]}/User/${match[2]}`
}

/**
 * A file set's keys in neutral form. When two keys name the same file (an
 * old macOS key and a neutral one), the neutral spelling wins and the other
 * is reported, never silently merged.
 */
export function neutralFiles(
	files: Record<string, string>,
	platform: Platform
): { files: Record<string, string>; duplicates: string[] } {
	const out: Record<string, string> = Object.create(null)
	const duplicates: string[] = []
	const keys = Object.keys(files).sort(
		(a, b) => Number(isNeutral(b)) - Number(isNeutral(a)) || (a < b ? -1 : a > b ? 1 : 0)
	)
	for (const key of keys) {
		const neutral = toNeutral(key, platform)
		if (Object.hasOwn(out, neutral)) duplicates.push(key)
		else
			Object.defineProperty(out, neutral, { value: files[key], enumerable: true, writable: true, configurable: true })
	}
	return { files: out, duplicates }
}
