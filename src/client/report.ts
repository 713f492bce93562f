import { localJson } from './local-keys'
import { CliFailure, EXIT, type Printer, safe } from './output'
import type { SentChange } from './outgoing'
import type { Report } from './run'
import type { ConflictWhy, Decision, WriteKind } from './sync/engine'
import { shown } from './tools'
import { pathWord } from './words'

/** What runs printed and return: lines for a person, one JSON document for scripts, and the exit status. */

const WHY: Record<ConflictWhy, string> = {
	'both-changed': 'changed here and on the server',
	'no-base': "differs from the server's copy and this machine has never synced it",
	'deleted-here': 'deleted here, changed on the server',
	'deleted-there': 'changed here, deleted on the server'
}

export const conflictText = (d: Decision): string => {
	if (d.verdict.kind !== 'conflict') return ''
	const keys = d.verdict.keys.length > 0 ? `: ${d.verdict.keys.map(safe).join(', ')}` : ''
	return `${WHY[d.verdict.why]}${keys}`
}

const MARK: Record<WriteKind, string> = {
	created: '+',
	updated: '~',
	deleted: '-',
	merged: '*',
	mine: '>',
	theirs: '<',
	marked: '!'
}
const WORD: Record<WriteKind, string> = {
	created: 'created',
	updated: 'updated',
	deleted: 'deleted',
	merged: "merged with the server's changes",
	mine: "kept this machine's side",
	theirs: "took the server's side",
	marked: 'conflict markers written: edit the file, then push'
}

const file = (key: string) => safe(shown(key))
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`

const HELD = "left as it was: someone else's changes to it wait for your review"

/** The command that writes what a review left: the same command with --yes, as it can be typed. */
function writeHeld(report: Report): string {
	const { tool, args } = report.target
	const again = report.held?.again ?? { options: ['--yes'], paths: [] }
	return safe(['cfgsync', report.mode, `${tool}${args}`, ...again.options, ...again.paths.map(pathWord)].join(' '))
}

/** At most this many files are named per list; the rest are counted (docs/client.md). */
export const LIST_CAP = 20

/** Prints the first LIST_CAP lines of a list and counts the rest. */
export function capped<T>(out: Printer, items: readonly T[], line: (item: T) => string, rest: string): void {
	for (const item of items.slice(0, LIST_CAP)) out.say(line(item))
	if (items.length > LIST_CAP) out.say(`  ${out.dim('…')} and ${items.length - LIST_CAP} more ${rest}`)
}

/** Files named in a sentence, at most LIST_CAP of them, then how many more. */
export function fileList(keys: readonly string[]): string {
	const named = keys.slice(0, LIST_CAP).map(file)
	return keys.length > LIST_CAP ? `${named.join(', ')} and ${keys.length - LIST_CAP} more` : named.join(', ')
}

const SENT: Record<SentChange, string> = { added: 'added', changed: 'changed here', removed: 'deleted here' }

/** The per-file lines of a run. */
export function printLines(out: Printer, report: Report): void {
	const { tool, args } = report.target
	capped(
		out,
		report.writes,
		(w) =>
			`  ${w.kind === 'deleted' ? out.red(MARK[w.kind]) : out.green(MARK[w.kind])} ${file(w.key)} (${WORD[w.kind]})`,
		'files written here'
	)
	capped(
		out,
		report.sent,
		(f) =>
			`  ${out.green('^')} ${file(f.key)} (${SENT[f.change]}, ${report.dryRun ? 'would be sent' : f.change === 'removed' ? 'removed from the config' : 'sent'})`,
		report.dryRun ? 'files to send' : 'files sent'
	)
	capped(out, report.conflicts, (d) => `  ${out.red('!')} ${file(d.key)} (conflict: ${conflictText(d)})`, 'conflicts')
	capped(
		out,
		report.unsent,
		(d) =>
			`  ${out.yellow('>')} ${file(d.key)} (${d.verdict.kind === 'local' && d.verdict.content === null ? 'deleted' : 'changed'} here, ${report.localOnly ? `stays local: ${report.localOnly}` : `not sent: cfgsync push ${tool}${args} sends it, cfgsync discard ${tool}${args}${pathArgs([d.key])} drops it`})`,
		'files changed here, not sent'
	)
	capped(
		out,
		report.unpulled,
		(d) => `  ${out.yellow('<')} ${file(d.key)} (changed on the server, not written here: cfgsync pull ${tool}${args})`,
		'files changed on the server, not written here'
	)
	capped(
		out,
		report.refused,
		(r) => `  ${out.red('x')} ${file(r.key)} (refused: ${r.why}; nothing written to it)`,
		'refused'
	)
	capped(
		out,
		report.held?.keys ?? [],
		(key) => `  ${out.yellow('?')} ${file(key)} (${HELD})`,
		'waiting for your review'
	)
	capped(out, report.invalid, (r) => `  ${out.red('x')} ${file(r.key)} (not sent: ${r.why})`, 'not sent')
	capped(out, report.skipped, (s) => `  ${out.dim('-')} ${file(s.key)} (skipped: ${s.why})`, 'skipped')
	if (report.mode !== 'push' && report.outside.length > 0) {
		const n = report.outside.length
		const why = report.named ? 'you named PATHs' : 'they are not among the files this machine syncs for it'
		const pulling = n <= LIST_CAP ? pathArgs(report.outside) : ''
		out.say(
			`  ${out.dim('-')} ${plural(n, 'other file')} of ${report.target.label} on the server ${n === 1 ? 'was' : 'were'} left alone (${why}): ${fileList(report.outside)}. To pull ${n === 1 ? 'it' : 'them'}: cfgsync pull ${tool}${args}${pulling}`
		)
	}
	capped(
		out,
		report.duplicates,
		(key) =>
			`  ${out.dim('-')} ${safe(key)} (ignored: the same file as its platform-neutral name, which the server also has)`,
		'ignored'
	)
}

export { shellWord } from './words'

/** PATH arguments for a command line: ` ~/.codex/AGENTS.md ~/.gemini/GEMINI.md` (empty for none). */
export const pathArgs = (keys: readonly string[]): string => keys.map((key) => ` ${safe(pathWord(key))}`).join('')

/** The summary after the lines. */
export function summary(out: Printer, report: Report): string {
	const count = (kind: WriteKind) => report.writes.filter((w) => w.kind === kind).length
	const parts = [`${count('created')} created`, `${count('updated')} updated`, `${count('deleted')} deleted`]
	if (count('merged')) parts.push(`${count('merged')} merged`)
	if (count('mine') + count('theirs')) parts.push(`${count('mine') + count('theirs')} resolved`)
	if (count('marked')) parts.push(`${count('marked')} marked for editing`)
	parts.push(`${report.unchanged.length} unchanged`)
	if (report.held) parts.push(out.yellow(`${report.held.keys.length} waiting for your review`))
	if (report.sent.length) parts.push(`${report.sent.length} ${report.dryRun ? 'to send' : 'sent'}`)
	if (report.conflicts.length) parts.push(out.red(plural(report.conflicts.length, 'conflict')))
	return parts.join(', ')
}

/** The report as JSON (paths are keys of the config; `file` is where it is here). */
export function reportJson(report: Report) {
	const entry = (key: string) => ({ path: key, file: shown(key) })
	return {
		config: {
			tool: report.target.tool,
			name: report.target.name,
			team: report.target.team ?? report.target.teamId ?? null
		},
		dryRun: report.dryRun,
		serverVersion: report.remoteVersion ?? null,
		pushed: report.pushed ? { version: report.pushed.version, files: report.pushed.files } : null,
		changes: report.writes.map((w) => ({ ...entry(w.key), action: w.kind })),
		conflicts: report.conflicts.map((d) => ({
			...entry(d.key),
			why: d.verdict.kind === 'conflict' ? d.verdict.why : '',
			keys: d.verdict.kind === 'conflict' ? d.verdict.keys : []
		})),
		unsent: report.unsent.map((d) => entry(d.key)),
		unpulled: report.unpulled.map((d) => entry(d.key)),
		sent: report.sent.map((f) => ({ ...entry(f.key), action: f.change })),
		unchanged: report.unchanged.map(entry),
		skipped: [
			...report.skipped.map((s) => ({ ...entry(s.key), why: s.why })),
			...report.outside.map((key) => ({
				...entry(key),
				why: report.named
					? 'not among the PATHs named: name it to pull it'
					: `not among the files this machine syncs for ${report.target.tool}: name it to pull it`
			}))
		],
		// A file not sent because it does not parse is refused too (the shape stays as documented).
		refused: [
			...report.refused.map((r) => ({ ...entry(r.key), why: r.why })),
			...report.invalid.map((r) => ({ ...entry(r.key), why: `${r.why}; not sent` })),
			...(report.held?.keys ?? []).map((key) => ({ ...entry(key), why: `${HELD} (${writeHeld(report)})` }))
		],
		local: report.local.map(localJson),
		backups: report.backups ?? null
	}
}

/**
 * The failure a run ends with: a conflict (exit 3) names the files and the
 * commands that settle it; refusals exit 1. `rerun` is the command that does
 * this run again, as the command was given (resolve needs its side).
 */
export function outcomeFailure(
	report: Report,
	rerun = `${report.mode} ${report.target.tool}${report.target.args}`
): CliFailure | undefined {
	const { tool, args, label } = report.target
	if (report.conflicts.length > 0) {
		const more = report.conflicts.length - LIST_CAP
		const list = `${report.conflicts
			.slice(0, LIST_CAP)
			.map((d) => `${file(d.key)} (${conflictText(d)})`)
			.join('; ')}${more > 0 ? `; and ${more} more` : ''}`
		const done = report.dryRun
			? 'Nothing was written (dry run)'
			: report.mode === 'push'
				? 'Nothing was sent and nothing written here'
				: report.mode === 'sync'
					? 'Those files were left as they are here, and nothing of this config was sent'
					: 'Those files were left as they are here'
		const held = report.held
			? ` Someone else's changes to ${report.held.keys.map(file).slice(0, 20).join(', ')} wait for your review; to write them: ${writeHeld(report)}`
			: ''
		// A file with clashing lines can also be settled by hand, between conflict markers.
		const editable = report.conflicts.find((d) => d.verdict.kind === 'conflict' && d.verdict.regions !== undefined)
		const edit = editable
			? `; or edit ${file(editable.key)} by hand between conflict markers: cfgsync resolve ${tool}${args} --edit ${safe(pathWord(editable.key))}`
			: ''
		// A command limited to PATHs reported only their conflicts: the commands that settle them name the same files.
		const paths = report.named ? pathArgs(report.conflicts.map((d) => d.key)) : ''
		return new CliFailure(
			`${plural(report.conflicts.length, 'conflict')} in ${label}: ${list}. ${done}. Choose a side for what clashes (every other change of both sides is kept): cfgsync resolve ${tool}${args} --mine${paths} (keep this machine's) or cfgsync resolve ${tool}${args} --theirs${paths} (take the server's)${edit}; cfgsync diff ${tool}${args}${paths} shows the difference.${held}`,
			EXIT.conflict
		)
	}
	if (report.held) {
		// docs/sync-model.md: someone else's changes beyond the inert settings wait for the person.
		const { keys, code } = report.held
		const one = keys.length === 1
		const names = keys.slice(0, 20).map(file).join(', ') + (keys.length > 20 ? ` and ${keys.length - 20} more` : '')
		const why = code === 'declined' ? 'You answered no' : 'There is no terminal to ask on'
		return new CliFailure(
			`${why}, so ${plural(keys.length, 'file')} of ${label} ${one ? 'was' : 'were'} left as ${one ? 'it was' : 'they were'}: ${names} (someone else's changes, shown above). ${report.writes.length > 0 ? 'The rest was written. ' : ''}See them with cfgsync diff ${tool}${args}; to write them: ${writeHeld(report)}`,
			EXIT.error,
			code
		)
	}
	if (report.invalid.length > 0) {
		// docs/sync-model.md: a file its tool could not read is never sent unless the person says so.
		const one = report.invalid.length === 1
		const list = report.invalid.map((r) => `${file(r.key)} is ${r.why}`).join('; ')
		const pulled = report.mode === 'sync' && !report.dryRun ? ' (what changed on the server was written here)' : ''
		return new CliFailure(
			`Refusing to send ${label}: ${list}. Nothing of it was sent${pulled}. Fix ${one ? 'the file' : 'the files'} and run cfgsync ${report.mode === 'sync' ? 'sync' : 'push'} ${tool}${args} again, or send ${one ? 'it' : 'them'} as ${one ? 'it is' : 'they are'}: cfgsync push ${tool}${args} --force`,
			EXIT.error,
			'invalid_file'
		)
	}
	if (report.refused.length > 0) {
		// docs/sync-model.md: one file that cannot be sent or written never stops the rest; each is named, with why.
		const links = report.refused.filter((r) => r.why.includes('symbolic link'))
		const list = report.refused
			.slice(0, LIST_CAP)
			.map((r) => (links.includes(r) ? file(r.key) : `${file(r.key)} (${r.why})`))
			.join('; ')
		const more = report.refused.length > LIST_CAP ? `; and ${report.refused.length - LIST_CAP} more` : ''
		const linked = links.length > 0 ? ' (a symbolic link out of your home directory)' : ''
		const rest = report.refused.length > links.length && !report.dryRun ? ' Everything else was synced.' : ''
		const fix =
			links.length > 0 ? 'Replace the link with a file, or point it inside home, then run' : 'Once that is fixed, run'
		return new CliFailure(
			`${plural(report.refused.length, 'file')} of ${label} refused: ${list}${more}${linked}.${rest} ${fix}: cfgsync ${rerun}`
		)
	}
	return undefined
}

/** The exit status of several runs: a refused key over any error over a conflict. */
export function worst(failures: CliFailure[]): CliFailure | undefined {
	return (
		failures.find((f) => f.exitCode === EXIT.auth) ?? failures.find((f) => f.exitCode !== EXIT.conflict) ?? failures[0]
	)
}
