/** Text rules shared by the engine and the commands: BOM, line endings, terminal-safe printing. */

export const BOM = '\uFEFF'

export const hasBom = (text: string): boolean => text.startsWith(BOM)
export const stripBom = (text: string): string => (hasBom(text) ? text.slice(1) : text)

/** The line ending a text uses (CRLF when any line ends so), for edits that add lines. */
export const eolOf = (text: string): '\r\n' | '\n' => (text.includes('\r\n') ? '\r\n' : '\n')

/**
 * Control characters, invisible format characters and bidirectional
 * overrides, which would let a file name or message from the server move the
 * cursor, recolour or rewrite the terminal, or hide what it says.
 */
const UNSAFE =
	// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this pattern's purpose
	/[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]/gu

/** `text` with every unsafe character written as a visible escape (`\n`, `\u{1b}`); tabs stay. */
export function printable(text: string): string {
	return text.replace(UNSAFE, (char) => {
		if (char === '\n') return '\\n'
		if (char === '\r') return '\\r'
		return `\\u{${(char.codePointAt(0) as number).toString(16)}}`
	})
}
