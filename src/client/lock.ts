import { randomBytes } from 'node:crypto'
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import type { Stream } from './io'
import { CliFailure } from './output'
import { stateDir } from './paths'
import { processAlive } from '../shared/process'

/**
 * One lock for every command that changes local files or sync state
 * (docs/sync-model.md): a file created exclusively, naming its holder. A second
 * command waits for it; a lock whose holder died (same host, no such
 * process) is taken over; after the wait, a clear message names the file.
 */

export const lockFile = (): string => join(stateDir(), 'lock')
const breakFile = (): string => `${lockFile()}.break`

interface Holder {
	pid: number
	host: string
	command: string
	since: string
	token: string
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function read(path: string): { text: string; holder?: Holder } | undefined {
	try {
		const text = readFileSync(path, 'utf8')
		try {
			return { text, holder: JSON.parse(text) as Holder }
		} catch {
			return { text }
		}
	} catch {
		return undefined
	}
}

/**
 * The lock's age by the wall clock, not a command's IO clock: the file's mtime is the
 * filesystem's wall-clock time, written by whichever process took the lock, so only the
 * same clock measures it.
 */
const ageMs = (path: string): number => {
	try {
		return Date.now() - statSync(path).mtimeMs
	} catch {
		return 0
	}
}

/** Is the lock left by a process that is gone? Only provable for this host; an unreadable lock older than 10 s was never finished. */
function stale(found: { text: string; holder?: Holder }): boolean {
	if (!found.holder) return ageMs(lockFile()) > 10_000
	return found.holder.host === hostname() && !processAlive(found.holder.pid)
}

function create(path: string, content: string): boolean {
	let fd: number
	try {
		fd = openSync(path, 'wx', 0o600)
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
		throw error
	}
	try {
		writeSync(fd, content)
		fsyncSync(fd)
	} finally {
		closeSync(fd)
	}
	return true
}

/**
 * Removes a stale lock. Only the holder of the break file may, and only if
 * the lock still holds exactly what was judged stale, so two waiting
 * commands never both take over (one would remove the other's fresh lock).
 */
function takeOver(judged: string): void {
	if (!create(breakFile(), String(process.pid))) {
		if (ageMs(breakFile()) > 10_000) unlinkQuietly(breakFile())
		return
	}
	try {
		if (read(lockFile())?.text === judged) unlinkQuietly(lockFile())
	} finally {
		unlinkQuietly(breakFile())
	}
}

function unlinkQuietly(path: string): void {
	try {
		unlinkSync(path)
	} catch {
		// already gone
	}
}

export interface Lock {
	release: () => void
}

/**
 * Takes the lock, waiting up to CFGSYNC_LOCK_TIMEOUT seconds (default 60).
 * Released on release(), at exit, and (unless `signals` is false, for
 * commands that handle Ctrl-C themselves) on SIGINT/SIGTERM/SIGHUP.
 */
export async function acquireLock(
	command: string,
	options: { signals?: boolean; waiting?: Stream } = {}
): Promise<Lock> {
	const timeoutMs = Number(process.env.CFGSYNC_LOCK_TIMEOUT ?? 60) * 1000
	// Real time, as the sleeps between tries are: the wait is bounded by how long a person waits,
	// which a command's clock (fixed in an in-process test) does not measure.
	const deadline = Date.now() + timeoutMs
	const holder: Holder = {
		pid: process.pid,
		host: hostname(),
		command,
		since: new Date().toISOString(),
		token: randomBytes(8).toString('hex')
	}
	const content = `${JSON.stringify(holder)}\n`
	mkdirSync(stateDir(), { recursive: true, mode: 0o700 })
	let waited = false
	for (;;) {
		if (create(lockFile(), content)) break
		const found = read(lockFile())
		if (found === undefined) continue // released just now
		if (stale(found)) {
			takeOver(found.text)
			await sleep(5)
			continue
		}
		if (Date.now() >= deadline) {
			const who = found.holder
				? `"cfgsync ${found.holder.command}" (process ${found.holder.pid} on ${found.holder.host}, since ${found.holder.since})`
				: 'another cfgsync'
			throw new CliFailure(
				`${who} holds the lock ${lockFile()}; waited ${Math.round(timeoutMs / 1000)} s. Let it finish and run this again. If no cfgsync is running (a crash on another machine sharing this home), remove the lock: rm ${lockFile()}`
			)
		}
		if (!waited && options.waiting?.isTTY)
			options.waiting.write(`Waiting for another cfgsync (${found.holder?.command ?? 'unknown'}) to finish…\n`)
		waited = true
		await sleep(15 + Math.random() * 35)
	}

	let held = true
	const onSignal = (signal: NodeJS.Signals) => {
		release()
		process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1))
	}
	const signals: NodeJS.Signals[] = options.signals === false ? [] : ['SIGINT', 'SIGTERM', 'SIGHUP']
	function release(): void {
		if (!held) return
		held = false
		process.off('exit', release)
		for (const signal of signals) process.off(signal, onSignal)
		// Only our own lock: never one a later command took over.
		if (read(lockFile())?.holder?.token === holder.token) unlinkQuietly(lockFile())
	}
	process.on('exit', release)
	for (const signal of signals) process.on(signal, onSignal)
	return { release }
}

/** Runs `work` holding the lock. */
/** `waiting`: the terminal told once when another cfgsync holds the lock (the command's stderr). */
export async function withLock<T>(command: string, work: () => Promise<T>, waiting?: Stream): Promise<T> {
	const lock = await acquireLock(command, { waiting })
	try {
		return await work()
	} finally {
		lock.release()
	}
}
