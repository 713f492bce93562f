import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { DEVICE_MAX } from '../lib/constants'
import { writeAtomically } from './files'
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

export const credentialsFile = (): string => join(configDir(), 'credentials.json')

export function readCredentials(): Credentials | undefined {
	const file = credentialsFile()
	if (!existsSync(file)) return undefined
	try {
		return JSON.parse(readFileSync(file, 'utf8')) as Credentials
	} catch {
		throw new Error(`${file} is not valid JSON: delete it and run cfgsync login`)
	}
}

/** Written atomically with mode 0600 in a 0700 directory: the file holds a key. */
export function writeCredentials(credentials: Credentials): void {
	const file = credentialsFile()
	mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
	writeAtomically(file, `${JSON.stringify(credentials, null, 2)}\n`, 0o600)
}

export const deleteCredentials = (): void => rmSync(credentialsFile(), { force: true })

/**
 * A short id for this machine, made once and kept in the config directory:
 * the default device name is the host name plus this id, so two machines
 * with the same host name never share a device (and never revoke each
 * other's key by logging in: CONTRACT §3, one key per user and device).
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
