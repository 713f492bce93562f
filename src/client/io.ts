import { homedir } from 'node:os'
import { prompt, readStdin } from '../shared/terminal'
import { type Paths, resolvePaths } from './paths'

/**
 * What a command reads and writes besides files: its streams, whether a
 * person is at a terminal, the environment, where its files are and the
 * clock. Commands are given
 * one (as the GitHub CLI's IOStreams) instead of reaching for `process`, so a
 * test runs a command in process with a fake one (test/support/client-io.ts).
 */

/** An output stream: what it is written with, and whether it is a terminal (colours). */
export interface Stream {
	write(text: string): unknown
	readonly isTTY?: boolean
	/** A terminal's size (a review wraps to its width; the pager starts past its height). */
	readonly columns?: number
	readonly rows?: number
}

export interface Stdin {
	/** Is a person at a terminal to ask? */
	readonly isTTY: boolean
	/** All of standard input, without its trailing newline (--password-stdin). */
	read(): Promise<string>
	/** Asks on the terminal (echoed on stderr); undefined without one; PromptCancelled on Ctrl-C. */
	prompt(question: string, options?: { hidden?: boolean }): Promise<string | undefined>
}

export interface IO {
	stdout: Stream
	stderr: Stream
	stdin: Stdin
	/** CFGSYNC_SERVER, CFGSYNC_PROFILE, CFGSYNC_API_KEY, CFGSYNC_TIMEOUT, NO_COLOR. */
	env: Readonly<Record<string, string | undefined>>
	/** Where cfgsync's files and the tools' are: HOME, XDG_CONFIG_HOME, XDG_STATE_HOME, resolved once (paths.ts). */
	paths: Paths
	/** Milliseconds since the epoch, for "3 minutes ago" and watch's turns. */
	now(): number
}

/** The process's own: what the cfgsync program runs with. */
export const PROCESS_IO: IO = {
	stdout: process.stdout,
	stderr: process.stderr,
	stdin: {
		get isTTY() {
			return process.stdin.isTTY === true
		},
		read: readStdin,
		prompt
	},
	env: process.env,
	paths: resolvePaths(process.env, { platform: process.platform, homedir: homedir() }),
	now: () => Date.now()
}
