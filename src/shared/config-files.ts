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
