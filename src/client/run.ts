import type { Session } from './context'
import { CliFailure } from './output'
import { backupDays, pruneBackups } from './state'
import { commit } from './sync-step/commit'
import { gather } from './sync-step/gather'
import { judge } from './sync-step/judge'
import { mergeReports, reportOf } from './sync-step/report'
import type { Report, RunOptions } from './sync-step/types'
import { preview, vet } from './sync-step/vet'
import type { Target } from './target'

/**
 * The one path from the engine's decisions to disk and server that push,
 * pull, sync, resolve and watch share (docs/sync-model.md), in four phases
 * (src/client/sync-step/, docs/architecture.md): gather (the journal settled,
 * the server's version, the base and the scope), judge (the engine's
 * decisions and outcome), vet (reviews of someone else's changes, trust,
 * secrets, size) and commit (journal, backups and writes, push with
 * If-Match, the new base). The report is built in one place (report.ts).
 */

export { fetchRemote, type Remote } from './sync-step/remote'
export type { Held, Report, RunOptions } from './sync-step/types'
export { resolveTarget, type Target, targetOf } from './target'

/** How many times a push that met a newer version (412) is judged again before giving up. */
const RETRIES = 3

/** Runs one config through the engine, doing what it decides. The caller holds the lock (unless dry-run). */
export async function runOne(s: Session, t: Target, options: RunOptions): Promise<Report> {
	// A bad CFGSYNC_BACKUP_DAYS is a usage error before anything is done, not after the files are written.
	const keepDays = backupDays()
	let earlier: Report | undefined
	for (let attempt = 0; ; attempt++) {
		const step = await syncStep(s, t, options)
		const report = earlier ? mergeReports(earlier, step.report) : step.report
		if (!step.retry) {
			if (!options.dryRun) pruneBackups(keepDays)
			return report
		}
		// Someone pushed meanwhile: the writes made here stand, and the run is judged again against that version.
		if (attempt >= RETRIES)
			throw new CliFailure(
				`${t.label} kept changing on the server while this machine pushed; nothing of this push was stored. Run the command again.`
			)
		earlier = report
	}
}

/** One attempt: the phases in order, each taking what the one before returned. */
async function syncStep(s: Session, t: Target, options: RunOptions): Promise<{ report: Report; retry?: boolean }> {
	const gathered = await gather(s, t, options)
	const judged = judge(t, options, gathered)
	if (options.dryRun) {
		preview(t, options, gathered, judged)
		return { report: reportOf(t, options, gathered, judged) }
	}
	// A push with conflicts nobody chose a side for, or files that do not parse, sends and writes nothing.
	if (options.mode === 'push' && (judged.outcome.conflicts.length > 0 || judged.invalid.length > 0))
		return { report: reportOf(t, options, gathered, judged) }
	const vetted = await vet(s, t, options, gathered, judged)
	const committed = await commit(s, t, options, gathered, vetted)
	return { report: reportOf(t, options, gathered, judged, vetted, committed), retry: committed.retry }
}
