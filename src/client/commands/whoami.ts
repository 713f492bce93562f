import { noMore, session } from '../context'
import { DEFAULT_PROFILE } from '../credentials'
import { json, safe, say } from '../output'
import { defineCommand, type Input } from './command'

const WHOAMI_HELP = 'cfgsync whoami\n\nThe account, server, device and profile this machine uses.'

const options = {} as const

async function run({ values, positionals }: Input<typeof options>) {
	noMore(positionals, 0, 'whoami')
	const s = session(values)
	const me = await s.run((api) => api.me())
	const current = (await s.run((api) => api.keys.list())).find((k) => k.current)
	const device = current?.device ?? null
	if (values.json)
		return json({
			username: me.username,
			email: me.email,
			server: s.server,
			profile: s.profile,
			device,
			key: s.keySource === 'env' ? 'CFGSYNC_API_KEY' : 'saved'
		})
	const where = [
		device ? `device "${safe(device)}"` : '',
		s.profile === DEFAULT_PROFILE ? '' : `profile "${s.profile}"`,
		s.keySource === 'env' ? 'key from CFGSYNC_API_KEY' : ''
	]
		.filter(Boolean)
		.join(', ')
	say(`${safe(me.username)} <${safe(me.email)}> on ${s.server}${where ? ` (${where})` : ''}`)
}

export const whoami = defineCommand({
	name: 'whoami',
	group: 'Account',
	summary: '',
	usage: ['whoami'],
	help: WHOAMI_HELP,
	args: [],
	options,
	run
})
