import { tool as toolArg } from '../context'
import { withLock } from '../lock'
import { memberNote } from '../ownership'
import { CliFailure, EXIT, safe } from '../output'
import { conflictText, pathArgs } from '../report'
import { conflictMarkerLine, MARK_MINE, MARK_SPLIT, markTheirs } from '../sync/text-merge'
import { shown } from '../tools'
import { resolveTarget, runOne } from '../run'
import { defineCommand, type Input, PATHS, TARGET, TOOL, YES } from './command'
import { finish, toolPathKeys } from './common'

export const RESOLVE_HELP = `cfgsync resolve TOOL [-n|--name N] [--team SLUG] --mine|--theirs [-y|--yes] [PATH...]
cfgsync resolve TOOL [-n|--name N] [--team SLUG] --edit PATH...

Settles the conflicts of a config (all of them, or the PATHs'). --theirs
writes the server's side here (the current file is backed up first); --mine
keeps this machine's side, to be sent by the next push. Only the clashing
keys (JSON) or lines (other text) take the chosen side; every other change
of both sides stays. Named PATHs that are not in conflict take the chosen
side too.

--edit writes git-style conflict markers into the files instead, around
each clash: this machine's lines between "<<<<<<< this machine" and
"=======", the server's between "=======" and ">>>>>>> server (version N)".
Keep what you want, delete the marker lines, then push: a push refuses
while markers remain.`

const options = {
	...TARGET,
	mine: { type: 'boolean' },
	theirs: { type: 'boolean' },
	edit: { type: 'boolean' },
	...YES
} as const

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'resolve')
	const chosen = [values.mine && 'mine', values.theirs && 'theirs', values.edit && 'edit'].filter(Boolean)
	if (chosen.length !== 1)
		throw new CliFailure(
			"choose one: cfgsync resolve TOOL --mine (keep this machine's side), --theirs (take the server's), or --edit PATH (write conflict markers to edit by hand)",
			EXIT.usage
		)
	const side = chosen[0] as 'mine' | 'theirs' | 'edit'
	const named = positionals.length > 1 ? toolPathKeys(out, tool, positionals.slice(1), 'resolve') : undefined
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const report = await withLock(
		'resolve',
		() => runOne(s, t, { mode: 'resolve', io, out, choose: { side, keys: named }, yes: values.yes }),
		io.stderr
	)
	// A plain member cannot push a team config: their changes stay here, and no next step is a push (docs/sync-model.md).
	const member = await memberNote(s, t)
	if (member) report.localOnly = member
	finish(
		out,
		report,
		values.json,
		() => {
			// Files left for the person's review are named by the failure that follows.
			if (report.settled.length === 0 && report.held) return
			const unmarkable = side === 'edit' ? report.conflicts.filter((d) => !named || named.includes(d.key)) : []
			for (const d of unmarkable)
				out.say(
					`No conflict markers can be written into ${safe(shown(d.key))} (${conflictText(d)}): choose a side for it with --mine or --theirs.`
				)
			if (report.settled.length === 0) {
				if (unmarkable.length === 0)
					out.say(`Nothing to resolve in ${t.label}: no conflicts${named ? ' in those files' : ''}.`)
				return
			}
			if (side === 'edit') {
				const marked = report.writes.filter((w) => w.kind === 'marked')
				for (const w of marked)
					out.say(
						`Wrote conflict markers into ${safe(shown(w.key))}${w.content ? ` (the first at line ${conflictMarkerLine(w.content)})` : ''}.`
					)
				out.say(
					`Between "${MARK_MINE}" and "${MARK_SPLIT}" is this machine's text, then the server's up to "${markTheirs(report.remoteVersion)}". Keep what you want, delete the marker lines, then send it: cfgsync push ${tool}${t.args}`
				)
				return
			}
			out.say(
				side === 'theirs'
					? `Took the server's side in ${t.label}.${report.backups ? ` The previous files are in ${report.backups}` : ''}`
					: member !== undefined
						? `Kept this machine's side in ${t.label}. It stays on this machine (${member}), and cfgsync sync keeps pulling the team's other changes around it. To keep a setting your own for good, make it local (cfgsync local --help says how).`
						: `Kept this machine's side in ${t.label}. Send it with: cfgsync push ${tool}${t.args}`
			)
		},
		`resolve ${tool}${t.args} --${side}${named ? pathArgs(named) : ''}`
	)
}

export const resolve = defineCommand({
	name: 'resolve',
	group: 'Sync',
	summary: 'settle a conflict',
	usage: ['resolve TOOL --mine|--theirs [PATH...]', 'resolve TOOL --edit PATH...'],
	help: RESOLVE_HELP,
	args: [TOOL, PATHS],
	options,
	run
})
