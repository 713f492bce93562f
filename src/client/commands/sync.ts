import { confirm, interactive } from '../ask'
import { tool as toolArg } from '../context'
import { withLock } from '../lock'
import { CliFailure, EXIT, type Printer } from '../output'
import { memberTeams, teamsFirst } from '../ownership'
import { type RemoteConfig, unsyncedConfigs } from '../remote-configs'
import { LIST_CAP, outcomeFailure, printLines, reportJson, summary, worst } from '../report'
import { runOne } from '../run'
import { defineCommand, type Input, TARGET, TOOL, YES } from './command'
import { targetsFor } from './common'

export const SYNC_HELP = `cfgsync sync [TOOL...] [-n|--name N] [--team SLUG] [-y|--yes] [--allow-secrets] [--dry-run] [--all-remote]

Every config this machine syncs (or those of the TOOLs named), in one go:
writes what changed on the server, merges JSON files changed on both sides,
and pushes what changed here. A config with a conflict is pulled but not
pushed (exit 3) until you choose with cfgsync resolve. A team config sends
only changes to the files it already holds (add files with cfgsync push TOOL
--team SLUG PATH...); a team's plain member pulls it and keeps changes here
local. --dry-run names every file it would write and every file it would
send, and changes nothing. The configs the server holds that this machine
does not sync yet are listed; --all-remote starts syncing them too (on a new
machine, sync asks on a terminal).`

const options = {
	...TARGET,
	...YES,
	'allow-secrets': { type: 'boolean' },
	'dry-run': { type: 'boolean' },
	'all-remote': { type: 'boolean' }
} as const

async function run({ values, positionals, io, out, session }: Input<typeof options>) {
	const tools = positionals.map((word) => toolArg(word, 'sync'))
	const s = session(values)
	const targets = await targetsFor(s, 'sync', tools, values)
	const flags = `${values['dry-run'] ? ' --dry-run' : ''}${values.yes ? ' --yes' : ''}${values['allow-secrets'] ? ' --allow-secrets' : ''}`
	// The configs on the server this machine does not sync: taken on with --all-remote, offered otherwise.
	// Only a machine that syncs nothing depends on the list; otherwise a failure to read it is the configs' to report.
	const listed =
		values.name || values.team
			? []
			: await unsyncedConfigs(s, tools).catch((error: unknown) => {
					if (targets.length === 0 || (error instanceof CliFailure && error.exitCode === EXIT.auth)) throw error
					return []
				})
	const offered = listed.filter((c) => !targets.some((t) => t.key === c.target.key))
	if (values['all-remote']) targets.push(...offered.map((c) => c.target))
	else if (targets.length === 0) {
		if (offered.length === 0) {
			if (values.json) return out.json([])
			return out.say(
				`This machine syncs no config${tools.length > 0 ? ` of ${tools.join(', ')}` : ''} yet, and ${s.server} holds none it could sync: cfgsync push TOOL sends one from here.`
			)
		}
		const command = `cfgsync sync${tools.map((tool) => ` ${tool}`).join('')} --all-remote${flags}`
		if (values.json || !interactive(io)) {
			if (values.json) {
				out.notice(`${offeredText(offered, out)} To start syncing them: ${command}`)
				return out.json([])
			}
			return out.say(`${offeredText(offered, out)}\nTo start syncing them here: ${command}`)
		}
		out.say(offeredText(offered, out))
		await confirm('Start syncing them on this machine', command.replace(/ --all-remote/, ''), false, io)
		targets.push(...offered.map((c) => c.target))
	}
	// Team configs first (the configs taken on from the server too), so a personal config leaves out their files.
	const ordered = teamsFirst(targets)
	// A team's plain member pulls its configs and keeps changes here local, rather than failing on a refused push.
	const members = await memberTeams(s, ordered)
	const failures: CliFailure[] = []
	const documents: unknown[] = []
	const runAll = async () => {
		for (const t of ordered) {
			try {
				const report = await runOne(s, t, {
					mode: 'sync',
					io,
					out,
					yes: values.yes,
					allowSecrets: values['allow-secrets'],
					dryRun: values['dry-run'],
					localOnly: t.teamId !== undefined ? members.get(t.teamId) : undefined
				})
				if (values.json) {
					documents.push(reportJson(report))
					// Scripts see these files under "unsent"; the warning says why they were not sent.
					if (report.localOnly && report.unsent.length > 0)
						out.warn(`${t.label}: changes here to ${report.unsent.length} file(s) stay local: ${report.localOnly}.`)
				} else {
					out.say(`${t.label}:`)
					printLines(out, report)
					const pushed = report.pushed ? `; pushed version ${report.pushed.version}` : ''
					const kept =
						report.localOnly && report.unsent.length > 0 ? `; ${report.unsent.length} changed here, kept local` : ''
					out.say(`  ${report.dryRun ? 'would sync' : 'synced'}: ${summary(out, report)}${pushed}${kept}.`)
				}
				const problem = outcomeFailure(report)
				if (problem) failures.push(problem)
			} catch (error) {
				if (!(error instanceof CliFailure) || error.exitCode === EXIT.auth) throw error
				failures.push(error)
				if (values.json)
					documents.push({
						config: { tool: t.tool, name: t.name, team: t.team ?? t.teamId ?? null },
						error: error.message,
						code: error.code
					})
				else out.warn(`${t.label}: ${error.message}`)
			}
		}
	}
	if (values['dry-run']) await runAll()
	else await withLock('sync', runAll, io.stderr)
	if (values.json) out.json(documents)
	if (!values['all-remote'] && offered.length > 0 && targets.length > 0) {
		const n = offered.length
		out.notice(
			`${s.server} also holds ${n} config${n === 1 ? '' : 's'} this machine does not sync: ${offered
				.slice(0, LIST_CAP)
				.map((c) => c.target.label)
				.join(
					', '
				)}${n > LIST_CAP ? ` and ${n - LIST_CAP} more` : ''}. To sync ${n === 1 ? 'it' : 'them'} too: cfgsync sync${tools.map((tool) => ` ${tool}`).join('')} --all-remote${flags}`
		)
	}
	const problem = worst(failures)
	if (problem)
		throw new CliFailure(
			failures.length === 1
				? problem.message
				: `${failures.length} configs need attention (see above); the first: ${problem.message}`,
			problem.exitCode,
			problem.code
		)
}

/** The configs offered to a machine that syncs none of them yet, one line each. */
function offeredText(offered: RemoteConfig[], out: Printer): string {
	const n = offered.length
	const lines = offered
		.slice(0, LIST_CAP)
		.map((c) => `  ${c.target.label} (version ${c.version}, last pushed ${out.ago(c.updatedAt)})`)
	if (n > LIST_CAP) lines.push(`  … and ${n - LIST_CAP} more`)
	return `This machine does not sync ${n === 1 ? 'this config' : `these ${n} configs`} the server holds yet:\n${lines.join('\n')}`
}

export const sync = defineCommand({
	name: 'sync',
	group: 'Sync',
	summary: 'pull, merge and push every config this machine syncs',
	usage: ['sync [TOOL...]'],
	help: SYNC_HELP,
	args: [{ ...TOOL, repeats: true }],
	options,
	run
})
