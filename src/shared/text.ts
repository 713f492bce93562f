/** Length in Unicode code points, as docs/api.md counts names (an emoji is one character). */
export function codePointLength(text: string): number {
	let length = 0
	for (const _ of text) length++
	return length
}

/** C0 and C1 control characters (NUL, newline, escape…): never part of a display name. */
export const hasControlCharacters = (text: string): boolean => /\p{Cc}/u.test(text)

/**
 * Unicode format characters (`\p{Cf}`): bidirectional overrides and isolates (U+202E turns "gpj.exe" into what
 * reads as "exe.jpg"), zero-width spaces and joiners, soft hyphens. Invisible, they make one name pass for another,
 * so names shown to other people refuse them (docs/api.md).
 */
export const hasFormatCharacters = (text: string): boolean => /\p{Cf}/u.test(text)

/** What a refused name is told. */
export const FORMAT_CHARACTERS_REFUSED =
	'Invisible or direction-changing characters (Unicode format characters such as U+202E or U+200B) are not allowed.'

/** A size for people: bytes, KiB or MiB (binary units, one decimal), as the quotas are shown. */
export function formatBytes(bytes: number): string {
	if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`
	if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`
	if (bytes < 1024 * 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
	return `${(bytes / (1024 * 1024 * 1024)).toFixed(1)} GiB`
}
