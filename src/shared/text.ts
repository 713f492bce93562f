/** Length in Unicode code points, as docs/api.md counts names (an emoji is one character). */
export function codePointLength(text: string): number {
	let length = 0
	for (const _ of text) length++
	return length
}

/** C0 and C1 control characters (NUL, newline, escape…): never part of a display name. */
export const hasControlCharacters = (text: string): boolean => /\p{Cc}/u.test(text)
