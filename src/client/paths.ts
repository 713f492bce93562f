import { homedir } from 'node:os'
import { join } from 'node:path'

/** The user's home directory; $HOME wins so tests (and users) can point it elsewhere. */
export const home = (): string => process.env.HOME || homedir()

/** XDG base directories (https://specifications.freedesktop.org/basedir-spec/latest/). */
export const configDir = (): string => join(process.env.XDG_CONFIG_HOME || join(home(), '.config'), 'cfgsync')
export const stateDir = (): string => join(process.env.XDG_STATE_HOME || join(home(), '.local', 'state'), 'cfgsync')
