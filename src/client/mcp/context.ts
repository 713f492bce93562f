import type { Session } from '../context'
import type { IO } from '../io'
import type { Printer } from '../output'

/** What an mcp subcommand runs with, as every command does: its IO, printer, session and exit status. */
export interface McpContext {
	io: IO
	out: Printer
	session: (flags: { server?: string; profile?: string }) => Session
	setExitCode: (code: number) => void
}
