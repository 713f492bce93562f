import { afterEach, beforeEach } from 'bun:test'
import { join } from 'node:path'
import { tempDir } from '../temp'

/**
 * A fresh home for each test of this file (HOME and the XDG state and config directories inside
 * it), the environment put back after each; `home()` names the current one.
 */
export function homePerTest(prefix: string): () => string {
	let home = ''
	const saved = {
		HOME: process.env.HOME,
		XDG_STATE_HOME: process.env.XDG_STATE_HOME,
		XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME
	}
	beforeEach(() => {
		home = tempDir(prefix)
		process.env.HOME = home
		process.env.XDG_STATE_HOME = join(home, '.local', 'state')
		process.env.XDG_CONFIG_HOME = join(home, '.config')
	})
	afterEach(() => {
		for (const [key, value] of Object.entries(saved)) {
			if (value === undefined) delete process.env[key]
			else process.env[key] = value
		}
	})
	return () => home
}
