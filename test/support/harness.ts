import type { Subprocess } from 'bun'
import { afterAll } from 'bun:test'
import { tempDir } from './temp'

import { BINARY } from './binary'

export { BINARY }

export const emptyDir = () => tempDir('e2e')

export interface RunResult {
	code: number
	stdout: string
	stderr: string
}

/** Runs one admin command of the binary in `cwd` and waits for it. */
export async function run(
	cwd: string,
	args: string[],
	options: { env?: Record<string, string>; stdin?: string } = {}
): Promise<RunResult> {
	const proc = Bun.spawn([BINARY, ...args], {
		cwd,
		env: { PATH: process.env.PATH ?? '', ...options.env },
		stdin: options.stdin === undefined ? 'ignore' : new Blob([options.stdin]),
		stdout: 'pipe',
		stderr: 'pipe'
	})
	const [stdout, stderr, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited
	])
	return { code, stdout, stderr }
}

export interface Server {
	proc: Subprocess<'ignore', 'pipe', 'pipe'>
	url: string
	dir: string
	/** Every line the server wrote to stdout so far. */
	log: () => string
	/** Every line it wrote to stderr so far (plain text for people: the first start's setup banner). */
	errors: () => string
	stop: (signal?: NodeJS.Signals) => Promise<number>
}

/** Servers a test file started: killed when the file's tests are done. */
export function serversOfThisFile(): Server[] {
	const servers: Server[] = []
	afterAll(async () => {
		for (const server of servers) await server.stop('SIGKILL')
	})
	return servers
}

/** Starts `cfgsync-server serve` in `dir` on a free loopback port and waits for /healthz. */
export async function startServer(
	dir: string,
	options: { env?: Record<string, string>; args?: string[] } = {}
): Promise<Server> {
	const proc = Bun.spawn([BINARY, 'serve', '--port', '0', '--host', '127.0.0.1', ...(options.args ?? [])], {
		cwd: dir,
		// Tests push from one user far faster than a person (hundreds a minute, to show nothing acknowledged is
		// lost): the pushes a minute quota is off unless a test sets it (test/client/quotas-in-process.test.ts
		// sets it on its in-process app).
		env: { PATH: process.env.PATH ?? '', CFGSYNC_QUOTA_PUSHES_PER_MINUTE: '0', ...options.env },
		stdin: 'ignore',
		stdout: 'pipe',
		stderr: 'pipe'
	})
	let output = ''
	let errors = ''
	const decoder = new TextDecoder()
	void (async () => {
		for await (const chunk of proc.stdout) output += decoder.decode(chunk)
	})()
	void (async () => {
		for await (const chunk of proc.stderr) errors += decoder.decode(chunk)
	})()
	const deadline = Date.now() + 15_000
	let url: string | undefined
	while (!url) {
		if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}: ${errors}${output}`)
		if (Date.now() > deadline) throw new Error(`server did not start: ${errors}${output}`)
		const match = output.match(/"msg":"listening","url":"http:\/\/[^:]+:(\d+)"/)
		if (match) url = `http://127.0.0.1:${match[1]}`
		else await Bun.sleep(20)
	}
	while ((await fetch(`${url}/healthz`).catch(() => undefined))?.status !== 200) {
		if (Date.now() > deadline) throw new Error('server never became healthy')
		await Bun.sleep(20)
	}
	return {
		proc,
		url,
		dir,
		log: () => output,
		errors: () => errors,
		async stop(signal = 'SIGTERM') {
			if (proc.exitCode === null) proc.kill(signal)
			return proc.exited
		}
	}
}

/** Creates a user with the binary and returns a key for it. */
export async function userWithKey(dir: string, name: string, plan = 'team', env: Record<string, string> = {}) {
	const password = `pw-${name}-secret`
	const add = await run(
		dir,
		['user', 'add', '--email', `${name}@example.test`, '--username', name, '--plan', plan, '--password-stdin'],
		{
			stdin: `${password}\n`,
			env
		}
	)
	if (add.code !== 0) throw new Error(add.stderr)
	const key = await run(dir, ['key', 'issue', name, '--device', 'e2e'], { env })
	if (key.code !== 0) throw new Error(key.stderr)
	return { id: add.stdout.trim(), name, password, key: key.stdout.trim() }
}

/** fetch with a bearer key and a JSON body. */
/** Every item of a paged list (docs/performance.md), following `Link: <…>; rel="next"` from `path`. */
export async function allPages<T = unknown>(server: Server, path: string, key?: string): Promise<T[]> {
	const items: T[] = []
	let next: string | undefined = path
	while (next !== undefined) {
		const page = await api(server, 'GET', next, key)
		if (page.status !== 200) throw new Error(`GET ${next}: HTTP ${page.status}`)
		items.push(...(page.body as T[]))
		next = /<([^>]+)>;\s*rel="next"/.exec(page.headers.get('link') ?? '')?.[1]
	}
	return items
}

export async function api(
	server: Server,
	method: string,
	path: string,
	key?: string,
	body?: unknown,
	headers: Record<string, string> = {}
) {
	const response = await fetch(`${server.url}${path}`, {
		method,
		headers: {
			...(key ? { authorization: `Bearer ${key}` } : {}),
			...(body !== undefined ? { 'content-type': 'application/json' } : {}),
			...headers
		},
		body: body === undefined ? undefined : JSON.stringify(body)
	})
	const text = await response.text()
	return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined }
}
