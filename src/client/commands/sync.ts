import { noMore, session } from '../context'
import { withLock } from '../lock'
import { CliFailure, EXIT, json, say, warn } from '../output'
import { outcomeFailure, printLines, reportJson, summary, worst } from '../report'
import { memberTeams } from '../ownership'
import { runOne } from '../run'
import { defineCommand, type Input, TARGET, TOOL, YES } from './command'
import { targetsFor } from './common'

export const SYNC_HELP = `cfgsync sync [TOOL] [-n|--name N] [--team SLUG] [-y|--yes] [--allow-secrets] [--dry-run]

Every config this machine syncs (or TOOL's), in one go: writes what changed
on the server, merges JSON files changed on both sides, and pushes what
changed here. A config with a conflict is pulled but not pushed (exit 3)
until you choose with cfgsync resolve. A team config sends only changes to
the files it already holds (add files with cfgsync push TOOL --team SLUG
PATH...); a team's plain member pulls it and keeps changes here local.`

const options = { ...TARGET, ...YES, 'allow-secrets': { type: 'boolean' }, 'dry-run': { type: 'boolean' } } as const

async function run({ values, positionals }: Input<typeof options>) {
	noMore(positionals, 1, 'sync')
	const s = session(values)
	const targets = await targetsFor(s, 'sync', positionals, values)
	if (targets.length === 0) {
		if (values.json) return json([])
		return say('This machine syncs no config yet: cfgsync push TOOL (first machine) or cfgsync pull TOOL (the others).')
	}
	// A team's plain member pulls its configs and keeps changes here local, rather than failing on a refused push.
	const members = await memberTeams(s, targets)
	const failures: CliFailure[] = []
	const documents: unknown[] = []
	const runAll = async () => {
		for (const t of targets) {
			try {
				const report = await runOne(s, t, {
					mode: 'sync',
					yes: values.yes,
					allowSecrets: values['allow-secrets'],
					dryRun: values['dry-run'],
					localOnly: t.teamId !== undefined ? members.get(t.teamId) : undefined
				})
				if (values.json) {
					documents.push(reportJson(report))
					// Scripts see these files under "unsent"; the warning says why they were not sent.
					if (report.localOnly && report.unsent.length > 0)
						warn(`${t.label}: changes here to ${report.unsent.length} file(s) stay local: ${report.localOnly}.`)
				} else {
					say(`${t.label}:`)
					printLines(report)
					const pushed = report.pushed ? `; pushed version ${report.pushed.version}` : ''
					const kept =
						report.localOnly && report.unsent.length > 0 ? `; ${report.unsent.length} changed here, kept local` : ''
					say(`  ${report.dryRun ? 'would sync' : 'synced'}: ${summary(report)}${pushed}${kept}.`)
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
				else warn(`${t.label}: ${error.message}`)
			}
		}
	}
	if (values['dry-run']) await runAll()
	else await withLock('sync', runAll)
	if (values.json) json(documents)
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

export const sync = defineCommand({
	name: 'sync',
	group: 'Sync',
	summary: 'pull, merge and push every config this machine syncs',
	usage: ['sync [TOOL]'],
	help: SYNC_HELP,
	args: [TOOL],
	options,
	run
})
