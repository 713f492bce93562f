import { noMore, session } from '../context'
import { isNotRegularWhy, linkOutOfHome, readLocal } from '../files'
import { fileHash } from '../hash'
import { CliFailure, EXIT, green, json, red, safe, say } from '../output'
import { capped, conflictText, plural } from '../report'
import { pinnedScope } from '../pinned'
import { unsyncedConfigs } from '../remote-configs'
import { localChanges } from '../unsent'
import { fetchRemote, type Remote, type Target } from '../run'
import { pendingState, sweepTemporaries } from '../journal'
import { configScope, memberTeams } from '../ownership'
import { type Located, localEntries, localJson } from '../local-keys'
import { decide, standing, type Standing } from '../sync/engine'
import { keptFrom } from '../sync/local-keys'
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

type Row = {
	t: Target
	standing: Standing | 'not on the server' | 'server unreachable' | 'not synced here'
	remote?: Remote
	/** The server's version of a config this machine does not sync. */
	version?: number
	base?: number
	files: { key: string; verdict: string; detail?: string }[]
	/** Keys and files that stay on this machine (docs/sync-model.md). */
	local?: Located[]
}

async function run({ values, positionals }: Input<typeof options>) {
	noMore(positionals, 1, 'status')
	// Changes nothing of anyone's, but a killed command's leftovers go (docs/sync-model.md, "Crashes").
	sweepTemporaries()
	const s = session(values)
	const targets = await targetsFor(s, 'status', positionals, values)
	const rows: Row[] = []
	let unreachable: CliFailure | undefined
	for (const t of targets) {
		let remote: Remote | undefined
		try {
			remote = (await fetchRemote(s, t)) as Remote | undefined
		} catch (error) {
			if (!(error instanceof CliFailure) || error.code !== 'unreachable') throw error
			// Offline, this machine still knows what it has not sent: the files that differ from the base.
			unreachable = error
			const known = pendingState(t.key)
			rows.push({
				t,
				standing: 'server unreachable',
				base: known?.version,
				files: (await localChanges(s, t)).changes.map((c) => ({ key: c.key, verdict: 'local' }))
			})
			continue
		}
		// A command killed part-way is read as the next one will settle it (docs/sync-model.md, "Crashes").
		const state = pendingState(t.key, remote)
		// A file another config of the tool syncs here is not this one's: named with its owner (docs/sync-model.md).
		const scoped = pinnedScope(
			await configScope(s, t, { base: state?.files, remote: remote?.files }),
			state,
			remote?.files
		)
		// A file behind a link out of home is never read or sent: skipped by design, not a change (docs/sync-model.md).
		const linked = scoped.keys.filter((key) => linkOutOfHome(key) !== undefined)
		const scope = scoped.keys.filter((key) => !linked.includes(key))
		// …and so is one that cannot be read here (a FIFO, a directory where the file should be).
		const owned = [
			...scoped.skipped.filter((skip) => scoped.elsewhere.includes(skip.key) || isNotRegularWhy(skip.why)),
			...linked.map((key) => ({ key, why: 'a symbolic link out of your home directory: never read or sent' }))
		]
		const local = readLocal(scope)
		const locals = localEntries(t.key, remote?.files, local)
		const kept = keptFrom(locals.map((o) => o.entry))
		const sides = { base: remote ? state?.files : undefined, local, remote: remote?.files, scope, kept }
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
			],
			local: locals
		})
	}
	// The configs the server holds that this machine does not sync yet (a new machine: all of them).
	const offered =
		positionals.length === 0 && !unreachable
			? (await unsyncedConfigs(s)).map(
					(c): Row => ({ t: c.target, standing: 'not synced here', version: c.version, files: [] })
				)
			: []
	// A plain member's changes to a team config are never sent: say so, and what can be done with them.
	const members = unreachable
		? new Map<string, string>()
		: await memberTeams(
				s,
				rows.map((r) => r.t)
			)
	if (values.json) {
		json(
			[...rows, ...offered].map((r) => ({
				config: { tool: r.t.tool, name: r.t.name, team: r.t.team ?? r.t.teamId ?? null },
				status: r.standing,
				syncedVersion: r.base ?? null,
				serverVersion: r.remote?.version ?? r.version ?? null,
				files: r.files.map((f) => ({ path: f.key, file: shown(f.key), change: f.verdict, detail: f.detail ?? null })),
				local: (r.local ?? []).map(localJson)
			}))
		)
	} else {
		if (rows.length === 0 && offered.length === 0)
			say(`This machine syncs no config yet, and ${s.server} holds none: cfgsync push TOOL sends one from here.`)
		const word: Record<string, string> = {
			local: 'changed here',
			remote: 'changed on the server',
			merged: 'changed on both sides, merges cleanly',
			conflict: 'conflict'
		}
		for (const r of rows) {
			const colour = r.standing === 'in sync' ? green : r.standing === 'conflict' ? red : (text: string) => text
			const versions =
				r.standing === 'server unreachable'
					? `synced version ${r.base ?? 'none'}; ${r.files.length === 0 ? 'no changes here' : 'changed here, not sent'}`
					: `synced version ${r.base ?? 'none'}, server version ${r.remote?.version ?? 'none'}${
							r.base !== undefined && r.base === r.remote?.version && r.files.some((f) => f.verdict === 'remote')
								? ', whose changes to the files below are not written here yet'
								: ''
						}`
			say(`${r.t.label}: ${colour(r.standing)} (${versions})`)
			const keys = r.local?.filter((o) => o.entry.path !== undefined).length ?? 0
			const files = (r.local?.length ?? 0) - keys
			const counted = [keys > 0 ? plural(keys, 'key') : '', files > 0 ? plural(files, 'whole file') : '']
			if (keys + files > 0)
				say(
					`  ${counted.filter(Boolean).join(' and ')} ${keys + files === 1 ? 'stays' : 'stay'} on this machine, never sent nor pulled (cfgsync local ${r.t.tool}${r.t.args} lists them)`
				)
			// Conflicts first: a long list is cut at 20 files, and a conflict must never be among the ones cut.
			capped(
				[...r.files.filter((f) => f.verdict === 'conflict'), ...r.files.filter((f) => f.verdict !== 'conflict')],
				(f) =>
					`  ${safe(shown(f.key))}: ${f.verdict === 'skipped' ? f.detail : f.detail ? `conflict: ${f.detail}` : (word[f.verdict] ?? f.verdict)}`,
				'files'
			)
			const member = r.t.teamId === undefined ? undefined : members.get(r.t.teamId)
			if (member && r.files.some((f) => f.verdict === 'local'))
				say(
					`  the changes here stay on this machine (${member}): cfgsync discard ${r.t.tool}${r.t.args} drops them; to keep a setting your own, make it local (cfgsync local --help says how)`
				)
		}
		if (offered.length > 0) {
			say(
				`${rows.length === 0 ? 'This machine syncs no config yet. ' : ''}On ${s.server}, not synced here (cfgsync sync --all-remote starts syncing ${offered.length === 1 ? 'it' : 'them'}):`
			)
			capped(offered, (r) => `  ${r.t.label} (version ${r.version})`, 'configs')
		}
	}
	if (unreachable)
		throw new CliFailure(
			`${unreachable.message}. Shown above is what this machine has not sent, judged without the server.`,
			EXIT.error,
			'unreachable'
		)
	const conflicted = rows.filter((r) => r.standing === 'conflict')
	if (conflicted.length > 0)
		throw new CliFailure(
			`${conflicted.length === 1 ? 'a config has a conflict' : `${conflicted.length} configs have conflicts`}: ${conflicted
				.map(
					(r) =>
						`cfgsync resolve ${r.t.tool}${r.t.args} --mine (keep this machine's) or cfgsync resolve ${r.t.tool}${r.t.args} --theirs (take the server's)`
				)
				.join('; ')}`,
			EXIT.conflict
		)
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
