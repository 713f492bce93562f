import { localKey } from './tools'

/**
 * Words of a command the client prints for a person to run: each must work as
 * printed when pasted into a shell (docs/client.md).
 */

/** A word as a shell reads it: as it is when it is plain, else in single quotes. */
export const shellWord = (text: string) => (/^[\w@%+=:,./~-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`)

/**
 * A file's key (a directory's with a final `/`) as a PATH argument a shell
 * expands to the file here: `~/` outside the quotes (a quoted `~` is not
 * expanded), the rest quoted when it needs to be.
 */
export function pathWord(key: string): string {
	const dir = key.endsWith('/')
	const local = localKey(dir ? key.slice(0, -1) : key) ?? key
	return `~/${shellWord(local)}${dir ? '/' : ''}`
}
