import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { DEVICE_MAX } from '../shared/constants'
import { writeAtomically } from './files'
import { CliFailure, EXIT } from './output'
import { configDir } from './paths'

/** What `cfgsync login` saves: the server and this device's key. */
export interface Credentials {
	server: string
	apiKey: string
	keyId: string
	device: string
	username: string
	email: string
}

/**
 * Profiles (docs/client.md `--profile NAME` / `CFGSYNC_PROFILE`): one saved
 * login each, so a machine can use several servers (or accounts) the way gh
 * keeps several hosts. The default profile is credentials.json, where earlier
 * clients kept their one login; a named one is profiles/NAME.json.
 */
export const DEFAULT_PROFILE = 'default'
const PROFILE_NAME = /^[A-Za-z0-9_-]{1,64}$/

export function checkProfile(name: string, source: string): string {
	if (!PROFILE_NAME.test(name))
		throw new CliFailure(
			`${source} "${name}" is not a profile name: use letters, digits, - and _ (at most 64)`,
			EXIT.usage
		)
	return name
}

const profilesDir = () => join(configDir(), 'profiles')

export const credentialsFile = (profile = DEFAULT_PROFILE): string =>
	profile === DEFAULT_PROFILE ? join(configDir(), 'credentials.json') : join(profilesDir(), `${profile}.json`)

export function readCredentials(profile = DEFAULT_PROFILE): Credentials | undefined {
	const file = credentialsFile(profile)
	if (!existsSync(file)) return undefined
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as Credentials
	} catch {
		throw new CliFailure(
			`${file} is not valid JSON: delete it and run cfgsync login${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`}`
		)
	}
}

/** Every profile with a saved login, the default first. */
export function profiles(): string[] {
	const named = existsSync(profilesDir())
		? readdirSync(profilesDir())
				.filter((entry) => entry.endsWith('.json'))
				.map((entry) => entry.slice(0, -'.json'.length))
				.filter((name) => PROFILE_NAME.test(name) && name !== DEFAULT_PROFILE)
				.sort()
		: []
	return [...(existsSync(credentialsFile()) ? [DEFAULT_PROFILE] : []), ...named]
}

/** Written atomically with mode 0600 in a 0700 directory: the file holds a key. */
export function writeCredentials(credentials: Credentials, profile = DEFAULT_PROFILE): void {
	const file = credentialsFile(profile)
	mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
	writeAtomically(file, `${JSON.stringify(credentials, null, 2)}\n`, 0o600)
}

export const deleteCredentials = (profile = DEFAULT_PROFILE): void => rmSync(credentialsFile(profile), { force: true })

/**
 * A short id for this machine, made once and kept in the config directory:
 * the default device name is the host name plus this id, so two machines
 * with the same host name never share a device (and never revoke each
 * other's key by logging in: docs/api.md, one key per user and device).
 */
export function machineId(): string {
	const file = join(configDir(), 'machine-id')
	try {
		const kept = readFileSync(file, 'utf8').trim()
		if (/^[0-9a-f]{6,}$/.test(kept)) return kept
	} catch {
		// not made yet
	}
	const id = randomBytes(3).toString('hex')
	mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
	writeAtomically(file, `${id}\n`, 0o600)
	return id
}

/** `laptop-3f9a1c`: the host name (shortened to fit) and the machine id. */
export function defaultDevice(): string {
	const id = machineId()
	const host = (hostname().split('.')[0] || 'cfgsync').slice(0, DEVICE_MAX - id.length - 1)
	return `${host}-${id}`
}
