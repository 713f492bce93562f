import { noMore, type Session } from '../context'
import { isNotRegularWhy, linkOutOfHome, readLocal } from '../files'
import { fileHash } from '../hash'
import { CliFailure, EXIT, type Printer, safe } from '../output'
import { capped, conflictText, plural } from '../report'
import { pinnedScope } from '../pinned'
import { unsyncedConfigs } from '../remote-configs'
import { localChanges } from '../unsent'
import { fetchRemote, type Remote, type Target } from '../run'
import { pendingState, sweepTemporaries } from '../journal'
import { configScope, memberTeams, type OwnedScope } from '../ownership'
import { type Located, localEntries, localJson } from '../local-keys'
import { decide, type Files, standing, type Standing } from '../sync/engine'
import type { SyncState } from '../state'
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

/** What status says of one config. */
export type Row = {
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

/** What status reads of one config it syncs: the server's version, the base, the scope and the files here. */
export interface Observed {
	t: Target
	remote?: Remote
	state?: SyncState
	scoped: OwnedScope
	/** Files in scope behind a link out of home: never read or sent. */
	linked: string[]
	/** The files here, in scope less the linked ones. */
	local: Files
	locals: Located[]
}

/** Reads one config's sides; nothing is judged here. */
async function observe(s: Session, t: Target, remote: Remote | undefined): Promise<Observed> {
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
	const local = readLocal(scoped.keys.filter((key) => !linked.includes(key)))
	return { t, remote, state, scoped, linked, local, locals: localEntries(t.key, remote?.files, local) }
}

/** Where one config stands, judged from what was read (no file or server is touched). */
export function classify(o: Observed): Row {
	const { t, remote, state, scoped, linked, local, locals } = o
	const scope = scoped.keys.filter((key) => !linked.includes(key))
	// Skipped by design, not a change: a file another config owns here, a link out of home, and one that cannot be
	// read here (a FIFO, a directory where the file should be).
	const owned = [
		...scoped.skipped.filter((skip) => scoped.elsewhere.includes(skip.key) || isNotRegularWhy(skip.why)),
		...linked.map((key) => ({ key, why: 'a symbolic link out of your home directory: never read or sent' }))
	]
	const kept = keptFrom(locals.map((l) => l.entry))
	const sides = { base: remote ? state?.files : undefined, local, remote: remote?.files, scope, kept }
	const decisions = decide(sides, fileHash).decisions.filter((d) => d.verdict.kind !== 'same')
	return {
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
	}
}

/** Offline, this machine still knows what it has not sent: the files that differ from the base. */
async function offlineRow(s: Session, t: Target): Promise<Row> {
	return {
		t,
		standing: 'server unreachable',
		base: pendingState(t.key)?.version,
		files: (await localChanges(s, t)).changes.map((c) => ({ key: c.key, verdict: 'local' }))
	}
}

/** Each config's row; an unreachable server leaves its rows judged offline, and the failure to report last. */
async function readRows(s: Session, targets: Target[]): Promise<{ rows: Row[]; unreachable?: CliFailure }> {
	const rows: Row[] = []
	let unreachable: CliFailure | undefined
	for (const t of targets) {
		let remote: Remote | undefined
		try {
			remote = (await fetchRemote(s, t)) as Remote | undefined
		} catch (error) {
			if (!(error instanceof CliFailure) || error.code !== 'unreachable') throw error
			unreachable = error
			rows.push(await offlineRow(s, t))
			continue
		}
		rows.push(classify(await observe(s, t, remote)))
	}
	return { rows, unreachable }
}

/** A row as status --json prints it. */
export const rowJson = (r: Row) => ({
	config: { tool: r.t.tool, name: r.t.name, team: r.t.team ?? r.t.teamId ?? null },
	status: r.standing,
	syncedVersion: r.base ?? null,
	serverVersion: r.remote?.version ?? r.version ?? null,
	files: r.files.map((f) => ({ path: f.key, file: shown(f.key), change: f.verdict, detail: f.detail ?? null })),
	local: (r.local ?? []).map(localJson)
})

const VERDICT_WORDS: Record<string, string> = {
	local: 'changed here',
	remote: 'changed on the server',
	merged: 'changed on both sides, merges cleanly',
	conflict: 'conflict'
}

/** A row's first line: the config, where it stands (coloured) and its versions. */
export function headLine(out: Printer, r: Row): string {
	const colour = r.standing === 'in sync' ? out.green : r.standing === 'conflict' ? out.red : (text: string) => text
	const versions =
		r.standing === 'server unreachable'
			? `synced version ${r.base ?? 'none'}; ${r.files.length === 0 ? 'no changes here' : 'changed here, not sent'}`
			: `synced version ${r.base ?? 'none'}, server version ${r.remote?.version ?? 'none'}${
					r.base !== undefined && r.base === r.remote?.version && r.files.some((f) => f.verdict === 'remote')
						? ', whose changes to the files below are not written here yet'
						: ''
				}`
	return `${r.t.label}: ${colour(r.standing)} (${versions})`
}

/** The line on what stays on this machine, if anything does. */
export function localLine(r: Row): string | undefined {
	const keys = r.local?.filter((o) => o.entry.path !== undefined).length ?? 0
	const files = (r.local?.length ?? 0) - keys
	if (keys + files === 0) return undefined
	const counted = [keys > 0 ? plural(keys, 'key') : '', files > 0 ? plural(files, 'whole file') : '']
	return `  ${counted.filter(Boolean).join(' and ')} ${keys + files === 1 ? 'stays' : 'stay'} on this machine, never sent nor pulled (cfgsync local ${r.t.tool}${r.t.args} lists them)`
}

/** A file's line under its config. */
export const fileLine = (f: Row['files'][number]) =>
	`  ${safe(shown(f.key))}: ${f.verdict === 'skipped' ? f.detail : f.detail ? `conflict: ${f.detail}` : (VERDICT_WORDS[f.verdict] ?? f.verdict)}`

/** Conflicts first: a long list is cut at 20 files, and a conflict must never be among the ones cut. */
export const conflictsFirst = (files: Row['files']) => [
	...files.filter((f) => f.verdict === 'conflict'),
	...files.filter((f) => f.verdict !== 'conflict')
]

/** A plain member's changes to a team config are never sent: the line that says so, and what can be done. */
export function memberLine(r: Row, member: string | undefined): string | undefined {
	if (!member || !r.files.some((f) => f.verdict === 'local')) return undefined
	return `  the changes here stay on this machine (${member}): cfgsync discard ${r.t.tool}${r.t.args} drops them; to keep a setting your own, make it local (cfgsync local --help says how)`
}

function printRows(out: Printer, s: Session, rows: Row[], offered: Row[], members: Map<string, string>): void {
	if (rows.length === 0 && offered.length === 0)
		out.say(`This machine syncs no config yet, and ${s.server} holds none: cfgsync push TOOL sends one from here.`)
	for (const r of rows) {
		out.say(headLine(out, r))
		const kept = localLine(r)
		if (kept) out.say(kept)
		capped(out, conflictsFirst(r.files), fileLine, 'files')
		const member = memberLine(r, r.t.teamId === undefined ? undefined : members.get(r.t.teamId))
		if (member) out.say(member)
	}
	if (offered.length > 0) {
		out.say(
			`${rows.length === 0 ? 'This machine syncs no config yet. ' : ''}On ${s.server}, not synced here (cfgsync sync --all-remote starts syncing ${offered.length === 1 ? 'it' : 'them'}):`
		)
		capped(out, offered, (r) => `  ${r.t.label} (version ${r.version})`, 'configs')
	}
}

/** How status ends: the failure to throw (unreachable, or a conflict), else whether anything is out of step. */
export function statusEnd(rows: Row[], unreachable: CliFailure | undefined): CliFailure | 'in sync' | 'changes' {
	if (unreachable)
		return new CliFailure(
			`${unreachable.message}. Shown above is what this machine has not sent, judged without the server.`,
			EXIT.error,
			'unreachable'
		)
	const conflicted = rows.filter((r) => r.standing === 'conflict')
	if (conflicted.length > 0)
		return new CliFailure(
			`${conflicted.length === 1 ? 'a config has a conflict' : `${conflicted.length} configs have conflicts`}: ${conflicted
				.map(
					(r) =>
						`cfgsync resolve ${r.t.tool}${r.t.args} --mine (keep this machine's) or cfgsync resolve ${r.t.tool}${r.t.args} --theirs (take the server's)`
				)
				.join('; ')}`,
			EXIT.conflict
		)
	return rows.some((r) => r.standing !== 'in sync') ? 'changes' : 'in sync'
}

async function run({ values, positionals, out, session, setExitCode }: Input<typeof options>) {
	noMore(positionals, 1, 'status')
	// Changes nothing of anyone's, but a killed command's leftovers go (docs/sync-model.md, "Crashes").
	sweepTemporaries()
	const s = session(values)
	const targets = await targetsFor(s, 'status', positionals, values)
	const { rows, unreachable } = await readRows(s, targets)
	// The configs the server holds that this machine does not sync yet (a new machine: all of them).
	const offered =
		positionals.length === 0 && !unreachable
			? (await unsyncedConfigs(s)).map(
					(c): Row => ({ t: c.target, standing: 'not synced here', version: c.version, files: [] })
				)
			: []
	const members = unreachable
		? new Map<string, string>()
		: await memberTeams(
				s,
				rows.map((r) => r.t)
			)
	if (values.json) out.json([...rows, ...offered].map(rowJson))
	else printRows(out, s, rows, offered, members)
	const end = statusEnd(rows, unreachable)
	if (end instanceof CliFailure) throw end
	if (end === 'changes') setExitCode(EXIT.error)
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
