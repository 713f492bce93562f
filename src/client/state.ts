import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { stateDir } from './paths'

/**
 * What this machine last synced for one config: the content hash it pulled
 * or pushed (sent as If-Match next time) and each file's hash then (to tell a
 * local edit from a file the server changed).
 */
export interface SyncState {
	hash: string
	version: number
	files: Record<string, string>
	syncedAt: string
}

type StateFile = Record<string, SyncState>

const stateFile = () => join(stateDir(), 'state.json')

/** One entry per server, user, scope (personal or team id), tool and name. */
export const stateKey = (parts: { server: string; username: string; teamId?: string; tool: string; name: string }) =>
	[parts.server, parts.username, parts.teamId ?? 'personal', parts.tool, parts.name].join(' ')

function load(): StateFile {
	if (!existsSync(stateFile())) return {}
	try {
		return JSON.parse(readFileSync(stateFile(), 'utf8')) as StateFile
	} catch {
		return {}
	}
}

export const getState = (key: string): SyncState | undefined => load()[key]

/** Replaces one entry; written to a temporary file and renamed, so a crash never leaves half a file. */
export function setState(key: string, state: SyncState | undefined): void {
	const all = load()
	if (state === undefined) delete all[key]
	else all[key] = state
	mkdirSync(dirname(stateFile()), { recursive: true, mode: 0o700 })
	const temporary = `${stateFile()}.${process.pid}.tmp`
	writeFileSync(temporary, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 })
	renameSync(temporary, stateFile())
}

export const backupsDir = (): string => join(stateDir(), 'backups')
