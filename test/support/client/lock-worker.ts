/**
 * A stand-in for one cfgsync command in the lock test: takes the lock, does a
 * read-modify-write of a shared counter (which loses updates without the
 * lock) and writes its own config's state, then releases.
 * Usage: bun lock-worker.ts NAME ROUNDS
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { withLock } from '../../../src/client/lock'
import { PROCESS_IO } from '../../../src/client/io'
import { stateDir, usePaths } from '../../../src/client/paths'
import { getState, setState } from '../../../src/client/state'

const [name = 'w', rounds = '1'] = process.argv.slice(2)
// Its own process: the paths its environment gives, as the cfgsync program's entry resolves them.
usePaths(PROCESS_IO.paths)
const counter = join(stateDir(), 'counter')
for (let i = 0; i < Number(rounds); i++) {
	await withLock(`worker ${name}`, async () => {
		let n = 0
		try {
			n = Number(readFileSync(counter, 'utf8'))
		} catch {
			// first
		}
		await new Promise((resolve) => setTimeout(resolve, 2))
		writeFileSync(counter, String(n + 1))
		const key = `server user personal ${name} default`
		const previous = getState(key)
		setState(key, {
			format: 2,
			server: 'server',
			username: 'user',
			tool: name as never,
			name: 'default',
			version: (previous?.version ?? 0) + 1,
			hash: 'h',
			files: {},
			syncedAt: new Date().toISOString()
		})
	})
}
