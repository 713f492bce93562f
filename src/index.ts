#!/usr/bin/env bun
import packageJson from '../package.json' with { type: 'json' }
import { CliError, runCommand } from './server/admin/io'

const HELP = `cfgsync-server ${packageJson.version} — self-hosted configuration sync server

Usage:
  cfgsync-server [serve] [--port N] [--host H] [--data-dir D] [--workers N|auto]
                 [--backup-dir D] [--backup-schedule CRON] [--backup-keep N] [--downloads-dir D]
                 [--public-url URL]
                                                                run the server (default command)
  cfgsync-server user add --email E --username U [--plan free|pro|team] [--admin] [--password P | --password-stdin]
  cfgsync-server user list [--json]
  cfgsync-server user set-plan LOGIN PLAN
  cfgsync-server user set-admin LOGIN on|off                    server admins see the web application's Admin page
  cfgsync-server user passwd LOGIN [--password P | --password-stdin] [--revoke-keys]
  cfgsync-server user revoke-keys LOGIN                         revoke every key and web session of a user
  cfgsync-server user unlock LOGIN                              clear a user's failed-login counts
  cfgsync-server user remove LOGIN
  cfgsync-server key issue LOGIN --device NAME [--read-only]    print a new API key for a device (read-only: for CI)
  cfgsync-server invite create [--plan P] [--uses N] [--days D] print a sign-up link (default: 1 account, 7 days)
  cfgsync-server setup-link [--public-url URL]                  while no admin exists: a new setup address (24 h)
  cfgsync-server purge                                          remove teams deleted more than 30 days ago
  cfgsync-server backup FILE                                    write a consistent copy of the database
  cfgsync-server restore FILE                                   put a checked backup in place of the database (server stopped)
  cfgsync-server rekey [--new-key-file F]                       re-encrypt everything under a new master key (servers may run)
  cfgsync-server db copy --to URL                               copy everything into an empty database (postgres:// URL or SQLite file)
  cfgsync-server healthcheck [--url U]                          exit 0 when the local server is healthy
  cfgsync-server COMMAND --help | --help | --version

Every command takes --data-dir D (default ./data, or CFGSYNC_DATA_DIR) and works while the server runs.
Every command takes --database-url postgres://… (or CFGSYNC_DATABASE_URL) to use PostgreSQL instead
of SQLite in the data directory; the master key still comes from CFGSYNC_MASTER_KEY or <data-dir>/master.key.

Environment:
  CFGSYNC_PORT / PORT        port (default 8787)
  CFGSYNC_HOST               address to listen on (default 0.0.0.0)
  CFGSYNC_DATA_DIR           data directory (default ./data)
  CFGSYNC_DATABASE_URL       postgres://user:password@host/db: keep the data in PostgreSQL
                             (add ?prepare=false behind PgBouncer in transaction mode)
  CFGSYNC_MASTER_KEY         base64 of 32 bytes; else <data-dir>/master.key, created on first start
  CFGSYNC_DEFAULT_PLAN       plan of new users (default team)
  CFGSYNC_LOG_LEVEL          debug, info, warn or error (default info)
  CFGSYNC_TRUSTED_PROXIES    comma-separated CIDR list of your reverse proxies; only their
                             X-Forwarded-For/-Proto/-Host are believed (e.g. 127.0.0.1/32,10.0.0.0/8)
  CFGSYNC_TRUST_PROXY        deprecated: 1 trusts X-Forwarded-For from any peer
  CFGSYNC_WORKERS            processes serving the port (default 1; auto = one per core)
  CFGSYNC_BACKUP_DIR         scheduled backups go here (none without it)
  CFGSYNC_BACKUP_SCHEDULE    when, as a cron pattern (default 0 3 * * *)
  CFGSYNC_BACKUP_KEEP        how many scheduled backups are kept (default 14)
  CFGSYNC_METRICS_TOKEN      serve Prometheus metrics at /metrics to this bearer token
  CFGSYNC_AUDIT_RETENTION_DAYS  how long audit events are kept (default 365)
  CFGSYNC_DOWNLOADS_DIR      client executables served at /download (npm run build:release makes them)
  CFGSYNC_PUBLIC_URL         the address people use (https://cfgsync.example.com), printed by pages;
                             without it pages use the request's Host (X-Forwarded-* from trusted proxies only)
`

const DATA_DIR = '  --data-dir D    the data directory (default ./data, or CFGSYNC_DATA_DIR)'

/** `cfgsync-server COMMAND --help`: each command's own usage (docs/operations.md: exit 0). */
const USAGE: Record<string, string> = {
	serve: `Usage: cfgsync-server [serve] [--port N] [--host H] [--data-dir D] [--workers N|auto] [--backup-dir D] [--backup-schedule CRON] [--backup-keep N] [--downloads-dir D] [--public-url URL]

Runs the server until SIGTERM or SIGINT.
  --port N, -p N        port to listen on (default 8787, or CFGSYNC_PORT / PORT)
  --host H              address to listen on (default 0.0.0.0, or CFGSYNC_HOST)
${DATA_DIR}
  --workers N           processes serving the port (default 1; auto = one per core)
  --backup-dir D        write verified backups here on a schedule (or CFGSYNC_BACKUP_DIR)
  --backup-schedule C   when, as a cron pattern (default "0 3 * * *", or CFGSYNC_BACKUP_SCHEDULE)
  --backup-keep N       keep the newest N scheduled backups (default 14, or CFGSYNC_BACKUP_KEEP)
  --downloads-dir D     offer the client executables in D at /download (or CFGSYNC_DOWNLOADS_DIR);
                        the npm package cfgsync.tgz is always offered (it is inside this binary)
  --public-url URL      the address people use, e.g. https://cfgsync.example.com (or CFGSYNC_PUBLIC_URL):
                        pages print it (the install command on /download); without it they use the request's Host
See cfgsync-server --help for the environment variables.`,
	user: `Usage: cfgsync-server user add|list|set-plan|set-admin|passwd|revoke-keys|unlock|remove ...

Manage users; LOGIN is an email or a username. cfgsync-server user COMMAND --help for each.`,
	'user add': `Usage: cfgsync-server user add --email E --username U [--plan free|pro|team] [--admin] [--password P | --password-stdin] [--data-dir D]

Creates a user and prints its id. The plan defaults to CFGSYNC_DEFAULT_PLAN, else team.
--admin makes them a server admin (the web application's Admin page).
A password not given is asked for twice without echo.`,
	'user set-admin': `Usage: cfgsync-server user set-admin LOGIN on|off [--data-dir D]

Makes a user a server admin (the web application's Admin page: users, plans, passwords, keys), or not.`,
	'user list': `Usage: cfgsync-server user list [--json] [--data-dir D]

Lists users (id, email, username, plan, created).`,
	'user set-plan': `Usage: cfgsync-server user set-plan LOGIN free|pro|team [--data-dir D]`,
	'user passwd': `Usage: cfgsync-server user passwd LOGIN [--password P | --password-stdin] [--revoke-keys] [--data-dir D]

Sets a new password (asked for twice without echo when not given).
Every web session of the user ends.
  --revoke-keys   also revoke every API key of the user: signed out everywhere`,
	'user revoke-keys': `Usage: cfgsync-server user revoke-keys LOGIN [--data-dir D]

Revokes every API key and ends every web session of the user at once (a lost laptop, a leaked key).`,
	'user unlock': `Usage: cfgsync-server user unlock LOGIN [--data-dir D]

Clears the user's failed-login counts from every address, ending a 429 lock-out.`,
	'user remove': `Usage: cfgsync-server user remove LOGIN [--data-dir D]

Removes the user with their keys, memberships and personal configs.`,
	key: `Usage: cfgsync-server key issue LOGIN --device NAME [--read-only] [--data-dir D]

Prints a new API key for that device, replacing its previous one (headless machines, scripts).
With --read-only the key reads and streams but never writes (every write answers 403
read_only_key): what a CI job should hold.`,
	'key issue': `Usage: cfgsync-server key issue LOGIN --device NAME [--read-only] [--data-dir D]

Prints a new API key for that device, replacing its previous one (headless machines, scripts).
With --read-only the key reads and streams but never writes (every write answers 403
read_only_key): what a CI job should hold.`,
	invite: `Usage: cfgsync-server invite create [--plan free|pro|team] [--uses N] [--days D] [--public-url URL] [--data-dir D]

Prints a sign-up link: whoever opens it creates their own account on that plan (default
CFGSYNC_DEFAULT_PLAN, else team), up to N accounts (default 1) within D days (default 7).
The link starts with CFGSYNC_PUBLIC_URL (--public-url); without it, with the listening address.
The Admin page of the web application lists and revokes links.`,
	'invite create': `Usage: cfgsync-server invite create [--plan free|pro|team] [--uses N] [--days D] [--public-url URL] [--data-dir D]

Prints a sign-up link: whoever opens it creates their own account on that plan (default
CFGSYNC_DEFAULT_PLAN, else team), up to N accounts (default 1) within D days (default 7).
The link starts with CFGSYNC_PUBLIC_URL (--public-url); without it, with the listening address.
The Admin page of the web application lists and revokes links.`,
	'setup-link': `Usage: cfgsync-server setup-link [--public-url URL] [--data-dir D]

While the server has no admin: prints a new setup address, <public URL>/setup/<token>, whose page
creates the first admin. It ends every setup address printed before (the one in the first start's
output too), works for 24 hours, and dies once any user is made admin. Every instance of a fleet
prints the same address at start; this command is for when that one is lost or has ended.`,
	purge: `Usage: cfgsync-server purge [--data-dir D]

Removes teams deleted more than 30 days ago, now (the server also does it hourly).`,
	backup: `Usage: cfgsync-server backup FILE [--data-dir D]

Writes a consistent copy of the database to FILE (mode 0600) while the server runs.
Never replaces an existing file and never writes through a symbolic link.
The master key is not in it: keep master.key or CFGSYNC_MASTER_KEY safe separately.`,
	restore: `Usage: cfgsync-server restore FILE [--data-dir D]

Checks FILE (integrity, schema, that the master key opens it), then puts a copy of it in
place of the database. Refused while a server uses the data directory: stop it first.
The database it replaces is kept beside it as cfgsync.db.before-restore-<time>.`,
	rekey: `Usage: cfgsync-server rekey [--new-key-file F] [--batch N] [--wait-seconds S] [--data-dir D]

Re-encrypts every config version and the key check under a new master key (from F, base64 of
32 bytes, or generated), N records at a time (default 500), while servers run or not. Running
servers switch to the new key within a second. Saves the new key where the old one was read from
(master.key, the old file kept beside it as master.key.before-rekey-<time>), or prints it when
CFGSYNC_MASTER_KEY is set; then waits up to S seconds (default 60) for every running server to
switch, and deletes the last thing the old key opens. Safe to interrupt: run it again to finish.
A server started afterwards with the old key refuses to start.`,
	db: `Usage: cfgsync-server db copy --to URL [--data-dir D] [--database-url SOURCE]
Copies every row of the configured database (SQLite in the data directory, or --database-url)
into the empty database at URL: a postgres:// URL, or a SQLite file path. Sealed data is copied
as it is, so the copy needs the same master key. Then counts and hashes every table on both
sides and prints the figures; refuses a target that holds any row. Stop the servers first.`,
	'db copy': `Usage: cfgsync-server db copy --to URL [--data-dir D] [--database-url SOURCE]
Copies every row of the configured database (SQLite in the data directory, or --database-url)
into the empty database at URL: a postgres:// URL, or a SQLite file path. Sealed data is copied
as it is, so the copy needs the same master key. Then counts and hashes every table on both
sides and prints the figures; refuses a target that holds any row. Stop the servers first.`,
	healthcheck: `Usage: cfgsync-server healthcheck [--url U]

Exits 0 when the local server answers /healthz (for container health checks).`
}

/** The usage for `cfgsync-server ARGS --help`, or undefined when --help is not asked for. */
function usageAsked(argv: string[]): string | undefined {
	if (!argv.includes('--help') && !argv.includes('-h')) return undefined
	const words = argv.filter((arg) => !arg.startsWith('-'))
	const command = words[0] ?? 'serve'
	return USAGE[`${command} ${words[1] ?? ''}`] ?? USAGE[command] ?? HELP
}

/**
 * `--database-url URL` is taken by every command (docs/postgresql.md): it is the
 * CFGSYNC_DATABASE_URL of this run, so workers and jobs inherit it too.
 */
function takeDatabaseUrl(argv: string[]): string[] {
	const rest: string[] = []
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string
		if (arg === '--database-url' && i + 1 < argv.length) process.env.CFGSYNC_DATABASE_URL = argv[++i]
		else if (arg.startsWith('--database-url=')) process.env.CFGSYNC_DATABASE_URL = arg.slice('--database-url='.length)
		else rest.push(arg)
	}
	return rest
}

/**
 * argv → one command; no logic of its own. Each command's code is loaded when it is chosen, so `--version`
 * and the admin commands do not pay for the web application's start-up (tens of milliseconds each).
 */
async function main(args: string[]): Promise<number> {
	const argv = takeDatabaseUrl(args)
	const [command, ...rest] = argv
	if (command === '--help' || command === '-h' || command === 'help') {
		process.stdout.write(HELP)
		return 0
	}
	const usage = usageAsked(argv)
	if (usage !== undefined) {
		process.stdout.write(`${usage.trimEnd()}\n`)
		return 0
	}
	switch (command) {
		case '--version':
		case '-v':
		case 'version':
			process.stdout.write(`${(await import('./server/build-info')).versionLine()}\n`)
			return 0
		case undefined:
		case 'serve':
			return runCommand(async () => (await import('./server/admin/serve')).serveCommand(rest))
		case 'user':
			return runCommand(async () => (await import('./server/admin/user')).userCommand(rest))
		case 'key':
			return runCommand(async () => (await import('./server/admin/user')).keyCommand(rest))
		case 'invite':
			return runCommand(async () => (await import('./server/admin/invite')).inviteCommand(rest))
		case 'setup-link':
			return runCommand(async () => (await import('./server/admin/setup')).setupLinkCommand(rest))
		case 'purge':
			return runCommand(async () => (await import('./server/admin/maintenance')).purgeCommand(rest))
		case 'backup':
			return runCommand(async () => (await import('./server/admin/maintenance')).backupCommand(rest))
		case 'restore':
			return runCommand(async () => (await import('./server/admin/maintenance')).restoreCommand(rest))
		case 'rekey':
			return runCommand(async () => (await import('./server/admin/rekey')).rekeyCommand(rest))
		case 'healthcheck':
			return runCommand(async () => (await import('./server/admin/maintenance')).healthcheckCommand(rest))
		case 'db':
			return runCommand(async () => (await import('./server/admin/db')).dbCommand(rest))
		default:
			// `cfgsync-server --port 9000` is serve with flags.
			if (command.startsWith('-'))
				return runCommand(async () => (await import('./server/admin/serve')).serveCommand(argv))
			return runCommand(async () => {
				throw new CliError(`unknown command "${command}" (see cfgsync-server --help)`, 2)
			})
	}
}

const code = await main(process.argv.slice(2))
// serve keeps running on its own; every other command ends here.
if (code !== 0 || !isServe(process.argv.slice(2))) process.exit(code)

function isServe(argv: string[]): boolean {
	if (argv.includes('--help') || argv.includes('-h')) return false
	return (
		argv[0] === undefined || argv[0] === 'serve' || (argv[0].startsWith('-') && !['--version', '-v'].includes(argv[0]))
	)
}
