import { createTwoFilesPatch } from 'diff'
import { ApiError, type AuditEventView, type ConfigVersion } from '../api'
import { confirm } from '../ask'
import { FORCE, NAME, noMore, parse, session, TEAM, teamId, tool as toolArg, YES, type Session } from '../context'
import { asFileSet, DIR_MAX_BYTES, DIR_MAX_FILES, readLocal } from '../files'
import { fileHash } from '../hash'
import { withLock } from '../lock'
import { ago, CliFailure, dim, EXIT, failure, green, json, red, safe, say, table, warn } from '../output'
import { page } from '../pager'
import { platform } from '../paths'
import { conflictText, outcomeFailure, printLines, reportJson, summary, worst } from '../report'
import { fetchRemote, resolveTarget, runOne, targetOf, type Remote, type Report, type Target } from '../run'
import { allStates, forgetState, getState } from '../state'
import { DIR_MARK, localDir, scopeFor } from '../scope'
import { decide, ownValue, standing, type Standing } from '../sync/engine'
import { neutralFiles } from '../sync/paths'
import { homeRelative, localKey, shown } from '../tools'

const TARGET = { ...NAME, ...TEAM } as const

/** Keys for PATH arguments (a directory's marked with a final `/`); a path outside home cannot be synced. */
function pathKeys(paths: string[]): string[] {
	return paths.map((path) => {
		const key = homeRelative(path)
		if (key === undefined) throw new CliFailure(`${path} is not inside your home directory; only files under home are synced`, EXIT.usage)
		return localDir(key) ? `${key}${DIR_MARK}` : key
	})
}

export const PUSH_HELP = `cfgsync push TOOL [-n|--name N] [--team SLUG] [-f|--force] [--only] [--allow-secrets] [-y|--yes] [PATH...]

Sends what changed here since this machine last synced the config: TOOL's
well-known files and directories and the files it synced before, or only
the PATHs given (a directory: its text files, up to ${DIR_MAX_FILES} files and
${DIR_MAX_BYTES / 1024} KiB; the config's other files are kept; --only makes
the config exactly the PATHs). Each file is judged against the base: changed here only → sent;
changed on the server only → kept there (pull writes it here); changed on
both sides → JSON files merge key by key (the merged file is written here
too), anything else is a conflict. A conflict refuses the whole push (exit 3,
nothing sent) until you choose: cfgsync resolve TOOL --mine|--theirs, or
push --force (this machine's side wins the conflicts; changes made only on
the server are still kept). A file deleted here is removed from the config.
The push names the version it was judged against (If-Match), so a version
pushed meanwhile from elsewhere is never replaced unseen.
A team push with secret-looking values (MCP env/headers, token, secret,
password, api_key, ghp_…, sk-…) is refused unless --allow-secrets.`

export async function push(args: string[]) {
	const { values, positionals } = parse('push', args, { ...TARGET, ...FORCE, only: { type: 'boolean' }, 'allow-secrets': { type: 'boolean' }, ...YES })
	const tool = toolArg(positionals[0], 'push')
	const named = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	if (values.only && !named) throw new CliFailure('--only needs the PATHs the config should hold: cfgsync push TOOL --only PATH...', EXIT.usage)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	if (named) {
		const base = getState(t.key)?.files ?? {}
		const missing = named.filter((key) => !key.endsWith(DIR_MARK) && ownValue(readLocal([key]), key) === undefined && ownValue(base, key) === undefined && !Object.keys(base).some((k) => k.startsWith(`${key}/`)))
		if (missing.length > 0) throw new CliFailure(`no such file: ${missing.map(shown).join(', ')}`)
	}
	const report = await withLock('push', () =>
		runOne(s, t, { mode: 'push', named, only: values.only, choose: values.force ? { side: 'mine' } : undefined, allowSecrets: values['allow-secrets'], yes: values.yes })
	)
	finish(report, values.json, () => {
		if (report.pushed) {
			const n = report.pushed.files.length
			say(`${green('Pushed')} ${t.label} as version ${report.pushed.version} (${n} file${n === 1 ? '' : 's'}: ${report.pushed.files.map((key) => safe(shown(key))).join(', ')}).`)
		} else if (report.conflicts.length === 0) say(`${t.label} is already up to date on the server (version ${report.remoteVersion}); nothing sent.`)
	})
}

export const PULL_HELP = `cfgsync pull TOOL [-n|--name N] [--team SLUG] [--dry-run] [-f|--force] [-y|--yes] [PATH...]

Writes what changed on the server since this machine last synced the config
and prints what it did. A file changed only here is kept (push sends it); a
file changed on both sides merges key by key when it is JSON, and is
otherwise a conflict: it is left as it is, reported by every pull (exit 3)
until you choose with cfgsync resolve TOOL --mine|--theirs, or pull --force
(the server's side wins the conflicts). A file the server no longer has is
deleted here if it is unchanged here. Every file overwritten or deleted is
first copied to $XDG_STATE_HOME/cfgsync/backups/<time>/ (backups older than
CFGSYNC_BACKUP_DAYS days, default 30, are removed).
Only TOOL's well-known files and directories, files this machine already
syncs, or the PATHs given are written, never outside your home directory, and never through a
symbolic link that leads out of it. Content someone else pushed to a team
config that adds or changes hooks, MCP servers or other commands your tools
run is shown and asked about first; without a terminal it needs --yes.`

export async function pull(args: string[]) {
	const { values, positionals } = parse('pull', args, { ...TARGET, ...FORCE, 'dry-run': { type: 'boolean' }, ...YES })
	const tool = toolArg(positionals[0], 'pull')
	const named = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const options = { mode: 'pull' as const, named, choose: values.force ? { side: 'theirs' as const } : undefined, dryRun: values['dry-run'], yes: values.yes }
	const report = values['dry-run'] ? await runOne(s, t, options) : await withLock('pull', () => runOne(s, t, options))
	finish(report, values.json, () => {
		const idle = report.writes.length + report.conflicts.length + report.unsent.length + report.refused.length === 0
		if (idle) return say(`${t.label} is up to date (version ${report.remoteVersion}).`)
		say(`${report.dryRun ? 'Would pull' : green('Pulled')} ${t.label} version ${report.remoteVersion}: ${summary(report)}.`)
		if (report.backups) say(dim(`Previous copies are in ${report.backups}`))
	})
}

/** Prints a run (lines, or JSON) and throws its failure: exit 3 for a conflict. */
function finish(report: Report, asJson: boolean | undefined, text: () => void): void {
	if (asJson) json(reportJson(report))
	else {
		printLines(report)
		text()
	}
	const problem = outcomeFailure(report)
	if (problem) throw problem
}

export const RESOLVE_HELP = `cfgsync resolve TOOL [-n|--name N] [--team SLUG] --mine|--theirs [-y|--yes] [PATH...]

Settles the conflicts of a config (all of them, or the PATHs'). --theirs
writes the server's side here (the current file is backed up first); --mine
keeps this machine's side, to be sent by the next push. In a JSON file only
the clashing keys take the chosen side; the other changes of both sides stay.
Named PATHs that are not in conflict take the chosen side too.`

export async function resolve(args: string[]) {
	const { values, positionals } = parse('resolve', args, { ...TARGET, mine: { type: 'boolean' }, theirs: { type: 'boolean' }, ...YES })
	const tool = toolArg(positionals[0], 'resolve')
	if (Boolean(values.mine) === Boolean(values.theirs)) throw new CliFailure('choose one side: cfgsync resolve TOOL --mine (keep this machine\'s) or --theirs (take the server\'s)', EXIT.usage)
	const side = values.mine ? ('mine' as const) : ('theirs' as const)
	const named = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const report = await withLock('resolve', () => runOne(s, t, { mode: 'resolve', choose: { side, keys: named }, yes: values.yes }))
	finish(report, values.json, () => {
		if (report.settled.length === 0) return say(`Nothing to resolve in ${t.label}: no conflicts${named ? ' in those files' : ''}.`)
		say(
			side === 'theirs'
				? `Took the server's side in ${t.label}.${report.backups ? ` The previous files are in ${report.backups}` : ''}`
				: `Kept this machine's side in ${t.label}. Send it with: cfgsync push ${tool}${t.args}`
		)
	})
}

export const SYNC_HELP = `cfgsync sync [TOOL] [-n|--name N] [--team SLUG] [-y|--yes] [--allow-secrets] [--dry-run]

Every config this machine syncs (or TOOL's), in one go: writes what changed
on the server, merges JSON files changed on both sides, and pushes what
changed here. A config with a conflict is pulled but not pushed (exit 3)
until you choose with cfgsync resolve.`

/** The configs a command covers: those this machine syncs, or the one named. */
export async function targetsFor(s: Session, command: string, positionals: string[], values: { name?: string; team?: string }): Promise<Target[]> {
	if (positionals[0] !== undefined && !values.name && !values.team) {
		const tool = toolArg(positionals[0], command)
		const synced = allStates(s.server, await s.username()).filter((state) => state.tool === tool)
		return synced.length > 0 ? synced.map((state) => targetOf(s, state)) : [await resolveTarget(s, tool, values)]
	}
	if (positionals[0] !== undefined) return [await resolveTarget(s, toolArg(positionals[0], command), values)]
	if (values.name || values.team) throw new CliFailure(`--name and --team need a TOOL: cfgsync ${command} TOOL --name N --team SLUG`, EXIT.usage)
	return allStates(s.server, await s.username()).map((state) => targetOf(s, state))
}

export async function sync(args: string[]) {
	const { values, positionals } = parse('sync', args, { ...TARGET, ...YES, 'allow-secrets': { type: 'boolean' }, 'dry-run': { type: 'boolean' } })
	noMore(positionals, 1, 'sync')
	const s = session(values)
	const targets = await targetsFor(s, 'sync', positionals, values)
	if (targets.length === 0) {
		if (values.json) return json([])
		return say('This machine syncs no config yet: cfgsync push TOOL (first machine) or cfgsync pull TOOL (the others).')
	}
	const failures: CliFailure[] = []
	const documents: unknown[] = []
	const runAll = async () => {
		for (const t of targets) {
			try {
				const report = await runOne(s, t, { mode: 'sync', yes: values.yes, allowSecrets: values['allow-secrets'], dryRun: values['dry-run'] })
				if (values.json) documents.push(reportJson(report))
				else {
					say(`${t.label}:`)
					printLines(report)
					const pushed = report.pushed ? `; pushed version ${report.pushed.version}` : ''
					say(`  ${report.dryRun ? 'would sync' : 'synced'}: ${summary(report)}${pushed}.`)
				}
				const problem = outcomeFailure(report)
				if (problem) failures.push(problem)
			} catch (error) {
				if (!(error instanceof CliFailure) || error.exitCode === EXIT.auth) throw error
				failures.push(error)
				if (values.json) documents.push({ config: { tool: t.tool, name: t.name, team: t.team ?? t.teamId ?? null }, error: error.message, code: error.code })
				else warn(`${t.label}: ${error.message}`)
			}
		}
	}
	if (values['dry-run']) await runAll()
	else await withLock('sync', runAll)
	if (values.json) json(documents)
	const problem = worst(failures)
	if (problem) throw new CliFailure(failures.length === 1 ? problem.message : `${failures.length} configs need attention (see above); the first: ${problem.message}`, problem.exitCode, problem.code)
}

export const STATUS_HELP = `cfgsync status [TOOL] [-n|--name N] [--team SLUG]

Each config this machine syncs (or TOOL's): in sync, local changes (push
sends them), remote changes (pull writes them), local and remote changes
(sync does both), or conflict (resolve settles it), with the files concerned.
Nothing is changed. Exit status: 0 when everything is in sync, 3 when any
config has a conflict, 1 otherwise (changes waiting, or an error), 4 when
not logged in.`

export async function status(args: string[]) {
	const { values, positionals } = parse('status', args, { ...TARGET })
	noMore(positionals, 1, 'status')
	const s = session(values)
	const targets = await targetsFor(s, 'status', positionals, values)
	const rows: { t: Target; standing: Standing | 'not on the server'; remote?: Remote; base?: number; files: { key: string; verdict: string; detail?: string }[] }[] = []
	for (const t of targets) {
		const state = getState(t.key)
		const remote = (await fetchRemote(s, t)) as Remote | undefined
		const { keys: scope } = scopeFor(t.tool, { base: state?.files, remote: remote?.files })
		const sides = { base: remote ? state?.files : undefined, local: readLocal(scope), remote: remote?.files, scope }
		const decisions = decide(sides, fileHash).decisions.filter((d) => d.verdict.kind !== 'same')
		rows.push({
			t,
			standing: remote ? standing(decisions) : 'not on the server',
			remote,
			base: state?.version,
			files: decisions.map((d) => ({ key: d.key, verdict: d.verdict.kind, detail: d.verdict.kind === 'conflict' ? conflictText(d) : undefined }))
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
		const word: Record<string, string> = { local: 'changed here', remote: 'changed on the server', merged: 'changed on both sides, merges cleanly', conflict: 'conflict' }
		for (const r of rows) {
			const colour = r.standing === 'in sync' ? green : r.standing === 'conflict' ? red : (text: string) => text
			say(`${r.t.label}: ${colour(r.standing)} (synced version ${r.base ?? 'none'}, server version ${r.remote?.version ?? 'none'})`)
			for (const f of r.files) say(`  ${safe(shown(f.key))}: ${f.detail ? `conflict: ${f.detail}` : (word[f.verdict] ?? f.verdict)}`)
		}
	}
	if (rows.some((r) => r.standing === 'conflict')) throw new CliFailure(`a config has a conflict: cfgsync resolve TOOL --mine|--theirs settles it`, EXIT.conflict)
	if (rows.some((r) => r.standing !== 'in sync')) {
		process.exitCode = EXIT.error
	}
}

/** One version by number: versions below V+1, at most one. */
async function versionByNumber(s: Session, configId: string, number: number, t: Target): Promise<ConfigVersion> {
	const found = (await s.run((api) => api.configs.versions(configId, { limit: 1, before: number + 1 })))[0]
	if (!found || found.version !== number) throw new CliFailure(`${t.label} has no version ${number}`)
	return found
}

function asNumber(value: string | undefined, flag: string): number | undefined {
	if (value === undefined) return undefined
	const number = Number(value)
	if (!Number.isInteger(number) || number < 1) throw new CliFailure(`${flag} takes a version number (1, 2, …)`, EXIT.usage)
	return number
}

export const DIFF_HELP = `cfgsync diff TOOL [-n|--name N] [--team SLUG] [--version V] [--from A] [--exit-code] [--no-pager] [PATH...]

A unified diff of the server's current version (or version V) against the
files here. With --from A, between the server's versions A and V (or
current). Invisible differences show: a BOM as \\u{feff}, a CR as \\r.
--exit-code: exit 1 when there are differences. On a terminal, a diff longer
than the screen goes through a pager (CFGSYNC_PAGER, PAGER, else less);
--no-pager prints it directly.`

const filesOf = (data: unknown, what: string): Record<string, string> => {
	const set = asFileSet(data)
	if (!set) throw new CliFailure(`${what} is not a set of files`)
	return neutralFiles(set.files, platform()).files
}

export async function diff(args: string[]) {
	const { values, positionals } = parse('diff', args, { ...TARGET, version: { type: 'string' }, from: { type: 'string' }, 'exit-code': { type: 'boolean' }, 'no-pager': { type: 'boolean' } })
	const tool = toolArg(positionals[0], 'diff')
	const named = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	const toNumber = asNumber(values.version, '--version')
	const fromNumber = asNumber(values.from, '--from')
	if (fromNumber !== undefined && named) throw new CliFailure('--from compares two versions on the server: PATHs do not apply', EXIT.usage)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const serverSide = toNumber === undefined ? latest : await versionByNumber(s, latest.id, toNumber, t)
	const newer = filesOf(serverSide.data, `${t.label} on the server`)
	let before: Record<string, string>
	let after: Record<string, string>
	let labels: [string, string]
	if (fromNumber !== undefined) {
		before = filesOf((await versionByNumber(s, latest.id, fromNumber, t)).data, `version ${fromNumber} of ${t.label}`)
		after = newer
		labels = [`v${fromNumber}`, `v${serverSide.version}`]
	} else {
		const state = getState(t.key)
		const scope = scopeFor(tool, { named, base: state?.files, remote: newer })
		const keys = named ? scope.keys : [...new Set([...scope.keys, ...Object.keys(newer).filter((key) => !scope.excluded.some((dir) => key.startsWith(`${dir}/`)))])]
		before = Object.fromEntries(Object.entries(newer).filter(([key]) => keys.includes(key)))
		after = readLocal(keys.filter((key) => localKey(key) !== undefined))
		labels = [`server v${serverSide.version}`, 'local']
	}
	const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort()
	const patches = keys
		.filter((key) => ownValue(before, key) !== ownValue(after, key))
		.map((key) => ({ key, patch: createTwoFilesPatch(`a/${shown(key)}`, `b/${shown(key)}`, visible(ownValue(before, key) ?? ''), visible(ownValue(after, key) ?? ''), labels[0], labels[1]) }))
	if (values.json) json({ from: labels[0], to: labels[1], patches: patches.map((p) => ({ path: p.key, file: shown(p.key), patch: p.patch })) })
	else if (patches.length === 0) say(`No differences between ${labels[0]} and ${labels[1]}.`)
	else {
		const out: string[] = []
		for (const { patch } of patches) {
			for (const line of patch.split('\n')) {
				if (line.startsWith('===')) continue
				const text = safe(line)
				out.push(line.startsWith('+') && !line.startsWith('+++') ? green(text) : line.startsWith('-') && !line.startsWith('---') ? red(text) : line.startsWith('@@') ? dim(text) : text)
			}
		}
		await page(`${out.join('\n')}\n`, { noPager: values['no-pager'] })
	}
	if (values['exit-code'] && patches.length > 0) process.exitCode = EXIT.error
}

/** Content with invisible differences made visible line by line (a BOM, a CR before the newline), so a diff never looks empty. */
const visible = (content: string): string => content.replace(/^\uFEFF/, '\\u{feff}').replace(/\r\n/g, '\\r\n')

export const LIST_HELP = `cfgsync list [--team SLUG]

Your configs on the server, or a team's: tool, name, version, and when it was last pushed.`

export async function list(args: string[]) {
	const { values, positionals } = parse('list', args, { ...TEAM })
	noMore(positionals, 0, 'list')
	const s = session(values)
	const id = await teamId(s, values.team)
	const configs = await s.run((api) => api.configs.list({ teamId: id }))
	if (values.json) return json(configs)
	if (configs.length === 0) return say(values.team ? `Team ${safe(values.team)} has no configs yet.` : 'No configs yet: cfgsync push TOOL.')
	table(['TOOL', 'NAME', 'VERSION', 'UPDATED'], configs.map((c) => [safe(c.tool), safe(c.name), String(c.version), ago(c.updatedAt)]))
}

interface Author {
	username: string | null
	device: string | null
	/** Set for a rollback: the version it restored. */
	rollbackTo: number | null
}

const AUDIT_PAGE = 200
const AUDIT_PAGES = 10

/**
 * Who pushed each version, from the audit log (CONTRACT §10: a push's event
 * names the config, the version and the actor's device). Your own log for a
 * personal config; the team's for a team config, which only its owners and
 * admins may read: members get a note instead.
 */
async function whoPushed(s: Session, t: Target, configId: string, versions: ConfigVersion[]): Promise<{ by: Map<number, Author>; note: string | null }> {
	const by = new Map<number, Author>()
	if (versions.length === 0) return { by, note: null }
	const oldest = versions.reduce((min, v) => (v.createdAt < min ? v.createdAt : min), versions[0]?.createdAt as string)
	for (const type of ['config.pushed', 'config.rolled_back'] as const) {
		let before: string | undefined
		for (let pages = 0; pages < AUDIT_PAGES; pages++) {
			let events: AuditEventView[]
			try {
				events = await s.api.audit.list({ type, limit: AUDIT_PAGE, before }, t.team || undefined)
			} catch (error) {
				if (error instanceof ApiError && error.code === 'forbidden') {
					return { by, note: `Who pushed each version is in the audit log of team ${t.team}, which only its owners and admins can read.` }
				}
				if (error instanceof ApiError && error.code === 'not_found' && !t.team) return { by, note: `${s.server} keeps no audit log, so who pushed each version is not known.` }
				if (error instanceof ApiError) throw failure(error, { server: s.server, what: t.team ? `Team "${t.team}"` : undefined })
				throw error
			}
			for (const event of events) {
				const version = event.details.version
				if (event.target?.id !== configId || typeof version !== 'number' || by.has(version)) continue
				const restored = event.details.restored
				by.set(version, { username: event.actor.username, device: event.actor.device, rollbackTo: typeof restored === 'number' ? restored : null })
			}
			const last = events[events.length - 1]
			if (!last || events.length < AUDIT_PAGE || last.at < oldest || versions.every((v) => by.has(v.version))) break
			before = last.id
		}
	}
	const unknown = versions.filter((v) => !by.has(v.version))
	const note =
		unknown.length > 0
			? `${unknown.length === versions.length ? 'No version is' : `Version${unknown.length === 1 ? '' : 's'} ${unknown.map((v) => v.version).join(', ')} ${unknown.length === 1 ? 'is' : 'are'}`} not in the audit log: older than it keeps (365 days by default), or pushed before the server recorded who pushed.`
			: null
	return { by, note }
}

export const HISTORY_HELP = `cfgsync history TOOL [-n|--name N] [--team SLUG] [--limit N]

Versions of a config, newest first (Pro and Team plans): when each was
pushed, who pushed it from which device (from the audit log: yours for a
personal config; a team's only for its owners and admins, so a team member
sees times but not authors), and how many files it holds.`

export async function history(args: string[]) {
	const { values, positionals } = parse('history', args, { ...TARGET, limit: { type: 'string' } })
	const tool = toolArg(positionals[0], 'history')
	noMore(positionals, 1, 'history')
	const limit = asNumber(values.limit ?? '20', '--limit')
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const versions = await s.run((api) => api.configs.versions(latest.id, { limit }))
	const { by, note } = await whoPushed(s, t, latest.id, versions)
	const fileList = (v: ConfigVersion) => Object.keys(asFileSet(v.data)?.files ?? {}).sort()
	if (values.json) {
		return json({
			config: { tool, name: t.name, team: t.team ?? null },
			versions: versions.map((v) => ({ id: v.id, version: v.version, hash: v.hash, createdAt: v.createdAt, isCurrent: v.isCurrent, files: fileList(v), pushedBy: by.get(v.version) ?? null })),
			note
		})
	}
	const author = (a: Author | undefined) => (a ? `${safe(a.username ?? '(removed user)')}${a.device ? ` on ${safe(a.device)}` : ''}${a.rollbackTo !== null ? ` (rollback to ${a.rollbackTo})` : ''}` : '?')
	table(
		['VERSION', 'PUSHED', 'BY', 'FILES', ''],
		versions.map((v) => [String(v.version), ago(v.createdAt), author(by.get(v.version)), String(fileList(v).length), v.isCurrent ? '(current)' : ''])
	)
	if (note) say(dim(note))
}

export const ROLLBACK_HELP = `cfgsync rollback TOOL [-n|--name N] [--team SLUG] --to VERSION

Makes a new version holding VERSION's content (Pro and Team plans; admins for team configs).`

export async function rollback(args: string[]) {
	const { values, positionals } = parse('rollback', args, { ...TARGET, to: { type: 'string' } })
	const tool = toolArg(positionals[0], 'rollback')
	noMore(positionals, 1, 'rollback')
	const to = asNumber(values.to, '--to')
	if (to === undefined) throw new CliFailure('which version? cfgsync rollback TOOL --to VERSION (see cfgsync history TOOL)', EXIT.usage)
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const target = await versionByNumber(s, latest.id, to, t)
	const rolled = await s.run((api) => api.configs.rollback(latest.id, { versionId: target.id }))
	if (values.json) return json(rolled)
	say(`${green('Rolled back')} ${t.label}: version ${rolled.version} now holds what version ${to} held. Run cfgsync pull ${tool}${t.args} to apply it here.`)
}

export const DELETE_HELP = `cfgsync delete TOOL [-n|--name N] [--team SLUG] [-y|--yes]

Deletes a config and all its versions from the server (a team's: owners and
admins). Asks first (y/N) on a terminal; without one it needs --yes. The
files on this machine stay as they are, and this machine stops syncing the
config; on other machines, sync says it is gone.`

export async function deleteConfig(args: string[]) {
	const { values, positionals } = parse('delete', args, { ...TARGET, ...YES })
	const tool = toolArg(positionals[0], 'delete')
	noMore(positionals, 1, 'delete')
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const count = Object.keys(asFileSet(latest.data)?.files ?? {}).length
	await confirm(
		`Delete ${t.label} (version ${latest.version}, ${count} file${count === 1 ? '' : 's'}) from ${s.server}, with all its versions? This cannot be undone`,
		`cfgsync delete ${tool}${t.args}`,
		values.yes
	)
	await s.run((api) => api.configs.remove(latest.id), t.label)
	const synced = getState(t.key) !== undefined
	if (synced) await withLock('delete', async () => forgetState(t.key))
	if (values.json) return json({ deleted: { id: latest.id, tool, name: t.name, team: t.team ?? null, version: latest.version } })
	say(`Deleted ${t.label} from ${s.server}.${synced ? ' Its files on this machine are untouched, and this machine no longer syncs it.' : ''}`)
}
