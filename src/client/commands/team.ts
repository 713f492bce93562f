import type { Invitation, TeamMember as Member, TeamDetail } from '../api'
import { confirm } from '../ask'
import { noMore, session, type Session } from '../context'
import { ago, article, bold, CliFailure, dim, EXIT, green, json, safe, say, table } from '../output'
import { shellWord } from '../report'
import { withLock } from '../lock'
import { forgetTeam } from '../ownership'
import { renameTeamInStates } from '../state'
import { INVITED_ROLES, type InvitedRole, type Role, ROLES } from '../../shared/constants'
import { defineCommand, type Input, YES } from './command'

export const TEAM_HELP = `cfgsync team list                          (also: cfgsync teams)
cfgsync team create NAME [--slug S]
cfgsync team show SLUG
cfgsync team invite SLUG LOGIN [--role admin|member]   (also: team add)
cfgsync team role SLUG LOGIN owner|admin|member
cfgsync team remove SLUG LOGIN
cfgsync team leave SLUG
cfgsync team rename SLUG NAME [--slug NEW]
cfgsync team delete SLUG [--yes]

Teams and their members. LOGIN is a username or an email. Nobody joins
without accepting: invite sends an invitation (it expires after 7 days) and
the person runs cfgsync invitations accept SLUG. Owners invite admins and
members, admins invite members; role is for owners (also on a pending
invitation); remove takes a member out or cancels an invitation; a team
always keeps an owner. rename keeps the slug unless --slug is given (the old
one stays reserved for the team for 30 days). delete asks first (y/N), and
without a terminal needs --yes; the team disappears for every member at once
and is removed for good after 30 days.`

const teamWhat = (slug: string) => `Team "${slug}"`

const options = { role: { type: 'string', completes: 'invited-role' }, slug: { type: 'string' }, ...YES } as const

async function run({ values, positionals }: Input<typeof options>) {
	const [sub, ...rest] = positionals
	if (sub === undefined)
		throw new CliFailure(
			'which team command? list, create, show, invite, role, remove, leave, rename or delete (see cfgsync team --help)',
			EXIT.usage
		)
	if (values.role !== undefined && sub !== 'invite' && sub !== 'add')
		throw new CliFailure(`--role is for team invite (team role SLUG LOGIN ROLE changes a member's role)`, EXIT.usage)
	if (values.slug !== undefined && sub !== 'create' && sub !== 'rename')
		throw new CliFailure('--slug is for team create and team rename', EXIT.usage)
	const need = (count: number, usage: string) => {
		if (rest.length < count || rest.slice(0, count).some((word) => word.trim() === ''))
			throw new CliFailure(`cfgsync team ${usage}`, EXIT.usage)
	}
	switch (sub) {
		case 'list': {
			noMore(rest, 0, 'team')
			const s = session(values)
			const list = await s.run((api) => api.teams.list())
			if (values.json) return json(list)
			if (list.length === 0)
				return say(
					'You are in no team. Create one (Team plan): cfgsync team create NAME; invitations you received: cfgsync invitations'
				)
			return table(
				['SLUG', 'NAME', 'ROLE', 'CREATED'],
				list.map((t) => [safe(t.slug), safe(t.name), safe(t.role), ago(t.createdAt)])
			)
		}
		case 'create': {
			need(1, 'create NAME [--slug S]')
			const name = rest.join(' ').trim()
			const s = session(values)
			const created = await s.run((api) =>
				api.teams.create({ name, ...(values.slug !== undefined ? { slug: values.slug } : {}) })
			)
			if (values.json) return json(created)
			return say(
				`${green('Created')} team "${safe(created.name)}" (${safe(created.slug)}); you are its owner. Invite people with: cfgsync team invite ${safe(created.slug)} LOGIN`
			)
		}
		case 'show': {
			need(1, 'show SLUG')
			noMore(rest, 1, 'team')
			const s = session(values)
			const detail = await getTeam(s, rest[0] as string)
			if (values.json) return json(detail)
			say(
				`${bold(safe(detail.name))} (${safe(detail.slug)}), created ${ago(detail.createdAt)}; you are ${article(safe(detail.userRole))}.`
			)
			say()
			table(
				['USERNAME', 'EMAIL', 'ROLE', 'JOINED'],
				detail.members.map((m) => [safe(m.username), safe(m.email), safe(m.role), ago(m.joinedAt)])
			)
			if (detail.invitations && detail.invitations.length > 0) {
				say()
				say('Invitations waiting for an answer:')
				table(
					['USERNAME', 'ROLE', 'INVITED BY', 'EXPIRES'],
					detail.invitations.map((i) => [safe(i.username), safe(i.role), safe(i.invitedBy), ago(i.expiresAt)])
				)
			}
			return
		}
		case 'invite':
		case 'add': {
			need(2, `${sub} SLUG LOGIN [--role admin|member]`)
			noMore(rest, 2, 'team')
			const [slug, login] = rest as [string, string]
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
				invitation = await s.run(
					(api) => api.teams.invite(slug, { login, role: role as InvitedRole }),
					`User "${login}"`
				)
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
			if (values.json) return json(invitation)
			return say(
				`${green('Invited')} ${safe(invitation.username)} to ${safe(slug)} as ${safe(invitation.role)}. They join once they accept: cfgsync invitations accept ${safe(slug)} (the invitation expires ${ago(invitation.expiresAt)}).`
			)
		}
		case 'role': {
			need(3, 'role SLUG LOGIN owner|admin|member')
			noMore(rest, 3, 'team')
			const [slug, login, role] = rest as [string, string, string]
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
			if (values.json) return json(changed)
			return say(
				found.kind === 'member'
					? `${safe(found.member.username)} is now ${article(role)} of ${safe(slug)}.`
					: `The invitation of ${safe(found.invitation.username)} to ${safe(slug)} is now for ${role}.`
			)
		}
		case 'remove': {
			need(2, 'remove SLUG LOGIN')
			noMore(rest, 2, 'team')
			const [slug, login] = rest as [string, string]
			const s = session(values)
			const detail = await getTeam(s, slug)
			const found = findPerson(detail, login)
			const userId = found.kind === 'member' ? found.member.userId : found.invitation.userId
			await s.run((api) => api.teams.removeMember(slug, userId), teamWhat(slug))
			const username = found.kind === 'member' ? found.member.username : found.invitation.username
			if (values.json) return json({ team: slug, username, removed: found.kind })
			return say(
				found.kind === 'member'
					? `Removed ${safe(username)} from ${safe(slug)}.`
					: `Cancelled the invitation of ${safe(username)} to ${safe(slug)}.`
			)
		}
		case 'leave': {
			need(1, 'leave SLUG')
			noMore(rest, 1, 'team')
			const slug = rest[0] as string
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
			const forgotten = await withLock('team leave', async () => forgetTeam(s.server, me, detail.id))
			if (values.json) return json({ team: slug, left: true })
			return say(`You left ${safe(slug)}.${stopped(forgotten)}`)
		}
		case 'rename': {
			need(2, 'rename SLUG NAME [--slug NEW]')
			const slug = rest[0] as string
			const name = rest.slice(1).join(' ').trim()
			const s = session(values)
			const renamed = await s.run(
				(api) => api.teams.update(slug, { name, ...(values.slug !== undefined ? { slug: values.slug } : {}) }),
				teamWhat(slug)
			)
			// This machine's configs of the team follow it (they are synced by the team's id; the slug is for messages).
			renameTeamInStates(renamed.id, renamed.slug)
			if (values.json) return json(renamed)
			say(
				`Renamed ${safe(slug)} to "${safe(renamed.name)}"${renamed.slug === slug ? '' : ` with the slug ${safe(renamed.slug)}`}.`
			)
			if (renamed.slug !== slug)
				say(
					dim(
						`--team ${safe(slug)} no longer finds it: use --team ${safe(renamed.slug)}. The old slug stays reserved for this team for 30 days.`
					)
				)
			return
		}
		case 'delete': {
			need(1, 'delete SLUG [--yes]')
			noMore(rest, 1, 'team')
			const slug = rest[0] as string
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
				values.yes
			)
			await s.run((api) => api.teams.remove(slug), teamWhat(slug))
			const username = await s.username()
			const forgotten = await withLock('team delete', async () => forgetTeam(s.server, username, detail.id))
			if (values.json) return json({ team: slug, deleted: true })
			return say(`Deleted team ${safe(slug)}.${stopped(forgotten)}`)
		}
	}
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

export const team = defineCommand({
	name: 'team',
	group: 'Teams',
	summary: '',
	usage: [
		'team list | create NAME [--slug S] | show SLUG | invite SLUG LOGIN [--role admin|member]',
		'team role SLUG LOGIN ROLE | remove SLUG LOGIN | leave SLUG | rename SLUG NAME [--slug NEW] | delete SLUG [--yes]'
	],
	help: TEAM_HELP,
	args: [],
	subcommands: [
		{ name: 'list', args: [] },
		{ name: 'create', args: [{ name: 'NAME' }] },
		{ name: 'show', args: [{ name: 'SLUG', completes: 'team' }] },
		{ name: 'invite', args: [{ name: 'SLUG', completes: 'team' }, { name: 'LOGIN' }] },
		{ name: 'add', args: [{ name: 'SLUG', completes: 'team' }, { name: 'LOGIN' }] },
		{
			name: 'role',
			args: [{ name: 'SLUG', completes: 'team' }, { name: 'LOGIN' }, { name: 'ROLE', completes: 'role' }]
		},
		{ name: 'remove', args: [{ name: 'SLUG', completes: 'team' }, { name: 'LOGIN' }] },
		{ name: 'leave', args: [{ name: 'SLUG', completes: 'team' }] },
		{ name: 'rename', args: [{ name: 'SLUG', completes: 'team' }, { name: 'NAME' }] },
		{ name: 'delete', args: [{ name: 'SLUG', completes: 'team' }] }
	],
	options,
	run
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
	run: (input) => run({ ...input, positionals: ['list', ...input.positionals] })
})
