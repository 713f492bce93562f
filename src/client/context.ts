import { TOOLS, type Tool } from '../shared/constants'
import {
	ApiError,
	type Api,
	createApi,
	DEFAULT_TIMEOUT_SECONDS,
	type Fetch,
	MAX_TIMEOUT_SECONDS,
	timeoutMs
} from './api'
import {
	checkProfile,
	credentialsFile,
	DEFAULT_PROFILE,
	profiles,
	readCredentials,
	type Credentials
} from './credentials'
import { CliFailure, EXIT, failure, safe } from './output'

/** The environment a command reads (its IO's). */
type Env = Readonly<Record<string, string | undefined>>

/** Extra positional arguments are a usage error, never silently ignored. */
export function noMore(positionals: string[], allowed: number, command: string): void {
	const extra = positionals[allowed]
	if (extra !== undefined)
		throw new CliFailure(`unexpected argument "${safe(extra)}" (see cfgsync ${command} --help)`, EXIT.usage)
}

export function tool(name: string | undefined, command: string): Tool {
	if (name === undefined)
		throw new CliFailure(`which tool? cfgsync ${command} TOOL, with TOOL one of ${TOOLS.join(', ')}`, EXIT.usage)
	if (!TOOLS.includes(name as Tool)) {
		const near = suggest(name, TOOLS)
		throw new CliFailure(
			`unknown tool "${safe(name)}": ${near ? `did you mean "${near}"? ` : ''}use one of ${TOOLS.join(', ')}`,
			EXIT.usage
		)
	}
	return name as Tool
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
	const row = Array.from({ length: b.length + 1 }, (_, i) => i)
	for (let i = 1; i <= a.length; i++) {
		let previous = row[0] as number
		row[0] = i
		for (let j = 1; j <= b.length; j++) {
			const current = row[j] as number
			row[j] = Math.min((row[j] as number) + 1, (row[j - 1] as number) + 1, previous + (a[i - 1] === b[j - 1] ? 0 : 1))
			previous = current
		}
	}
	return row[b.length] as number
}

/** The closest of `options` to a mistyped word (at most two edits, or a prefix), if any. */
export function suggest(word: string, options: readonly string[]): string | undefined {
	const prefixed = options.filter((option) => word.length >= 2 && option.startsWith(word))
	if (prefixed.length === 1) return prefixed[0]
	const near = options.map((name) => ({ name, d: distance(word, name) })).sort((a, b) => a.d - b.d)[0]
	return near && near.d <= 2 ? near.name : undefined
}

/**
 * A server URL as given (--server, CFGSYNC_SERVER, or typed at the prompt):
 * it must say http:// or https://, or fetch would fail with a cryptic
 * "URL is invalid". A usage error naming the fix otherwise.
 */
export function checkServer(url: string, source: string): string {
	const trimmed = url.trim()
	const fix = (why: string) => new CliFailure(`${source} ${safe(url)} ${why}`, EXIT.usage)
	if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed))
		throw fix(
			`has no scheme: use ${source === 'CFGSYNC_SERVER' ? 'CFGSYNC_SERVER=' : `${source} `}http://${safe(trimmed)} (or https://)`
		)
	if (!/^https?:\/\//i.test(trimmed)) throw fix('is not an http:// or https:// URL')
	let parsed: URL
	try {
		parsed = new URL(trimmed)
	} catch {
		throw fix('is not a valid URL')
	}
	if (parsed.search || parsed.hash || parsed.username || parsed.password)
		throw fix("must be the server's address only (no query, fragment or user name)")
	return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '')
}

/**
 * How long one request may take, from CFGSYNC_TIMEOUT (seconds, default 30):
 * a bad value is a usage error naming the variable, before anything is done.
 */
export function requestTimeout(env: Env = process.env): number {
	const ms = timeoutMs(env.CFGSYNC_TIMEOUT)
	if (ms === undefined)
		throw new CliFailure(
			`CFGSYNC_TIMEOUT is "${safe(env.CFGSYNC_TIMEOUT ?? '')}": give the seconds to wait for the server, a number above 0 and up to ${MAX_TIMEOUT_SECONDS} (default ${DEFAULT_TIMEOUT_SECONDS}), or unset it`,
			EXIT.usage
		)
	return ms
}

/**
 * The profile named by --profile or CFGSYNC_PROFILE, if any. Every command
 * that talks to a server asks this first (login, logout, and the session of
 * all others), so CFGSYNC_TIMEOUT is checked here too.
 */
export function profileOption(flag: string | undefined, env: Env = process.env): string | undefined {
	requestTimeout(env)
	if (flag !== undefined) return checkProfile(flag, '--profile')
	const named = env.CFGSYNC_PROFILE
	return named ? checkProfile(named, 'CFGSYNC_PROFILE') : undefined
}

/** The server named by --server or CFGSYNC_SERVER, checked; undefined when neither is set. */
export function serverOption(flag: string | undefined, env: Env = process.env): string | undefined {
	if (flag !== undefined) return checkServer(flag, '--server')
	const named = env.CFGSYNC_SERVER
	return named ? checkServer(named, 'CFGSYNC_SERVER') : undefined
}

/** The command that logs this profile in, for messages. */
export const loginCommand = (profile: string, server?: string): string =>
	`cfgsync login${server ? ` --server ${server}` : ''}${profile === DEFAULT_PROFILE ? '' : ` --profile ${profile}`}`

export interface Login {
	profile: string
	server: string
	credentials?: Credentials
}

/**
 * Which saved login a command uses: the named profile; else the default
 * profile when it is for the server asked for (or no server is asked for);
 * else the profile saved for that server (per-server credentials).
 */
export function chooseLogin(flags: { server?: string; profile?: string }, env: Env = process.env): Login {
	const named = profileOption(flags.profile, env)
	const flagServer = flags.server !== undefined ? checkServer(flags.server, '--server') : undefined
	if (named !== undefined) {
		const credentials = readCredentials(named)
		const server = flagServer ?? credentials?.server ?? serverOption(undefined, env)
		if (!server)
			throw new CliFailure(
				`profile "${named}" is not logged in: run cfgsync login --server URL --profile ${named}`,
				EXIT.auth,
				'not_logged_in'
			)
		return { profile: named, server, credentials }
	}
	const wanted = serverOption(flags.server, env)
	const fallback = readCredentials()
	if (wanted === undefined || fallback === undefined || fallback.server === wanted) {
		const server = wanted ?? fallback?.server
		if (!server)
			throw new CliFailure(
				'not logged in and no server: run cfgsync login --server URL (or set CFGSYNC_SERVER)',
				EXIT.auth,
				'not_logged_in'
			)
		return { profile: DEFAULT_PROFILE, server, credentials: fallback }
	}
	for (const profile of profiles()) {
		const credentials = readCredentials(profile)
		if (credentials?.server === wanted) return { profile, server: wanted, credentials }
	}
	return { profile: DEFAULT_PROFILE, server: wanted, credentials: undefined }
}

export interface Session {
	server: string
	profile: string
	api: Api
	/** The saved login in use (undefined when CFGSYNC_API_KEY is). */
	credentials?: Credentials
	/** Where the key came from: the saved login or CFGSYNC_API_KEY. */
	keySource: 'saved' | 'env'
	username: () => Promise<string>
	/** Runs a call, turning server errors into a sentence for a person. */
	run: <T>(call: (api: Api) => Promise<T>, what?: string) => Promise<T>
}

/** An API key is cs_ and 64 lowercase hex digits (docs/api.md). */
export const KEY_PATTERN = /^cs_[0-9a-f]{64}$/

/**
 * The logged-in session: the saved credentials of the profile in use, or
 * CFGSYNC_API_KEY for scripts (which overrides the saved login, and says so
 * when it is refused). A --server no profile is logged in to is refused
 * rather than sending a key to another host.
 */
export function session(flags: { server?: string; profile?: string }, env: Env = process.env, fetch?: Fetch): Session {
	const chosen = chooseLogin(flags, env)
	const { server, profile } = chosen
	const envKey = env.CFGSYNC_API_KEY
	let key: string
	let credentials: Credentials | undefined
	if (envKey) {
		if (!KEY_PATTERN.test(envKey.trim())) {
			throw new CliFailure(
				`CFGSYNC_API_KEY is set but is not an API key (cs_ followed by 64 hex digits). It overrides the login saved by cfgsync login, so unset it to use that login (unset CFGSYNC_API_KEY), or set it to a key from cfgsync-server key issue.`,
				EXIT.auth
			)
		}
		key = envKey.trim()
		credentials = chosen.credentials?.server === server ? chosen.credentials : undefined
	} else {
		credentials = chosen.credentials
		if (!credentials) {
			const other = readCredentials()
			if (other && other.server !== server && profile === DEFAULT_PROFILE) {
				throw new CliFailure(
					`logged in to ${other.server}, not ${server}: to use both, run cfgsync login --server ${server} --profile NAME (then --profile NAME or CFGSYNC_PROFILE=NAME picks it)`,
					EXIT.auth,
					'not_logged_in'
				)
			}
			throw new CliFailure(
				`not logged in${profile === DEFAULT_PROFILE ? '' : ` (profile "${profile}")`}: run ${loginCommand(profile, server)}`,
				EXIT.auth,
				'not_logged_in'
			)
		}
		if (credentials.server !== server) {
			throw new CliFailure(
				`profile "${profile}" is logged in to ${credentials.server}, not ${server}: run ${loginCommand(profile, server)}`,
				EXIT.auth,
				'not_logged_in'
			)
		}
		key = credentials.apiKey
	}
	return connect({
		server,
		profile,
		key,
		credentials,
		keySource: envKey ? 'env' : 'saved',
		timeoutMs: requestTimeout(env),
		fetch
	})
}

/**
 * A session on a server with a key, once the login is chosen: what
 * `session` ends with, and what an in-process test starts from
 * (its `fetch` then the server app's own handler).
 */
export function connect(options: {
	server: string
	profile: string
	key: string
	credentials?: Credentials
	keySource: 'saved' | 'env'
	timeoutMs?: number
	fetch?: Fetch
}): Session {
	const { server, profile, credentials, keySource } = options
	const api = createApi(server, options.key, { timeoutMs: options.timeoutMs, fetch: options.fetch })
	const run = async <T>(call: (api: Api) => Promise<T>, what?: string): Promise<T> => {
		try {
			return await call(api)
		} catch (error) {
			if (error instanceof ApiError) throw failure(error, { server, what, keySource, login: loginCommand(profile) })
			throw error
		}
	}
	let user: string | undefined = keySource === 'env' ? undefined : credentials?.username
	return {
		server,
		profile,
		api,
		credentials,
		keySource,
		run,
		async username() {
			user ??= (await run((a) => a.me())).username
			return user
		}
	}
}

/** The team id for --team SLUG (404 when it does not exist or you are not in it). */
export async function teamId(s: Session, slug: string | undefined): Promise<string | undefined> {
	if (slug === undefined) return undefined
	const team = await s.run((api) => api.teams.get(slug), `Team "${slug}"`)
	return team.id
}

export { credentialsFile }
