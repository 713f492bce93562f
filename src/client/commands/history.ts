import { ApiError, type AuditEventView, type ConfigVersion } from '../api'
import { noMore, type Session, tool as toolArg } from '../context'
import { asFileSet } from '../files'
import { failure, type Printer, safe } from '../output'
import { resolveTarget, type Target } from '../run'
import { defineCommand, type Input, TARGET, TOOL } from './command'
import { asNumber } from './common'

export interface Author {
	username: string | null
	device: string | null
	/** Set for a rollback: the version it restored. */
	rollbackTo: number | null
}

const AUDIT_PAGE = 200
const AUDIT_PAGES = 10

/** Who pushed each version, by version number, and a note when some (or all) cannot be known. */
export interface Authors {
	by: Map<number, Author>
	note: string | null
}

/** One page of the audit log's events of a type, or the note that says why it cannot be read. */
async function auditPage(
	s: Session,
	t: Target,
	type: 'config.pushed' | 'config.rolled_back',
	before: string | undefined
): Promise<AuditEventView[] | { note: string }> {
	try {
		return await s.api.audit.list({ type, limit: AUDIT_PAGE, before }, t.team || undefined)
	} catch (error) {
		if (error instanceof ApiError && error.code === 'forbidden')
			return {
				note: `Who pushed each version is in the audit log of team ${t.team}, which only its owners and admins can read.`
			}
		if (error instanceof ApiError && error.code === 'not_found' && !t.team)
			return { note: `${s.server} keeps no audit log, so who pushed each version is not known.` }
		if (error instanceof ApiError)
			throw failure(error, { server: s.server, what: t.team ? `Team "${t.team}"` : undefined })
		throw error
	}
}

/** Adds the authors a page of events names for this config's versions (the newest event of a version wins). */
export function addAuthors(by: Map<number, Author>, events: AuditEventView[], configId: string): void {
	for (const event of events) {
		const version = event.details.version
		if (event.target?.id !== configId || typeof version !== 'number' || by.has(version)) continue
		const restored = event.details.restored
		by.set(version, {
			username: event.actor.username,
			device: event.actor.device,
			rollbackTo: typeof restored === 'number' ? restored : null
		})
	}
}

/** Whether the next page may still name a version: this one was full, not older than the oldest, and some are unknown. */
export function morePages(
	events: AuditEventView[],
	oldest: string,
	versions: ConfigVersion[],
	by: Map<number, Author>
) {
	const last = events[events.length - 1]
	return (
		last !== undefined && events.length >= AUDIT_PAGE && last.at >= oldest && !versions.every((v) => by.has(v.version))
	)
}

/** The note on versions the audit log does not name. */
export function unknownNote(versions: ConfigVersion[], by: Map<number, Author>): string | null {
	const unknown = versions.filter((v) => !by.has(v.version))
	if (unknown.length === 0) return null
	const which =
		unknown.length === versions.length
			? 'No version is'
			: `Version${unknown.length === 1 ? '' : 's'} ${unknown.map((v) => v.version).join(', ')} ${unknown.length === 1 ? 'is' : 'are'}`
	return `${which} not in the audit log: older than it keeps (365 days by default), or pushed before the server recorded who pushed.`
}

/**
 * Who pushed each version, from the audit log (docs/api.md: a push's event
 * names the config, the version and the actor's device). Your own log for a
 * personal config; the team's for a team config, which only its owners and
 * admins may read: members get a note instead.
 */
async function whoPushed(s: Session, t: Target, configId: string, versions: ConfigVersion[]): Promise<Authors> {
	const by = new Map<number, Author>()
	if (versions.length === 0) return { by, note: null }
	// biome-ignore lint/complexity/useMathMinMax: ISO timestamps, compared as strings
	const oldest = versions.reduce((min, v) => (v.createdAt < min ? v.createdAt : min), versions[0]?.createdAt as string)
	for (const type of ['config.pushed', 'config.rolled_back'] as const) {
		let before: string | undefined
		for (let pages = 0; pages < AUDIT_PAGES; pages++) {
			const events = await auditPage(s, t, type, before)
			if (!Array.isArray(events)) return { by, note: events.note }
			addAuthors(by, events, configId)
			if (!morePages(events, oldest, versions, by)) break
			before = events[events.length - 1]?.id
		}
	}
	return { by, note: unknownNote(versions, by) }
}

export const HISTORY_HELP = `cfgsync history TOOL [-n|--name N] [--team SLUG] [--limit N]

Versions of a config, newest first (Pro and Team plans): when each was
pushed, who pushed it from which device (from the audit log: yours for a
personal config; a team's only for its owners and admins, so a team member
sees times but not authors), and how many files it holds.`

const options = { ...TARGET, limit: { type: 'string' } } as const

const fileList = (v: ConfigVersion) => Object.keys(asFileSet(v.data)?.files ?? {}).sort()

/** The versions as history --json prints them. */
export function historyJson(t: Target, versions: ConfigVersion[], { by, note }: Authors) {
	return {
		config: { tool: t.tool, name: t.name, team: t.team ?? null },
		versions: versions.map((v) => ({
			id: v.id,
			version: v.version,
			hash: v.hash,
			createdAt: v.createdAt,
			isCurrent: v.isCurrent,
			files: fileList(v),
			pushedBy: by.get(v.version) ?? null
		})),
		note
	}
}

/** Who pushed a version, in words. */
export const authorText = (a: Author | undefined) =>
	a
		? `${safe(a.username ?? '(removed user)')}${a.device ? ` on ${safe(a.device)}` : ''}${a.rollbackTo !== null ? ` (rollback to ${a.rollbackTo})` : ''}`
		: '?'

/** The table's rows: version, when, by whom, how many files, and which is current. */
export const historyRows = (out: Printer, versions: ConfigVersion[], by: Authors['by']) =>
	versions.map((v) => [
		String(v.version),
		out.ago(v.createdAt),
		authorText(by.get(v.version)),
		String(fileList(v).length),
		v.isCurrent ? '(current)' : ''
	])

async function run({ values, positionals, out, session }: Input<typeof options>) {
	const tool = toolArg(positionals[0], 'history')
	noMore(positionals, 1, 'history')
	const limit = asNumber(values.limit ?? '20', '--limit')
	const s = session(values)
	const t = await resolveTarget(s, tool, values)
	const latest = await s.run((api) => api.configs.latest(t.latest), t.label)
	const versions = await s.run((api) => api.configs.versions(latest.id, { limit }))
	const authors = await whoPushed(s, t, latest.id, versions)
	if (values.json) return out.json(historyJson(t, versions, authors))
	out.table(['VERSION', 'PUSHED', 'BY', 'FILES', ''], historyRows(out, versions, authors.by))
	if (authors.note) out.say(out.dim(authors.note))
}

export const history = defineCommand({
	name: 'history',
	group: 'Configs on the server',
	summary: 'versions, who pushed them and from which device (Pro and Team plans)',
	usage: ['history TOOL'],
	help: HISTORY_HELP,
	args: [TOOL],
	options,
	run
})
