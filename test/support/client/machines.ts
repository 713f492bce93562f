import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { emptyDir, startServer, userWithKey, type Server } from '../harness'

/** The client under test: dist/cfgsync, or another build named by CFGSYNC_CLI (to show a test fails on an older client). */
export const CLI = process.env.CFGSYNC_CLI ?? resolve(import.meta.dir, '..', '..', '..', 'dist', 'cfgsync')

export interface Result {
	code: number
	stdout: string
	stderr: string
}

export interface Machine {
	home: string
	cfgsync: (args: string[], options?: { stdin?: string; env?: Record<string, string> }) => Promise<Result>
	/**
	 * Runs the client on a terminal (a pseudo-terminal from script(1)), typing `keys`: all at once, or
	 * piece by piece, each once the output shows its `after` text (one more time per piece that waits
	 * for the same text); stdout and stderr come back together.
	 */
	terminal: (
		args: string[],
		keys: string | { after: string; type: string }[],
		options?: { env?: Record<string, string> }
	) => Promise<{ code: number; output: string }>
	/** Starts the client without waiting (watch). */
	start: (args: string[], options?: { env?: Record<string, string> }) => ReturnType<typeof Bun.spawn>
	/** Reads (no content) or writes a file under this machine's home. */
	file: (path: string, content?: string | Buffer) => string | undefined
	bytes: (path: string) => Buffer | undefined
	exists: (path: string) => boolean
}

/**
 * A "machine": its own HOME, XDG_CONFIG_HOME (`.config` in it unless
 * `configHome` names another directory of it) and XDG_STATE_HOME, talking to
 * one server through the client binary (or `command`, e.g. node and a bundle).
 */
export function machine(server: Server, options: { configHome?: string; command?: string[] } = {}): Machine {
	const command = options.command ?? [CLI]
	const home = emptyDir()
	const env = (more: Record<string, string> = {}) => ({
		PATH: process.env.PATH ?? '',
		HOME: home,
		XDG_CONFIG_HOME: join(home, options.configHome ?? '.config'),
		XDG_STATE_HOME: join(home, '.local', 'state'),
		CFGSYNC_SERVER: server.url,
		NO_COLOR: '1',
		...more
	})
	const cfgsync: Machine['cfgsync'] = async (args, options = {}) => {
		const proc = Bun.spawn([...command, ...args], {
			cwd: home,
			env: env(options.env),
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
	const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
	const terminal: Machine['terminal'] = async (args, keys, options = {}) => {
		const script = ['script', '-qefc', [...command, ...args].map(quote).join(' '), '/dev/null']
		if (typeof keys === 'string') {
			const proc = Bun.spawn(script, {
				cwd: home,
				env: env(options.env),
				stdin: new Blob([keys]),
				stdout: 'pipe',
				stderr: 'pipe'
			})
			const [output, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
			return { code, output }
		}
		const proc = Bun.spawn(script, { cwd: home, env: env(options.env), stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' })
		let output = ''
		const reading = (async () => {
			const decoder = new TextDecoder()
			for await (const chunk of proc.stdout) output += decoder.decode(chunk)
		})()
		const seen: Record<string, number> = {}
		for (const piece of keys) {
			seen[piece.after] = (seen[piece.after] ?? 0) + 1
			const deadline = Date.now() + 20_000
			while (output.split(piece.after).length - 1 < (seen[piece.after] as number)) {
				if (proc.exitCode !== null || Date.now() > deadline)
					throw new Error(`never saw "${piece.after}" on the terminal: ${output}`)
				await Bun.sleep(20)
			}
			// Raw mode is set just after the prompt is written: give the client a moment.
			await Bun.sleep(100)
			proc.stdin.write(piece.type)
			await proc.stdin.flush()
		}
		proc.stdin.end()
		const code = await proc.exited
		await reading
		return { code, output }
	}
	const start = (args: string[], options: { env?: Record<string, string> } = {}) =>
		Bun.spawn([...command, ...args], {
			cwd: home,
			env: env(options.env),
			stdin: 'ignore',
			stdout: 'pipe',
			stderr: 'pipe'
		})
	const file = (path: string, content?: string | Buffer) => {
		const full = join(home, path)
		if (content === undefined) return existsSync(full) ? readFileSync(full, 'utf8') : undefined
		mkdirSync(join(full, '..'), { recursive: true })
		writeFileSync(full, content)
		return content.toString()
	}
	const bytes = (path: string) => (existsSync(join(home, path)) ? readFileSync(join(home, path)) : undefined)
	return { home, cfgsync, terminal, start, file, bytes, exists: (path) => existsSync(join(home, path)) }
}

export type User = Awaited<ReturnType<typeof userWithKey>>

/** One server with three users: ada (team plan), ben and cy (pro). */
export async function serverWithUsers(servers: Server[]) {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const [ada, ben, cy] = await Promise.all([
		userWithKey(dir, 'ada', 'team'),
		userWithKey(dir, 'ben', 'pro'),
		userWithKey(dir, 'cy', 'pro')
	])
	return { server, dir, ada: ada as User, ben: ben as User, cy: cy as User }
}

export const login = (m: Machine, user: { name: string; password: string }, device?: string) =>
	m.cfgsync(['login', '--user', user.name, ...(device ? ['--device', device] : []), '--password-stdin'], {
		stdin: `${user.password}\n`
	})

/**
 * `count` machines of one person, logged in as `user` (devices `PREFIX0-…`, `PREFIX1-…`), each trusting the
 * others with code, and the devices in `alsoTrusted` (the user's `e2e` key, when the test pushes through the API
 * as another machine of theirs would), as the person does with `cfgsync trust DEVICE` (docs/sync-model.md).
 */
export async function ownMachines(
	server: Server | (() => Machine),
	user: { name: string; password: string },
	count: number,
	prefix: string,
	alsoTrusted: string[] = []
): Promise<Machine[]> {
	// A server: the compiled client's machines; a function: the machines it makes (in process, in-process.ts).
	const list = Array.from({ length: count }, () => (typeof server === 'function' ? server() : machine(server)))
	const devices = list.map((_, i) => `${prefix}${i}-${Math.random().toString(36).slice(2, 8)}`)
	for (const [i, m] of list.entries()) {
		const loggedIn = await login(m, user, devices[i])
		if (loggedIn.code !== 0) throw new Error(`login failed: ${loggedIn.stderr}`)
	}
	for (const [i, m] of list.entries())
		for (const device of [...devices.filter((_, j) => j !== i), ...alsoTrusted]) {
			const trusted = await m.cfgsync(['trust', device])
			if (trusted.code !== 0) throw new Error(`cfgsync trust ${device} failed: ${trusted.stderr}`)
		}
	return list
}

/** The client bundled for Node, as the npm package ships it (built into `dir`); its path. */
export async function nodeBundle(dir: string): Promise<string> {
	const built = await Bun.build({
		entrypoints: [resolve(import.meta.dir, '..', '..', '..', 'src', 'client', 'main.ts')],
		target: 'node',
		format: 'esm',
		outdir: dir,
		naming: 'cfgsync.mjs'
	})
	if (!built.success) throw new Error(built.logs.join('\n'))
	return join(dir, 'cfgsync.mjs')
}
