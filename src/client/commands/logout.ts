import { ApiError } from '../api'
import { chooseLogin, noMore } from '../context'
import { credentialsFile, DEFAULT_PROFILE, deleteCredentials } from '../credentials'
import { CliFailure, EXIT, explain, safe } from '../output'
import { shellWord } from '../report'
import { defineCommand, type Input } from './command'

export const LOGOUT_HELP = `cfgsync logout [--profile NAME] [--local]

Revokes this device's key on the server and deletes the saved credentials.
When the server cannot be reached, nothing is deleted: it says the key is
still active there and how to revoke it, and exits 1. --local forgets the
key on this machine only (the key stays active on the server).`

const options = { local: { type: 'boolean' } } as const

async function run({ values, positionals, io, out, api }: Input<typeof options>) {
	noMore(positionals, 0, 'logout')
	const { profile, credentials } = chooseLogin(values, io.env)
	if (!credentials)
		throw new CliFailure(
			`not logged in${profile === DEFAULT_PROFILE ? '' : ` (profile "${profile}")`}`,
			EXIT.auth,
			'not_logged_in'
		)
	const { server, device } = credentials
	const elsewhere = `revoke it from another logged-in machine (cfgsync keys revoke ${shellWord(device)}) or on the Devices page of the web application (${server})`
	const done = (key: 'revoked' | 'already_revoked' | 'still_active', text: string) => {
		if (values.json) out.json({ server, profile, device, key })
		else out.say(text)
	}
	if (values.local) {
		deleteCredentials(profile)
		out.warn(`The key of device "${safe(device)}" is still active on ${server}: ${elsewhere}.`)
		return done('still_active', `Forgot the login on this machine (${credentialsFile(profile)} deleted).`)
	}
	try {
		// The saved key, never CFGSYNC_API_KEY: logout ends this device's login.
		await api(server, credentials.apiKey).auth.logout()
	} catch (error) {
		if (!(error instanceof ApiError)) throw error
		if (error.code === 'unauthorized') {
			deleteCredentials(profile)
			return done(
				'already_revoked',
				`Logged out: the key of device "${safe(device)}" had already been revoked on ${server}; ${credentialsFile(profile)} deleted.`
			)
		}
		// Never "logged out" while the key still works on the server.
		throw new CliFailure(
			`${explain(error, { server })} The key of device "${safe(device)}" is still active on ${server}, and this machine is still logged in. Run cfgsync logout again when the server answers, or ${elsewhere}; to forget it on this machine only: cfgsync logout --local`,
			EXIT.error,
			error.code
		)
	}
	deleteCredentials(profile)
	done(
		'revoked',
		`Logged out: the key of device "${safe(device)}" is revoked on ${server} and ${credentialsFile(profile)} deleted.`
	)
}

export const logout = defineCommand({
	name: 'logout',
	group: 'Account',
	summary: "revoke this device's key and forget it",
	usage: ['logout [--local]'],
	help: LOGOUT_HELP,
	args: [],
	options,
	run
})
