import { homedir } from 'node:os'
import { join } from 'node:path'
import type { Os, Platform } from './sync/paths'

/** The user's home directory; $HOME wins so tests (and users) can point it elsewhere. */
export const home = (): string => process.env.HOME || homedir()

/** XDG base directories (https://specifications.freedesktop.org/basedir-spec/latest/). */
export const configDir = (): string => join(process.env.XDG_CONFIG_HOME || join(home(), '.config'), 'cfgsync')
export const stateDir = (): string => join(process.env.XDG_STATE_HOME || join(home(), '.local', 'state'), 'cfgsync')

/** This machine, as the engine's path map needs it. */
export function platform(): Platform {
	const os: Os = process.platform === 'darwin' ? 'darwin' : process.platform === 'win32' ? 'win32' : 'linux'
	return {
		os,
		home: home(),
		appData: process.env.APPDATA || undefined,
		xdgConfigHome: process.env.XDG_CONFIG_HOME || undefined
	}
}
