import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { ApiError } from './api'
import type { Session } from './context'
import { writeAtomically } from './files'
import { CliFailure } from './output'
import { configDir } from './paths'

/**
 * Devices this machine trusts with code (docs/sync-model.md, "another device is
 * someone else for code"): a personal config's change that runs code or
 * widens what a tool may do, pushed from another device of the same user, is
 * reviewed like a team's unless that device is trusted here. Kept per server
 * and user in $XDG_CONFIG_HOME/cfgsync/trusted-devices.json (mode 0600), by
 * device name (the name of the device's key: what the audit log records for
 * each version). This machine's own device is always trusted.
 */

interface TrustFile {
	format: 1
	/** `server username` → device names. */
	trusted: Record<string, string[]>
}

const trustFile = () => join(configDir(), 'trusted-devices.json')
const entry = (server: string, username: string) => `${server} ${username}`

function read(): TrustFile {
	const file = trustFile()
	if (!existsSync(file)) return { format: 1, trusted: {} }
	try {
		const parsed = JSON.parse(readFileSync(file, 'utf8')) as TrustFile
		if (parsed && typeof parsed.trusted === 'object' && parsed.trusted !== null) return parsed
	} catch {
		// reported below
	}
	throw new CliFailure(`${file} is not valid: delete it (every device is then untrusted) and trust them again`)
}

function write(content: TrustFile): void {
	const file = trustFile()
	mkdirSync(dirname(file), { recursive: true, mode: 0o700 })
	writeAtomically(file, `${JSON.stringify(content, null, 2)}\n`, 0o600)
}

export function trustedDevices(server: string, username: string): string[] {
	const found = read().trusted[entry(server, username)]
	return Array.isArray(found) ? found.filter((name) => typeof name === 'string') : []
}

/** Adds (or with `trusted` false removes) a device; says whether anything changed. */
export function setTrusted(server: string, username: string, device: string, trusted: boolean): boolean {
	const content = read()
	const key = entry(server, username)
	const known = trustedDevices(server, username)
	const next = trusted ? [...new Set([...known, device])] : known.filter((name) => name !== device)
	if (next.length === known.length) return false
	if (next.length === 0) delete content.trusted[key]
	else content.trusted[key] = next.sort()
	write(content)
	return true
}

/** A version whose device the server no longer names (its audit event is older than the log keeps, or unread). */
export const UNKNOWN_DEVICE = '(a device the server no longer names)'

/** How many pages of the caller's activity are read, per event type, to find who made versions. */
const AUTHOR_PAGES = 5
const AUTHOR_PAGE = 200

/**
 * The device that made each version of a personal config after `after` up to
 * `latest`, from the caller's own activity (`GET /api/audit`: every push and
 * rollback records the key's device). A version not found in the pages read
 * is UNKNOWN_DEVICE, and counts as a device this machine does not trust.
 */
export async function devicesSince(s: Session, configId: string, after: number, latest: number): Promise<string[]> {
	const wanted = new Set<number>()
	for (let v = Math.max(after + 1, 1); v <= latest && wanted.size < AUTHOR_PAGES * AUTHOR_PAGE; v++) wanted.add(v)
	const found = new Map<number, string>()
	if (wanted.size === 0) return []
	try {
		for (const type of ['config.pushed', 'config.rolled_back'] as const) {
			let before: string | undefined
			for (let page = 0; page < AUTHOR_PAGES; page++) {
				const events = await s.api.audit.list({ type, limit: AUTHOR_PAGE, ...(before ? { before } : {}) })
				let older = false
				for (const event of events) {
					const version = event.details.version
					if (event.target?.id !== configId || typeof version !== 'number') continue
					if (wanted.has(version) && !found.has(version)) found.set(version, event.actor.device ?? UNKNOWN_DEVICE)
					if (version <= after) older = true
				}
				before = events.at(-1)?.id
				if (older || events.length < AUTHOR_PAGE || found.size === wanted.size) break
			}
		}
	} catch (error) {
		// A server that cannot say (an older one, or the log unreadable): every version counts as unknown.
		if (!(error instanceof ApiError)) throw error
	}
	const devices = [...wanted].map((v) => found.get(v) ?? UNKNOWN_DEVICE)
	if (latest - after > wanted.size) devices.push(UNKNOWN_DEVICE)
	return devices
}

/** This machine's device: the saved login's, or (CFGSYNC_API_KEY) the current key's, asked once. */
export async function ownDevice(s: Session): Promise<string | undefined> {
	if (s.keySource === 'saved' && s.credentials) return s.credentials.device
	try {
		return (await s.api.keys.list()).find((k) => k.current)?.device
	} catch (error) {
		if (error instanceof ApiError) return undefined
		throw error
	}
}
