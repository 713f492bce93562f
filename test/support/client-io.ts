import { PromptCancelled } from '../../src/shared/terminal'
import { runCli } from '../../src/client/cli'
import { connect, type Session } from '../../src/client/context'
import type { Credentials } from '../../src/client/credentials'
import type { IO } from '../../src/client/io'
import { installedPaths, type Paths } from '../../src/client/paths'
import { type Printer, printer } from '../../src/client/output'
import type { TestApp, TestUser } from './helpers'

/**
 * The cfgsync client in process (docs/architecture.md, "A new client
 * command"): a command line run by src/client/cli.ts on a fake IO — output
 * captured, standard input scripted, a terminal or not, a fixed clock — and
 * a session whose requests go straight to an in-process server app
 * (test/support/helpers.ts testApp), so a command's test takes milliseconds.
 * What only the compiled program shows (signals, exit of the process, the
 * real terminal) stays in the *.e2e tests.
 */

export interface FakeIO extends IO {
	/** What was written to stdout and stderr so far. */
	written(): { stdout: string; stderr: string }
	/** The questions asked on the terminal, in order. */
	asked: string[]
}

export interface FakeIOOptions {
	/** Is there a person at a terminal (stdin) — and are stdout and stderr terminals (colours)? Default no. */
	tty?: boolean
	/** Standard input's whole text (--password-stdin). */
	stdin?: string
	/** The answers typed at the terminal's prompts, in order (needs `tty`); past them, Ctrl-C. */
	answers?: string[]
	env?: Record<string, string | undefined>
	/**
	 * Where the command's files are: another machine's home (`pathsIn(home)`); default the paths the test
	 * installed (test/support/client/home.ts homePerTest).
	 */
	paths?: Paths
	/** The clock, in milliseconds since the epoch (default FIXED_NOW; the app's clock in `cfgsync`). */
	now?: number
}

/** The test server's clock starts here too (src/server/lib/clock.ts manualClock), so times read "just now". */
export const FIXED_NOW = Date.parse('2026-11-22T10:00:00.000Z')

export function fakeIO(options: FakeIOOptions = {}): FakeIO {
	let stdout = ''
	let stderr = ''
	const answers = [...(options.answers ?? [])]
	const asked: string[] = []
	const tty = options.tty === true
	return {
		stdout: {
			isTTY: tty,
			write: (text: string) => {
				stdout += text
				return true
			}
		},
		stderr: {
			isTTY: tty,
			write: (text: string) => {
				stderr += text
				return true
			}
		},
		stdin: {
			isTTY: tty,
			read: async () => (options.stdin ?? '').replace(/\r?\n$/, ''),
			async prompt(question) {
				if (!tty) return undefined
				asked.push(question)
				const answer = answers.shift()
				if (answer === undefined) throw new PromptCancelled('cancelled')
				return answer
			}
		},
		env: options.env ?? {},
		paths: options.paths ?? testPaths(),
		now: () => options.now ?? FIXED_NOW,
		written: () => ({ stdout, stderr }),
		asked
	}
}

/** The paths the test installed (homePerTest); a command line needs some. */
function testPaths(): Paths {
	const paths = installedPaths()
	if (paths === undefined)
		throw new Error('no home for this test: call homePerTest (test/support/client/home.ts) or pass paths')
	return paths
}

/** Requests to `app`'s own handler, as the client's api sends them. */
const handlerOf = (t: TestApp) => (url: string, init: RequestInit) => t.app.handle(new Request(url, init))

/** A session as `user` on the in-process `app`: its requests are the app's own handler, no socket. */
export function sessionOn(t: TestApp, user: TestUser, server = 'http://cfgsync.test'): () => Session {
	const credentials: Credentials = {
		server,
		apiKey: user.key,
		keyId: 'in-process',
		device: 'test',
		username: user.username,
		email: user.email
	}
	return () =>
		connect({
			server,
			profile: 'default',
			key: user.key,
			credentials,
			keySource: 'saved',
			fetch: handlerOf(t)
		})
}

export interface Ran {
	code: number
	stdout: string
	stderr: string
	io: FakeIO
}

/**
 * `cfgsync ARGS` in process on a fake IO: as `user` on `app`, or on `app` with
 * the login saved in the test's home (its paths as test/support/client/home.ts installs them, or `paths`).
 */
export async function cfgsync(
	args: string[],
	options: FakeIOOptions & { app?: TestApp; user?: TestUser } = {}
): Promise<Ran> {
	const { app, user } = options
	const io = fakeIO({ ...options, now: options.now ?? app?.clock.now() })
	const code = await runCli(args, {
		io,
		// As `user`; with the app alone, from the login saved in the test's home (cfgsync login in process saves one).
		...(app && user ? { session: sessionOn(app, user) } : {}),
		...(app ? { fetch: handlerOf(app) } : {})
	})
	return { code, ...io.written(), io }
}

/** What a sync step speaks through, for a test that calls runOne directly: a fake IO (no terminal) and its printer. */
export function quietRun(options: FakeIOOptions = {}): { io: FakeIO; out: Printer } {
	const io = fakeIO(options)
	return { io, out: printer(io, false) }
}
