import type { ParseArgsConfig } from 'node:util'
import { environmentHelp, flagWithValue, SERVE_FLAGS, SETTINGS, serveFlagsHelp } from '../settings'

/**
 * The server binary's commands, declared once: what each parses, its line in `cfgsync-server --help`
 * and its own `COMMAND --help`. src/index.ts prints the help from here and runs the command chosen;
 * each command parses its arguments with its entry's options. Settings that are flags (`--port`,
 * `--data-dir`, `--public-url`, …) come from settings.ts, with their environment variables.
 * No imports beyond settings.ts: the binary reads this for --help without loading a command.
 */

type Options = NonNullable<ParseArgsConfig['options']>

const DATA_DIR = { [SETTINGS.dataDir.flag.name]: { type: 'string' } } as const
const PUBLIC_URL = { [SETTINGS.publicUrl.flag.name]: { type: 'string' } } as const
const PASSWORD = { password: { type: 'string' }, 'password-stdin': { type: 'boolean' } } as const

/** serve's flags: every setting that has one, but --database-url, which src/index.ts takes for every command. */
export const SERVE_OPTIONS: Options = Object.fromEntries(
	SERVE_FLAGS.map((name) => {
		const flag: { name: string; short?: string } = SETTINGS[name].flag
		return [flag.name, { type: 'string', ...(flag.short ? { short: flag.short } : {}) }]
	})
)

/** What each command parses (`parseCommand(args, OPTIONS['user add'])`). */
export const OPTIONS = {
	'user add': {
		email: { type: 'string' },
		username: { type: 'string' },
		plan: { type: 'string' },
		admin: { type: 'boolean' },
		...PASSWORD,
		...DATA_DIR
	},
	'user list': { ...DATA_DIR, json: { type: 'boolean' } },
	'user set-plan': DATA_DIR,
	'user set-admin': DATA_DIR,
	'user passwd': { ...PASSWORD, ...DATA_DIR, 'revoke-keys': { type: 'boolean' } },
	'user revoke-keys': DATA_DIR,
	'user unlock': DATA_DIR,
	'user remove': DATA_DIR,
	'key issue': { device: { type: 'string' }, 'read-only': { type: 'boolean' }, ...DATA_DIR },
	'invite create': {
		plan: { type: 'string' },
		uses: { type: 'string' },
		days: { type: 'string' },
		...PUBLIC_URL,
		...DATA_DIR
	},
	'setup-link': { ...PUBLIC_URL, ...DATA_DIR },
	purge: DATA_DIR,
	backup: DATA_DIR,
	restore: DATA_DIR,
	rekey: {
		...DATA_DIR,
		'new-key-file': { type: 'string' },
		batch: { type: 'string' },
		'wait-seconds': { type: 'string' }
	},
	'db copy': { ...DATA_DIR, to: { type: 'string' } },
	healthcheck: { url: { type: 'string' } }
} as const satisfies Record<string, Options>

export interface AdminCommand {
	/** The words that choose it: `purge`, `user add`. */
	name: string
	/** Its line in `cfgsync-server --help`: what to type after the binary's name, and what it does when that does not say. */
	overview?: string | [synopsis: string, summary: string]
	/** `cfgsync-server NAME --help`. */
	usage: string
	options?: Options
}

const serveSynopsis = `[serve] ${SERVE_FLAGS.map((name) => `[${flagWithValue(name)}]`).join(' ')}`

const KEY_ISSUE = `Usage: cfgsync-server key issue LOGIN --device NAME [--read-only] [--data-dir D]

Prints a new API key for that device, replacing its previous one (headless machines, scripts).
With --read-only the key reads and streams but never writes (every write answers 403
read_only_key): what a CI job should hold.`

const INVITE_CREATE = `Usage: cfgsync-server invite create [--plan free|pro|team] [--uses N] [--days D] [--public-url URL] [--data-dir D]

Prints a sign-up link: whoever opens it creates their own account on that plan (default
CFGSYNC_DEFAULT_PLAN, else team), up to N accounts (default 1) within D days (default 7).
The link starts with CFGSYNC_PUBLIC_URL (--public-url); without it, with the listening address.
The Admin page of the web application lists and revokes links.`

const DB_COPY = `Usage: cfgsync-server db copy --to URL [--data-dir D] [--database-url SOURCE]
Copies every row of the configured database (SQLite in the data directory, or --database-url)
into the empty database at URL: a postgres:// URL, or a SQLite file path. Sealed data is copied
as it is, so the copy needs the same master key. Then counts and hashes every table on both
sides and prints the figures; refuses a target that holds any row. Stop the servers first.`

/** Every command, in `cfgsync-server --help`'s order. A group (`user`) answers `user --help` with its own usage. */
export const COMMANDS: readonly AdminCommand[] = [
	{
		name: 'serve',
		overview: [serveSynopsis, 'run the server (default command)'],
		usage: `Usage: cfgsync-server ${serveSynopsis}

Runs the server until SIGTERM or SIGINT.
${serveFlagsHelp()}
See cfgsync-server --help for the environment variables.`,
		options: SERVE_OPTIONS
	},
	{
		name: 'user',
		usage: `Usage: cfgsync-server user add|list|set-plan|set-admin|passwd|revoke-keys|unlock|remove ...

Manage users; LOGIN is an email or a username. cfgsync-server user COMMAND --help for each.`
	},
	{
		name: 'user add',
		overview: 'user add --email E --username U [--plan free|pro|team] [--admin] [--password P | --password-stdin]',
		usage: `Usage: cfgsync-server user add --email E --username U [--plan free|pro|team] [--admin] [--password P | --password-stdin] [--data-dir D]

Creates a user and prints its id. The plan defaults to CFGSYNC_DEFAULT_PLAN, else team.
--admin makes them a server admin (the web application's Admin page).
A password not given is asked for twice without echo.`,
		options: OPTIONS['user add']
	},
	{
		name: 'user list',
		overview: 'user list [--json]',
		usage: `Usage: cfgsync-server user list [--json] [--data-dir D]

Lists users (id, email, username, plan, created).`,
		options: OPTIONS['user list']
	},
	{
		name: 'user set-plan',
		overview: 'user set-plan LOGIN PLAN',
		usage: 'Usage: cfgsync-server user set-plan LOGIN free|pro|team [--data-dir D]',
		options: OPTIONS['user set-plan']
	},
	{
		name: 'user set-admin',
		overview: ['user set-admin LOGIN on|off', "server admins see the web application's Admin page"],
		usage: `Usage: cfgsync-server user set-admin LOGIN on|off [--data-dir D]

Makes a user a server admin (the web application's Admin page: users, plans, passwords, keys), or not.`,
		options: OPTIONS['user set-admin']
	},
	{
		name: 'user passwd',
		overview: 'user passwd LOGIN [--password P | --password-stdin] [--revoke-keys]',
		usage: `Usage: cfgsync-server user passwd LOGIN [--password P | --password-stdin] [--revoke-keys] [--data-dir D]

Sets a new password (asked for twice without echo when not given).
Every web session of the user ends.
  --revoke-keys   also revoke every API key of the user: signed out everywhere`,
		options: OPTIONS['user passwd']
	},
	{
		name: 'user revoke-keys',
		overview: ['user revoke-keys LOGIN', 'revoke every key and web session of a user'],
		usage: `Usage: cfgsync-server user revoke-keys LOGIN [--data-dir D]

Revokes every API key and ends every web session of the user at once (a lost laptop, a leaked key).`,
		options: OPTIONS['user revoke-keys']
	},
	{
		name: 'user unlock',
		overview: ['user unlock LOGIN', "clear a user's failed-login counts"],
		usage: `Usage: cfgsync-server user unlock LOGIN [--data-dir D]

Clears the user's failed-login counts from every address, ending a 429 lock-out.`,
		options: OPTIONS['user unlock']
	},
	{
		name: 'user remove',
		overview: 'user remove LOGIN',
		usage: `Usage: cfgsync-server user remove LOGIN [--data-dir D]

Removes the user with their keys, memberships and personal configs.`,
		options: OPTIONS['user remove']
	},
	{ name: 'key', usage: KEY_ISSUE },
	{
		name: 'key issue',
		overview: ['key issue LOGIN --device NAME [--read-only]', 'print a new API key for a device (read-only: for CI)'],
		usage: KEY_ISSUE,
		options: OPTIONS['key issue']
	},
	{ name: 'invite', usage: INVITE_CREATE },
	{
		name: 'invite create',
		overview: ['invite create [--plan P] [--uses N] [--days D]', 'print a sign-up link (default: 1 account, 7 days)'],
		usage: INVITE_CREATE,
		options: OPTIONS['invite create']
	},
	{
		name: 'setup-link',
		overview: ['setup-link [--public-url URL]', 'while no admin exists: a new setup address (24 h)'],
		usage: `Usage: cfgsync-server setup-link [--public-url URL] [--data-dir D]

While the server has no admin: prints a new setup address, <public URL>/setup/<token>, whose page
creates the first admin. It ends every setup address printed before (the one in the first start's
output too), works for 24 hours, and dies once any user is made admin. Every instance of a fleet
prints the same address at start; this command is for when that one is lost or has ended.`,
		options: OPTIONS['setup-link']
	},
	{
		name: 'purge',
		overview: ['purge', 'remove teams deleted more than 30 days ago'],
		usage: `Usage: cfgsync-server purge [--data-dir D]

Removes teams deleted more than 30 days ago, now (the server also does it hourly).`,
		options: OPTIONS.purge
	},
	{
		name: 'backup',
		overview: ['backup FILE', 'write a consistent copy of the database'],
		usage: `Usage: cfgsync-server backup FILE [--data-dir D]

Writes a consistent copy of the database to FILE (mode 0600) while the server runs.
Never replaces an existing file and never writes through a symbolic link.
The master key is not in it: keep master.key or CFGSYNC_MASTER_KEY safe separately.`,
		options: OPTIONS.backup
	},
	{
		name: 'restore',
		overview: ['restore FILE', 'put a checked backup in place of the database (server stopped)'],
		usage: `Usage: cfgsync-server restore FILE [--data-dir D]

Checks FILE (integrity, schema, that the master key opens it), then puts a copy of it in
place of the database. Refused while a server uses the data directory: stop it first.
The database it replaces is kept beside it as cfgsync.db.before-restore-<time>.`,
		options: OPTIONS.restore
	},
	{
		name: 'rekey',
		overview: ['rekey [--new-key-file F]', 're-encrypt everything under a new master key (servers may run)'],
		usage: `Usage: cfgsync-server rekey [--new-key-file F] [--batch N] [--wait-seconds S] [--data-dir D]

Re-encrypts every config version and the key check under a new master key (from F, base64 of
32 bytes, or generated), N records at a time (default 500), while servers run or not. Running
servers switch to the new key within a second. Saves the new key where the old one was read from
(master.key, the old file kept beside it as master.key.before-rekey-<time>), or prints it when
CFGSYNC_MASTER_KEY is set; then waits up to S seconds (default 60) for every running server to
switch, and deletes the last thing the old key opens. Safe to interrupt: run it again to finish.
A server started afterwards with the old key refuses to start.`,
		options: OPTIONS.rekey
	},
	{ name: 'db', usage: DB_COPY },
	{
		name: 'db copy',
		overview: ['db copy --to URL', 'copy everything into an empty database (postgres:// URL or SQLite file)'],
		usage: DB_COPY,
		options: OPTIONS['db copy']
	},
	{
		name: 'healthcheck',
		overview: ['healthcheck [--url U]', 'exit 0 when the local server is healthy'],
		usage: `Usage: cfgsync-server healthcheck [--url U]

Exits 0 when the local server answers /healthz (for container health checks).`,
		options: OPTIONS.healthcheck
	}
]

const SYNOPSIS_WIDTH = 46
/** The serve line's flags, this many to a line. */
const FLAGS_A_LINE = 4

/**
 * One command's lines in `cfgsync-server --help`: its synopsis, then what it does in a column of its own.
 * A synopsis too long for its column (serve's) is wrapped, its flags a few to a line, the summary below.
 */
function overviewLines([synopsis, summary]: [string, string?]): string {
	const indent = '  cfgsync-server '
	if (summary === undefined) return `${indent}${synopsis}`
	if (synopsis.length <= SYNOPSIS_WIDTH) return `${indent}${synopsis.padEnd(SYNOPSIS_WIDTH)} ${summary}`
	const [first, ...flags] = synopsis.split(/ (?=\[)/)
	const lines: string[] = []
	for (let i = 0; i < flags.length; i += FLAGS_A_LINE) lines.push(flags.slice(i, i + FLAGS_A_LINE).join(' '))
	const under = ' '.repeat(indent.length)
	return [
		`${indent}${first} ${lines[0] ?? ''}`.trimEnd(),
		...lines.slice(1).map((line) => `${under}${line}`),
		`${under}${' '.repeat(SYNOPSIS_WIDTH + 1)}${summary}`
	].join('\n')
}

/** `cfgsync-server --help`. */
export function overviewHelp(version: string): string {
	const lines = COMMANDS.flatMap((command) =>
		command.overview === undefined
			? []
			: [overviewLines(typeof command.overview === 'string' ? [command.overview] : command.overview)]
	)
	return `cfgsync-server ${version} — self-hosted configuration sync server

Usage:
${lines.join('\n')}
  cfgsync-server COMMAND --help | --help | --version

Every command takes ${flagWithValue('dataDir')} (default ./data, or ${SETTINGS.dataDir.env[0]}) and works while the server runs.
Every command takes --database-url postgres://… (or ${SETTINGS.databaseUrl.env[0]}) to use PostgreSQL instead
of SQLite in the data directory; the master key still comes from ${SETTINGS.masterKey.env[0]} or <data-dir>/master.key.

Environment:
${environmentHelp()}
`
}

/** The usage `cfgsync-server WORDS --help` prints: the command's, its group's, or undefined for the overview. */
export function usageOf(words: string[]): string | undefined {
	const command = words[0] ?? 'serve'
	const found =
		COMMANDS.find((entry) => entry.name === `${command} ${words[1] ?? ''}`) ??
		COMMANDS.find((entry) => entry.name === command)
	return found?.usage
}
