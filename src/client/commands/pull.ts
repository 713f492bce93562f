import { tool as toolArg } from '../context'
import { withLock } from '../lock'
import { memberNote } from '../ownership'
import { summary } from '../report'
import { resolveTarget, runOne } from '../run'
import { defineCommand, FORCE, type Input, PATHS, TARGET, TOOL, YES } from './command'
import { finish, toolPathKeys } from './common'

export const PULL_HELP = `cfgsync pull TOOL [-n|--name N] [--team SLUG] [--dry-run] [-f|--force] [-y|--yes] [PATH...]

Writes what changed on the server since this machine last synced the config
and prints what it did. A file changed only here is kept (push sends it); a
file changed on both sides merges key by key when it is JSON, and is
otherwise a conflict: it is left as it is, reported by every pull (exit 3)
until you choose with cfgsync resolve TOOL --mine|--theirs, or pull --force
(the server's side wins the conflicts). A file the server no longer has is
deleted here if it is unchanged here. Every file overwritten or deleted is
first copied to $XDG_STATE_HOME/cfgsync/backups/<time>/ (backups older than
CFGSYNC_BACKUP_DAYS days, default 30, are removed).
Only TOOL's well-known files and the files in its directories are written
(all, or the PATHs given among them; any other file is left out, even
named), never outside your home directory, and never through a symbolic
link that leads out of it. What someone else pushed to a team config is
written without asking only when it changes nothing but inert settings
(theme, fonts, formatting, layout); any other change is shown as a diff and
asked about first. Without a terminal (or on "no") those files are left as
they were and named (exit 1): --yes writes them.`

const options = { ...TARGET, 'dry-run': { type: 'boolean' }, ...FORCE, ...YES } as const

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'pull')
	const named = positionals.length > 1 ? toolPathKeys(out, tool, positionals.slice(1), 'pull') : undefined
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const pulling = {
		mode: 'pull' as const,
		io,
		out,
		named,
		choose: values.force ? { side: 'theirs' as const } : undefined,
		dryRun: values['dry-run'],
		yes: values.yes
	}
	const report = values['dry-run']
		? await runOne(s, t, pulling)
		: await withLock('pull', () => runOne(s, t, pulling), io.stderr)
	// A plain member's changes to a team config stay here: the lines say so instead of naming a push (docs/sync-model.md).
	const member = await memberNote(s, t)
	if (member) report.localOnly = member
	finish(out, report, values.json, () => {
		const idle =
			report.writes.length + report.conflicts.length + report.unsent.length + report.refused.length === 0 &&
			!report.held
		if (idle) return out.say(`${t.label} is up to date (version ${report.remoteVersion}).`)
		out.say(
			`${report.dryRun ? 'Would pull' : out.green('Pulled')} ${t.label} version ${report.remoteVersion}: ${summary(out, report)}.`
		)
		if (report.backups) out.say(out.dim(`Previous copies are in ${report.backups}`))
	})
}

export const pull = defineCommand({
	name: 'pull',
	group: 'Sync',
	summary: 'write what changed on the server (conflicts stay until resolved)',
	usage: ['pull TOOL [PATH...]'],
	help: PULL_HELP,
	args: [TOOL, PATHS],
	options,
	run
})
