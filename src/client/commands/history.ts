import { ApiError, type AuditEventView, type ConfigVersion } from '../api'
import { noMore, session, type Session, tool as toolArg } from '../context'
import { asFileSet } from '../files'
import { ago, dim, failure, json, safe, say, table } from '../output'
import { resolveTarget, type Target } from '../run'
import { defineCommand, type Input, TARGET, TOOL } from './command'
import { asNumber } from './common'

interface Author {
	username: string | null
	device: string | null
	/** Set for a rollback: the version it restored. */
	rollbackTo: number | null
}

const AUDIT_PAGE = 200
const AUDIT_PAGES = 10

/**
 * Who pushed each version, from the audit log (docs/api.md: a push's event
 * names the config, the version and the actor's device). Your own log for a
 * personal config; the team's for a team config, which only its owners and
 * admins may read: members get a note instead.
 */
async function whoPushed(
	s: Session,
	t: Target,
	configId: string,
	versions: ConfigVersion[]
): Promise<{ by: Map<number, Author>; note: string | null }> {
	const by = new Map<number, Author>()
	if (versions.length === 0) return { by, note: null }
	// biome-ignore lint/complexity/useMathMinMax: ISO timestamps, compared as strings
	const oldest = versions.reduce((min, v) => (v.createdAt < min ? v.createdAt : min), versions[0]?.createdAt as string)
	for (const type of ['config.pushed', 'config.rolled_back'] as const) {
		let before: string | undefined
		for (let pages = 0; pages < AUDIT_PAGES; pages++) {
			let events: AuditEventView[]
			try {
				events = await s.api.audit.list({ type, limit: AUDIT_PAGE, before }, t.team || undefined)
			} catch (error) {
				if (error instanceof ApiError && error.code === 'forbidden') {
					return {
						by,
						note: `Who pushed each version is in the audit log of team ${t.team}, which only its owners and admins can read.`
					}
				}
				if (error instanceof ApiError && error.code === 'not_found' && !t.team)
					return { by, note: `${s.server} keeps no audit log, so who pushed each version is not known.` }
				if (error instanceof ApiError)
					throw failure(error, { server: s.server, what: t.team ? `Team "${t.team}"` : undefined })
				throw error
			}
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

const options = { ...TARGET, limit: { type: 'string' } } as const

async function run({ values, positionals }: Input<typeof options>) {
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
		})
	}
	const author = (a: Author | undefined) =>
		a
			? `${safe(a.username ?? '(removed user)')}${a.device ? ` on ${safe(a.device)}` : ''}${a.rollbackTo !== null ? ` (rollback to ${a.rollbackTo})` : ''}`
			: '?'
	table(
		['VERSION', 'PUSHED', 'BY', 'FILES', ''],
		versions.map((v) => [
			String(v.version),
			ago(v.createdAt),
			author(by.get(v.version)),
			String(fileList(v).length),
			v.isCurrent ? '(current)' : ''
		])
	)
	if (note) say(dim(note))
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
