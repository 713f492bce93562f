import { ApiError } from '../api'
import { noMore } from '../context'
import { DEFAULT_PROFILE } from '../credentials'
import { safe } from '../output'
import type { Usage } from '../../shared/api/configs'
import { formatBytes } from '../../shared/text'
import { defineCommand, type Input } from './command'

const WHOAMI_HELP = `cfgsync whoami

The account, server, device and profile this machine uses, whether its key
reads and writes or is read-only, and what the account and each of its teams
store against the server's quotas (CFGSYNC_QUOTA_BYTES, and the pushes a
minute CFGSYNC_QUOTA_PUSHES_PER_MINUTE allows).`

const options = {} as const

const stored = (bytes: Usage['bytes']) =>
	bytes.limit > 0
		? `${formatBytes(bytes.used)} of ${formatBytes(bytes.limit)}`
		: `${formatBytes(bytes.used)} (no limit)`

async function run({ values, positionals, out, session }: Input<typeof options>) {
	noMore(positionals, 0, 'whoami')
	const s = session(values)
	const me = await s.run((api) => api.me())
	const current = (await s.run((api) => api.keys.list())).find((k) => k.current)
	const device = current?.device ?? null
	// A server from before quotas has no /api/usage: whoami still answers, without them.
	const usage = await s.api.usage().catch((error: unknown) => {
		if (error instanceof ApiError && error.status === 404) return null
		return s.run(() => Promise.reject(error))
	})
	if (values.json)
		return out.json({
			username: me.username,
			email: me.email,
			server: s.server,
			profile: s.profile,
			device,
			key: s.keySource === 'env' ? 'CFGSYNC_API_KEY' : 'saved',
			scope: current?.scope ?? null,
			usage
		})
	const where = [
		device ? `device "${safe(device)}"` : '',
		current?.scope === 'read-only' ? 'read-only key' : '',
		s.profile === DEFAULT_PROFILE ? '' : `profile "${s.profile}"`,
		s.keySource === 'env' ? 'key from CFGSYNC_API_KEY' : ''
	]
		.filter(Boolean)
		.join(', ')
	out.say(`${safe(me.username)} <${safe(me.email)}> on ${s.server}${where ? ` (${where})` : ''}`)
	if (usage) {
		out.say(`Storage: ${stored(usage.bytes)}`)
		for (const team of usage.teams) out.say(`Storage of team ${safe(team.name)}: ${stored(team.bytes)}`)
		out.say(`Pushes: ${usage.pushesPerMinute > 0 ? `at most ${usage.pushesPerMinute} a minute` : 'no limit'}`)
	}
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
