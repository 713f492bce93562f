import { readLocal, refusedWrites } from '../files'
import { fileHash } from '../hash'
import { type Located, localEntries, personalEntries } from '../local-keys'
import { largestUnsendable } from '../outgoing'
import { type Decision, decide, type Files, type Outcome, ownValue, reconcile, type Sides } from '../sync/engine'
import { keptFrom, sameEntry } from '../sync/local-keys'
import { markersLeft, syntaxError, whereText } from '../sync/syntax'
import type { Target } from '../target'
import type { Gathered } from './gather'
import type { RunOptions } from './types'

/** The second phase's answer: every file judged, and what the run does about them. */
export interface Judged {
	/** The config's keys and files that stay on this machine. */
	locals: Located[]
	decisions: Decision[]
	/** The server's files outside the scope. */
	outside: string[]
	/** What to write, push and report, after the files that cannot go were taken out. */
	outcome: Outcome
	/** Files left as they are because writing them would follow a link out of home, with why. */
	refusals: Map<string, string>
	/** Files too large to send, left out of a sync, with why. */
	oversized: Map<string, string>
	/** Files changed here that do not parse as their format (or hold conflict markers): not sent. */
	invalid: { key: string; why: string }[]
}

/** One pass of the engine over the files in `scope`: the three sides read, decided and reconciled. */
function judgeScope(t: Target, options: RunOptions, g: Gathered, scope: string[]) {
	const local = readLocal(scope)
	// Settings that stay on this machine (docs/sync-model.md): masked on the way out, kept on the way in.
	const own = localEntries(t.key, g.remote?.files, local)
	const locals =
		g.personalKey === undefined
			? own
			: [
					...own,
					...personalEntries(g.personalKey, local, g.remote?.files, g.base).filter(
						(p) => !own.some((o) => sameEntry(o.entry, p.entry))
					)
				]
	const kept = keptFrom(locals.map((o) => o.entry))
	const sides: Sides = { base: g.base, local, remote: g.remote?.files, scope, remoteVersion: g.remote?.version, kept }
	const { decisions, outside } = decide(sides, fileHash)
	const outcome = reconcile(sides, decisions, { mode: g.mode, choose: g.choose, only: options.only }, fileHash)
	return { locals, sides, decisions, outside, outcome }
}

/**
 * Judges the gathered files with the engine (`decide`, `reconcile`), judging
 * again without a file that cannot be written or sent, and keeps a push from
 * sending what does not parse or is not the tool's.
 */
export function judge(t: Target, options: RunOptions, g: Gathered): Judged {
	const scope = g.scope
	let judged = judgeScope(t, options, g, scope)
	// A file behind a link that leads out of home is left as it is, with a message (docs/sync-model.md).
	const refusals = refusedWrites(judged.outcome.writes)
	const judgedScope = refusals.size > 0 ? scope.filter((key) => !refusals.has(key)) : scope
	if (refusals.size > 0) judged = judgeScope(t, options, g, judgedScope)
	// A file too large to send is left out of a sync, with why, and the rest goes on (docs/sync-model.md).
	const oversized = new Map<string, string>()
	if (options.mode === 'sync' && !options.localOnly)
		judged = leaveOutOversized(t, options, g, judgedScope, judged, oversized)
	const { decisions, sides } = judged
	let outcome = judged.outcome
	// A file that does not parse as its format is not sent (docs/sync-model.md) unless push --force: nothing
	// of the config is, and a sync still does what a pull would.
	const forced = options.mode === 'push' && options.choose?.side === 'mine'
	const invalid = g.pushes && !forced ? unparseable(outcome.push, g.remote?.files, g.state?.marked) : []
	if (invalid.length > 0 && options.mode === 'sync')
		outcome = reconcile(sides, decisions, { mode: 'pull', choose: g.choose, only: options.only }, fileHash)
	if (invalid.length > 0 && options.mode === 'push') outcome = { ...outcome, writes: [], push: undefined }
	// A config holds only its tool's files: anything else the server's data holds is never sent back either.
	if (outcome.push !== undefined) for (const key of g.scoped.foreign) delete outcome.push[key]
	for (const key of g.scoped.foreign) delete outcome.base[key]
	return { locals: judged.locals, decisions, outside: judged.outside, outcome, refusals, oversized, invalid }
}

/** Judges again without the largest file a push cannot send, until it can; each one left out is noted with why. */
function leaveOutOversized(
	t: Target,
	options: RunOptions,
	g: Gathered,
	scope: string[],
	judged: ReturnType<typeof judgeScope>,
	oversized: Map<string, string>
): ReturnType<typeof judgeScope> {
	let now = judged
	let rest = scope
	for (let big = largestUnsendable(now.outcome.push, g.remote?.files); big !== undefined; ) {
		const { key, why } = big
		oversized.set(key, why)
		rest = rest.filter((k) => k !== key)
		now = judgeScope(t, options, g, rest)
		big = largestUnsendable(now.outcome.push, g.remote?.files)
	}
	return now
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
