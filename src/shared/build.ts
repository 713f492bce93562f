import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

/**
 * The commit this program was built from (docs/operations.md "What every build is"). `npm run build`
 * (scripts/build-commit.ts) defines CFGSYNC_COMMIT in both binaries and the npm package; run from
 * source, it is asked of git once, when first wanted.
 */
declare const CFGSYNC_COMMIT: string | undefined

let fromSource: string | undefined

export function buildCommit(): string {
	if (typeof CFGSYNC_COMMIT === 'string') return CFGSYNC_COMMIT
	fromSource ??= sourceCommit(fileURLToPath(new URL('../..', import.meta.url)))
	return fromSource
}

/** The short commit of a checkout, with `-dirty` when tracked files differ from it; `unknown` outside one. */
export function sourceCommit(root: string): string {
	const git = (args: string[]) =>
		execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
	try {
		const commit = git(['rev-parse', '--short=12', 'HEAD'])
		return git(['status', '--porcelain', '--untracked-files=no']) === '' ? commit : `${commit}-dirty`
	} catch {
		return 'unknown'
	}
}
