import { join } from 'node:path'
import type { Os, Platform } from './sync/paths'

/**
 * Where cfgsync keeps its files on this machine, and the machine as the path map needs it:
 * resolved once from an environment (`resolvePaths`), by the entry from the process's
 * (io.ts PROCESS_IO) and by a test from its own home (test/support/client/home.ts pathsIn). A command
 * line runs with its IO's (cli.ts installs them for the run), so nothing here reads
 * `process`.
 */
export interface Paths {
	/** The user's home directory ($HOME wins over the system's idea of it). */
	home: string
	/** $XDG_CONFIG_HOME/cfgsync: credentials, profiles, the machine id, trusted devices. */
	configDir: string
	/** $XDG_STATE_HOME/cfgsync: the bases, journals, backups and the lock. */
	stateDir: string
	/** This machine, as the engine's path map needs it. */
	platform: Platform
}

type Env = Readonly<Record<string, string | undefined>>

/** XDG base directories (https://specifications.freedesktop.org/basedir-spec/latest/). */
export function resolvePaths(env: Env, system: { platform: string; homedir: string }): Paths {
	const home = env.HOME || system.homedir
	const os: Os = system.platform === 'darwin' ? 'darwin' : system.platform === 'win32' ? 'win32' : 'linux'
	return {
		home,
		configDir: join(env.XDG_CONFIG_HOME || join(home, '.config'), 'cfgsync'),
		stateDir: join(env.XDG_STATE_HOME || join(home, '.local', 'state'), 'cfgsync'),
		platform: { os, home, appData: env.APPDATA || undefined, xdgConfigHome: env.XDG_CONFIG_HOME || undefined }
	}
}

let active: Paths | undefined

/** The paths what runs now reads: cli.ts installs its IO's for a command line; a unit test its own. */
export function usePaths(paths: Paths | undefined): void {
	active = paths
}

/** The paths installed now (undefined before any: the entry or the test installs them). */
export const installedPaths = (): Paths | undefined => active

function current(): Paths {
	if (active === undefined) throw new Error("cfgsync: no paths installed (cli.ts installs its IO's; a test, usePaths)")
	return active
}

/** The user's home directory. */
export const home = (): string => current().home
export const configDir = (): string => current().configDir
export const stateDir = (): string => current().stateDir
/** This machine, as the engine's path map needs it. */
export const platform = (): Platform => current().platform
