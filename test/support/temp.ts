import { afterAll } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []

// Preloaded (bunfig.toml), so this runs once when the whole run ends, passed or
// failed; KEEP_TEST_DIRS=1 keeps the directories for a look.
afterAll(() => {
	if (process.env.KEEP_TEST_DIRS) return
	for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** A new empty directory under the system temp dir, named `cfgsync-<purpose>-…`, removed after the run. */
export function tempDir(purpose: string): string {
	const dir = mkdtempSync(join(tmpdir(), `cfgsync-${purpose}-`))
	made.push(dir)
	return dir
}
