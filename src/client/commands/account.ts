import { DEVICE_MAX } from '../../lib/constants'
import { prompt, PromptCancelled, readStdin } from '../../lib/terminal'
import { ApiError, createApi, type IssuedKey, type KeyView, type Team } from '../api'
import { credentialsFile, defaultDevice, deleteCredentials, readCredentials, writeCredentials } from '../credentials'
import { parse, serverFrom, session, teamId } from '../context'
import { CliFailure, dim, EXIT, explain, failure, green, json, safe, say, table } from '../output'

async function ask(question: string, hidden = false): Promise<string> {
	try {
		const answer = await prompt(question, { hidden })
		if (answer === undefined) throw new CliFailure(`${question.replace(/: $/, '')} is needed: pass it as an option (or run on a terminal)`, EXIT.usage)
		return answer.trim() === '' && !hidden ? ask(question, hidden) : answer
	} catch (error) {
		if (error instanceof PromptCancelled) throw new CliFailure('cancelled', 130)
		throw error
	}
}

export const LOGIN_HELP = `cfgsync login [--server URL] [--user LOGIN] [--device NAME] [--password-stdin]

Logs this device in and saves the server and a new API key in
$XDG_CONFIG_HOME/cfgsync/credentials.json (mode 0600). Asks for whatever is not
given. --device defaults to the host name plus a short id made once for this
machine (kept in $XDG_CONFIG_HOME/cfgsync/machine-id), e.g. "laptop-3f9a1c",
so two machines with the same host name never share a device name. Logging
in again from the same device replaces its previous key.`

export async function login(args: string[]) {
	const { values } = parse('login', args, { user: { type: 'string' }, device: { type: 'string' }, 'password-stdin': { type: 'boolean' } })
	const server = serverFrom(values.server, readCredentials()) ?? (await ask('Server URL: '))
	const user = values.user ?? (await ask('Email or username: '))
	const password = values['password-stdin'] ? await readStdin() : await ask('Password: ', true)
	const device = (values.device ?? defaultDevice()).slice(0, DEVICE_MAX)
	const api = createApi(server)
	let issued: IssuedKey
	try {
		issued = (await api.call<IssuedKey>('POST', '/api/auth/login', { body: { login: user, password, device } })).body
	} catch (error) {
		if (error instanceof ApiError && error.code === 'unauthorized') throw new CliFailure('Wrong login or password.', EXIT.auth)
		if (error instanceof ApiError) throw failure(error, { server: api.base })
		throw error
	}
	const me = (await createApi(server, issued.apiKey).call<{ email: string; username: string }>('GET', '/api/me')).body
	writeCredentials({ server: api.base, apiKey: issued.apiKey, keyId: issued.id, device: issued.device, username: me.username, email: me.email })
	if (values.json) return json({ server: api.base, username: me.username, email: me.email, device: issued.device, keyId: issued.id })
	say(`${green('Logged in')} as ${safe(me.username)} <${safe(me.email)}> on ${api.base} (device "${safe(issued.device)}").`)
}

export async function logout(args: string[]) {
	const { values } = parse('logout', args, {})
	const credentials = readCredentials()
	if (!credentials) throw new CliFailure('not logged in', EXIT.auth)
	const s = session(values.server ?? credentials.server)
	let revoked = true
	try {
		await s.api.call('POST', '/api/auth/logout')
	} catch (error) {
		// Already revoked (or the server is gone): forget the key anyway, and say so.
		if (!(error instanceof ApiError)) throw error
		revoked = false
		if (error.code !== 'unauthorized') process.stderr.write(`${explain(error, { server: s.server })} The local key is deleted anyway.\n`)
	}
	deleteCredentials()
	if (values.json) return json({ revoked, server: s.server })
	say(revoked ? `Logged out: the key for "${safe(credentials.device)}" is revoked and ${credentialsFile()} deleted.` : `Logged out locally (the key was already revoked).`)
}

export async function whoami(args: string[]) {
	const { values } = parse('whoami', args, {})
	const s = session(values.server)
	const me = (await s.run((api) => api.call<{ email: string; username: string }>('GET', '/api/me'))).body
	const credentials = readCredentials()
	if (values.json) return json({ ...me, server: s.server, device: credentials?.device })
	say(`${safe(me.username)} <${safe(me.email)}> on ${s.server}${credentials ? ` (device "${safe(credentials.device)}")` : ''}`)
}

export async function keys(args: string[]) {
	const { values, positionals } = parse('keys', args, {})
	const s = session(values.server)
	if (positionals[0] === 'revoke') {
		const id = positionals[1]
		if (!id) throw new CliFailure('which key? cfgsync keys revoke ID (see cfgsync keys)', EXIT.usage)
		await s.run((api) => api.call('DELETE', `/api/keys/${encodeURIComponent(id)}`), `Key ${id}`)
		if (values.json) return json({ revoked: id })
		return say(`Revoked key ${id}.`)
	}
	if (positionals.length > 0) throw new CliFailure(`unknown keys command "${safe(positionals[0] as string)}" (see cfgsync keys --help)`, EXIT.usage)
	const list = (await s.run((api) => api.call<KeyView[]>('GET', '/api/keys'))).body
	if (values.json) return json(list)
	table(
		['ID', 'DEVICE', 'CREATED', 'LAST USED', ''],
		list.map((key) => [safe(key.id), safe(key.device), safe(key.createdAt), safe(key.lastUsedAt ?? 'never'), key.current ? '(this device)' : ''])
	)
}

export async function teams(args: string[]) {
	const { values } = parse('teams', args, {})
	const s = session(values.server)
	const list = (await s.run((api) => api.call<Team[]>('GET', '/api/teams'))).body
	if (values.json) return json(list)
	if (list.length === 0) return say('You are in no team.')
	table(['SLUG', 'NAME', 'ROLE', 'CREATED'], list.map((team) => [safe(team.slug), safe(team.name), safe(team.role), safe(team.createdAt)]))
}

export async function team(args: string[]) {
	const { values, positionals } = parse('team', args, { role: { type: 'string' } })
	const s = session(values.server)
	const [sub, ...rest] = positionals
	if (sub === 'create') {
		const name = rest.join(' ').trim()
		if (!name) throw new CliFailure('cfgsync team create NAME', EXIT.usage)
		const created = (await s.run((api) => api.call<{ id: string; name: string; slug: string }>('POST', '/api/teams', { body: { name } }))).body
		if (values.json) return json(created)
		return say(`${green('Created')} team "${safe(created.name)}" (${safe(created.slug)}); you are its owner.`)
	}
	if (sub === 'add') {
		const [slug, login] = rest
		if (!slug || !login) throw new CliFailure('cfgsync team add SLUG LOGIN --role admin|member', EXIT.usage)
		const role = values.role ?? 'member'
		await teamId(s, slug)
		const invitation = (await s.run((api) => api.call<Invitation>('POST', `/api/teams/${encodeURIComponent(slug)}/members`, { body: { login, role } }), `User "${login}"`)).body
		if (values.json) return json(invitation)
		return say(
			`${green('Invited')} ${safe(invitation.username)} to ${safe(slug)} as ${safe(invitation.role)}. They join once they accept: cfgsync invitations accept ${safe(slug)} (the invitation expires ${invitation.expiresAt.slice(0, 10)}).`
		)
	}
	throw new CliFailure(sub ? `unknown team command "${safe(sub)}" (create, add)` : 'cfgsync team create NAME | cfgsync team add SLUG LOGIN --role ROLE', EXIT.usage)
}

/** A team invitation as the server sends it (CONTRACT §3): never an email. */
interface Invitation {
	teamSlug: string
	teamName: string
	userId: string
	username: string
	role: string
	invitedBy: string
	createdAt: string
	expiresAt: string
	status: 'invited'
}

export const INVITATIONS_HELP = `cfgsync invitations
cfgsync invitations accept SLUG
cfgsync invitations decline SLUG

Your pending team invitations; accept one to join the team with the role it names, or decline it.`

export async function invitations(args: string[]) {
	const { values, positionals } = parse('invitations', args, {})
	const [sub, slug, ...extra] = positionals
	if (extra.length > 0) throw new CliFailure(`unexpected argument "${safe(extra[0] as string)}" (see cfgsync invitations --help)`, EXIT.usage)
	const s = session(values.server)
	if (sub === undefined || sub === 'list') {
		const list = (await s.run((api) => api.call<Invitation[]>('GET', '/api/invitations'))).body
		if (values.json) return json(list)
		if (list.length === 0) return say('No pending invitations.')
		table(
			['TEAM', 'NAME', 'ROLE', 'INVITED BY', 'EXPIRES'],
			list.map((i) => [safe(i.teamSlug), safe(i.teamName), safe(i.role), safe(i.invitedBy), i.expiresAt.slice(0, 10)])
		)
		return say(dim('Accept one with: cfgsync invitations accept SLUG (or decline SLUG)'))
	}
	if (sub !== 'accept' && sub !== 'decline') throw new CliFailure(`unknown invitations command "${safe(sub)}" (accept, decline)`, EXIT.usage)
	if (!slug) throw new CliFailure(`which team? cfgsync invitations ${sub} SLUG (see cfgsync invitations)`, EXIT.usage)
	const path = `/api/invitations/${encodeURIComponent(slug)}${sub === 'accept' ? '/accept' : ''}`
	const what = `An invitation to "${slug}"`
	if (sub === 'accept') {
		const member = (await s.run((api) => api.call<{ role: string }>('POST', path), what)).body
		if (values.json) return json(member)
		return say(`${green('Joined')} ${safe(slug)} as ${safe(member.role)}.`)
	}
	await s.run((api) => api.call('DELETE', path), what)
	if (values.json) return json({ declined: slug })
	say(`Declined the invitation to ${safe(slug)}.`)
}
