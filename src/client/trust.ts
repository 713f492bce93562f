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
 * and user in $XDG_CONFIG_HOME/cfgsync/trusted-devices.json (mode 0600). A
 * device is trusted by the id of the key it had when it was trusted, which the
 * audit log records for each version: its name alone could be taken over by
 * another key (a new login under that name replaces its key). This
 * machine's own key is always trusted.
 */

/** A device as trusted here: its name (what people type and read) and the key it had then. */
export interface TrustedDevice {
	device: string
	/** Absent for "web" (no key) and for trust an older cfgsync gave by name alone. */
	key?: string
}

interface TrustFile {
	/** 1: names only (an older cfgsync); 2: names with their keys. */
	format: 1 | 2
	/** `server username` → devices. */
	trusted: Record<string, (string | TrustedDevice)[]>
}

const trustFile = () => join(configDir(), 'trusted-devices.json')
const entry = (server: string, username: string) => `${server} ${username}`

function read(): TrustFile {
	const file = trustFile()
	if (!existsSync(file)) return { format: 2, trusted: {} }
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
	writeAtomically(file, `${JSON.stringify({ ...content, format: 2 }, null, 2)}\n`, 0o600)
}

const asTrusted = (value: unknown): TrustedDevice | undefined => {
	if (typeof value === 'string') return { device: value }
	if (typeof value !== 'object' || value === null) return undefined
	const { device, key } = value as Record<string, unknown>
	if (typeof device !== 'string') return undefined
	return typeof key === 'string' ? { device, key } : { device }
}

export function trustedDevices(server: string, username: string): TrustedDevice[] {
	const found = read().trusted[entry(server, username)]
	return Array.isArray(found) ? found.flatMap((value) => asTrusted(value) ?? []) : []
}

/** Trusts a device (its name and current key; one entry per name), or with `trusted` false stops; says whether anything changed. */
export function setTrusted(server: string, username: string, device: TrustedDevice, trusted: boolean): boolean {
	const content = read()
	const key = entry(server, username)
	const known = trustedDevices(server, username)
	const others = known.filter((t) => t.device !== device.device)
	const same = known.find((t) => t.device === device.device)
	if (!trusted && same === undefined) return false
	if (trusted && same !== undefined && same.key === device.key) return false
	const next = trusted ? [...others, device.key === undefined ? { device: device.device } : device] : others
	if (next.length === 0) delete content.trusted[key]
	else content.trusted[key] = next.sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0))
	write(content)
	return true
}

/** A trusted device renamed (cfgsync keys rename): its entry, found by its key, takes the new name; whether one did. */
export function renameTrusted(server: string, username: string, keyId: string, name: string): boolean {
	const known = trustedDevices(server, username)
	if (!known.some((t) => t.key === keyId && t.device !== name)) return false
	const content = read()
	content.trusted[entry(server, username)] = known
		.map((t) => (t.key === keyId ? { device: name, key: keyId } : t))
		.sort((a, b) => (a.device < b.device ? -1 : a.device > b.device ? 1 : 0))
	write(content)
	return true
}

/** Who made a version: the device name the server recorded and, when the server records it, the key's id. */
export interface Author {
	device: string
	/** null: no key (the web application), or a server or an event older than key ids. */
	keyId: string | null
}

/**
 * Whether this machine trusts the author of a version with code: by its key when the server named
 * the key (this machine's own, or one trusted here); by name only when it did not (the web application,
 * or events recorded before servers kept key ids).
 */
export function isTrusted(author: Author, trusted: TrustedDevice[], own: Author | undefined): boolean {
	if (author.device === UNKNOWN_DEVICE) return false
	if (author.keyId !== null) return author.keyId === own?.keyId || trusted.some((t) => t.key === author.keyId)
	return author.device === own?.device || trusted.some((t) => t.device === author.device)
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
export async function devicesSince(s: Session, configId: string, after: number, latest: number): Promise<Author[]> {
	const wanted = new Set<number>()
	for (let v = Math.max(after + 1, 1); v <= latest && wanted.size < AUTHOR_PAGES * AUTHOR_PAGE; v++) wanted.add(v)
	const found = new Map<number, Author>()
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
					if (wanted.has(version) && !found.has(version))
						found.set(version, { device: event.actor.device ?? UNKNOWN_DEVICE, keyId: event.actor.keyId ?? null })
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
	const unknown: Author = { device: UNKNOWN_DEVICE, keyId: null }
	const authors = [...wanted].map((v) => found.get(v) ?? unknown)
	if (latest - after > wanted.size) authors.push(unknown)
	return authors
}

/** This machine's device and key: the saved login's, or (CFGSYNC_API_KEY) the current key's, asked once. */
export async function ownDevice(s: Session): Promise<Author | undefined> {
	if (s.keySource === 'saved' && s.credentials) return { device: s.credentials.device, keyId: s.credentials.keyId }
	try {
		const current = (await s.api.keys.list()).find((k) => k.current)
		return current === undefined ? undefined : { device: current.device, keyId: current.id }
	} catch (error) {
		if (error instanceof ApiError) return undefined
		throw error
	}
}
