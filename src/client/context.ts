import { parseArgs, type ParseArgsConfig } from 'node:util'
import { TOOLS, type Tool } from '../lib/constants'
import { ApiError, createApi, type Api } from './api'
import { readCredentials, type Credentials } from './credentials'
import { CliFailure, EXIT, failure } from './output'

/** Options every command takes. */
export const COMMON = {
	server: { type: 'string' },
	json: { type: 'boolean' },
	help: { type: 'boolean', short: 'h' }
} as const

/** Strict argument parsing; a wrong flag is a usage error (exit 2) naming the command's help. */
export function parse<T extends NonNullable<ParseArgsConfig['options']>>(command: string, args: string[], options: T) {
	try {
		return parseArgs({ args, options: { ...COMMON, ...options }, allowPositionals: true, strict: true })
	} catch (error) {
		throw new CliFailure(`${(error as Error).message.split('\n')[0]} (see cfgsync ${command} --help)`, EXIT.usage)
	}
}

export function tool(name: string | undefined, command: string): Tool {
	if (name === undefined) throw new CliFailure(`which tool? cfgsync ${command} TOOL, with TOOL one of ${TOOLS.join(', ')}`, EXIT.usage)
	if (!TOOLS.includes(name as Tool)) throw new CliFailure(`unknown tool "${name}": use one of ${TOOLS.join(', ')}`, EXIT.usage)
	return name as Tool
}

export const serverFrom = (flag: string | undefined, credentials?: Credentials): string | undefined =>
	(flag ?? process.env.CFGSYNC_SERVER ?? credentials?.server)?.replace(/\/+$/, '')

export interface Session {
	server: string
	api: Api
	username: () => Promise<string>
	/** Runs a call, turning server errors into a sentence for a person. */
	run: <T>(call: (api: Api) => Promise<T>, what?: string) => Promise<T>
}

/**
 * The logged-in session: the saved credentials, or CFGSYNC_API_KEY for
 * scripts. A --server other than the one logged in to is refused rather than
 * sending this device's key to another host.
 */
export function session(flag: string | undefined): Session {
	const credentials = readCredentials()
	const server = serverFrom(flag, credentials)
	const envKey = process.env.CFGSYNC_API_KEY
	if (!server) throw new CliFailure('not logged in and no server: run cfgsync login --server URL (or set CFGSYNC_SERVER)', EXIT.auth)
	let key = envKey
	if (!key) {
		if (!credentials) throw new CliFailure('not logged in: run cfgsync login', EXIT.auth)
		if (credentials.server !== server) throw new CliFailure(`logged in to ${credentials.server}, not ${server}: run cfgsync login --server ${server}`, EXIT.auth)
		key = credentials.apiKey
	}
	const api = createApi(server, key)
	const run = async <T>(call: (api: Api) => Promise<T>, what?: string): Promise<T> => {
		try {
			return await call(api)
		} catch (error) {
			if (error instanceof ApiError) throw failure(error, { server, what })
			throw error
		}
	}
	let user: string | undefined = envKey ? undefined : credentials?.username
	return {
		server,
		api,
		run,
		async username() {
			user ??= (await run((a) => a.call<{ username: string }>('GET', '/api/me'))).body.username
			return user
		}
	}
}

/** The team id for --team SLUG (404 when it does not exist or you are not in it). */
export async function teamId(s: Session, slug: string | undefined): Promise<string | undefined> {
	if (slug === undefined) return undefined
	const team = await s.run((api) => api.call<{ id: string }>('GET', `/api/teams/${encodeURIComponent(slug)}`), `Team "${slug}"`)
	return team.body.id
}
