// What both bench scripts need: start a server and read its CPU time and memory from /proc.
import type { Subprocess } from 'bun'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

export const ROOT = resolve(import.meta.dir, '..')
export const TICK_US = 10_000 // /proc CPU times are in 1/100 s

/** Stops the bench with a message saying what is missing. */
export function need(ok: boolean, message: string): asserts ok {
	if (!ok) {
		console.error(message)
		process.exit(1)
	}
}

export interface Server {
	name: string
	proc: Subprocess
	url: string
	/** Several instances measured as one (their load split evenly over them): every instance's URL. */
	urls?: string[]
	pids: () => number[]
	/** PostgreSQL rows: the PostgreSQL backends serving the bench database, whose CPU is counted beside the server's. */
	databasePids?: () => Promise<number[]>
	stop: () => Promise<void>
}

export async function listen(name: string, cmd: string[], env: Record<string, string> = {}): Promise<Server> {
	// The server's stdout (cfgsync's access log) goes to a file, as `> server.log` would. Read through
	// a pipe, the bench's own reading took CPU from wrk and the servers, and only cfgsync logs.
	const logDir = mkdtempSync(join(tmpdir(), 'cfgsync-bench-log-'))
	const log = join(logDir, 'stdout.log')
	const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...env }, stdout: Bun.file(log), stderr: 'inherit' })
	let port: number | undefined
	const deadline = Date.now() + 30_000
	while (port === undefined) {
		const text = existsSync(log) ? readFileSync(log, 'utf8') : ''
		const match = text.match(/"(?:port|url)":"?(?:http:\/\/[^:]+:)?(\d+)/)
		if (match) port = Number(match[1])
		else if (proc.exitCode !== null || Date.now() > deadline) throw new Error(`${name} did not start: ${text}`)
		else await Bun.sleep(20)
	}
	const url = `http://127.0.0.1:${port}`
	return {
		name,
		proc,
		url,
		pids: () => [proc.pid, ...childPids(proc.pid)],
		async stop() {
			proc.kill('SIGTERM')
			await proc.exited
			rmSync(logDir, { recursive: true, force: true })
		}
	}
}

function childPids(pid: number): number[] {
	try {
		const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
		return children
			? children
					.split(/\s+/)
					.map(Number)
					.flatMap((child) => [child, ...childPids(child)])
			: []
	} catch {
		return []
	}
}

export const cpuTicks = (pids: number[]) =>
	pids.reduce((sum, pid) => {
		try {
			const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
			return sum + Number(fields[11]) + Number(fields[12])
		} catch {
			return sum
		}
	}, 0)

export const rssBytes = (pids: number[]) =>
	pids.reduce((sum, pid) => {
		try {
			return sum + Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
		} catch {
			return sum
		}
	}, 0)

/** Several instances measured as one server: the load is split over them, CPU and memory summed. */
export function group(name: string, members: Server[]): Server {
	const first = members[0] as Server
	return {
		name,
		proc: first.proc,
		url: first.url,
		urls: members.map((member) => member.url),
		pids: () => members.flatMap((member) => member.pids()),
		stop: async () => void (await Promise.all(members.map((member) => member.stop())))
	}
}
