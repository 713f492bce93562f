import { tool as toolArg } from '../context'
import { DIR_MAX_BYTES, DIR_MAX_FILES, readLocal } from '../files'
import { withLock } from '../lock'
import { CliFailure, EXIT } from '../output'
import { refuseMemberPush } from '../ownership'
import { resolveTarget, runOne } from '../run'
import { DIR_MARK } from '../scope'
import { getState } from '../state'
import { ownValue } from '../sync/engine'
import { shown } from '../tools'
import { defineCommand, FORCE, type Input, PATHS, TARGET, TOOL, YES } from './command'
import { finish, toolPathKeys } from './common'

export const PUSH_HELP = `cfgsync push TOOL [-n|--name N] [--team SLUG] [-f|--force] [--only] [--allow-secrets] [-y|--yes] [--dry-run] [PATH...]

Sends what changed here since this machine last synced the config: TOOL's
well-known files and directories and the files it synced before, or only
the PATHs given (a directory: its text files, up to ${DIR_MAX_FILES} files and
${DIR_MAX_BYTES / 1024} KiB; the config's other files are kept; --only sends
only the PATHs, never another file, and later runs keep to the config's files). Each file is judged against the base: changed here only → sent;
changed on the server only → kept there (pull writes it here); changed on
both sides → JSON files merge key by key (the merged file is written here
too), anything else is a conflict. A conflict refuses the whole push (exit 3,
nothing sent) until you choose: cfgsync resolve TOOL --mine|--theirs, or
push --force (this machine's side wins the conflicts; changes made only on
the server are still kept). A file deleted here is removed from the config.
The push names the version it was judged against (If-Match), so a version
pushed meanwhile from elsewhere is never replaced unseen.
Only TOOL's files are sent (any other PATH is left out), never through a
symbolic link that leads out of home. A JSON or TOML file that does not
parse is refused, naming its line (nothing sent), unless --force.
With --team, a push without PATHs sends only changes to the files the team
config already holds; PATHs add files to it (or start it): owners and
admins only. A file a team config holds here is left out of the personal
config of the same tool on this machine.
A team push with secret-looking values (MCP env/headers, token, secret,
password, api_key, ghp_…, sk-…) is refused unless --allow-secrets.
--dry-run names the files a push would send and changes nothing.`

const options = {
	...TARGET,
	...FORCE,
	only: { type: 'boolean' },
	'allow-secrets': { type: 'boolean' },
	...YES,
	'dry-run': { type: 'boolean' }
} as const

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'push')
	const named = positionals.length > 1 ? toolPathKeys(out, tool, positionals.slice(1), 'push') : undefined
	if (values.only && !named)
		throw new CliFailure('--only needs the PATHs the config should hold: cfgsync push TOOL --only PATH...', EXIT.usage)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	await refuseMemberPush(s, t)
	if (named) {
		const base = getState(t.key)?.files ?? {}
		const missing = named.filter(
			(key) =>
				!key.endsWith(DIR_MARK) &&
				ownValue(readLocal([key]), key) === undefined &&
				ownValue(base, key) === undefined &&
				!Object.keys(base).some((k) => k.startsWith(`${key}/`))
		)
		if (missing.length > 0) throw new CliFailure(`no such file: ${missing.map(shown).join(', ')}`)
	}
	const pushing = {
		mode: 'push' as const,
		io,
		out,
		named,
		only: values.only,
		choose: values.force ? { side: 'mine' as const } : undefined,
		allowSecrets: values['allow-secrets'],
		yes: values.yes,
		dryRun: values['dry-run']
	}
	// A dry run changes nothing, so it takes no lock.
	const report = values['dry-run']
		? await runOne(s, t, pushing)
		: await withLock('push', () => runOne(s, t, pushing), io.stderr)
	finish(out, report, values.json, () => {
		if (report.pushed) {
			const n = report.pushed.files.length
			out.say(
				`${out.green('Pushed')} ${t.label} as version ${report.pushed.version} (${n} file${n === 1 ? '' : 's'}, ${report.sent.length} sent).`
			)
		} else if (report.dryRun && report.sent.length > 0)
			out.say(
				`Would push ${t.label}: ${report.sent.length} file${report.sent.length === 1 ? '' : 's'} to send (dry run: nothing was sent or written).`
			)
		else if (report.conflicts.length === 0 && report.invalid.length === 0)
			out.say(
				report.remoteVersion === undefined
					? `No ${tool} files to send for ${t.label} (dry run).`
					: `${t.label} is already up to date on the server (version ${report.remoteVersion}); nothing ${report.dryRun ? 'to send' : 'sent'}.`
			)
	})
}

export const push = defineCommand({
	name: 'push',
	group: 'Sync',
	summary: 'send what changed here (refused while a conflict waits)',
	usage: ['push TOOL [PATH...]'],
	help: PUSH_HELP,
	args: [TOOL, PATHS],
	options,
	run
})
