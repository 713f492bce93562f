import { afterEach, beforeEach } from 'bun:test'
import { join } from 'node:path'
import { installedPaths, type Paths, resolvePaths, usePaths } from '../../../src/client/paths'
import { tempDir } from '../temp'

/**
 * This machine with its home at `home` and the XDG config and state directories inside it (`.config`,
 * `.local/state`), or as `env` says instead: a command line's paths (test/support/client-io.ts `paths`), or a
 * unit test's (usePaths), without touching the process's environment.
 */
export function pathsIn(home: string, env: Record<string, string | undefined> = {}): Paths {
	return resolvePaths(
		{ HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: join(home, '.local', 'state'), ...env },
		{ platform: process.platform, homedir: home }
	)
}

/**
 * A fresh home for each test of this file (the XDG state and config directories inside it): its
 * paths installed for the test (src/client/paths.ts usePaths), as a command line's IO would, and the
 * ones before put back after; `home()` names the current one. The process's environment is not touched.
 */
export function homePerTest(prefix: string): () => string {
	let home = ''
	let before = installedPaths()
	beforeEach(() => {
		home = tempDir(prefix)
		before = installedPaths()
		usePaths(pathsIn(home))
	})
	afterEach(() => {
		usePaths(before)
	})
	return () => home
}
