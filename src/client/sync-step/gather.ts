import type { Session } from '../context'
import { linkOutOfHome, safeTarget } from '../files'
import { pendingState, type Settled, settleJournal } from '../journal'
import { CliFailure, EXIT, safe } from '../output'
import { configScope, newTeamConfigFailure, type OwnedScope } from '../ownership'
import { pinnedScope } from '../pinned'
import { forgetState, getState, rememberLeftFiles, stateKey, type SyncState } from '../state'
import { settling } from '../sync/choice'
import { type Bases, type Mode, ownValue } from '../sync/engine'
import type { Target } from '../target'
import { shown } from '../tools'
import { fetchRemote, type Remote, storedVersion } from './remote'
import type { RunOptions } from './types'

/** The first phase's answer: the three sides' sources and the files this run looks at. */
export interface Gathered {
	/** The server's latest version (undefined: the config does not exist there). */
	remote?: Remote
	/** What this machine last synced (the journal's pending state for a dry run). */
	state?: SyncState
	/** The base judged against: none when the config is not on the server (it starts over). */
	base?: Bases
	/** The tool's files this config owns here, and what was left out with why. */
	scoped: OwnedScope
	/** The mode the engine runs in: a team's plain member's sync is a pull. */
	mode: Mode
	/** Whether this run may send: push and sync. */
	pushes: boolean
	/** Files behind a link that leads out of home, by where it leads: never read or sent. */
	linked: Map<string, string>
	/** Those of them the server changed in a sync: refused, as a pull does. */
	linkedChanged: Map<string, string>
	/** The files judged: the scope less the linked ones. */
	scope: string[]
	/** The person's chosen side, its directories spread to the files in scope. */
	choose: RunOptions['choose']
	/** For a team config: the state key of the same tool's personal config (its local keys stay personal). */
	personalKey?: string
}

/**
 * Gathers what a run judges: settles an earlier command's journal, reads the
 * server's version and the base, refuses what cannot go on (a config not on
 * the server, an unsafe path), and works out the scope.
 */
export async function gather(s: Session, t: Target, options: RunOptions): Promise<Gathered> {
	// A command killed before (a pull cut short, a push whose answer never came) is settled first.
	if (!options.dryRun) {
		const settled = await settleJournal(t.key, (push) => storedVersion(s, t, push.hash, push.after))
		if (settled) options.out.notice(settledText(t, settled))
	}
	const remote = (await fetchRemote(s, t)) as Remote | undefined
	// A dry run takes no lock and changes nothing: it reads a pending journal the way the next command will settle it.
	const state = options.dryRun ? pendingState(t.key, remote) : getState(t.key)
	refuseMissing(s, t, options, remote, state)
	// Every path the server sends is checked before anything is written: one unsafe path refuses the whole run.
	for (const key of Object.keys(remote?.files ?? {})) safeTarget(key)

	// A config that no longer exists on the server starts over: its old base would read as "deleted there".
	const base = remote ? state?.files : undefined
	// One file, one owner on a machine: files another config of the tool syncs here are left out (ownership.ts);
	// a config made with push --only keeps to its files (pinned.ts).
	const scoped = pinnedScope(
		await configScope(s, t, { named: options.named, base: state?.files, remote: remote?.files }),
		state,
		remote?.files,
		options.named
	)
	// A team's plain member may not push its configs: their sync pulls them and keeps changes here local.
	const mode: Mode = options.mode === 'sync' && options.localOnly ? 'pull' : options.mode
	const pushes = mode === 'push' || mode === 'sync'
	const linked = pushes ? linksOutOfHome(scoped.keys) : new Map<string, string>()
	// A sync that meets a server change to such a file refuses it, as a pull does (exit 1); unchanged there, it is
	// only left out (docs/sync-model.md).
	const linkedChanged = new Map(
		[...linked].filter(
			([key]) => options.mode === 'sync' && ownValue(remote?.files, key) !== ownValue(base, key)?.content
		)
	)
	// Personal stays personal (docs/sync-model.md): a team config never sends what came from the personal one.
	const personalKey =
		t.teamId === undefined
			? undefined
			: stateKey({ server: s.server, username: await s.username(), tool: t.tool, name: t.name })
	return {
		remote,
		state,
		base,
		scoped,
		mode,
		pushes,
		linked,
		linkedChanged,
		scope: scoped.keys.filter((key) => !linked.has(key)),
		choose: settling(options.choose, scoped.keys),
		personalKey
	}
}

/** A pull or resolve needs the config on the server; sync and watch keep existing configs in step. */
function refuseMissing(
	s: Session,
	t: Target,
	options: RunOptions,
	remote: Remote | undefined,
	state: SyncState | undefined
): void {
	if (remote) return
	if (options.mode === 'pull' || options.mode === 'resolve') {
		throw new CliFailure(
			`${t.label} does not exist on ${s.server} (or you cannot see it). Push it first: cfgsync push ${t.tool}${t.args}`
		)
	}
	// Creating one (or bringing a deleted one back) is push's job.
	if (options.mode === 'sync') {
		if (state && !options.dryRun) {
			rememberLeftFiles(state)
			forgetState(t.key)
		}
		throw new CliFailure(
			t.teamId !== undefined
				? `${t.label} is not on ${s.server} (deleted there, or you are no longer in the team), so this machine no longer syncs it; its files here are untouched, and your personal config takes them in only when a push names them.`
				: `${t.label} is not on ${s.server} (deleted there), so this machine no longer syncs it; its files here are untouched. To create it again from this machine: cfgsync push ${t.tool}${t.args}`,
			EXIT.error,
			'gone'
		)
	}
	if (t.teamId && !options.named) throw newTeamConfigFailure(t)
}

/**
 * A push never reads through a link that leads out of home (docs/sync-model.md): such a file is left out
 * whole, neither read nor sent nor judged deleted, so a link to /etc/passwd cannot carry it anywhere.
 */
function linksOutOfHome(keys: string[]): Map<string, string> {
	const linked = new Map<string, string>()
	for (const key of keys) {
		const place = linkOutOfHome(key)
		if (place !== undefined) linked.set(key, place)
	}
	return linked
}

/** Left out here, with why: over a cap or not text (the scope's), a link out of home, a file not the tool's. */
export function skippedOf(t: Target, g: Gathered): { key: string; why: string }[] {
	return [
		...g.scoped.skipped,
		...[...g.linked]
			.filter(([key]) => !g.linkedChanged.has(key))
			.map(([key, place]) => ({
				key,
				why: `a symbolic link (or inside a linked directory) out of your home directory, to ${safe(place)}: never read or sent`
			})),
		...g.scoped.foreign.map((key) => ({
			key,
			why: `not a ${t.tool} file: a config holds only its tool's files, so cfgsync never writes or sends it`
		}))
	]
}

/** Up to 20 names, then how many more. */
const capped = (names: string[]) =>
	names.length <= 20 ? names.join(', ') : `${names.slice(0, 20).join(', ')} and ${names.length - 20} more`

/** What settling an earlier command's journal found, in one sentence. */
function settledText(t: Target, settled: Settled): string {
	const total = settled.landed.length + settled.untouched.length + settled.edited.length
	const parts: string[] = []
	if (total > 0)
		parts.push(
			`it had written ${settled.landed.length} of its ${total} file${total === 1 ? '' : 's'}${settled.landed.length > 0 ? `, which now count as the server's version (nothing of them is sent back)` : ''}`
		)
	if (settled.edited.length > 0)
		parts.push(`${settled.edited.length} changed here since: ${capped(settled.edited.map((key) => safe(shown(key))))}`)
	if (settled.pushed)
		parts.push(
			settled.stored !== undefined
				? `its push had reached the server (version ${settled.stored})`
				: 'its push was not stored (its changes are still to send)'
		)
	return `An earlier cfgsync ${settled.command} of ${t.label} was stopped part-way: ${parts.join('; ')}.`
}
