import { noMore, session, tool as toolArg } from '../context'
import { CliFailure, EXIT, green, json, say } from '../output'
import { resolveTarget } from '../run'
import { defineCommand, type Input, TARGET, TOOL } from './command'
import { asNumber, versionByNumber } from './common'

export const ROLLBACK_HELP = `cfgsync rollback TOOL [-n|--name N] [--team SLUG] --to VERSION

Makes a new version holding VERSION's content (Pro and Team plans; admins for team configs).`

const options = { ...TARGET, to: { type: 'string' } } as const

async function run({ values, positionals }: Input<typeof options>) {
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
	if (values.json) return json(rolled)
	say(
		`${green('Rolled back')} ${t.label}: version ${rolled.version} now holds what version ${to} held. Run cfgsync pull ${tool}${t.args} to apply it here.`
	)
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
