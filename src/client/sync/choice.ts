import type { Choice } from './engine'

/**
 * The files a person's chosen side applies to. `resolve TOOL --theirs PATH`
 * names files or directories; a directory (written with a final `/`, or a
 * name that only has files under it) stands for every file in scope inside
 * it, so `resolve claude-code ~/.claude/commands --theirs` settles the
 * conflicts a `pull claude-code ~/.claude/commands` reported.
 */
export function settling(
	choose: { side: Choice; keys?: string[] } | undefined,
	scope: readonly string[]
): { side: Choice; keys?: string[] } | undefined {
	if (choose?.keys === undefined) return choose
	const keys = new Set<string>()
	for (const named of choose.keys) {
		const plain = named.replace(/\/+$/, '')
		if (!named.endsWith('/')) keys.add(plain)
		for (const key of scope) if (key.startsWith(`${plain}/`)) keys.add(key)
	}
	return { side: choose.side, keys: [...keys] }
}
