import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve, sep } from 'node:path'
import { sha256Hex } from '../lib/crypto'
import { CliFailure } from './output'
import { home } from './paths'

/** The config format the CLI pushes: `{"files": {"<path relative to home>": "<content>"}}`. */
export interface FileSet {
	files: Record<string, string>
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

export const fileHash = (content: string): string => sha256Hex(content)

/**
 * The absolute path for a home-relative key, refusing anything that could
 * land outside home: absolute paths, `..`, empty or NUL-bearing names. Keys
 * come from the server, which a teammate may have written.
 */
export function safeTarget(key: string): string {
	const parts = key.split('/')
	if (key === '' || key.includes('\0') || key.startsWith('/') || key.includes('\\') || /^[A-Za-z]:/.test(key) || parts.some((p) => p === '..' || p === '' || p === '.')) {
		throw new CliFailure(`refusing the unsafe path "${key}" in the server's data`)
	}
	const target = resolve(home(), ...parts)
	if (!target.startsWith(home() + sep)) throw new CliFailure(`refusing "${key}": it is outside your home directory`)
	return target
}

/** A file's text, or undefined when it does not exist. Refuses directories and non-UTF-8 files. */
export function readText(key: string): string | undefined {
	const path = safeTarget(key)
	if (!existsSync(path)) return undefined
	if (statSync(path).isDirectory()) throw new CliFailure(`~/${key} is a directory, not a file`)
	try {
		return utf8.decode(readFileSync(path))
	} catch {
		throw new CliFailure(`~/${key} is not UTF-8 text; cfgsync syncs text configuration files`)
	}
}

/** The existing files among `keys`. */
export function collect(keys: string[]): FileSet {
	const files: Record<string, string> = {}
	for (const key of keys) {
		const content = readText(key)
		if (content !== undefined) files[key] = content
	}
	return { files }
}

/** Is `data` the CLI's file-set format? (A config pushed by something else may not be.) */
export function asFileSet(data: unknown): FileSet | undefined {
	if (typeof data !== 'object' || data === null || Array.isArray(data)) return undefined
	const files = (data as { files?: unknown }).files
	if (typeof files !== 'object' || files === null || Array.isArray(files)) return undefined
	if (!Object.values(files).every((content) => typeof content === 'string')) return undefined
	return { files: files as Record<string, string> }
}

/** Copies the current file to `backupRoot` (same relative path), then writes the new content atomically. */
export function writeWithBackup(key: string, content: string, backupRoot: string): { backedUp: boolean } {
	const target = safeTarget(key)
	let backedUp = false
	if (existsSync(target)) {
		const backup = join(backupRoot, ...key.split('/'))
		mkdirSync(dirname(backup), { recursive: true, mode: 0o700 })
		copyFileSync(target, backup)
		backedUp = true
	}
	mkdirSync(dirname(target), { recursive: true })
	const temporary = `${target}.cfgsync-${process.pid}.tmp`
	const mode = existsSync(target) ? statSync(target).mode & 0o777 : 0o600
	writeFileSync(temporary, content, { mode })
	renameSync(temporary, target)
	return { backedUp }
}
