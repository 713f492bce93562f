// Over 500 lines: one sync step of every sync command (runOne), from gathering to writing, with the review, trust
// and secret checks it holds a write for; issue 36 point 1 splits it into phases.
import { prompt, PromptCancelled } from '../shared/terminal'
import { ApiError } from './api'
import type { Session } from './context'
import { applyWrites, asFileSet, linkOutOfHome, readLocal, refusedWrites, safeTarget } from './files'
import { crashPoint } from './crash-points'
import { contentHash, fileHash } from './hash'
import {
	baseWithoutPush,
	finishJournal,
	journalFor,
	pendingState,
	type Settled,
	settleJournal,
	settleUnpushed,
	writeJournal
} from './journal'
import { type Located, localEntries, personalEntries } from './local-keys'
import { CliFailure, EXIT, failure, notice, safe, warn } from './output'
import { checkSize, largestUnsendable, type Sent, sentFiles } from './outgoing'
import { page } from './pager'
import { platform } from './paths'
import { reviewText } from './review-prompt'
import { configScope, newTeamConfigFailure } from './ownership'
import { nextPins, pinnedScope } from './pinned'
import {
	backupDays,
	backupRoot,
	stateKey,
	forgetLeftFiles,
	forgetState,
	getState,
	pruneBackups,
	rememberLeftFiles,
	type SyncState
} from './state'
import {
	copyMap,
	decide,
	emptyMap,
	type Outcome,
	ownValue,
	reconcile,
	type Decision,
	type Files,
	type Mode,
	type Choice,
	type Write
} from './sync/engine'
import { settling } from './sync/choice'
import { EVERYWHERE_FILE, keptFrom, sameEntry } from './sync/local-keys'
import { neutralFiles } from './sync/paths'
import { type FileReview, isSettingsFile, leaveAsTheyAre, remember, reviewWrite, wasAccepted } from './sync/review'
import { newSecrets } from './sync/secrets'
import { markersLeft, plainSplitsOf, syntaxError, whereText } from './sync/syntax'
import { knownDirs, knownFiles, shown } from './tools'
import { pathWord, shellWord } from './words'
import { devicesSince, ownDevice, trustedDevices, UNKNOWN_DEVICE } from './trust'

/**
 * The one path from the engine's decisions to disk and server that push,
 * pull, sync, resolve and watch share (docs/sync-model.md): read the server's
 * version and the files here, judge them against the base, check what must
 * be checked (unsafe paths, links out of home, code someone else added,
 * secrets for a team), back up and write, push with If-Match, and remember
 * the new base.
 */

import type { Target } from './target'

export { resolveTarget, type Target, targetOf } from './target'

export interface Remote {
	/** The config's id on the server. */
	id: string
	version: number
	hash: string
	/** Keys in neutral form. */
	files: Files
	/** Keys that named a file twice (an old OS-specific key beside the neutral one): the neutral one was used. */
	duplicates: string[]
}

/** The server's current version; undefined when the config does not exist; `unchanged` on a 304 for `etag`. */
export async function fetchRemote(s: Session, t: Target, etag?: string): Promise<Remote | undefined | 'unchanged'> {
	let latest: Awaited<ReturnType<Session['api']['configs']['poll']>>
	try {
		latest = await s.api.configs.poll(t.latest, etag)
	} catch (error) {
		if (error instanceof ApiError) throw failure(error, { server: s.server, what: t.label })
		throw error
	}
	if (latest === 'unchanged' || latest === undefined) return latest
	const set = asFileSet(latest.data)
	if (!set)
		throw new CliFailure(
			`${t.label} on the server is not a set of files (it was not pushed by cfgsync push); nothing written`
		)
	const { files, duplicates } = neutralFiles(set.files, platform())
	return { id: latest.id, version: latest.version, hash: latest.hash, files, duplicates }
}

export interface RunOptions {
	mode: Mode
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

const unique = (keys: string[]) => [...new Set(keys)]

/** Runs one config through the engine, doing what it decides. The caller holds the lock (unless dry-run). */
export async function runOne(s: Session, t: Target, options: RunOptions, attempt = 0): Promise<Report> {
	// A bad CFGSYNC_BACKUP_DAYS is a usage error before anything is done, not after the files are written.
	const keepDays = backupDays()
	// A command killed before (a pull cut short, a push whose answer never came) is settled first.
	if (!options.dryRun) {
		const settled = await settleJournal(t.key, (push) => storedVersion(s, t, push.hash, push.after))
		if (settled) notice(settledText(t, settled))
	}
	const remote = (await fetchRemote(s, t)) as Remote | undefined
	// A dry run takes no lock and changes nothing: it reads a pending journal the way the next command will settle it.
	const state = options.dryRun ? pendingState(t.key, remote) : getState(t.key)
	if (!remote && (options.mode === 'pull' || options.mode === 'resolve')) {
		throw new CliFailure(
			`${t.label} does not exist on ${s.server} (or you cannot see it). Push it first: cfgsync push ${t.tool}${t.args}`
		)
	}
	// sync and watch keep existing configs in step; creating one (or bringing a deleted one back) is push's job.
	if (!remote && options.mode === 'sync') {
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
	if (!remote && t.teamId && !options.named) throw newTeamConfigFailure(t)
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
	// A push never reads through a link that leads out of home (docs/sync-model.md): such a file is left out
	// whole, neither read nor sent nor judged deleted, so a link to /etc/passwd cannot carry it anywhere.
	const linked = new Map<string, string>()
	if (pushes) {
		for (const key of scoped.keys) {
			const place = linkOutOfHome(key)
			if (place !== undefined) linked.set(key, place)
		}
	}
	// A sync that meets a server change to such a file refuses it, as a pull does (exit 1); unchanged there, it is
	// only left out (docs/sync-model.md).
	const linkedChanged = new Map(
		[...linked].filter(
			([key]) => options.mode === 'sync' && ownValue(remote?.files, key) !== ownValue(base, key)?.content
		)
	)
	let scope = scoped.keys.filter((key) => !linked.has(key))
	const choose = settling(options.choose, scoped.keys)
	// Personal stays personal (docs/sync-model.md): a team config never sends what came from the personal one.
	const personalKey =
		t.teamId === undefined
			? undefined
			: stateKey({ server: s.server, username: await s.username(), tool: t.tool, name: t.name })
	const judge = () => {
		const local = readLocal(scope)
		// Settings that stay on this machine (docs/sync-model.md): masked on the way out, kept on the way in.
		const own = localEntries(t.key, remote?.files, local)
		const locals =
			personalKey === undefined
				? own
				: [
						...own,
						...personalEntries(personalKey, local, remote?.files, base).filter(
							(p) => !own.some((o) => sameEntry(o.entry, p.entry))
						)
					]
		const kept = keptFrom(locals.map((o) => o.entry))
		const sides = { base, local, remote: remote?.files, scope, remoteVersion: remote?.version, kept }
		const { decisions, outside } = decide(sides, fileHash)
		return {
			locals,
			sides,
			decisions,
			outside,
			outcome: reconcile(sides, decisions, { mode, choose, only: options.only }, fileHash)
		}
	}
	let judged = judge()
	// A file behind a link that leads out of home is left as it is, with a message (docs/sync-model.md).
	const refusals = refusedWrites(judged.outcome.writes)
	if (refusals.size > 0) {
		scope = scope.filter((key) => !refusals.has(key))
		judged = judge()
	}
	// A file too large to send is left out of a sync, with why, and the rest goes on (docs/sync-model.md).
	const oversized = new Map<string, string>()
	if (options.mode === 'sync' && !options.localOnly) {
		for (let big = largestUnsendable(judged.outcome.push, remote?.files); big; ) {
			oversized.set(big.key, big.why)
			scope = scope.filter((key) => key !== big?.key)
			judged = judge()
			big = largestUnsendable(judged.outcome.push, remote?.files)
		}
	}
	const { decisions, sides } = judged
	let outcome: Outcome = judged.outcome
	// A file that does not parse as its format is not sent (docs/sync-model.md) unless push --force: nothing
	// of the config is, and a sync still does what a pull would.
	const forced = options.mode === 'push' && options.choose?.side === 'mine'
	const invalid = pushes && !forced ? unparseable(outcome.push, remote?.files, state?.marked) : []
	if (invalid.length > 0 && options.mode === 'sync')
		outcome = reconcile(sides, decisions, { mode: 'pull', choose, only: options.only }, fileHash)
	if (invalid.length > 0 && options.mode === 'push') outcome = { ...outcome, writes: [], push: undefined }
	// A config holds only its tool's files: anything else the server's data holds is never sent back either.
	if (outcome.push !== undefined) for (const key of scoped.foreign) delete outcome.push[key]
	for (const key of scoped.foreign) delete outcome.base[key]
	const report: Report = {
		target: t,
		mode: options.mode,
		dryRun: options.dryRun === true,
		named: options.named,
		remoteVersion: remote?.version,
		remoteHash: remote?.hash,
		writes: outcome.writes,
		refused: [
			...refusals,
			...oversized,
			...[...linkedChanged].map(([key, place]): [string, string] => [
				key,
				`it is a symbolic link (or inside a linked directory) that points outside your home directory, to ${safe(place)}`
			])
		].map(([key, why]) => ({ key, why })),
		conflicts: outcome.conflicts,
		// A file not sent because it does not parse is named once, with why (a push of it as it is would be refused).
		unsent: [
			...outcome.unsent.filter((d) => !invalid.some((r) => r.key === d.key)),
			// A member's file merged with the server's keeps this machine's changes, which stay here too.
			...(options.localOnly ? decisions.filter((d) => d.verdict.kind === 'merged' && !outcome.unsent.includes(d)) : [])
		],
		unpulled: outcome.unpulled,
		unchanged: decisions.filter((d) => d.verdict.kind === 'same' && d.local !== undefined).map((d) => d.key),
		settled: decisions
			.filter(
				(d) =>
					(d.verdict.kind === 'conflict' && !outcome.conflicts.includes(d)) ||
					(options.mode === 'resolve' &&
						options.choose?.side !== 'edit' &&
						d.verdict.kind !== 'same' &&
						choose?.keys?.includes(d.key)) ||
					// A file this machine never synced, merged with the server's by resolve (docs/sync-model.md).
					(options.mode === 'resolve' && d.verdict.kind === 'merged' && d.base === undefined)
			)
			.map((d) => d.key),
		outside: judged.outside.filter(
			(key) =>
				!refusals.has(key) &&
				!linked.has(key) &&
				!scoped.foreign.includes(key) &&
				!scoped.elsewhere.includes(key) &&
				!scoped.excluded.some((dir) => key.startsWith(`${dir}/`))
		),
		skipped: [
			...scoped.skipped,
			...[...linked]
				.filter(([key]) => !linkedChanged.has(key))
				.map(([key, place]) => ({
					key,
					why: `a symbolic link (or inside a linked directory) out of your home directory, to ${safe(place)}: never read or sent`
				})),
			...scoped.foreign.map((key) => ({
				key,
				why: `not a ${t.tool} file: a config holds only its tool's files, so cfgsync never writes or sends it`
			}))
		],
		invalid,
		duplicates: remote?.duplicates ?? [],
		localOnly: options.localOnly,
		sent: sentFiles(outcome.push, remote?.files),
		local: judged.locals
	}
	// A dry run says what the push would meet: the team's secret refusal and the size limit, nothing sent either way.
	if (options.dryRun && outcome.push !== undefined) {
		if (t.teamId && !options.allowSecrets) checkSecrets(t, state, remote, outcome.push, options)
		checkSize(t.label, t.tool, t.args, outcome.push)
	}
	if (options.dryRun || (options.mode === 'push' && (outcome.conflicts.length > 0 || invalid.length > 0))) return report
	if (outcome.push !== undefined && Object.keys(outcome.push).length === 0 && !remote) {
		const looked = options.named ?? [...knownFiles(t.tool), ...knownDirs(t.tool).map((dir) => `${dir}/`)]
		const owned = report.skipped.filter((skip) => scoped.elsewhere.includes(skip.key))
		const why = owned.length > 0 ? `; ${owned.map((skip) => `${safe(shown(skip.key))} is ${skip.why}`).join('; ')}` : ''
		// Files a left team config synced here are there, only not taken in unnamed: name the push that takes them.
		const left = owned.filter((skip) => skip.why.startsWith('left here')).map((skip) => skip.key)
		throw new CliFailure(
			left.length > 0
				? `nothing to send in ${t.label} without naming files${why}. To make ${left.length === 1 ? 'it' : 'them'} part of this config: cfgsync push ${t.tool}${t.args}${safe(pathWords(left))}`
				: `no ${t.tool} configuration files found (looked for ${looked.map(shown).join(', ')})${why}`
		)
	}

	// Checks before anything changes: someone else's changes to review, then secrets for a team.
	let accepted = state?.acceptedFiles
	if (t.teamId && remote) {
		const reviewed = await review(t, state, outcome.writes, options)
		if (reviewed.held) {
			const held = new Set(reviewed.held.keys)
			outcome = leaveAsTheyAre(outcome, held, base, remote.files)
			report.writes = outcome.writes
			report.settled = report.settled.filter((key) => !held.has(key))
			report.held = reviewed.held
		}
		accepted = remember(accepted, reviewed.accepted, (key) => ownValue(outcome.base, key) !== undefined, fileHash)
	}
	// A personal config: code from a device this machine does not trust is reviewed like a team's (docs/sync-model.md).
	let reviewFrom = state?.reviewFrom
	if (!t.teamId && remote) {
		const reviewed = await reviewDevices(s, t, state, remote, outcome.writes, options)
		if (reviewed.held) {
			const held = new Set(reviewed.held.keys)
			outcome = leaveAsTheyAre(outcome, held, base, remote.files)
			report.writes = outcome.writes
			report.settled = report.settled.filter((key) => !held.has(key))
			report.held = reviewed.held
		}
		accepted = remember(accepted, reviewed.accepted, (key) => ownValue(outcome.base, key) !== undefined, fileHash)
		reviewFrom = reviewed.waiting
	}
	const secretsNoted = checkSecrets(t, state, remote, outcome.push, options)
	checkSize(t.label, t.tool, t.args, outcome.push)

	// Each way this run can end, as the state to keep: the journal names them before a file is touched, so a
	// crash at any moment is settled by the next command (docs/sync-model.md, "Crashes").
	const username = await s.username()
	const stateWith = (
		fields: Pick<SyncState, 'version' | 'hash' | 'files' | 'pushedFiles'>,
		sent?: Files
	): SyncState => ({
		format: 2,
		server: s.server,
		username,
		teamId: t.teamId,
		team: t.team ?? state?.team,
		tool: t.tool,
		name: t.name,
		...fields,
		acceptedFiles: accepted,
		reviewFrom,
		secretsNoted,
		only: nextPins(state, options),
		serverFiles: t.teamId !== undefined ? Object.keys(remote?.files ?? {}).sort() : undefined,
		marked: markedAfter(state?.marked, outcome.writes, sent),
		everywhere: remote === undefined ? undefined : ownValue(remote.files, EVERYWHERE_FILE),
		syncedAt: new Date().toISOString()
	})
	// The version this machine has merged completely: not one whose changes it left unwritten (push, resolve).
	const complete = outcome.conflicts.length === 0 && outcome.unpulled.length === 0 && remote !== undefined
	const pulled = stateWith({
		version: complete ? remote.version : (state?.version ?? 0),
		hash: complete ? remote.hash : (state?.hash ?? ''),
		files:
			outcome.push === undefined
				? outcome.base
				: baseWithoutPush(outcome.base, state?.files, remote?.files, outcome.push, outcome.writes),
		pushedFiles: copyMap(state?.pushedFiles)
	})
	let pushing: { hash: string; after: number; state: SyncState } | undefined
	if (outcome.push !== undefined) {
		// What this machine contributed: files whose content it sent rather than kept from the server.
		const pushedFiles = copyMap(state?.pushedFiles)
		for (const key of Object.keys(pushedFiles)) if (ownValue(outcome.push, key) === undefined) delete pushedFiles[key]
		for (const [key, content] of Object.entries(outcome.push))
			if (content !== ownValue(remote?.files, key)) pushedFiles[key] = fileHash(content)
		const hash = contentHash({ files: outcome.push })
		pushing = {
			hash,
			after: remote?.version ?? 0,
			state: stateWith({ version: remote?.version ?? 0, hash, files: outcome.base, pushedFiles }, outcome.push)
		}
	}
	const root = backupRoot(t.key)
	if (outcome.writes.length > 0 || pushing) {
		writeJournal(
			t.key,
			journalFor({
				command: options.mode,
				old: state,
				pulled,
				push: pushing,
				writes: outcome.writes,
				backups: outcome.writes.length > 0 ? root : undefined
			})
		)
	}

	if (outcome.writes.length > 0) {
		const applied = applyWrites(outcome.writes, root)
		if (applied.backedUp > 0) report.backups = root
		// A file that could not be written stays as it was, its base too, so the next run writes it again; the
		// others stand (docs/sync-model.md). The run then has not merged the server's version completely.
		if (applied.failed.size > 0) {
			report.writes = report.writes.filter((w) => !applied.failed.has(w.key))
			for (const [key, why] of applied.failed) report.refused.push({ key, why: `not written here: ${why}` })
			const keepOld = (files: SyncState['files']) => {
				for (const key of applied.failed.keys()) {
					const old = ownValue(state?.files, key)
					if (old === undefined) delete files[key]
					else files[key] = old
				}
			}
			keepOld(pulled.files)
			pulled.version = state?.version ?? 0
			pulled.hash = state?.hash ?? ''
			if (pushing) keepOld(pushing.state.files)
		}
	}

	let final = pulled
	if (pushing !== undefined && outcome.push !== undefined) {
		const body = {
			name: t.name,
			tool: t.tool,
			data: { files: outcome.push },
			...(t.teamId ? { teamId: t.teamId } : {})
		}
		// If-Match: the version judged against; nothing pushed in between is ever replaced unseen (docs/sync-model.md).
		const condition = remote ? { ifMatch: [remote.hash] } : { ifNoneMatch: '*' as const }
		let version: number
		try {
			const result = await s.api.configs.push(body, condition)
			version = ('version' in result ? result.version : undefined) ?? remote?.version ?? 1
		} catch (error) {
			if (!(error instanceof ApiError)) throw error
			if (error.code === 'precondition_failed') {
				// Someone pushed meanwhile: the writes made here stand, and the run is judged again against that version.
				settleUnpushed(t.key)
				if (attempt < 3) return mergeReports(report, await runOne(s, t, options, attempt + 1))
				throw new CliFailure(
					`${t.label} kept changing on the server while this machine pushed; nothing of this push was stored. Run the command again.`
				)
			}
			if (!answerLost(error)) {
				settleUnpushed(t.key)
				throw failure(error, { server: s.server, what: t.team ? `Team "${t.team}"` : undefined })
			}
			version = await storedAnyway(s, t, pushing, error)
		}
		crashPoint('pushed')
		final = { ...pushing.state, version }
		report.pushed = { version, hash: pushing.hash, created: !remote, files: Object.keys(outcome.push).sort() }
		// Files a left team config had here, named by this push: the personal config holds them from now on.
		if (t.teamId === undefined && options.named)
			forgetLeftFiles(
				s.server,
				username,
				t.tool,
				report.pushed.files.filter((key) => namedKey(key, options.named))
			)
	}
	finishJournal(t.key, final)
	if (!options.dryRun) pruneBackups(keepDays)
	return report
}

/** Whether PATH arguments (as keys; a directory's ends in `/`) name a file. */
const namedKey = (key: string, named: string[] | undefined) =>
	named?.some((name) => key === name || key.startsWith(name.endsWith('/') ? name : `${name}/`)) === true

/** PATH arguments again, for a command to rerun: a team push without them would not send the new files. */
const pathWords = (named: string[] | undefined) => (named ?? []).map((key) => ` ${pathWord(key)}`).join('')

/**
 * The version of a config that holds exactly what this machine pushed (its
 * content `hash`), if the server has one: the latest, or, when someone pushed
 * since, one of the versions after `after` (the one the push was judged
 * against), read from the history where the plan allows it.
 */
async function storedVersion(s: Session, t: Target, hash: string, after: number): Promise<number | undefined> {
	let latest: Awaited<ReturnType<Session['api']['configs']['poll']>>
	try {
		latest = await s.api.configs.poll(t.latest)
	} catch (error) {
		if (error instanceof ApiError) throw failure(error, { server: s.server, what: t.label })
		throw error
	}
	if (latest === 'unchanged' || latest === undefined) return undefined
	if (latest.hash === hash) return latest.version
	if (latest.version <= after + 1) return undefined
	try {
		const versions = await s.api.configs.versions(latest.id, { limit: Math.min(latest.version - after, 20) })
		return versions.find((v) => v.version > after && v.hash === hash)?.version
	} catch (error) {
		if (error instanceof ApiError) return undefined // no history on this plan: judged as not stored
		throw error
	}
}

/**
 * A push whose answer never came back (a time-out, a broken connection, a
 * proxy's 5xx) may have been stored all the same (docs/sync-model.md, "Crashes").
 */
const answerLost = (error: ApiError) =>
	error.code === 'unreachable' || error.code === 'bad_response' || error.status >= 500

/**
 * After a lost answer: the server's latest, when it holds exactly what this
 * machine sent, is this push (its version is returned). Otherwise the push may
 * not have been stored; the journal stays, so the next command checks again.
 */
async function storedAnyway(
	s: Session,
	t: Target,
	sent: { hash: string; after: number },
	error: ApiError
): Promise<number> {
	const late = /within ([\d.]+ s)/.exec(error.message)?.[1]
	const lost =
		error.status > 0
			? `HTTP ${error.status}`
			: late
				? `no answer within ${late}`
				: /broke/.test(error.message)
					? 'the connection broke'
					: 'the connection failed'
	const safeAgain = `Nothing here is lost, and running the same command again is safe (it first checks what the server holds); cfgsync status ${t.tool}${t.args} shows where things stand.`
	let found: number | undefined
	try {
		found = await storedVersion(s, t, sent.hash, sent.after)
	} catch (check) {
		if (!(check instanceof CliFailure)) throw check
		throw new CliFailure(
			`The answer to this push of ${t.label} was lost (${lost}), and the server could not be asked whether it stored it (${check.message.replace(/\.$/, '')}). ${safeAgain}`,
			EXIT.error,
			'push_unconfirmed'
		)
	}
	if (found === undefined) {
		throw new CliFailure(
			`The answer to this push of ${t.label} was lost (${lost}), and the server does not show it: it may not have been stored. ${safeAgain}`,
			EXIT.error,
			'push_unconfirmed'
		)
	}
	notice(`The answer to this push of ${t.label} was lost (${lost}), but the server has it: version ${found}.`)
	return found
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

/** The files a push would send, changed from the server's, that still hold conflict markers or do not parse as their format (JSON, TOML). */
function unparseable(
	push: Files | undefined,
	remote: Files | undefined,
	markedHere: Record<string, number> | undefined
): { key: string; why: string }[] {
	const found: { key: string; why: string }[] = []
	for (const [key, content] of Object.entries(push ?? {})) {
		if (content === ownValue(remote, key)) continue
		const marked = markersLeft(content, ownValue(markedHere, key))
		if (marked) {
			found.push({ key, why: marked })
			continue
		}
		const error = syntaxError(key, content)
		if (error) found.push({ key, why: `not valid ${error.format}, ${whereText(error)}` })
	}
	return found.sort((a, b) => (a.key < b.key ? -1 : 1))
}

/**
 * Files with conflict markers `resolve --edit` wrote, once this run is done: a
 * marked write adds its file (with the `=======` lines in it that are not
 * markers), any other write here or a push of the file takes it off.
 */
function markedAfter(
	before: Record<string, number> | undefined,
	writes: Write[],
	sent: Files | undefined
): Record<string, number> | undefined {
	const marked = copyMap(before)
	for (const write of writes) {
		if (write.kind === 'marked' && write.content !== null) marked[write.key] = plainSplitsOf(write.content)
		else delete marked[write.key]
	}
	for (const key of Object.keys(sent ?? {})) delete marked[key]
	return Object.keys(marked).length > 0 ? marked : undefined
}

/** A retried run after a 412: the writes of both attempts, the rest from the last. */
function mergeReports(first: Report, last: Report): Report {
	return { ...last, writes: [...first.writes, ...last.writes], backups: last.backups ?? first.backups }
}

/** Files a review left as they were: which, why, and how to run the command again to write them. */
export interface Held {
	keys: string[]
	code: 'review_required' | 'declined'
	/** The command that was run, with --yes: its options after the config's, and its PATHs (as keys). */
	again: { options: string[]; paths: string[] }
}

/**
 * Someone else's changes to a team config are reviewed by an allowlist
 * (docs/sync-model.md): a file whose changes touch only inert settings is
 * written; any other is shown as a diff and asked about, once for all. On
 * `no`, or without a terminal and without --yes, those files are left as
 * they were (the rest is written) and named. Content this machine pushed
 * itself, or accepted before, is not asked about again.
 */
async function review(
	t: Target,
	state: SyncState | undefined,
	writes: Write[],
	options: RunOptions
): Promise<{ held?: Held; accepted: Write[] }> {
	const fromOthers = writes.filter(
		(w) =>
			(w.content === null || fileHash(w.content) !== ownValue(state?.pushedFiles, w.key)) &&
			!wasAccepted(state?.acceptedFiles, w.key, w.content, fileHash)
	)
	const asked = fromOthers
		.map((w) => ({ write: w, review: reviewWrite(t.tool, w.key, w.before, w.content) }))
		.filter((r) => !r.review.inert)
		.sort((a, b) => (a.write.key < b.write.key ? -1 : 1))
	if (asked.length === 0) return { accepted: [] }
	const heading = `${t.label} was changed by someone else beyond the settings known to be inert (theme, fonts, formatting, layout); ${asked.length === 1 ? 'this file needs' : 'these files need'} your review:`
	return askAbout(heading, asked, options)
}

/**
 * Shows what is asked about (whole) and asks once for all of it: written with
 * --yes or a yes; otherwise (no terminal, `watch`, any other answer) the
 * files are held, to be left as they are.
 */
async function askAbout(
	heading: string,
	asked: { write: Write; review: FileReview }[],
	options: RunOptions
): Promise<{ held?: Held; accepted: Write[] }> {
	await showReview(heading, asked, options)
	const written = asked.map((a) => a.write)
	if (options.yes) {
		warn('Writing them (--yes).')
		return { accepted: written }
	}
	const held = (code: Held['code']): { held: Held; accepted: Write[] } => ({
		held: { keys: written.map((w) => w.key), code, again: runAgain(options) },
		accepted: []
	})
	if (options.interactive === false || !process.stdin.isTTY) return held('review_required')
	let answer: string | undefined
	try {
		answer = await prompt(`Write ${asked.length === 1 ? 'this file' : `these ${asked.length} files`}? [y/N] `)
	} catch (error) {
		if (error instanceof PromptCancelled) answer = ''
		else throw error
	}
	return /^y(es)?$/i.test((answer ?? '').trim()) ? { accepted: written } : held('declined')
}

/**
 * A personal config's change to a setting that runs code or widens what a
 * tool may do (a settings file's `runsCode`, `widens` or MCP keys; not a
 * memory or command file), made by a device this machine does not trust, is
 * reviewed like a team's
 * (docs/sync-model.md "Another device is someone else for
 * code"). Who made it is read from the versions since this machine's base
 * (the caller's activity log names each version's device); a file held once
 * remembers those devices (`waiting`), so a trusted device's version on top
 * of it does not let it through unseen. This machine's own pushes, content
 * accepted before, and inert changes are never asked about.
 */
async function reviewDevices(
	s: Session,
	t: Target,
	state: SyncState | undefined,
	remote: Remote,
	writes: Write[],
	options: RunOptions
): Promise<{ held?: Held; accepted: Write[]; waiting?: Record<string, string[]> }> {
	const earlier = state?.reviewFrom ?? {}
	const writing = new Set(writes.map((w) => w.key))
	// A file still waiting (not synced to the server's content here, and not written now) keeps its devices.
	const waiting = emptyMap<string[]>()
	for (const [key, devices] of Object.entries(earlier)) {
		const theirs = ownValue(remote.files, key)
		if (writing.has(key) || theirs === undefined || ownValue(state?.files, key)?.hash === fileHash(theirs)) continue
		waiting[key] = devices
	}
	const candidates = writes
		.filter(
			(w) =>
				(w.content === null || fileHash(w.content) !== ownValue(state?.pushedFiles, w.key)) &&
				!wasAccepted(state?.acceptedFiles, w.key, w.content, fileHash)
		)
		.map((w) => ({ write: w, review: reviewWrite(t.tool, w.key, w.before, w.content) }))
		// Settings only (docs/sync-model.md): memory, command, agent and rule files are not settings, so pass as own.
		.filter((r) => r.review.runsCode && isSettingsFile(r.write.key))
	const done = (result: { held?: Held; accepted: Write[] } = { accepted: [] }) => ({
		...result,
		waiting: Object.keys(waiting).length > 0 ? waiting : undefined
	})
	if (candidates.length === 0) return done()
	const own = await ownDevice(s)
	const trusted = new Set([...trustedDevices(s.server, await s.username()), ...(own === undefined ? [] : [own])])
	const after = state !== undefined && state.version <= remote.version ? state.version : 0
	const fresh = unique(await devicesSince(s, remote.id, after, remote.version)).filter((d) => !trusted.has(d))
	const asked = candidates
		.map((c) => ({
			...c,
			devices: unique([...fresh, ...(ownValue(earlier, c.write.key) ?? [])]).filter((d) => !trusted.has(d))
		}))
		.filter((c) => c.devices.length > 0)
		.sort((a, b) => (a.write.key < b.write.key ? -1 : 1))
	if (asked.length === 0) return done()
	const devices = unique(asked.flatMap((a) => a.devices))
	const named = devices.filter((d) => d !== UNKNOWN_DEVICE)
	const who = devices.map((d) => (d === UNKNOWN_DEVICE ? d : `device "${safe(d)}"`)).join(', ')
	const trust =
		named.length > 0
			? ` If ${named.length === 1 ? 'that device is' : 'those devices are'} yours to trust with code: ${named.map((d) => `cfgsync trust ${shellWord(d)}`).join('; ')}.`
			: ''
	const heading = `${t.label} was changed from ${who}, which this machine does not trust, in what runs code or widens what the tool may do; ${asked.length === 1 ? 'this file needs' : 'these files need'} your review.${trust}`
	const result = await askAbout(heading, asked, options)
	if (result.held) for (const a of asked) waiting[a.write.key] = a.devices
	return done(result)
}

/**
 * Puts a review before the person, whole (docs/sync-model.md): on a terminal that
 * will be asked, wrapped to its width and through the pager when longer than
 * the screen; otherwise printed whole on stderr with the file names.
 */
async function showReview(
	heading: string,
	asked: { write: Write; review: FileReview }[],
	options: RunOptions
): Promise<void> {
	const files = asked.map((a) => ({ key: a.write.key, deleted: a.write.content === null, review: a.review }))
	const asking = !options.yes && options.interactive !== false && process.stdin.isTTY === true
	if (asking && process.stdout.isTTY) {
		await page(`${reviewText(heading, files, { width: process.stdout.columns || 80 }).join('\n')}\n`)
		return
	}
	const width = process.stderr.isTTY ? process.stderr.columns || 80 : undefined
	notice(reviewText(heading, files, { width }).join('\n'))
}

/**
 * The command that was run, with --yes: the same side, flags and PATHs, so
 * that it does what was asked and writes what was shown (report.ts prints it).
 */
function runAgain(options: RunOptions): Held['again'] {
	const words: string[] = []
	if (options.mode === 'resolve') words.push(options.choose?.side === 'mine' ? '--mine' : '--theirs')
	else if (options.choose) words.push('--force')
	if (options.only) words.push('--only')
	if (options.allowSecrets) words.push('--allow-secrets')
	words.push('--yes')
	return { options: words, paths: options.named ?? [] }
}

/**
 * A push that would put a new secret-looking value into a
 * team config is refused unless --allow-secrets; a personal config notes it
 * once. Returns the notes to remember.
 */
function checkSecrets(
	t: Target,
	state: SyncState | undefined,
	remote: Remote | undefined,
	push: Files | undefined,
	options: RunOptions
): string[] {
	const noted = state?.secretsNoted ?? []
	if (push === undefined) return noted
	const found: { key: string; path: string }[] = []
	for (const [key, content] of Object.entries(push)) {
		const before = ownValue(remote?.files, key)
		if (content === before) continue
		for (const secret of newSecrets(key, content, before)) found.push({ key, path: secret.path })
	}
	if (found.length === 0) return noted
	const where = found.map((f) => `${safe(shown(f.key))}: ${safe(f.path)}`).join('; ')
	if (t.teamId) {
		if (!options.allowSecrets) {
			throw new CliFailure(
				`${options.dryRun ? 'A push would be refused' : 'Refusing to push'} to ${t.label}: ${found.length === 1 ? 'this value looks' : 'these values look'} like a secret everyone in the team would receive — ${where}. Nothing was sent. Replace ${found.length === 1 ? 'it' : 'them'} with a reference such as "\${GITHUB_TOKEN}", or if the team is meant to have ${found.length === 1 ? 'it' : 'them'}, run: cfgsync ${options.mode} ${t.tool}${t.args} --allow-secrets${pathWords(options.named)}`,
				EXIT.error,
				'secrets'
			)
		}
		warn(`Pushing secret-looking values to ${t.label} (--allow-secrets): ${where}.`)
		return noted
	}
	const fresh = found.filter((f) => !noted.includes(`${f.key}#${f.path}`))
	if (fresh.length > 0) {
		warn(
			`Note: ${fresh.map((f) => `${safe(shown(f.key))}: ${safe(f.path)}`).join('; ')} look${fresh.length === 1 ? 's' : ''} like a secret. It is stored encrypted in your personal config on your server; cfgsync will not mention it again.`
		)
	}
	return unique([...noted, ...fresh.map((f) => `${f.key}#${f.path}`)])
}
