import { confirm } from '../ask'
import { loginCommand, noMore } from '../context'
import type { KeyView } from '../api'
import { deleteCredentials, writeCredentials } from '../credentials'
import { CliFailure, EXIT, safe } from '../output'
import { renameTrusted } from '../trust'
import { shellWord } from '../report'
import { defineCommand, type Input, YES } from './command'

export const KEYS_HELP = `cfgsync keys
cfgsync keys revoke DEVICE-OR-ID [--yes]
cfgsync keys rename DEVICE-OR-ID NAME

This account's device keys (created and last used, as times from now, and
whether each reads and writes or is read-only, as CI keys should be). revoke
takes a device name or a key id; revoking the key this machine uses asks
first (y/N), refuses without --yes when there is no terminal, and then logs
this machine out. rename gives a device another name (at most 100
characters, not one another device of yours has); it keeps its key.`

const options = { ...YES } as const

type KeysInput = Input<typeof options>

async function list({ values, positionals, out, session }: KeysInput) {
	noMore(positionals, 0, 'keys')
	const s = session(values)
	const keys = await s.run((api) => api.keys.list())
	if (values.json) return out.json(keys)
	out.table(
		['DEVICE', 'ACCESS', 'CREATED', 'LAST USED', 'ID', ''],
		keys.map((key) => [
			safe(key.device),
			key.scope === 'read-only' ? 'read-only' : 'read-write',
			out.ago(key.createdAt),
			out.ago(key.lastUsedAt),
			key.id,
			key.current ? '(this machine)' : ''
		])
	)
	out.say(out.dim('Revoke one with: cfgsync keys revoke DEVICE'))
}

/** The key a DEVICE-OR-ID names: its id, its exact device name, or the one name that matches but for case. */
function keyNamed(keys: KeyView[], which: string): KeyView {
	const folded = keys.filter((k) => k.device.toLowerCase() === which.toLowerCase())
	const key =
		keys.find((k) => k.id === which) ??
		keys.find((k) => k.device === which) ??
		(folded.length === 1 ? folded[0] : undefined)
	if (!key)
		throw new CliFailure(
			`no key of yours has the device name or id "${safe(which)}" (cfgsync keys lists them)`,
			EXIT.error,
			'not_found'
		)
	return key
}

async function revoke({ values, positionals, io, out, session }: KeysInput) {
	const [which] = positionals
	noMore(positionals, 1, 'keys')
	const s = session(values)
	const keys = await s.run((api) => api.keys.list())
	if (!which) throw new CliFailure('which key? cfgsync keys revoke DEVICE-OR-ID (cfgsync keys lists them)', EXIT.usage)
	const key = keyNamed(keys, which)
	if (key.current) {
		await confirm(
			`Revoke the key this machine is using (device "${safe(key.device)}")? This machine will be logged out`,
			`cfgsync keys revoke ${shellWord(which)}`,
			values.yes,
			io
		)
	}
	await s.run((api) => api.keys.revoke(key.id), `Key ${key.id}`)
	// A revoked key is of no use: forget it here too, so the next command says "not logged in".
	const loggedOut = key.current && s.credentials?.keyId === key.id
	if (loggedOut) deleteCredentials(s.profile)
	if (values.json) return out.json({ revoked: { id: key.id, device: key.device }, current: key.current })
	out.say(`Revoked the key of device "${safe(key.device)}" (${key.id}).`)
	if (loggedOut) out.say(`This machine is logged out: ${loginCommand(s.profile)} logs in again.`)
}

/** docs/api.md PATCH /api/keys/:id: the device gets another name and keeps its key. */
async function rename({ values, positionals, out, session }: KeysInput) {
	const [which, ...words] = positionals as [string, ...string[]]
	const name = words.join(' ').trim()
	const s = session(values)
	const key = keyNamed(await s.run((api) => api.keys.list()), which)
	const renamed = await s.run((api) => api.keys.rename(key.id, name), `Key ${key.id}`)
	// This machine's own name follows, so what it says about its own device stays true.
	if (renamed.current && s.keySource === 'saved' && s.credentials?.keyId === renamed.id)
		writeCredentials({ ...s.credentials, device: renamed.device }, s.profile)
	// Trust given here follows the key; its entry takes the new name, so trust --list and --remove find it by it.
	renameTrusted(s.server, await s.username(), renamed.id, renamed.device)
	if (values.json) return out.json(renamed)
	out.say(`Renamed device "${safe(key.device)}" to "${safe(renamed.device)}"; it keeps its key (${renamed.id}).`)
}

export const keys = defineCommand({
	name: 'keys',
	group: 'Account',
	summary: "this account's device keys",
	usage: ['keys | keys revoke DEVICE-OR-ID [--yes] | keys rename DEVICE-OR-ID NAME'],
	help: KEYS_HELP,
	args: [],
	defaultSubcommand: 'list',
	subcommands: [
		{ name: 'list', args: [], run: list },
		{ name: 'revoke', args: [{ name: 'DEVICE-OR-ID' }], run: revoke },
		{
			name: 'rename',
			args: [{ name: 'DEVICE-OR-ID' }, { name: 'NAME', repeats: true }],
			usage: 'rename DEVICE-OR-ID NAME',
			run: rename
		}
	],
	options
})
