import { noMore, type Session, tool as toolArg } from '../context'
import { CliFailure, EXIT } from '../output'
import { fileList } from '../report'
import { resolveTarget, type Target } from '../run'
import { localChanges } from '../unsent'
import { defineCommand, type Input, TARGET, TOOL } from './command'
import { asNumber, versionByNumber } from './common'

export const ROLLBACK_HELP = `cfgsync rollback TOOL [-n|--name N] [--team SLUG] --to VERSION

Makes a new version holding VERSION's content (Pro and Team plans; admins for team configs).`

const options = { ...TARGET, to: { type: 'string' } } as const

async function run({ values, positionals, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'rollback')
	noMore(positionals, 1, 'rollback')
	const to = asNumber(values.to, '--to')
	if (to === undefined)
		throw new CliFailure('which version? cfgsync rollback TOOL --to VERSION (see cfgsync history TOOL)', EXIT.usage)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const target = await versionByNumber(s, latest.id, to, t)
	const rolled = await s.run((api) => api.configs.rollback(latest.id, { versionId: target.id }))
	if (values.json) return out.json(rolled)
	out.say(
		`${out.green('Rolled back')} ${t.label}: version ${rolled.version} now holds what version ${to} held. ${await applyHere(s, t, rolled.version)}`
	)
}

/**
 * How to apply the rolled-back version here, truthfully: a pull keeps this
 * machine's unsent changes (docs/sync-model.md), so when there are some it says
 * so and names discard, which drops them first.
 */
async function applyHere(s: Session, t: Target, version: number): Promise<string> {
	const { changes } = await localChanges(s, t)
	const pull = `cfgsync pull ${t.tool}${t.args}`
	if (changes.length === 0) return `To apply it here: ${pull}`
	const n = changes.length
	return `This machine has unsent changes to ${n === 1 ? '' : `${n} files, `}${fileList(changes.map((c) => c.key))}: a pull keeps ${n === 1 ? 'it' : 'them'} (where the rollback changed the same part of a file, that is a conflict for you to resolve), so ${n === 1 ? 'it stays' : 'they stay'} as ${n === 1 ? 'it is' : 'they are'} here. To take version ${version} as it is, drop ${n === 1 ? 'it' : 'them'} first: cfgsync discard ${t.tool}${t.args}, then ${pull}. To keep ${n === 1 ? 'it' : 'them'}: ${pull}`
}

export const rollback = defineCommand({
	name: 'rollback',
	group: 'Configs on the server',
	summary: 'restore an earlier version as the newest',
	usage: ['rollback TOOL --to VERSION'],
	help: ROLLBACK_HELP,
	args: [TOOL],
	options,
	run
})
