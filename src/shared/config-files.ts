/**
 * The format the cfgsync client pushes (docs/sync-model.md): `{"files": {"<path>": "<text>"}}`,
 * each key a path under the user's home in the client's neutral form, each value the file's text.
 * Parsed here once, for the client and for the web application's views and diffs.
 */
export interface FileSet {
	files: Record<string, string>
}

/** The file set in `data`, or undefined when `data` is not in the client's format (something else pushed it). */
export function asFileSet(data: unknown): FileSet | undefined {
	if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
	const files = (data as { files?: unknown }).files
	if (typeof files !== 'object' || files === null || Array.isArray(files)) return undefined
	if (!Object.values(files).every((content) => typeof content === 'string')) return undefined
	return { files: files as Record<string, string> }
}

/** The files of `data` when it holds nothing but a file set (so showing it file by file hides nothing). */
export function onlyFiles(data: unknown): Record<string, string> | undefined {
	if (typeof data !== 'object' || data === null || Object.keys(data).length !== 1) return undefined
	return asFileSet(data)?.files
}

/**
 * The file of a config that lists its keys local on every machine (`cfgsync local --everywhere`,
 * docs/sync-model.md "Settings that stay on one machine"): `{"local": [{"file", "path"?}]}`, each `file`
 * a key of `files`, `path` the key's parts (none: the whole file). Kept in the data so it versions,
 * diffs and rolls back with the files; the client never writes it to a machine.
 */
export const LOCAL_KEYS_FILE = '.cfgsync/local-keys.json'

export interface LocalKey {
	file: string
	path?: string[]
}

/** How many local keys a list may hold: a longer one (from a hostile server, say) counts its first ones only. */
export const MAX_LOCAL_KEYS = 100

/** The keys a `{"local": [...]}` text lists; anything that is not one counts for nothing. */
export function localKeysOf(text: string | undefined): LocalKey[] {
	let list: unknown
	try {
		list = text === undefined ? undefined : JSON.parse(text.replace(/^\uFEFF/, ''))
	} catch {
		return []
	}
	const entries = (list as { local?: unknown } | null)?.local
	if (!Array.isArray(entries)) return []
	return entries.slice(0, MAX_LOCAL_KEYS).flatMap((entry): LocalKey[] => {
		if (typeof entry !== 'object' || entry === null || typeof entry.file !== 'string') return []
		const path: unknown = entry.path
		if (path === undefined) return [{ file: entry.file }]
		return Array.isArray(path) && path.length > 0 && path.every((p) => typeof p === 'string')
			? [{ file: entry.file, path: path as string[] }]
			: []
	})
}
