import { session, tool as toolArg } from '../context'
import { withLock } from '../lock'
import { CliFailure, EXIT, say } from '../output'
import { resolveTarget, runOne } from '../run'
import { defineCommand, type Input, PATHS, TARGET, TOOL, YES } from './command'
import { finish, pathKeys } from './common'

export const RESOLVE_HELP = `cfgsync resolve TOOL [-n|--name N] [--team SLUG] --mine|--theirs [-y|--yes] [PATH...]

Settles the conflicts of a config (all of them, or the PATHs'). --theirs
writes the server's side here (the current file is backed up first); --mine
keeps this machine's side, to be sent by the next push. In a JSON file only
the clashing keys take the chosen side; the other changes of both sides stay.
Named PATHs that are not in conflict take the chosen side too.`

const options = { ...TARGET, mine: { type: 'boolean' }, theirs: { type: 'boolean' }, ...YES } as const

async function run({ values, positionals }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'resolve')
	if (Boolean(values.mine) === Boolean(values.theirs))
		throw new CliFailure(
			"choose one side: cfgsync resolve TOOL --mine (keep this machine's) or --theirs (take the server's)",
			EXIT.usage
		)
	const side = values.mine ? ('mine' as const) : ('theirs' as const)
	const named = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const report = await withLock('resolve', () =>
		runOne(s, t, { mode: 'resolve', choose: { side, keys: named }, yes: values.yes })
	)
	finish(report, values.json, () => {
		// Files left for the person's review are named by the failure that follows.
		if (report.settled.length === 0 && report.held) return
		if (report.settled.length === 0)
			return say(`Nothing to resolve in ${t.label}: no conflicts${named ? ' in those files' : ''}.`)
		say(
			side === 'theirs'
				? `Took the server's side in ${t.label}.${report.backups ? ` The previous files are in ${report.backups}` : ''}`
				: `Kept this machine's side in ${t.label}. Send it with: cfgsync push ${tool}${t.args}`
		)
	})
}

export const resolve = defineCommand({
	name: 'resolve',
	group: 'Sync',
	summary: 'settle a conflict',
	usage: ['resolve TOOL --mine|--theirs [PATH...]'],
	help: RESOLVE_HELP,
	args: [TOOL, PATHS],
	options,
	run
})
