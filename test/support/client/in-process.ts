import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Plan } from '../../../src/shared/constants'
import { cfgsync } from '../client-io'
import { type TestApp, testApp } from '../helpers'
import { tempDir } from '../temp'
import { pathsIn } from './home'
import type { Machine, Result } from './machines'

/**
 * The machines of the end-to-end tests (machines.ts), in process: each its own home, its command
 * lines run by src/client/cli.ts on a fake IO (test/support/client-io.ts) against one in-process
 * server app, logging in and keeping its login in its home as the compiled client does. A test of
 * what a command says, refuses or writes runs here in milliseconds; what only the compiled binary
 * shows (signals, a real terminal, two processes at once) stays in the *.e2e tests.
 */

/** The server's address as the machines know it (CFGSYNC_SERVER); requests go to the app's handler. */
export const SERVER = 'http://cfgsync.test'

/** A user as the end-to-end tests name one: `name` logs in, `key` calls the API as device "test". */
export interface User {
	id: string
	name: string
	password: string
	key: string
}

export interface World {
	t: TestApp
	/** A request to the app as `key` (the end-to-end harness's api(), without a socket). */
	api: (method: string, path: string, key?: string, body?: unknown) => Promise<{ status: number; body: any }>
	machine: (options?: { configHome?: string }) => Machine
	user: (plan: Plan, name: string) => Promise<User>
}

/** One in-process server (testApp's options: quotas, …); users made on it by plan and name, as serverWithUsers makes ada, ben and cy. */
export function inProcessWorld(options?: Parameters<typeof testApp>[0]): World {
	const t = testApp(options)
	return {
		t,
		api: async (method, path, key, body) => {
			const response = await t.call(method, path, { key, body })
			return { status: response.status, body: response.body }
		},
		machine: (options) => inProcessMachine(t, options),
		user: async (plan, name) => {
			const made = await t.user(plan, name)
			return { id: made.id, name: made.username, password: made.password, key: made.key }
		}
	}
}

/** The answers typed at a terminal's prompts, from the keys an end-to-end test types ("n\r", or pieces). */
const answersOf = (keys: string | { after: string; type: string }[]): string[] =>
	(typeof keys === 'string' ? keys : keys.map((piece) => piece.type).join('')).split(/\r\n|\r|\n/).slice(0, -1)

/** A machine with its own home (XDG directories inside it) whose command lines run in process on `t`. */
export function inProcessMachine(t: TestApp, options: { configHome?: string } = {}): Machine {
	const home = tempDir('machine')
	const paths = pathsIn(home, options.configHome ? { XDG_CONFIG_HOME: join(home, options.configHome) } : {})
	const env = (more: Record<string, string> = {}) => ({ CFGSYNC_SERVER: SERVER, NO_COLOR: '1', ...more })
	const run: Machine['cfgsync'] = async (args, more = {}): Promise<Result> => {
		const ran = await cfgsync(args, { app: t, paths, env: env(more.env), stdin: more.stdin })
		return { code: ran.code, stdout: ran.stdout, stderr: ran.stderr }
	}
	// A terminal: the questions as they were asked, then what was written to stderr and stdout.
	const terminal: Machine['terminal'] = async (args, keys, more = {}) => {
		const ran = await cfgsync(args, { app: t, paths, env: env(more.env), tty: true, answers: answersOf(keys) })
		return { code: ran.code, output: [...ran.io.asked, ran.stderr, ran.stdout].join('\n') }
	}
	const file = (path: string, content?: string | Buffer) => {
		const full = join(home, path)
		if (content === undefined) return existsSync(full) ? readFileSync(full, 'utf8') : undefined
		mkdirSync(join(full, '..'), { recursive: true })
		writeFileSync(full, content)
		return content.toString()
	}
	return {
		home,
		cfgsync: run,
		terminal,
		start: () => {
			throw new Error('a process of its own is the compiled client’s: use machine() of machines.ts')
		},
		file,
		bytes: (path) => (existsSync(join(home, path)) ? readFileSync(join(home, path)) : undefined),
		exists: (path) => existsSync(join(home, path))
	}
}
