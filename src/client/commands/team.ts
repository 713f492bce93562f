import type { Invitation, TeamMember as Member, TeamDetail } from '../api'
import { confirm } from '../ask'
import type { Session } from '../context'
import { article, CliFailure, EXIT, safe } from '../output'
import { shellWord } from '../report'
import { withLock } from '../lock'
import { forgetTeam } from '../ownership'
import { renameTeamInStates } from '../state'
import { INVITED_ROLES, type InvitedRole, type Role, ROLES } from '../../shared/constants'
import {
	type Arg,
	defineCommand,
	type Input,
	overviewLines,
	runSubcommand,
	type Subcommand,
	subcommandLines,
	YES
} from './command'

const TEAM_ABOUT = `Teams and their members. LOGIN is a username or an email. Nobody joins
without accepting: invite sends an invitation (it expires after 7 days) and
the person runs cfgsync invitations accept SLUG. Owners invite admins and
members, admins invite members; role is for owners (also on a pending
invitation); remove takes a member out or cancels an invitation; a team
always keeps an owner. rename keeps the slug unless --slug is given (the old
one stays reserved for the team for 30 days). delete asks first (y/N), and
without a terminal needs --yes; the team disappears for every member at once
and is removed for good after 30 days; until then its owners can bring it
back, members, invitations and configs as they were, with restore.`

const teamWhat = (slug: string) => `Team "${slug}"`

const options = {
	role: {
		type: 'string',
		completes: 'invited-role',
		for: ['invite', 'add'],
		misplaced: `--role is for team invite (team role SLUG LOGIN ROLE changes a member's role)`
	},
	slug: { type: 'string', for: ['create', 'rename'], misplaced: '--slug is for team create and team rename' },
	...YES
} as const

type TeamInput = Input<typeof options>

async function list({ values, out, session }: TeamInput) {
	const s = session(values)
	const teams = await s.run((api) => api.teams.list())
	if (values.json) return out.json(teams)
	if (teams.length === 0)
		return out.say(
			'You are in no team. Create one (Team plan): cfgsync team create NAME; invitations you received: cfgsync invitations'
		)
	out.table(
		['SLUG', 'NAME', 'ROLE', 'CREATED'],
		teams.map((t) => [safe(t.slug), safe(t.name), safe(t.role), out.ago(t.createdAt)])
	)
}

async function create({ values, positionals, out, session }: TeamInput) {
	const name = positionals.join(' ').trim()
	const s = session(values)
	const created = await s.run((api) =>
		api.teams.create({ name, ...(values.slug !== undefined ? { slug: values.slug } : {}) })
	)
	if (values.json) return out.json(created)
	out.say(
		`${out.green('Created')} team "${safe(created.name)}" (${safe(created.slug)}); you are its owner. Invite people with: cfgsync team invite ${safe(created.slug)} LOGIN`
	)
}

async function show({ values, positionals, out, session }: TeamInput) {
	const s = session(values)
	const detail = await getTeam(s, positionals[0] as string)
	if (values.json) return out.json(detail)
	out.say(
		`${out.bold(safe(detail.name))} (${safe(detail.slug)}), created ${out.ago(detail.createdAt)}; you are ${article(safe(detail.userRole))}.`
	)
	out.say()
	out.table(
		['USERNAME', 'EMAIL', 'ROLE', 'JOINED'],
		detail.members.map((m) => [safe(m.username), safe(m.email), safe(m.role), out.ago(m.joinedAt)])
	)
	if (detail.invitations && detail.invitations.length > 0) {
		out.say()
		out.say('Invitations waiting for an answer:')
		out.table(
			['USERNAME', 'ROLE', 'INVITED BY', 'EXPIRES'],
			detail.invitations.map((i) => [safe(i.username), safe(i.role), safe(i.invitedBy), out.ago(i.expiresAt)])
		)
	}
}

async function invite({ values, positionals, out, session }: TeamInput) {
	const [slug, login] = positionals as [string, string]
	const role = values.role ?? 'member'
	// --role owner is a bad option value (exit 2): owners are made from members.
	if (!(INVITED_ROLES as readonly string[]).includes(role)) {
		throw new CliFailure(
			`--role takes admin or member${role === 'owner' ? ': nobody is invited as an owner; once they have joined, an owner makes them one with cfgsync team role SLUG LOGIN owner' : `, not "${safe(role)}"`}`,
			EXIT.usage
		)
	}
	const s = session(values)
	await getTeam(s, slug)
	let invitation: Invitation
	try {
		invitation = await s.run((api) => api.teams.invite(slug, { login, role: role as InvitedRole }), `User "${login}"`)
	} catch (error) {
		if (error instanceof CliFailure && error.code === 'conflict') {
			throw new CliFailure(
				`${error.message} To change the role of a member or of a pending invitation: cfgsync team role ${safe(slug)} ${shellWord(login)} ROLE`,
				EXIT.error,
				'conflict'
			)
		}
		throw error
	}
	if (values.json) return out.json(invitation)
	out.say(
		`${out.green('Invited')} ${safe(invitation.username)} to ${safe(slug)} as ${safe(invitation.role)}. They join once they accept: cfgsync invitations accept ${safe(slug)} (the invitation expires ${out.ago(invitation.expiresAt)}).`
	)
}

async function role({ values, positionals, out, session }: TeamInput) {
	const [slug, login, role] = positionals as [string, string, string]
	if (!(ROLES as readonly string[]).includes(role))
		throw new CliFailure(`the role is owner, admin or member, not "${safe(role)}"`, EXIT.usage)
	const s = session(values)
	const detail = await getTeam(s, slug)
	const found = findPerson(detail, login)
	if (found.kind === 'invitation' && role === 'owner') {
		throw new CliFailure(
			`${safe(found.invitation.username)} has not joined ${safe(slug)} yet: an invitation is for admin or member; make them an owner once they have accepted`,
			EXIT.usage
		)
	}
	const userId = found.kind === 'member' ? found.member.userId : found.invitation.userId
	const changed = await s.run((api) => api.teams.setRole(slug, userId, { role: role as Role }), teamWhat(slug))
	if (values.json) return out.json(changed)
	out.say(
		found.kind === 'member'
			? `${safe(found.member.username)} is now ${article(role)} of ${safe(slug)}.`
			: `The invitation of ${safe(found.invitation.username)} to ${safe(slug)} is now for ${role}.`
	)
}

async function remove({ values, positionals, out, session }: TeamInput) {
	const [slug, login] = positionals as [string, string]
	const s = session(values)
	const detail = await getTeam(s, slug)
	const found = findPerson(detail, login)
	const userId = found.kind === 'member' ? found.member.userId : found.invitation.userId
	await s.run((api) => api.teams.removeMember(slug, userId), teamWhat(slug))
	const username = found.kind === 'member' ? found.member.username : found.invitation.username
	if (values.json) return out.json({ team: slug, username, removed: found.kind })
	out.say(
		found.kind === 'member'
			? `Removed ${safe(username)} from ${safe(slug)}.`
			: `Cancelled the invitation of ${safe(username)} to ${safe(slug)}.`
	)
}

async function leave({ values, positionals, out, session, io }: TeamInput) {
	const slug = positionals[0] as string
	const s = session(values)
	const detail = await getTeam(s, slug)
	const me = await s.username()
	const mine = detail.members.find((m) => m.username === me)
	if (!mine) throw new CliFailure(`you are not a member of ${safe(slug)}`, EXIT.error, 'not_found')
	try {
		await s.run((api) => api.teams.removeMember(slug, mine.userId), teamWhat(slug))
	} catch (error) {
		if (error instanceof CliFailure && error.code === 'conflict') {
			throw new CliFailure(
				`${error.message} Make someone else an owner first (cfgsync team role ${safe(slug)} LOGIN owner), or delete the team (cfgsync team delete ${safe(slug)}).`,
				EXIT.error,
				'conflict'
			)
		}
		throw error
	}
	// This machine forgets its sync state for the team's configs: status and sync stop listing them.
	const forgotten = await withLock('team leave', async () => forgetTeam(s.server, me, detail.id), io.stderr)
	if (values.json) return out.json({ team: slug, left: true })
	out.say(`You left ${safe(slug)}.${stopped(forgotten)}`)
}

async function rename({ values, positionals, out, session }: TeamInput) {
	const slug = positionals[0] as string
	const name = positionals.slice(1).join(' ').trim()
	const s = session(values)
	const renamed = await s.run(
		(api) => api.teams.update(slug, { name, ...(values.slug !== undefined ? { slug: values.slug } : {}) }),
		teamWhat(slug)
	)
	// This machine's configs of the team follow it (they are synced by the team's id; the slug is for messages).
	renameTeamInStates(renamed.id, renamed.slug)
	if (values.json) return out.json(renamed)
	out.say(
		`Renamed ${safe(slug)} to "${safe(renamed.name)}"${renamed.slug === slug ? '' : ` with the slug ${safe(renamed.slug)}`}.`
	)
	if (renamed.slug !== slug)
		out.say(
			out.dim(
				`--team ${safe(slug)} no longer finds it: use --team ${safe(renamed.slug)}. The old slug stays reserved for this team for 30 days.`
			)
		)
}

async function deleteTeam({ values, positionals, io, out, session }: TeamInput) {
	const slug = positionals[0] as string
	const s = session(values)
	const detail = await getTeam(s, slug)
	if (detail.userRole !== 'owner')
		throw new CliFailure(
			`Not allowed: only an owner of ${safe(slug)} can delete it (you are ${article(safe(detail.userRole))}).`,
			EXIT.error,
			'forbidden'
		)
	await confirm(
		`Delete team "${safe(detail.name)}" (${safe(slug)}, ${detail.members.length} member${detail.members.length === 1 ? '' : 's'})? Its configs disappear for every member at once, and are removed for good after 30 days`,
		`cfgsync team delete ${safe(slug)}`,
		values.yes,
		io
	)
	await s.run((api) => api.teams.remove(slug), teamWhat(slug))
	const username = await s.username()
	const forgotten = await withLock('team delete', async () => forgetTeam(s.server, username, detail.id), io.stderr)
	if (values.json) return out.json({ team: slug, deleted: true })
	out.say(`Deleted team ${safe(slug)}.${stopped(forgotten)}`)
}

/** A deleted team back until its purge; its configs sync again where a machine still names them (pull, sync). */
async function restoreTeam({ values, positionals, out, session }: TeamInput) {
	const slug = positionals[0] as string
	const s = session(values)
	const team = await s.run(
		(api) => api.teams.restore(slug),
		`A deleted team "${slug}" of yours to restore (its owners can, until its purge 30 days after the deletion)`
	)
	if (values.json) return out.json({ team: team.slug, restored: true })
	out.say(
		`Restored team ${safe(team.name)} (${safe(team.slug)}): its members, invitations and configs are back as they were. Pull its configs where you want them: cfgsync pull TOOL --team ${safe(team.slug)}.`
	)
}

/** What leaving or deleting a team did to this machine's sync state. */
const stopped = (configs: string[]) =>
	configs.length === 0
		? ''
		: ` This machine no longer syncs its config${configs.length === 1 ? '' : 's'} (${configs.map(safe).join(', ')}); ${configs.length === 1 ? 'its files' : 'their files'} here are untouched, and a personal config takes them in only when a push names them.`

async function getTeam(s: Session, slug: string): Promise<TeamDetail> {
	return await s.run((api) => api.teams.get(slug), teamWhat(slug))
}

type Found = { kind: 'member'; member: Member } | { kind: 'invitation'; invitation: Invitation }

/** A member (or a pending invitation, which owners and admins see) by username or email, case-insensitively. */
function findPerson(detail: TeamDetail, login: string): Found {
	const wanted = login.toLowerCase()
	const member = detail.members.find((m) => m.username.toLowerCase() === wanted || m.email.toLowerCase() === wanted)
	if (member) return { kind: 'member', member }
	const invitation = detail.invitations?.find((i) => i.username.toLowerCase() === wanted)
	if (invitation) return { kind: 'invitation', invitation }
	throw new CliFailure(
		`${safe(login)} is not a member of ${safe(detail.slug)}${detail.invitations ? ' and has no pending invitation to it' : ''} (cfgsync team show ${safe(detail.slug)} lists them)`,
		EXIT.error,
		'not_found'
	)
}

const SLUG: Arg = { name: 'SLUG', completes: 'team' }
const LOGIN: Arg = { name: 'LOGIN' }
/** A team's name: every word left, joined (`team create My Team`). */
const NAME: Arg = { name: 'NAME', repeats: true }

const SUBCOMMANDS: readonly Subcommand<typeof options>[] = [
	{ name: 'list', args: [], usage: 'list', aside: '(also: cfgsync teams)', run: list },
	{ name: 'create', args: [NAME], usage: 'create NAME [--slug S]', run: create },
	{ name: 'show', args: [SLUG], usage: 'show SLUG', run: show },
	{
		name: 'invite',
		args: [SLUG, LOGIN],
		usage: 'invite SLUG LOGIN [--role admin|member]',
		aside: '(also: team add)',
		run: invite
	},
	{ name: 'add', args: [SLUG, LOGIN], usage: 'add SLUG LOGIN [--role admin|member]', aliasOf: 'invite', run: invite },
	{
		name: 'role',
		args: [SLUG, LOGIN, { name: 'ROLE', completes: 'role' }],
		usage: 'role SLUG LOGIN owner|admin|member',
		run: role
	},
	{ name: 'remove', args: [SLUG, LOGIN], usage: 'remove SLUG LOGIN', run: remove },
	{ name: 'leave', args: [SLUG], usage: 'leave SLUG', run: leave },
	{ name: 'rename', args: [SLUG, NAME], usage: 'rename SLUG NAME [--slug NEW]', run: rename },
	{ name: 'delete', args: [SLUG], usage: 'delete SLUG [--yes]', run: deleteTeam },
	{ name: 'restore', args: [{ name: 'SLUG' }], usage: 'restore SLUG', run: restoreTeam }
]

export const team = defineCommand({
	name: 'team',
	group: 'Teams',
	summary: '',
	usage: overviewLines('team', SUBCOMMANDS),
	help: `${subcommandLines('team', SUBCOMMANDS)}\n\n${TEAM_ABOUT}`,
	args: [],
	subcommands: SUBCOMMANDS,
	options
})

const TEAMS_HELP = 'cfgsync teams\n\nYour teams and your role in each (the same as cfgsync team list).'

/** `cfgsync teams` is `cfgsync team list`. */
export const teams = defineCommand({
	name: 'teams',
	group: 'Teams',
	summary: '',
	usage: [],
	help: TEAMS_HELP,
	// team's own options, so `teams` parses exactly as `team list` does.
	options,
	args: [],
	run: (input) => runSubcommand(team, { ...input, positionals: ['list', ...input.positionals] })
})
