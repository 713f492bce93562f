import { ApiError, type IssuedKey, type Me } from '../api'
import type { IO } from '../io'
import { ask, interactive } from '../ask'
import { checkServer, KEY_PATTERN, noMore, profileOption, serverOption } from '../context'
import {
	type Credentials,
	DEFAULT_PROFILE,
	defaultDevice,
	profiles,
	readCredentials,
	writeCredentials
} from '../credentials'
import { CliFailure, EXIT, failure, type Printer, safe } from '../output'
import { shellWord } from '../report'
import { DEVICE_MAX, type KeyScope } from '../../shared/constants'
import { PromptCancelled } from '../../shared/terminal'
import { setTrusted, trustedDevices } from '../trust'
import { defineCommand, type Input } from './command'

export const LOGIN_HELP = `cfgsync login [--server URL] [--user LOGIN] [--device NAME] [--read-only] [--password-stdin | --with-token] [--profile NAME]

Logs this device in and saves the server and a new API key in
$XDG_CONFIG_HOME/cfgsync/credentials.json (mode 0600), or for --profile NAME
in $XDG_CONFIG_HOME/cfgsync/profiles/NAME.json. Asks on the terminal for
whatever is not given, and asks again after a wrong password (three tries).
Without a terminal, pass the password on standard input with
--password-stdin, or an existing API key with --with-token (for CI: the key
from cfgsync-server key issue, read from standard input).
--read-only makes a key that reads and streams but never writes: pull, sync
and watch bring changes in, every push or change is refused. Give CI such a
key: a leaked one cannot change anything (cfgsync keys shows each key's scope).
--device defaults to the host name plus a short id made once for this
machine (kept in $XDG_CONFIG_HOME/cfgsync/machine-id), e.g. "laptop-3f9a1c",
so two machines with the same host name never share a device name. Logging
in again from the same device replaces its previous key; under another
device name the previous key stays active, and login says how to revoke it.
The server URL must start with http:// or https://. One profile holds one
login: to use a second server, name a profile (--profile work, or
CFGSYNC_PROFILE=work); a --server that a profile is logged in to picks it.`

const NO_TERMINAL = 'there is no terminal to ask on'

/** The server to log in to: --server, else CFGSYNC_SERVER or the profile's, else asked (again until it has a scheme). */
async function serverToUse(
	flag: string | undefined,
	profile: string,
	saved: Credentials | undefined,
	{ io }: Input<typeof options>
): Promise<string> {
	if (flag !== undefined) return checkServer(flag, '--server')
	const known =
		profile === DEFAULT_PROFILE
			? (serverOption(undefined, io.env) ?? saved?.server)
			: (saved?.server ?? serverOption(undefined, io.env))
	if (known) return known
	for (;;) {
		const typed = await ask(
			'Server URL: ',
			`which server? ${NO_TERMINAL}: pass --server URL (or set CFGSYNC_SERVER)`,
			false,
			io
		)
		try {
			return checkServer(typed, 'the server URL')
		} catch (error) {
			if (!(error instanceof CliFailure)) throw error
			io.stderr.write(`${error.message}\n`)
		}
	}
}

const options = {
	user: { type: 'string' },
	device: { type: 'string' },
	'read-only': { type: 'boolean' },
	'password-stdin': { type: 'boolean' },
	'with-token': { type: 'boolean' }
} as const

async function run(input: Input<typeof options>) {
	const { values, positionals, io, out } = input
	noMore(positionals, 0, 'login')
	const withToken = values['with-token'] === true
	if (withToken && values['password-stdin'])
		throw new CliFailure(
			'--password-stdin and --with-token read different things from standard input: use one',
			EXIT.usage
		)
	if (withToken && (values.user !== undefined || values.device !== undefined)) {
		throw new CliFailure(
			"--with-token logs in as the key's own account and device: leave out --user and --device",
			EXIT.usage
		)
	}
	if (withToken && values['read-only']) {
		throw new CliFailure(
			'--with-token uses the key as it was issued: leave out --read-only (cfgsync-server key issue LOGIN --device NAME --read-only makes a read-only key)',
			EXIT.usage
		)
	}
	const scope = values['read-only'] ? 'read-only' : 'read-write'
	const profile = profileOption(values.profile, io.env) ?? DEFAULT_PROFILE
	const saved = readCredentials(profile)
	const server = await serverToUse(values.server, profile, saved, input)
	// One profile holds one login: another server's saved login is never dropped with its key still active.
	if (saved && saved.server !== server) {
		const other = profiles().find((name) => readCredentials(name)?.server === server)
		throw new CliFailure(
			`${profile === DEFAULT_PROFILE ? 'this machine is' : `profile "${profile}" is`} logged in to ${saved.server} (as ${safe(saved.username)}). ` +
				(other
					? `Profile "${other}" is for ${server}: cfgsync login --profile ${other}`
					: `To use ${server} as well, name a profile for it: cfgsync login --server ${server} --profile NAME. To switch instead: cfgsync logout${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`} first.`),
			EXIT.usage
		)
	}
	if (!interactive(io) && !withToken && !values['password-stdin']) {
		const missing = [
			values.user === undefined ? '--user LOGIN' : undefined,
			'the password on standard input with --password-stdin'
		]
			.filter(Boolean)
			.join(' and ')
		throw new CliFailure(
			`${NO_TERMINAL} for your ${values.user === undefined ? 'login and ' : ''}password: pass ${missing} (e.g. cfgsync login --user ada --password-stdin < password-file), or an API key with --with-token`,
			EXIT.usage
		)
	}
	const result = withToken
		? await loginWithToken(server, input)
		: await loginWithPassword(server, values.user, values.device, values['password-stdin'] === true, scope, input)
	// The scope is the server's to keep (GET /api/keys); the saved login stays as it was.
	const { scope: _scope, ...credentials } = result
	writeCredentials(credentials, profile)
	const previous = saved && (saved.device !== result.device || saved.username !== result.username) ? saved : undefined
	if (values.json)
		out.json({
			server,
			profile,
			username: result.username,
			email: result.email,
			device: result.device,
			keyId: result.keyId,
			scope: result.scope
		})
	else
		out.say(
			`${out.green('Logged in')} as ${safe(result.username)} <${safe(result.email)}> on ${server} (device "${safe(result.device)}"${result.scope === 'read-only' ? ', read-only key' : ''}${profile === DEFAULT_PROFILE ? '' : `, profile "${profile}"`}).`
		)
	if (previous) await notePreviousKey(server, result, previous, input)
	if (interactive(io) && !values.json) await offerTrust(server, result, input)
}

/**
 * On a terminal, login offers to trust the account's other devices with code (docs/sync-model.md): their changes
 * to personal configs' settings that run code or widen what a tool may do are otherwise asked about first.
 * One question for all of them, none by default (a CI key is better left untrusted).
 */
async function offerTrust(server: string, now: Credentials, { io, out, api }: Input<typeof options>): Promise<void> {
	const keys = await api(server, now.apiKey)
		.keys.list()
		.catch(() => undefined)
	const trusted = trustedDevices(server, now.username)
	const others: { id: string; device: string; lastUsedAt: string | null }[] = []
	for (const key of keys ?? [])
		if (!key.current && key.device !== now.device && !trusted.some((t) => t.key === key.id))
			if (!others.some((o) => o.device === key.device)) others.push(key)
	if (others.length === 0) return
	out.say(
		`Your other devices' changes to settings of your personal configs that run code or widen what a tool may do (hooks, permissions, env, MCP servers) are shown and asked about first, unless this machine trusts the device (cfgsync trust DEVICE, any time):`
	)
	others.sort((a, b) => (a.device < b.device ? -1 : 1))
	for (const [i, key] of others.entries())
		out.say(
			`  ${i + 1}  ${safe(key.device)} (${key.lastUsedAt ? `last used ${out.ago(key.lastUsedAt)}` : 'never used'})`
		)
	const chosen = await chooseDevices(others.length, io, out)
	for (const i of chosen) {
		const { device, id } = others[i] as { id: string; device: string }
		setTrusted(server, now.username, { device, key: id }, true)
		out.say(`Trusted device "${safe(device)}".`)
	}
}

/** Asks which of `count` listed devices to trust: their numbers, "all", or nothing (the default); asks again on anything else. */
async function chooseDevices(count: number, io: IO, out: Printer): Promise<number[]> {
	for (;;) {
		let answer: string | undefined
		try {
			answer = await io.stdin.prompt(`Trust which of them with code? Their numbers (1 3), "all", or Enter for none: `)
		} catch (error) {
			if (error instanceof PromptCancelled) return []
			throw error
		}
		const words = (answer ?? '')
			.trim()
			.toLowerCase()
			.split(/[\s,]+/)
			.filter(Boolean)
		if (words.length === 0 || /^(n|no|none)$/.test(words.join(' '))) return []
		if (words.length === 1 && words[0] === 'all') return [...Array(count).keys()]
		const numbers = words.map(Number)
		if (numbers.every((n) => Number.isInteger(n) && n >= 1 && n <= count))
			return [...new Set(numbers.map((n) => n - 1))]
		out.say(`Answer with numbers from 1 to ${count}, "all", or nothing.`)
	}
}

async function loginWithPassword(
	server: string,
	user: string | undefined,
	deviceFlag: string | undefined,
	fromStdin: boolean,
	scope: KeyScope,
	{ io, api: apiOf }: Input<typeof options>
): Promise<Credentials & { scope: KeyScope }> {
	const login =
		user ?? (await ask('Email or username: ', `${NO_TERMINAL} for your login: pass --user LOGIN`, false, io))
	const device = (deviceFlag ?? defaultDevice()).slice(0, DEVICE_MAX)
	const api = apiOf(server)
	let issued: IssuedKey | undefined
	for (let attempt = 1; !issued; attempt++) {
		const password = fromStdin
			? await io.stdin.read()
			: await ask(
					'Password: ',
					`${NO_TERMINAL} for the password: pass it on standard input with --password-stdin, or an API key with --with-token`,
					true,
					io
				)
		try {
			issued = await api.auth.login({ login, password, device, scope })
		} catch (error) {
			if (!(error instanceof ApiError)) throw error
			// A wrong password typed at the terminal is asked again, as ssh and sudo do.
			if (error.code === 'unauthorized' && !fromStdin && attempt < 3) {
				io.stderr.write('Wrong login or password; try again.\n')
				continue
			}
			if (error.code === 'unauthorized') throw new CliFailure('Wrong login or password.', EXIT.auth)
			throw failure(error, { server })
		}
	}
	const me = await whoIs(server, issued.apiKey, apiOf)
	return {
		server,
		apiKey: issued.apiKey,
		keyId: issued.id,
		device: issued.device,
		username: me.username,
		email: me.email,
		scope
	}
}

/** --with-token (docs/client.md): an existing key from standard input (CI), checked with the server before it is saved. */
async function loginWithToken(
	server: string,
	{ io, api }: Input<typeof options>
): Promise<Credentials & { scope: KeyScope }> {
	const key = (interactive(io) ? await ask('API key: ', '', true, io) : await io.stdin.read()).trim()
	if (!KEY_PATTERN.test(key))
		throw new CliFailure(
			'--with-token reads an API key from standard input: cs_ followed by 64 hex digits (cfgsync-server key issue LOGIN --device NAME prints one)',
			EXIT.usage
		)
	const me = await whoIs(server, key, api)
	const keys = await api(server, key)
		.keys.list()
		.catch((error) => {
			throw error instanceof ApiError ? failure(error, { server }) : error
		})
	const current = keys.find((k) => k.current)
	if (!current) throw new CliFailure(`${server} did not say which device this key belongs to`)
	return {
		server,
		apiKey: key,
		keyId: current.id,
		device: current.device,
		username: me.username,
		email: me.email,
		scope: current.scope
	}
}

async function whoIs(server: string, key: string, api: Input<typeof options>['api']): Promise<Me> {
	try {
		return await api(server, key).me()
	} catch (error) {
		if (error instanceof ApiError && error.code === 'unauthorized')
			throw new CliFailure(`${server} refused this key (revoked, or not one of this server's keys).`, EXIT.auth)
		if (error instanceof ApiError) throw failure(error, { server })
		throw error
	}
}

/** Logging in under a new device name leaves the previous key active; say so, and how to revoke it. */
async function notePreviousKey(
	server: string,
	now: Credentials,
	previous: Credentials,
	{ out, api }: Input<typeof options>
): Promise<void> {
	if (previous.username === now.username) {
		const keys = await api(server, now.apiKey)
			.keys.list()
			.catch(() => undefined)
		if (keys && !keys.some((k) => k.id === previous.keyId)) return
		out.warn(
			`The key this machine used before (device "${safe(previous.device)}") is still active on ${server}. If nothing else uses it, revoke it: cfgsync keys revoke ${shellWord(previous.device)}`
		)
		return
	}
	out.warn(
		`This machine was logged in as ${safe(previous.username)} (device "${safe(previous.device)}"); that key is still active on ${server}. Revoke it from that account: cfgsync keys revoke ${shellWord(previous.device)} while logged in as ${safe(previous.username)}, or on the Devices page of the web application.`
	)
}

export const login = defineCommand({
	name: 'login',
	group: 'Account',
	summary: '',
	usage: ['login [--server URL] [--user LOGIN] [--device NAME] [--read-only] [--password-stdin | --with-token]'],
	help: LOGIN_HELP,
	args: [],
	options,
	run
})
