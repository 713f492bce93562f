/**
 * Prints the `--define` that embeds the commit in a build (docs/operations.md "What every build is"):
 * `npm run build:server` and `build:client` pass it to `bun build`; build-package.ts and
 * build-release.ts import `commitDefine`. CI builds from a clone, so git answers; a build
 * outside a checkout says `unknown` rather than failing.
 */
import { resolve } from 'node:path'
import { sourceCommit } from '../src/shared/build'

export const commitDefine = (): Record<string, string> => ({
	CFGSYNC_COMMIT: JSON.stringify(sourceCommit(resolve(import.meta.dir, '..')))
})

if (import.meta.main) {
	const [name, value] = Object.entries(commitDefine())[0] as [string, string]
	process.stdout.write(`${name}=${value}`)
}
