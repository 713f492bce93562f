import { safe } from '../output'
import { sentFiles } from '../outgoing'
import type { Target } from '../target'
import type { Committed } from './commit'
import { type Gathered, skippedOf } from './gather'
import type { Judged } from './judge'
import type { Report, RunOptions } from './types'
import type { Vetted } from './vet'

/**
 * The one place a run's report is built, from the phases it went through: a
 * dry run (or a push refused for its conflicts) stops after judging; any
 * other run adds what the review held and what was written and pushed.
 */
export function reportOf(t: Target, options: RunOptions, g: Gathered, j: Judged, v?: Vetted, c?: Committed): Report {
	const { outcome, decisions } = j
	const held = new Set(v?.held?.keys)
	const failed = c?.failed ?? new Map<string, string>()
	const report: Report = {
		target: t,
		mode: options.mode,
		dryRun: options.dryRun === true,
		named: options.named,
		remoteVersion: g.remote?.version,
		remoteHash: g.remote?.hash,
		writes: (v?.outcome ?? outcome).writes.filter((w) => !failed.has(w.key)),
		refused: [
			...j.refusals,
			...j.oversized,
			...[...g.linkedChanged].map(([key, place]): [string, string] => [
				key,
				`it is a symbolic link (or inside a linked directory) that points outside your home directory, to ${safe(place)}`
			]),
			...[...failed].map(([key, why]): [string, string] => [key, `not written here: ${why}`])
		].map(([key, why]) => ({ key, why })),
		conflicts: outcome.conflicts,
		// A file not sent because it does not parse is named once, with why (a push of it as it is would be refused).
		unsent: [
			...outcome.unsent.filter((d) => !j.invalid.some((r) => r.key === d.key)),
			// A member's file merged with the server's keeps this machine's changes, which stay here too.
			...(options.localOnly ? decisions.filter((d) => d.verdict.kind === 'merged' && !outcome.unsent.includes(d)) : [])
		],
		unpulled: outcome.unpulled,
		unchanged: decisions.filter((d) => d.verdict.kind === 'same' && d.local !== undefined).map((d) => d.key),
		settled: settledKeys(options, g, j).filter((key) => !held.has(key)),
		outside: j.outside.filter(
			(key) =>
				!j.refusals.has(key) &&
				!g.linked.has(key) &&
				!g.scoped.foreign.includes(key) &&
				!g.scoped.elsewhere.includes(key) &&
				!g.scoped.excluded.some((dir) => key.startsWith(`${dir}/`))
		),
		skipped: skippedOf(t, g),
		invalid: j.invalid,
		duplicates: g.remote?.duplicates ?? [],
		localOnly: options.localOnly,
		sent: sentFiles(outcome.push, g.remote?.files),
		local: j.locals
	}
	// Set only when there is one, as the report has always been (a key with undefined is not the same in JSON).
	if (v?.held) report.held = v.held
	if (c?.backups !== undefined) report.backups = c.backups
	if (c?.pushed !== undefined) report.pushed = c.pushed
	return report
}

/** Files whose conflict (or, for resolve PATH, whose difference) the chosen side settled. */
function settledKeys(options: RunOptions, g: Gathered, j: Judged): string[] {
	const { outcome } = j
	const resolving = options.mode === 'resolve'
	return j.decisions
		.filter(
			(d) =>
				(d.verdict.kind === 'conflict' && !outcome.conflicts.includes(d)) ||
				(resolving &&
					options.choose?.side !== 'edit' &&
					d.verdict.kind !== 'same' &&
					g.choose?.keys?.includes(d.key)) ||
				// A file this machine never synced, merged with the server's by resolve (docs/sync-model.md).
				(resolving && d.verdict.kind === 'merged' && d.base === undefined)
		)
		.map((d) => d.key)
}

/** A retried run after a 412: the writes of both attempts, the rest from the last. */
export function mergeReports(first: Report, last: Report): Report {
	return { ...last, writes: [...first.writes, ...last.writes], backups: last.backups ?? first.backups }
}
