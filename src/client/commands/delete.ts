import { confirm } from '../ask'
import { noMore, tool as toolArg } from '../context'
import { asFileSet } from '../files'
import { withLock } from '../lock'
import { resolveTarget } from '../run'
import { forgetState, getState } from '../state'
import { defineCommand, type Input, TARGET, TOOL, YES } from './command'

export const DELETE_HELP = `cfgsync delete TOOL [-n|--name N] [--team SLUG] [-y|--yes]

Deletes a config and all its versions from the server (a team's: owners and
admins). Asks first (y/N) on a terminal; without one it needs --yes. The
files on this machine stay as they are, and this machine stops syncing the
config; on other machines, sync says it is gone.`

const options = { ...TARGET, ...YES } as const

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'delete')
	noMore(positionals, 1, 'delete')
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const count = Object.keys(asFileSet(latest.data)?.files ?? {}).length
	await confirm(
		`Delete ${t.label} (version ${latest.version}, ${count} file${count === 1 ? '' : 's'}) from ${s.server}, with all its versions? This cannot be undone`,
		`cfgsync delete ${tool}${t.args}`,
		values.yes,
		io
	)
	await s.run((api) => api.configs.remove(latest.id), t.label)
	const synced = getState(t.key) !== undefined
	if (synced) await withLock('delete', async () => forgetState(t.key), io.stderr)
	if (values.json)
		return out.json({ deleted: { id: latest.id, tool, name: t.name, team: t.team ?? null, version: latest.version } })
	out.say(
		`Deleted ${t.label} from ${s.server}.${synced ? ' Its files on this machine are untouched, and this machine no longer syncs it.' : ''}`
	)
}

export const deleteConfig = defineCommand({
	name: 'delete',
	group: 'Configs on the server',
	summary: 'delete a config and its versions',
	usage: ['delete TOOL [--yes]'],
	help: DELETE_HELP,
	args: [TOOL],
	options,
	run
})
