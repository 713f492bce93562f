import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
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

/** Written with mode 0600 in a 0700 directory: the file holds a key. */
export function writeCredentials(credentials: Credentials): void {
	const file = credentialsFile()
	mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
	writeFileSync(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 })
	chmodSync(file, 0o600)
}

export const deleteCredentials = (): void => rmSync(credentialsFile(), { force: true })
