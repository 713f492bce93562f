import { noMore } from '../context'
import { CliFailure, EXIT, safe } from '../output'
import { setTrusted, trustedDevices } from '../trust'
import { shellWord } from '../words'
import { defineCommand, type Input } from './command'

export const TRUST_HELP = `cfgsync trust DEVICE
cfgsync trust --list
cfgsync trust --remove DEVICE

Devices of yours this machine trusts with code. A change to a setting of
your personal configs that runs code or widens what a tool may do (hooks,
helper commands, permissions, env, MCP servers; not memory or command files)
pushed from another device is shown and asked about first, as a team's
changes are, unless this machine trusts that device: a leaked CI key then cannot put a hook on every
machine you sync. DEVICE is a device name as cfgsync keys lists it ("web"
for the web application). --list shows your devices and which are trusted
here; --remove stops trusting one. A device is trusted with the key it has
now: once it logs in again, or another key takes its name, its changes are
asked about until you trust it again. This machine's own device is always
trusted. Kept per server and account in
$XDG_CONFIG_HOME/cfgsync/trusted-devices.json.`

const options = { list: { type: 'boolean' }, remove: { type: 'boolean' } } as const

/** The web application's pushes and rollbacks carry this device name (docs/api.md). */
const WEB = 'web'

async function run({ values, positionals, out, session }: Input<typeof options>) {
	const s = session(values)
	const username = await s.username()
	if (values.list) {
		noMore(positionals, 0, 'trust')
		if (values.remove) throw new CliFailure('--list and --remove do different things: use one', EXIT.usage)
		const keys = await s.run((api) => api.keys.list())
		const trusted = trustedDevices(s.server, username)
		// A trusted entry whose key a device still has is listed under that device's name now.
		const gone = trusted.filter((t) => !keys.some((k) => k.id === t.key)).map((t) => t.device)
		const devices = [...new Set([...keys.map((k) => k.device), ...gone])].sort()
		const state = (device: string) => {
			if (keys.some((k) => k.current && k.device === device)) return 'this machine'
			const key = keys.find((k) => k.device === device)
			// By its key first: a device renamed since it was trusted (on the web, say) is still the device trusted.
			const given =
				trusted.find((t) => key !== undefined && t.key === key.id) ?? trusted.find((t) => t.device === device)
			if (given === undefined) return 'not trusted'
			// Trust goes with the key the device had: a new login there (or a key that took its name) is not trusted.
			return given.key === undefined || key === undefined || given.key === key.id
				? 'trusted'
				: 'not trusted (a new key since: trust it again)'
		}
		if (values.json) return out.json(devices.map((device) => ({ device, trust: state(device) })))
		out.table(
			['DEVICE', 'TRUST'],
			devices.map((device) => [safe(device), state(device)])
		)
		out.say(out.dim('Trust one with: cfgsync trust DEVICE; stop with: cfgsync trust --remove DEVICE'))
		return
	}
	const [device] = positionals
	noMore(positionals, 1, 'trust')
	if (device === undefined)
		throw new CliFailure('which device? cfgsync trust DEVICE (cfgsync trust --list shows your devices)', EXIT.usage)
	if (values.remove) {
		const removed = setTrusted(s.server, username, { device }, false)
		if (values.json) return out.json({ device, trusted: false, changed: removed })
		out.say(
			removed
				? `This machine no longer trusts device "${safe(device)}": its changes that run code are asked about first.`
				: `Device "${safe(device)}" was not trusted here; nothing changed.`
		)
		return
	}
	// Only a device of this account (or the web application): a typo never trusts a name someone could take later.
	const keys = await s.run((api) => api.keys.list())
	const known =
		keys.find((k) => k.device === device) ?? keys.find((k) => k.device.toLowerCase() === device.toLowerCase())
	const name = known?.device ?? (device === WEB ? WEB : undefined)
	// By the key it has now, not only its name: a name can later be taken by another key.
	if (name === undefined)
		throw new CliFailure(
			`no key of yours has the device name "${safe(device)}" (cfgsync keys lists them)`,
			EXIT.error,
			'not_found'
		)
	const added = setTrusted(s.server, username, { device: name, ...(known ? { key: known.id } : {}) }, true)
	if (values.json) return out.json({ device: name, trusted: true, changed: added })
	out.say(
		`This machine now trusts device "${safe(name)}": its changes to your personal configs are written without asking, as this machine's own are. Undo with: cfgsync trust --remove ${shellWord(name)}`
	)
}

export const trust = defineCommand({
	name: 'trust',
	group: 'Account',
	summary: 'devices this machine trusts with code',
	usage: ['trust DEVICE | trust --list | trust --remove DEVICE'],
	help: TRUST_HELP,
	args: [{ name: 'DEVICE' }],
	options,
	run
})
