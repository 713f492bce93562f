import type { AuditEventView } from '../api'
import { noMore } from '../context'
import { CliFailure, EXIT, safe } from '../output'
import type { AuditType } from '../../shared/api/audit-types'
import { defineCommand, type Input, TEAM } from './command'

export const LOG_HELP = `cfgsync log [--team SLUG] [--type TYPE] [--limit N] [--before ID]

The audit log, newest first: what you did and what was done to your
account (sign-ins and failed ones, keys issued and revoked, pushes,
rollbacks, deletions, invitations), or with --team a team's (owners and
admins only). --type keeps one kind of event (config.pushed, login.failed,
key.revoked, …); --limit N events per page (default 30, at most 200);
--before ID continues after the last event of the previous page.`

/** Short words for the event types a person reads most; the others are shown as they are named. */
const WORDS: Partial<Record<AuditType, string>> = {
	'login.succeeded': 'logged in',
	'login.failed': 'failed login',
	'key.issued': 'key issued',
	'key.revoked': 'key revoked',
	'key.renamed': 'device renamed',
	'keys.revoked': 'all keys revoked',
	'session.started': 'signed in (web)',
	'session.ended': 'signed out (web)',
	'password.changed': 'password changed',
	'config.pushed': 'pushed',
	'config.rolled_back': 'rolled back',
	'config.deleted': 'deleted config',
	'team.created': 'created team',
	'team.renamed': 'renamed team',
	'team.deleted': 'deleted team',
	'invitation.sent': 'invited',
	'invitation.changed': 'changed invitation',
	'invitation.accepted': 'accepted invitation',
	'invitation.declined': 'declined invitation',
	'invitation.cancelled': 'cancelled invitation',
	'member.role_changed': 'changed role',
	'member.removed': 'removed member',
	'member.left': 'left team'
}

const details = (event: AuditEventView): string =>
	Object.entries(event.details)
		.map(([key, value]) => `${safe(key)}=${safe(String(value))}`)
		.join(' ')

const options = {
	...TEAM,
	type: { type: 'string', completes: 'audit-type' },
	limit: { type: 'string' },
	before: { type: 'string' }
} as const

async function run({ values, positionals, out, session }: Input<typeof options>) {
	noMore(positionals, 0, 'log')
	const limit = Number(values.limit ?? '30')
	if (!Number.isInteger(limit) || limit < 1 || limit > 200)
		throw new CliFailure('--limit takes a number of events from 1 to 200', EXIT.usage)
	const s = session(values)
	let events: AuditEventView[]
	try {
		// --type goes to the server as typed: it answers an unknown type with the list of known ones.
		events = await s.run(
			(api) =>
				api.audit.list(
					{ limit, before: values.before, type: values.type as AuditType | undefined },
					values.team || undefined
				),
			values.team ? `Team "${values.team}"` : undefined
		)
	} catch (error) {
		if (error instanceof CliFailure && error.code === 'forbidden') {
			throw new CliFailure(
				`Not allowed: only the owners and admins of ${safe(values.team ?? '')} can read its audit log. Your own events: cfgsync log`,
				EXIT.error,
				'forbidden'
			)
		}
		throw error
	}
	if (values.json) return out.json(events)
	if (events.length === 0) return out.say(values.before ? 'No older events.' : 'No events.')
	out.table(
		['WHEN', 'WHO', 'DEVICE', 'EVENT', 'WHAT', 'FROM', 'DETAILS'],
		events.map((e) => [
			out.ago(e.at),
			safe(e.actor.username ?? '-'),
			safe(e.actor.device ?? '-'),
			WORDS[e.type] ?? safe(e.type),
			safe(e.target?.name ?? e.target?.type ?? ''),
			safe(e.address ?? ''),
			details(e)
		])
	)
	const last = events[events.length - 1]
	if (events.length === limit && last)
		out.say(
			out.dim(`Older events: cfgsync log${values.team ? ` --team ${safe(values.team)}` : ''} --before ${last.id}`)
		)
}

export const log = defineCommand({
	name: 'log',
	group: 'Other',
	summary: 'the audit log: sign-ins, keys, pushes, team changes',
	usage: ['log [--team SLUG]'],
	help: LOG_HELP,
	args: [],
	options,
	run
})
