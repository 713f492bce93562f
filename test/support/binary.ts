import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

// No bun:test here: scripts/test.ts builds the binary with this before its browser pass starts its workers,
// so that two test files never build it at once.

const ROOT = resolve(import.meta.dir, '..', '..')

/** The compiled server under test (`npm run build` makes it); CFGSYNC_SERVER_BINARY tests another build. */
export const BINARY = process.env.CFGSYNC_SERVER_BINARY ?? join(ROOT, 'dist', 'cfgsync-server')

function newestSource(dir: string): number {
	let newest = 0
	for (const entry of readdirSync(dir, { withFileTypes: true })) {
		const path = join(dir, entry.name)
		newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs)
	}
	return newest
}

/**
 * The browser tests drive the compiled binary. `npm test` runs them too, so a
 * binary older than the sources (or none) is rebuilt first rather than tested stale.
 */
export function ensureBinary(): void {
	// A binary named by CFGSYNC_SERVER_BINARY is tested as it is: its builder chose it, and dist/ is not ours to write then.
	if (process.env.CFGSYNC_SERVER_BINARY) {
		if (!existsSync(BINARY)) throw new Error(`CFGSYNC_SERVER_BINARY=${BINARY}: no such file`)
		return
	}
	const sources = Math.max(newestSource(join(ROOT, 'src')), statSync(join(ROOT, 'package-lock.json')).mtimeMs)
	if (existsSync(BINARY) && statSync(BINARY).mtimeMs >= sources) return
	// The server embeds the client's npm package (docs/client.md): packed first when it is not there.
	const steps = existsSync(join(ROOT, 'dist', 'cfgsync.tgz')) ? ['build:server'] : ['build:package', 'build:server']
	for (const step of steps) {
		const build = Bun.spawnSync(['npm', 'run', '--silent', step], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
		if (build.exitCode !== 0) throw new Error(`npm run ${step} failed`)
	}
}
