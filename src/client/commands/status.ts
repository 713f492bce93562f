import { noMore, session } from '../context'
import { readLocal } from '../files'
import { fileHash } from '../hash'
import { CliFailure, EXIT, green, json, red, safe, say } from '../output'
import { conflictText } from '../report'
import { fetchRemote, type Remote, type Target } from '../run'
import { pendingState } from '../journal'
import { configScope } from '../ownership'
import { decide, standing, type Standing } from '../sync/engine'
import { shown } from '../tools'
import { defineCommand, type Input, TARGET, TOOL } from './command'
import { targetsFor } from './common'

export const STATUS_HELP = `cfgsync status [TOOL] [-n|--name N] [--team SLUG]

Each config this machine syncs (or TOOL's): in sync, local changes (push
sends them), remote changes (pull writes them), local and remote changes
(sync does both), or conflict (resolve settles it), with the files concerned,
and the files another config of the tool syncs on this machine (a team
config's files are synced with it, never with your personal config).
Nothing is changed. Exit status: 0 when everything is in sync, 3 when any
config has a conflict, 1 otherwise (changes waiting, or an error), 4 when
not logged in.`

const options = { ...TARGET } as const

async function run({ values, positionals }: Input<typeof options>) {
	noMore(positionals, 1, 'status')
	const s = session(values)
	const targets = await targetsFor(s, 'status', positionals, values)
	const rows: {
		t: Target
		standing: Standing | 'not on the server'
		remote?: Remote
		base?: number
		files: { key: string; verdict: string; detail?: string }[]
	}[] = []
	for (const t of targets) {
		const remote = (await fetchRemote(s, t)) as Remote | undefined
		// A command killed part-way is read as the next one will settle it (docs/sync-model.md, "Crashes").
		const state = pendingState(t.key, remote)
		// A file another config of the tool syncs here is not this one's: named with its owner (docs/sync-model.md).
		const scoped = await configScope(s, t, { base: state?.files, remote: remote?.files })
		const scope = scoped.keys
		const owned = scoped.skipped.filter((skip) => scoped.elsewhere.includes(skip.key))
		const sides = { base: remote ? state?.files : undefined, local: readLocal(scope), remote: remote?.files, scope }
		const decisions = decide(sides, fileHash).decisions.filter((d) => d.verdict.kind !== 'same')
		rows.push({
			t,
			standing: remote ? standing(decisions) : 'not on the server',
			remote,
			base: state?.version,
			files: [
				...decisions.map((d) => ({
					key: d.key,
					verdict: d.verdict.kind,
					detail: d.verdict.kind === 'conflict' ? conflictText(d) : undefined
				})),
				...owned.map((skip) => ({ key: skip.key, verdict: 'skipped', detail: skip.why }))
			]
		})
	}
	if (values.json) {
		json(
			rows.map((r) => ({
				config: { tool: r.t.tool, name: r.t.name, team: r.t.team ?? r.t.teamId ?? null },
				status: r.standing,
				syncedVersion: r.base ?? null,
				serverVersion: r.remote?.version ?? null,
				files: r.files.map((f) => ({ path: f.key, file: shown(f.key), change: f.verdict, detail: f.detail ?? null }))
			}))
		)
	} else if (rows.length === 0) {
		say('This machine syncs no config yet: cfgsync push TOOL (first machine) or cfgsync pull TOOL (the others).')
	} else {
		const word: Record<string, string> = {
			local: 'changed here',
			remote: 'changed on the server',
			merged: 'changed on both sides, merges cleanly',
			conflict: 'conflict'
		}
		for (const r of rows) {
			const colour = r.standing === 'in sync' ? green : r.standing === 'conflict' ? red : (text: string) => text
			say(
				`${r.t.label}: ${colour(r.standing)} (synced version ${r.base ?? 'none'}, server version ${r.remote?.version ?? 'none'})`
			)
			for (const f of r.files)
				say(
					`  ${safe(shown(f.key))}: ${f.verdict === 'skipped' ? f.detail : f.detail ? `conflict: ${f.detail}` : (word[f.verdict] ?? f.verdict)}`
				)
		}
	}
	if (rows.some((r) => r.standing === 'conflict'))
		throw new CliFailure(`a config has a conflict: cfgsync resolve TOOL --mine|--theirs settles it`, EXIT.conflict)
	if (rows.some((r) => r.standing !== 'in sync')) {
		process.exitCode = EXIT.error
	}
}

export const status = defineCommand({
	name: 'status',
	group: 'Sync',
	summary: 'what changed here and on the server, per config',
	usage: ['status [TOOL]'],
	help: STATUS_HELP,
	args: [TOOL],
	options,
	run
})
