import { ApiError } from '../api'
import type { Session } from '../context'
import { crashPoint } from '../crash-points'
import { applyWrites } from '../files'
import { contentHash, fileHash } from '../hash'
import { baseWithoutPush, finishJournal, journalFor, settleUnpushed, writeJournal } from '../journal'
import { CliFailure, EXIT, failure, type Printer } from '../output'
import { nextPins } from '../pinned'
import { backupRoot, forgetLeftFiles, type SyncState } from '../state'
import { copyMap, type Files, ownValue, type Write } from '../sync/engine'
import { EVERYWHERE_FILE } from '../sync/local-keys'
import { plainSplitsOf } from '../sync/syntax'
import type { Target } from '../target'
import type { Gathered } from './gather'
import { type Remote, storedVersion } from './remote'
import type { Report, RunOptions } from './types'
import type { Vetted } from './vet'

/** The last phase's answer: what happened on disk and on the server. */
export interface Committed {
	/** Files that could not be written here, with why (they stay as they were, their base too). */
	failed: Map<string, string>
	/** Where the files written were backed up, when any was. */
	backups?: string
	pushed?: Report['pushed']
	/** Someone pushed meanwhile (412): the writes made here stand, and the run is to be judged again. */
	retry?: true
}

/** A push about to be sent: its content hash, the version it was judged against, and the state once stored. */
interface Pushing {
	hash: string
	after: number
	state: SyncState
}

/**
 * Commits what was vetted: names each way the run can end in the journal
 * before a file is touched, backs up and writes, pushes with If-Match, and
 * keeps the new base. A crash at any moment is settled by the next command
 * (docs/sync-model.md, "Crashes").
 */
export async function commit(s: Session, t: Target, options: RunOptions, g: Gathered, v: Vetted): Promise<Committed> {
	const { state, remote } = g
	const { outcome } = v
	const username = await s.username()
	const { pulled, pushing } = endStates(s.server, username, t, options, g, v)
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
	const committed: Committed = writeFiles(outcome.writes, root, state, pulled, pushing)
	if (pushing === undefined || outcome.push === undefined) {
		finishJournal(t.key, pulled)
		return committed
	}
	const version = await push(s, t, remote, outcome.push, pushing, options.out)
	if (version === 'precondition_failed') return { ...committed, retry: true }
	crashPoint('pushed')
	committed.pushed = { version, hash: pushing.hash, created: !remote, files: Object.keys(outcome.push).sort() }
	// Files a left team config had here, named by this push: the personal config holds them from now on.
	if (t.teamId === undefined && options.named)
		forgetLeftFiles(
			s.server,
			username,
			t.tool,
			committed.pushed.files.filter((key) => namedKey(key, options.named))
		)
	finishJournal(t.key, { ...pushing.state, version })
	return committed
}

/**
 * The two states a run can end in: `pulled` (the writes made, nothing
 * stored on the server) and, when it pushes, `pushing`'s (the push stored).
 */
function endStates(
	server: string,
	username: string,
	t: Target,
	options: RunOptions,
	g: Gathered,
	v: Vetted
): { pulled: SyncState; pushing?: Pushing } {
	const { state, remote } = g
	const { outcome } = v
	const stateWith = (
		fields: Pick<SyncState, 'version' | 'hash' | 'files' | 'pushedFiles'>,
		sent?: Files
	): SyncState => ({
		format: 2,
		server,
		username,
		teamId: t.teamId,
		team: t.team ?? state?.team,
		tool: t.tool,
		name: t.name,
		...fields,
		acceptedFiles: v.accepted,
		reviewFrom: v.reviewFrom,
		secretsNoted: v.secretsNoted,
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
	if (outcome.push === undefined) return { pulled }
	// What this machine contributed: files whose content it sent rather than kept from the server.
	const pushedFiles = copyMap(state?.pushedFiles)
	for (const key of Object.keys(pushedFiles)) if (ownValue(outcome.push, key) === undefined) delete pushedFiles[key]
	for (const [key, content] of Object.entries(outcome.push))
		if (content !== ownValue(remote?.files, key)) pushedFiles[key] = fileHash(content)
	const hash = contentHash({ files: outcome.push })
	return {
		pulled,
		pushing: {
			hash,
			after: remote?.version ?? 0,
			state: stateWith({ version: remote?.version ?? 0, hash, files: outcome.base, pushedFiles }, outcome.push)
		}
	}
}

/**
 * Backs up and writes the files. A file that could not be written stays as it was, its base too, so the next
 * run writes it again; the others stand (docs/sync-model.md). The run then has not merged the server's
 * version completely.
 */
function writeFiles(
	writes: Write[],
	root: string,
	state: SyncState | undefined,
	pulled: SyncState,
	pushing: Pushing | undefined
): Committed {
	if (writes.length === 0) return { failed: new Map() }
	const applied = applyWrites(writes, root)
	const written: Committed = { failed: applied.failed, ...(applied.backedUp > 0 ? { backups: root } : {}) }
	if (applied.failed.size === 0) return written
	keepOld(pulled.files, applied.failed, state)
	pulled.version = state?.version ?? 0
	pulled.hash = state?.hash ?? ''
	if (pushing) keepOld(pushing.state.files, applied.failed, state)
	return written
}

/** The files that could not be written keep their old base. */
function keepOld(files: SyncState['files'], failed: Map<string, string>, state: SyncState | undefined): void {
	for (const key of failed.keys()) {
		const old = ownValue(state?.files, key)
		if (old === undefined) delete files[key]
		else files[key] = old
	}
}

/**
 * Sends the push, If-Match the version judged against (nothing pushed in
 * between is ever replaced unseen, docs/sync-model.md); returns the version
 * stored, or `precondition_failed` when someone pushed meanwhile.
 */
async function push(
	s: Session,
	t: Target,
	remote: Remote | undefined,
	files: Files,
	pushing: Pushing,
	out: Printer
): Promise<number | 'precondition_failed'> {
	const body = { name: t.name, tool: t.tool, data: { files }, ...(t.teamId ? { teamId: t.teamId } : {}) }
	const condition = remote ? { ifMatch: [remote.hash] } : { ifNoneMatch: '*' as const }
	try {
		const result = await s.api.configs.push(body, condition)
		return ('version' in result ? result.version : undefined) ?? remote?.version ?? 1
	} catch (error) {
		if (!(error instanceof ApiError)) throw error
		if (error.code === 'precondition_failed') {
			// The writes made here stand; the run is judged again against that version.
			settleUnpushed(t.key)
			return 'precondition_failed'
		}
		if (!answerLost(error)) {
			settleUnpushed(t.key)
			throw failure(error, { server: s.server, what: t.team ? `Team "${t.team}"` : undefined })
		}
		return storedAnyway(s, t, pushing, error, out)
	}
}

/** Whether PATH arguments (as keys; a directory's ends in `/`) name a file. */
const namedKey = (key: string, named: string[] | undefined) =>
	named?.some((name) => key === name || key.startsWith(name.endsWith('/') ? name : `${name}/`)) === true

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
	error: ApiError,
	out: Printer
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
	out.notice(`The answer to this push of ${t.label} was lost (${lost}), but the server has it: version ${found}.`)
	return found
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
