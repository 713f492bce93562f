import { noMore, teamId } from '../context'
import { safe } from '../output'
import { defineCommand, type Input, TEAM } from './command'

export const LIST_HELP = `cfgsync list [--team SLUG]

Your configs on the server, or a team's: tool, name, version, and when it was last pushed.`

const options = { ...TEAM } as const

async function run({ values, positionals, out, session }: Input<typeof options>) {
	noMore(positionals, 0, 'list')
	const s = session(values)
	const id = await teamId(s, values.team)
	const configs = await s.run((api) => api.configs.list({ teamId: id }))
	if (values.json) return out.json(configs)
	if (configs.length === 0)
		return out.say(values.team ? `Team ${safe(values.team)} has no configs yet.` : 'No configs yet: cfgsync push TOOL.')
	out.table(
		['TOOL', 'NAME', 'VERSION', 'UPDATED'],
		configs.map((c) => [safe(c.tool), safe(c.name), String(c.version), out.ago(c.updatedAt)])
	)
}

export const list = defineCommand({
	name: 'list',
	group: 'Configs on the server',
	summary: 'configs, with their versions',
	usage: ['list [--team SLUG]'],
	help: LIST_HELP,
	args: [],
	options,
	run
})
