import { createTwoFilesPatch } from 'diff'
import { join } from 'node:path'
import { contentHash } from '../../lib/content-hash'
import { DEFAULT_CONFIG_NAME, type Tool } from '../../lib/constants'
import { ApiError, query, type ConfigSummary, type ConfigVersion, type LatestConfig, type PushResult, type RolledBack } from '../api'
import { parse, session, teamId, tool as toolArg, type Session } from '../context'
import { asFileSet, collect, fileHash, readText, safeTarget, writeWithBackup, type FileSet } from '../files'
import { CliFailure, dim, explain, green, json, red, say, table, warn, yellow } from '../output'
import { backupsDir, getState, setState, stateKey, type SyncState } from '../state'
import { homeRelative, knownFiles } from '../tools'

const TARGET = { name: { type: 'string' }, team: { type: 'string' } } as const

interface Target {
	tool: Tool
	name: string
	teamId?: string
	key: string
	label: string
	latestPath: string
}

async function resolveTarget(s: Session, tool: Tool, values: { name?: string; team?: string }): Promise<Target> {
	const name = values.name ?? DEFAULT_CONFIG_NAME
	const id = await teamId(s, values.team)
	return {
		tool,
		name,
		teamId: id,
		key: stateKey({ server: s.server, username: await s.username(), teamId: id, tool, name }),
		label: `${tool}/${name}${values.team ? ` of team ${values.team}` : ''}`,
		latestPath: `/api/configs/latest${query({ name, tool, teamId: id })}`
	}
}

/** Home-relative keys for PATH arguments; a path outside home cannot be synced. */
function pathKeys(paths: string[]): string[] {
	return paths.map((path) => {
		const key = homeRelative(path)
		if (key === undefined) throw new CliFailure(`${path} is not inside your home directory; only files under home are synced`, 2)
		return key
	})
}

const hashesOf = (set: FileSet) => Object.fromEntries(Object.entries(set.files).map(([key, content]) => [key, fileHash(content)]))
const now = () => new Date().toISOString()
const staleMessage = (t: Target, version: unknown) =>
	`The server has version ${version ?? 'a newer version'} of ${t.label}, which this machine has not pulled. Run cfgsync pull ${t.tool}${t.name === DEFAULT_CONFIG_NAME ? '' : ` --name ${t.name}`} to get it (local edits are kept), or push again with --force to replace it.`

export const PUSH_HELP = `cfgsync push TOOL [--name N] [--team SLUG] [--force] [PATH...]

Sends TOOL's configuration files (its well-known files, or the PATHs given)
as {"files": {"<path relative to home>": "<content>"}}. Nothing is sent when
the server already has exactly this. The push names the version this machine
last synced (If-Match), so it never silently replaces a newer version pushed
from another machine; --force replaces it anyway.`

export async function push(args: string[]) {
	const { values, positionals } = parse('push', args, { ...TARGET, force: { type: 'boolean' } })
	const tool = toolArg(positionals[0], 'push')
	const s = session(values.server)
	const t = await resolveTarget(s, tool, values)
	const keys = positionals.length > 1 ? pathKeys(positionals.slice(1)) : knownFiles(tool)
	const set = collect(keys)
	const count = Object.keys(set.files).length
	if (count === 0) throw new CliFailure(`no ${tool} configuration files found (looked for ${keys.map((k) => `~/${k}`).join(', ')})`)
	const hash = contentHash(set)
	const state = getState(t.key)
	const remember = (version: number): SyncState => ({ hash, version, files: hashesOf(set), syncedAt: now() })

	// Where the server stands; a 304 means it already has exactly this content.
	const latest = await s.run((api) => api.call<LatestConfig>('GET', t.latestPath, { headers: { 'if-none-match': `"${hash}"` }, ok: [404] }))
	if (latest.status === 304) {
		setState(t.key, remember(state?.version ?? 0))
		if (values.json) return json({ pushed: false, upToDate: true, hash })
		return say(`${t.label} is already up to date on the server; nothing sent.`)
	}
	const headers: Record<string, string> = {}
	if (!values.force) {
		if (latest.status === 404) headers['if-none-match'] = '*'
		else if (!state || state.hash !== latest.body.hash) throw new CliFailure(staleMessage(t, latest.body.version))
		else headers['if-match'] = `"${state.hash}"`
	}
	const body = { name: t.name, tool, data: set, ...(t.teamId ? { teamId: t.teamId } : {}) }
	const size = JSON.stringify(set).length
	const showProgress = size > 64 * 1024 && process.stderr.isTTY && !values.json
	if (showProgress) process.stderr.write(`Pushing ${Math.round(size / 1024)} KiB… `)
	let result: PushResult
	try {
		result = (await s.api.call<PushResult>('POST', '/api/configs', { body, headers })).body
	} catch (error) {
		if (showProgress) process.stderr.write('\n')
		if (error instanceof ApiError && error.code === 'precondition_failed') throw new CliFailure(staleMessage(t, error.body.currentVersion))
		if (error instanceof ApiError) throw new CliFailure(explain(error, { server: s.server, what: values.team ? `Team "${values.team}"` : undefined }))
		throw error
	}
	if (showProgress) process.stderr.write('done\n')
	const version = result.version ?? state?.version ?? 0
	setState(t.key, remember(version))
	if (values.json) return json({ pushed: !result.noChange, version, hash, files: Object.keys(set.files) })
	if (result.noChange) return say(`${t.label} is already up to date on the server.`)
	say(`${green('Pushed')} ${t.label} as version ${version} (${count} file${count === 1 ? '' : 's'}: ${Object.keys(set.files).map((k) => `~/${k}`).join(', ')}).`)
}

export const PULL_HELP = `cfgsync pull TOOL [--name N] [--team SLUG] [--dry-run] [--force] [PATH...]

Writes the server's version of TOOL's files back and prints what changed. A
file edited here since the last push or pull is kept unless --force; every
file that is overwritten is first copied to $XDG_STATE_HOME/cfgsync/backups/.
Only TOOL's well-known files, files this machine already syncs, or the PATHs
given are written, and never outside your home directory.`

type Change = { key: string; kind: 'created' | 'updated' | 'unchanged' | 'kept' | 'skipped'; why?: string }

export async function pull(args: string[]) {
	const { values, positionals } = parse('pull', args, { ...TARGET, force: { type: 'boolean' }, 'dry-run': { type: 'boolean' } })
	const tool = toolArg(positionals[0], 'pull')
	const s = session(values.server)
	const t = await resolveTarget(s, tool, values)
	const only = positionals.length > 1 ? pathKeys(positionals.slice(1)) : undefined
	const state = getState(t.key)
	const headers: Record<string, string> = state && !values.force && !only ? { 'if-none-match': `"${state.hash}"` } : {}
	const latest = await s.run((api) => api.call<LatestConfig>('GET', t.latestPath, { headers }), t.label)
	if (latest.status === 304) {
		if (values.json) return json({ upToDate: true, version: state?.version })
		return say(`${t.label} is up to date (version ${state?.version}).`)
	}
	const set = asFileSet(latest.body.data)
	if (!set) throw new CliFailure(`${t.label} on the server is not a set of files (it was not pushed by cfgsync push); nothing written`)

	const allowed = new Set(only ?? [...knownFiles(tool), ...Object.keys(state?.files ?? {})])
	const changes: Change[] = []
	const writes: [string, string][] = []
	const entries = Object.entries(set.files).sort(([a], [b]) => a.localeCompare(b))
	// Every path is checked before anything is written: one unsafe path refuses the whole pull.
	for (const [key] of entries) safeTarget(key)
	for (const [key, content] of entries) {
		if (!allowed.has(key)) {
			changes.push({ key, kind: 'skipped', why: only ? 'not among the PATHs given' : `not a ${tool} file this machine syncs; name it to pull it: cfgsync pull ${tool} ~/${key}` })
			continue
		}
		const local = readText(key)
		if (local === content) changes.push({ key, kind: 'unchanged' })
		else if (local !== undefined && !values.force && state?.files[key] !== fileHash(local)) changes.push({ key, kind: 'kept', why: 'edited here since the last sync' })
		else {
			changes.push({ key, kind: local === undefined ? 'created' : 'updated' })
			writes.push([key, content])
		}
	}

	const backupRoot = join(backupsDir(), now().replace(/[:.]/g, '-'))
	let backedUp = 0
	if (!values['dry-run']) {
		for (const [key, content] of writes) if (writeWithBackup(key, content, backupRoot).backedUp) backedUp++
		const files: Record<string, string> = { ...(state?.files ?? {}) }
		for (const change of changes) {
			if (change.kind === 'created' || change.kind === 'updated' || change.kind === 'unchanged') files[change.key] = fileHash(set.files[change.key] as string)
		}
		setState(t.key, { hash: latest.body.hash, version: latest.body.version, files, syncedAt: now() })
	}
	const kept = changes.filter((c) => c.kind === 'kept')
	if (values.json) {
		json({ version: latest.body.version, dryRun: Boolean(values['dry-run']), changes, backups: backedUp > 0 ? backupRoot : undefined })
	} else {
		const mark = { created: green('+'), updated: yellow('~'), unchanged: dim('='), kept: red('!'), skipped: dim('-') }
		for (const change of changes) say(`  ${mark[change.kind]} ~/${change.key} (${change.kind}${change.why ? `: ${change.why}` : ''})`)
		const count = (kind: Change['kind']) => changes.filter((c) => c.kind === kind).length
		const summary = `${count('created')} created, ${count('updated')} updated, ${count('unchanged')} unchanged${kept.length ? `, ${kept.length} kept` : ''}`
		say(`${values['dry-run'] ? 'Would pull' : green('Pulled')} ${t.label} version ${latest.body.version}: ${summary}.`)
		if (backedUp > 0) say(dim(`Previous copies of ${backedUp} file${backedUp === 1 ? '' : 's'} are in ${backupRoot}`))
	}
	if (kept.length > 0) {
		throw new CliFailure(`${kept.length} file${kept.length === 1 ? ' was' : 's were'} edited here since the last sync and not overwritten: ${kept.map((c) => `~/${c.key}`).join(', ')}. Push them, or pull with --force to take the server's version (the current files are backed up first).`)
	}
}

/** One version by number: versions below V+1, at most one. */
async function versionByNumber(s: Session, configId: string, number: number, t: Target): Promise<ConfigVersion> {
	const found = (await s.run((api) => api.call<ConfigVersion[]>('GET', `/api/configs/${configId}/versions${query({ limit: 1, before: number + 1 })}`))).body[0]
	if (!found || found.version !== number) throw new CliFailure(`${t.label} has no version ${number}`)
	return found
}

function asNumber(value: string | undefined, flag: string): number | undefined {
	if (value === undefined) return undefined
	const number = Number(value)
	if (!Number.isInteger(number) || number < 1) throw new CliFailure(`${flag} takes a version number (1, 2, …)`, 2)
	return number
}

export const DIFF_HELP = `cfgsync diff TOOL [--name N] [--team SLUG] [--version V] [--from A] [PATH...]

A unified diff of the server's current version (or version V) against the
files here. With --from A, between the server's versions A and V (or current).`

export async function diff(args: string[]) {
	const { values, positionals } = parse('diff', args, { ...TARGET, version: { type: 'string' }, from: { type: 'string' } })
	const tool = toolArg(positionals[0], 'diff')
	const s = session(values.server)
	const t = await resolveTarget(s, tool, values)
	const latest = (await s.run((api) => api.call<LatestConfig>('GET', t.latestPath), t.label)).body
	const toNumber = asNumber(values.version, '--version')
	const fromNumber = asNumber(values.from, '--from')
	const serverSide = toNumber === undefined ? latest : await versionByNumber(s, latest.id, toNumber, t)
	const newer = asFileSet(serverSide.data)
	if (!newer) throw new CliFailure(`${t.label} on the server is not a set of files`)
	let before: FileSet
	let after: FileSet
	let labels: [string, string]
	if (fromNumber !== undefined) {
		const older = asFileSet((await versionByNumber(s, latest.id, fromNumber, t)).data)
		if (!older) throw new CliFailure(`version ${fromNumber} of ${t.label} is not a set of files`)
		before = older
		after = newer
		labels = [`v${fromNumber}`, `v${serverSide.version}`]
	} else {
		const keys = positionals.length > 1 ? pathKeys(positionals.slice(1)) : [...new Set([...knownFiles(tool), ...Object.keys(newer.files)])]
		before = { files: Object.fromEntries(Object.entries(newer.files).filter(([key]) => keys.includes(key))) }
		after = collect(keys)
		labels = [`server v${serverSide.version}`, 'local']
	}
	const keys = [...new Set([...Object.keys(before.files), ...Object.keys(after.files)])].sort()
	const patches = keys
		.filter((key) => before.files[key] !== after.files[key])
		.map((key) => createTwoFilesPatch(`a/${key}`, `b/${key}`, before.files[key] ?? '', after.files[key] ?? '', labels[0], labels[1]))
	if (values.json) return json({ from: labels[0], to: labels[1], patches })
	if (patches.length === 0) return say(`No differences between ${labels[0]} and ${labels[1]}.`)
	for (const patch of patches) {
		for (const line of patch.split('\n')) {
			if (line.startsWith('===')) continue
			say(line.startsWith('+') && !line.startsWith('+++') ? green(line) : line.startsWith('-') && !line.startsWith('---') ? red(line) : line.startsWith('@@') ? dim(line) : line)
		}
	}
}

export async function list(args: string[]) {
	const { values } = parse('list', args, { team: { type: 'string' } })
	const s = session(values.server)
	const id = await teamId(s, values.team)
	const configs = (await s.run((api) => api.call<ConfigSummary[]>('GET', `/api/configs${query({ teamId: id })}`))).body
	if (values.json) return json(configs)
	if (configs.length === 0) return say(values.team ? `Team ${values.team} has no configs yet.` : 'No configs yet: cfgsync push TOOL.')
	table(['TOOL', 'NAME', 'VERSION', 'UPDATED'], configs.map((c) => [c.tool, c.name, String(c.version), c.updatedAt]))
}

export async function history(args: string[]) {
	const { values, positionals } = parse('history', args, { ...TARGET, limit: { type: 'string' } })
	const tool = toolArg(positionals[0], 'history')
	const s = session(values.server)
	const t = await resolveTarget(s, tool, values)
	const latest = (await s.run((api) => api.call<LatestConfig>('GET', t.latestPath), t.label)).body
	const limit = asNumber(values.limit ?? '20', '--limit')
	const versions = (await s.run((api) => api.call<ConfigVersion[]>('GET', `/api/configs/${latest.id}/versions${query({ limit })}`))).body
	if (values.json) return json(versions.map(({ data, ...version }) => ({ ...version, files: Object.keys(asFileSet(data)?.files ?? {}) })))
	table(
		['VERSION', 'CREATED', 'HASH', 'FILES', ''],
		versions.map((v) => [String(v.version), v.createdAt, v.hash.slice(0, 12), String(Object.keys(asFileSet(v.data)?.files ?? {}).length), v.isCurrent ? '(current)' : ''])
	)
}

export async function rollback(args: string[]) {
	const { values, positionals } = parse('rollback', args, { ...TARGET, to: { type: 'string' } })
	const tool = toolArg(positionals[0], 'rollback')
	const to = asNumber(values.to, '--to')
	if (to === undefined) throw new CliFailure('which version? cfgsync rollback TOOL --to VERSION (see cfgsync history TOOL)', 2)
	const s = session(values.server)
	const t = await resolveTarget(s, tool, values)
	const latest = (await s.run((api) => api.call<LatestConfig>('GET', t.latestPath), t.label)).body
	const target = await versionByNumber(s, latest.id, to, t)
	const rolled = (await s.run((api) => api.call<RolledBack>('POST', `/api/configs/${latest.id}/rollback`, { body: { versionId: target.id } }))).body
	if (values.json) return json(rolled)
	say(`${green('Rolled back')} ${t.label}: version ${rolled.version} now holds what version ${to} held. Run cfgsync pull ${tool}${t.name === DEFAULT_CONFIG_NAME ? '' : ` --name ${t.name}`} to apply it here.`)
	if (getState(t.key)) warn('This machine has not pulled it yet; pushing before pulling will be refused.')
}
