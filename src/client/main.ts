#!/usr/bin/env node
import { runCli } from './cli'
import { PROCESS_IO } from './io'

/** The cfgsync program: the command line (cli.ts) run on the process's IO. */

/**
 * SIGINT and SIGTERM stop any command at once (exit 130 / 143), the lock
 * released by its own handler or at exit, files as the journal says
 * (docs/sync-model.md). A command that handles them itself (watch, a lock
 * holder) has its own listener: this one then leaves it to that.
 */
for (const [signal, code] of [
	['SIGINT', 130],
	['SIGTERM', 143]
] as const) {
	const stop = () => {
		if (process.listenerCount(signal) > 1) return
		process.exit(code)
	}
	process.on(signal, stop)
}

void runCli(process.argv.slice(2), { io: PROCESS_IO }).then((code) => process.exit(code))
