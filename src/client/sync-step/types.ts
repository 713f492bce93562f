import type { IO } from '../io'
import type { Located } from '../local-keys'
import type { Printer } from '../output'
import type { Sent } from '../outgoing'
import type { Choice, Decision, Mode, Write } from '../sync/engine'
import type { Target } from '../target'

/** What a command asks of one sync step (push, pull, sync, resolve and watch all run one). */
export interface RunOptions {
	mode: Mode
	/** Where the run speaks (notes, warnings, a review) and asks: the command's own IO. */
	io: IO
	out: Printer
	choose?: { side: Choice; keys?: string[] }
	only?: boolean
	/** PATH arguments as keys (a directory's with a final `/`): the command looks at these files only. */
	named?: string[]
	dryRun?: boolean
	/** Write someone else's changes that need a review without asking (after showing them). */
	yes?: boolean
	allowSecrets?: boolean
	/** False for watch: never ask on the terminal. */
	interactive?: boolean
	/** Why this machine may not push this config (a team's plain member): a sync then pulls only. */
	localOnly?: string
}

/** Files a review left as they were: which, why, and how to run the command again to write them. */
export interface Held {
	keys: string[]
	code: 'review_required' | 'declined'
	/** The command that was run, with --yes: its options after the config's, and its PATHs (as keys). */
	again: { options: string[]; paths: string[] }
}

/** What one sync step did (a dry run: would do); report.ts (the client's) prints it. */
export interface Report {
	target: Target
	mode: Mode
	dryRun: boolean
	/** The PATHs the command named (keys; a directory's with a final `/`): it looked at those files only. */
	named?: string[]
	/** The server's version this run saw (undefined: the config does not exist). */
	remoteVersion?: number
	remoteHash?: string
	writes: Write[]
	refused: { key: string; why: string }[]
	conflicts: Decision[]
	unsent: Decision[]
	unpulled: Decision[]
	unchanged: string[]
	/** Files whose conflict (or, for resolve PATH, whose difference) the chosen side settled. */
	settled: string[]
	outside: string[]
	/** Left out here: a directory over its caps, a file that is not text, a link out of home, a file not the tool's. */
	skipped: { key: string; why: string }[]
	/** Files changed here that do not parse as their format: nothing of the config was sent. */
	invalid: { key: string; why: string }[]
	duplicates: string[]
	/** Why changes here stay local (a team's plain member's sync): `unsent` are kept here, not pushed. */
	localOnly?: string
	/** Files left as they were, for the person's review of someone else's changes to them (docs/sync-model.md). */
	held?: Held
	/** The config's keys and files that stay on this machine (docs/sync-model.md). */
	local: Located[]
	/** What this run's push sends (a dry run: would send), file by file. */
	sent: Sent[]
	/** The version now on the server after this run's push. */
	pushed?: { version: number; hash: string; created: boolean; files: string[] }
	backups?: string
}
