import type { ComponentChildren } from 'preact'
import { z } from 'zod'
import type { AuditEventView } from '../../../shared/api/audit'
import { AppError } from '../../lib/errors'
import type { ActivityQuery } from '../../modules/audit/service'
import { attempt, page, type PageContext, type WebDeps } from '../kit'
import { Layout, Time, type ViewContext } from '../layout'
import { hrefOf, listQueryOf, NoMatch, PAGE_SIZE, Pager, SearchForm } from '../lists'

// Activity (docs/web.md): your own events, and a team's for its owners and admins, each as a sentence that links
// to the config, team or device it is about while that still exists.

/** What the sentences may link to: only what still exists and the viewer may open. */
export interface ActivityLinks {
	/** Ids of configs the viewer may read. */
	configs: Set<string>
	/** The viewer's live teams, by id. */
	teams: Map<string, { name: string; slug: string }>
	/** Ids of the viewer's live keys (their rows on Devices). */
	keys: Set<string>
	/** Accounts the viewer may open, by user id: their own (Account), and for a server admin any that exists (its row on Admin). */
	users: Map<string, string>
	/** People of the viewer's teams, by `teamId:userId`: their row (a member's, or an invitation's) on the team's page. */
	people: Map<string, string>
	/** Sign-up links listed on Admin, for a server admin: their first characters by id. */
	signupLinks: Map<string, string>
}

interface Reader {
	viewerId: string
	links: ActivityLinks
	/** On a team's own activity page, the team is not named in every sentence. */
	teamId?: string
}

const detail = (event: AuditEventView, name: string): string | undefined => {
	const value = event.details[name]
	return value === undefined || value === null ? undefined : String(value)
}

/** Who did it: "You", a username, or what acted without one (the server's admin command). */
function actorOf(event: AuditEventView, reader: Reader): string {
	if (event.actor.userId !== null && event.actor.userId === reader.viewerId) return 'You'
	if (event.actor.username) return event.actor.username
	if (event.actor.device === 'admin command') return "The server's admin command"
	return 'The server'
}

/** Whose it is: "your", or the user's name with "'s". */
const whoseOf = (them: string) => (them === 'you' ? 'your' : `${them}'s`)

/** Whom it concerns: "you", or the user's name. */
function subjectOf(event: AuditEventView, reader: Reader): string {
	if (event.subjectUserId === reader.viewerId) return 'you'
	return event.target?.type === 'user' || event.target?.type === 'invitation' || event.target?.type === 'member'
		? (event.target.name ?? 'a user')
		: 'a member'
}

/** The user an event is about: its subject, else a user target's id. */
const subjectIdOf = (event: AuditEventView): string | null =>
	event.subjectUserId ?? (event.target?.type === 'user' ? (event.target.id ?? null) : null)

/**
 * Where the person an event is about can be opened by this reader, if anywhere: in a team's event, their row on the
 * team's page; otherwise their account (the reader's own Account, or their row on Admin for a server admin).
 */
function personHref(event: AuditEventView, reader: Reader): string | undefined {
	const id = subjectIdOf(event)
	if (id === null) return undefined
	const inTeam = event.teamId === null ? undefined : reader.links.people.get(`${event.teamId}:${id}`)
	if (event.target?.type === 'member' || event.target?.type === 'invitation') return inTeam
	return reader.links.users.get(id)
}

/** Text about the person an event concerns ("ann's plan", "your account", "bob"), linked where the reader may open it. */
function PersonRef({
	event,
	reader,
	children
}: {
	event: AuditEventView
	reader: Reader
	children: ComponentChildren
}) {
	const href = personHref(event, reader)
	return href ? <a href={href}>{children}</a> : children
}

function ConfigRef({ event, reader }: { event: AuditEventView; reader: Reader }) {
	const name = event.target?.name ?? 'a config'
	const id = event.target?.id
	return id && reader.links.configs.has(id) ? <a href={`/configs/${id}`}>{name}</a> : name
}

/** " in <team>", unless this is the team's own page or the event has no team. */
function InTeam({ event, reader, word = 'in' }: { event: AuditEventView; reader: Reader; word?: string }) {
	if (event.teamId === null || event.teamId === reader.teamId) return null
	const team = reader.links.teams.get(event.teamId)
	if (!team) return event.target?.type === 'team' ? null : <> {word} a team</>
	return (
		<>
			{word === '' ? ' ' : ` ${word} `}
			<a href={`/teams/${team.slug}`}>{team.name}</a>
		</>
	)
}

function TeamRef({ event, reader }: { event: AuditEventView; reader: Reader }) {
	const team = event.teamId === null ? undefined : reader.links.teams.get(event.teamId)
	if (team) return <a href={`/teams/${team.slug}`}>{team.name}</a>
	return <>{detail(event, 'name') ?? event.target?.name ?? 'a team'}</>
}

/** A device's key: linked to its row on Devices while the key is live. */
function DeviceRef({ name, keyId, reader }: { name: string; keyId?: string | null; reader: Reader }) {
	return keyId && reader.links.keys.has(keyId) ? <a href={`/devices#key-${keyId}`}>“{name}”</a> : <>“{name}”</>
}

/** A sign-up link by its first characters: linked to its row on Admin while it is listed there. */
function SignupLinkRef({ event, reader }: { event: AuditEventView; reader: Reader }) {
	const id = event.target?.id
	const listed = id ? reader.links.signupLinks.get(id) : undefined
	const hint = event.target?.name ?? listed
	if (!hint) return null
	const name = `/join/${hint}…`
	return listed ? <a href={`/admin#link-${id}`}>{name}</a> : name
}

const REASONS: Record<string, string> = {
	wrong_password: 'wrong password',
	unknown_login: 'no account has that email or username'
}

/** One event as a sentence, from the reader's side ("You pushed …", "alice invited you to Crew"). */
export function sentenceOf(event: AuditEventView, reader: Reader): ComponentChildren {
	const who = actorOf(event, reader)
	const them = subjectOf(event, reader)
	const whose = whoseOf(them)
	const role = detail(event, 'role')
	switch (event.type) {
		case 'login.succeeded':
			return (
				<>
					{who} signed in with the cfgsync client on{' '}
					<DeviceRef name={detail(event, 'device') ?? 'a device'} keyId={event.target?.id} reader={reader} />
				</>
			)
		case 'login.failed': {
			const reason = detail(event, 'reason') ?? ''
			const where = detail(event, 'via') === 'web' ? 'on the web' : 'from the cfgsync client'
			return `Sign-in ${where} refused: ${REASONS[reason] ?? reason.replaceAll('_', ' ')}`
		}
		case 'key.issued':
			return (
				<>
					{who} issued a key for{' '}
					<DeviceRef name={event.target?.name ?? 'a device'} keyId={event.target?.id} reader={reader} />
				</>
			)
		case 'session.started':
			return `${who} signed in on the web`
		case 'session.ended':
			return `${who} signed out on the web`
		case 'key.revoked':
			if (detail(event, 'reason') === 'logout')
				return `${who} signed out the cfgsync client on “${event.actor.device ?? 'a device'}”`
			return (
				<>
					{who} revoked the key of{' '}
					<DeviceRef name={event.target?.name ?? 'a device'} keyId={event.target?.id} reader={reader} />
				</>
			)
		case 'keys.revoked':
			return (
				<>
					{who} revoked all of{' '}
					<PersonRef event={event} reader={reader}>
						{whose} keys and web sessions
					</PersonRef>
				</>
			)
		case 'password.changed':
			return (
				<>
					{who} changed{' '}
					<PersonRef event={event} reader={reader}>
						{who === 'You' ? 'your' : 'their'} password
					</PersonRef>
				</>
			)
		case 'config.pushed':
			return (
				<>
					{who} pushed <ConfigRef event={event} reader={reader} />
					{detail(event, 'version') ? ` version ${detail(event, 'version')}` : ''}
					<InTeam event={event} reader={reader} />
				</>
			)
		case 'config.rolled_back':
			return (
				<>
					{who} rolled <ConfigRef event={event} reader={reader} /> back to version {detail(event, 'restored') ?? '?'}
					<InTeam event={event} reader={reader} />
				</>
			)
		case 'config.deleted':
			return (
				<>
					{who} deleted <ConfigRef event={event} reader={reader} />
					<InTeam event={event} reader={reader} />
				</>
			)
		case 'team.created':
			return (
				<>
					{who} created the team <TeamRef event={event} reader={reader} />
				</>
			)
		case 'team.renamed':
			return (
				<>
					{who} renamed the team <TeamRef event={event} reader={reader} />
				</>
			)
		case 'team.deleted':
			return (
				<>
					{who} deleted the team <TeamRef event={event} reader={reader} />
				</>
			)
		case 'team.restored':
			return (
				<>
					{who} restored the deleted team <TeamRef event={event} reader={reader} />
				</>
			)
		case 'invitation.sent':
			return (
				<>
					{who} invited{' '}
					<PersonRef event={event} reader={reader}>
						{them}
					</PersonRef>
					<InTeam event={event} reader={reader} word="to" />
					{role ? ` as ${role}` : ''}
				</>
			)
		case 'invitation.changed':
			return (
				<>
					{who} changed{' '}
					<PersonRef event={event} reader={reader}>
						{whose} invitation
					</PersonRef>
					<InTeam event={event} reader={reader} word="to" />
					{detail(event, 'to') ? ` to ${detail(event, 'to')}` : ''}
				</>
			)
		case 'invitation.accepted':
			return (
				<>
					{who} accepted an invitation and joined
					{event.teamId !== null && event.teamId === reader.teamId ? ' the team' : ''}
					<InTeam event={event} reader={reader} word="" />
				</>
			)
		case 'invitation.declined':
			return (
				<>
					{who} declined an invitation
					<InTeam event={event} reader={reader} word="to" />
				</>
			)
		case 'invitation.cancelled':
			return (
				<>
					{who} cancelled{' '}
					<PersonRef event={event} reader={reader}>
						{whose} invitation
					</PersonRef>
					<InTeam event={event} reader={reader} word="to" />
				</>
			)
		case 'member.role_changed':
			return (
				<>
					{who} changed{' '}
					<PersonRef event={event} reader={reader}>
						{whose} role
					</PersonRef>
					<InTeam event={event} reader={reader} />
				</>
			)
		case 'member.removed':
			return (
				<>
					{who} removed{' '}
					<PersonRef event={event} reader={reader}>
						{them}
					</PersonRef>
					<InTeam event={event} reader={reader} word="from" />
				</>
			)
		case 'member.left':
			return (
				<>
					{who} left
					{event.teamId !== null && event.teamId === reader.teamId ? ' the team' : ''}
					<InTeam event={event} reader={reader} word="" />
				</>
			)
		case 'user.created': {
			const plan = detail(event, 'plan') ? ` on the ${detail(event, 'plan')} plan` : ''
			if (detail(event, 'through'))
				return (
					<>
						{who === 'You' ? (
							'You'
						) : (
							<PersonRef event={event} reader={reader}>
								{them}
							</PersonRef>
						)}{' '}
						signed up through {detail(event, 'through') === 'setup address' ? 'the setup address' : 'a sign-up link'}
						{plan}
					</>
				)
			return (
				<>
					{who} created{' '}
					<PersonRef event={event} reader={reader}>
						{whose} account
					</PersonRef>
					{plan}
				</>
			)
		}
		case 'user.plan_changed':
			return (
				<>
					{who} changed{' '}
					<PersonRef event={event} reader={reader}>
						{whose} plan
					</PersonRef>{' '}
					from {detail(event, 'from') ?? '?'} to {detail(event, 'to') ?? '?'}
				</>
			)
		case 'user.admin_changed': {
			const person = (
				<PersonRef event={event} reader={reader}>
					{them}
				</PersonRef>
			)
			return detail(event, 'admin') === 'true' ? (
				<>
					{who} made {person} a server admin
				</>
			) : (
				<>
					{who} took the server admin role from {person}
				</>
			)
		}
		case 'user.password_reset':
			return (
				<>
					{who} reset{' '}
					<PersonRef event={event} reader={reader}>
						{whose} password
					</PersonRef>
				</>
			)
		case 'user.unlocked':
			return (
				<>
					{who} cleared{' '}
					<PersonRef event={event} reader={reader}>
						{whose} failed sign-ins
					</PersonRef>
				</>
			)
		case 'user.removed':
			return `${who} removed ${whose} account`
		case 'signup_link.created': {
			const kind = detail(event, 'kind') === 'setup' ? 'a setup address' : 'a sign-up link'
			const plan = detail(event, 'plan')
			return (
				<>
					{who} made {kind} <SignupLinkRef event={event} reader={reader} />
					{plan ? ` for the ${plan} plan` : ''}
				</>
			)
		}
		case 'signup_link.revoked':
			return (
				<>
					{who} revoked a sign-up link <SignupLinkRef event={event} reader={reader} />
				</>
			)
		case 'signup.refused': {
			const reason = detail(event, 'reason')
			return `A sign-up was refused${reason ? `: ${reason.replaceAll('_', ' ')}` : ''}`
		}
		case 'backup.written':
			return `${who} wrote a backup of the server`
		case 'backup.restored':
			return `${who} restored the server from a backup`
		case 'master_key.rotated':
			return `${who} rotated the server's master key`
		default:
			return event.type
	}
}

/** Where it came from: the device (or "web") and the address. */
function originOf(event: AuditEventView): string | undefined {
	const parts = [event.actor.device, event.address].filter((part): part is string => Boolean(part))
	return parts.length === 0 ? undefined : parts.join(', ')
}

/** The cursors of an Activity page: event ids, newest first; `before` pages to older events, `after` to newer. */
export interface ActivityPager {
	previous?: string
	next?: string
}

export function ActivityPage({
	ctx,
	title,
	path,
	events,
	search,
	reader,
	pager,
	back,
	lead = 'Sign-ins, keys, pushes and team changes, newest first, with where each came from.',
	aside
}: {
	ctx: ViewContext
	title: string
	path: string
	events: AuditEventView[]
	search: string
	reader: Reader
	pager: ActivityPager
	back?: { href: string; label: string }
	lead?: string
	/** A line under the lead (a server admin's way to everyone's events). */
	aside?: ComponentChildren
}) {
	return (
		<Layout ctx={ctx} title={search === '' ? title : `${title}: “${search}”`}>
			{back ? (
				<p class="crumbs">
					<a href={back.href}>{back.label}</a>
				</p>
			) : null}
			<h1>{title}</h1>
			<p class="lead">{lead}</p>
			{aside ? <p>{aside}</p> : null}
			<SearchForm
				action={path}
				search={search}
				what="Part of what happened: a config, a device, a person, an address."
			/>
			{events.length === 0 ? (
				search === '' ? (
					<p class="empty">Nothing recorded yet.</p>
				) : (
					<NoMatch search={search} path={path} />
				)
			) : (
				<table class="stack-on-phone compact activity">
					<thead>
						<tr>
							<th scope="col">What happened</th>
							<th scope="col">When</th>
							<th scope="col">From</th>
						</tr>
					</thead>
					<tbody>
						{events.map((event) => (
							<tr>
								<td class="what">{sentenceOf(event, reader)}</td>
								<td data-label="When">
									<Time iso={event.at} now={ctx.now} />
								</td>
								<td data-label="From">{originOf(event) ?? <span class="muted">—</span>}</td>
							</tr>
						))}
					</tbody>
				</table>
			)}
			<Pager previous={pager.previous} next={pager.next} label="Pages of activity" />
		</Layout>
	)
}

const EventId = z.guid()
const cursorOf = (url: URL, name: string): string | undefined => {
	const parsed = EventId.safeParse(url.searchParams.get(name))
	return parsed.success ? parsed.data : undefined
}

/**
 * A page of events and its "Previous"/"Next" links, by cursor (an event id): the log only grows, so a page is
 * read by the primary key from where the last one stopped, at the same cost however deep it is.
 */
export async function activityPageOf(
	request: Request,
	path: string,
	read: (query: ActivityQuery) => Promise<AuditEventView[]>
): Promise<{ events: AuditEventView[]; search: string; pager: ActivityPager }> {
	const url = new URL(request.url)
	const { search } = listQueryOf(request.url)
	const before = cursorOf(url, 'before')
	const after = before === undefined ? cursorOf(url, 'after') : undefined
	const found = await read({ limit: PAGE_SIZE + 1, before, after, search })
	let events: AuditEventView[]
	let newer: boolean
	let older: boolean
	if (after !== undefined) {
		// The events just newer than the cursor, newest first: one more than a page means more are newer still.
		newer = found.length > PAGE_SIZE
		events = newer ? found.slice(1) : found
		older = events.length > 0
	} else {
		older = found.length > PAGE_SIZE
		events = found.slice(0, PAGE_SIZE)
		const first = events[0]?.id ?? before
		newer = before !== undefined && first !== undefined && (await read({ limit: 1, after: first, search })).length > 0
	}
	const first = events[0]?.id
	const last = events[events.length - 1]?.id
	return {
		events,
		search,
		pager: {
			previous: newer && first ? hrefOf(path, { q: search, after: first }) : undefined,
			next: older && last ? hrefOf(path, { q: search, before: last }) : undefined
		}
	}
}

/**
 * The links an Activity page may carry: configs still readable, the viewer's live teams and their people, their live
 * keys, their own account, and for a server admin the accounts and sign-up links that still exist. Only what the page's
 * events name is looked up.
 */
export async function activityLinks(
	{ configs, teams, auth, users, signups }: Pick<WebDeps, 'configs' | 'teams' | 'auth' | 'users' | 'signups'>,
	web: PageContext['web'],
	events: AuditEventView[]
): Promise<ActivityLinks> {
	const configIds = events.flatMap((event) =>
		event.target?.type === 'config' && event.target.id ? [event.target.id] : []
	)
	const [readable, mine, keys] = await Promise.all([
		configs.readable(web, configIds),
		teams.list(web),
		auth.listKeys(web)
	])
	const teamsById = new Map(mine.map((team) => [team.id, { name: team.name, slug: team.slug }]))
	// Each team whose members or invitations the page names: its rows, as its page shows them to the viewer.
	const people = new Map<string, string>()
	const teamIds = new Set(
		events.flatMap((event) =>
			event.teamId !== null && (event.target?.type === 'member' || event.target?.type === 'invitation')
				? [event.teamId]
				: []
		)
	)
	await Promise.all(
		[...teamIds].map(async (teamId) => {
			const team = teamsById.get(teamId)
			if (!team) return
			// A team deleted (or left) since the list was read has no rows to link to.
			const detail = await teams.get(web, team.slug).catch(() => undefined)
			if (!detail) return
			for (const member of detail.members)
				people.set(`${teamId}:${member.userId}`, `/teams/${team.slug}#member-${member.userId}`)
			if ('invitations' in detail)
				for (const invitation of detail.invitations)
					people.set(`${teamId}:${invitation.userId}`, `/teams/${team.slug}#invitation-${invitation.userId}`)
		})
	)
	const accounts = new Map<string, string>([[web.userId, '/account']])
	const signupLinks = new Map<string, string>()
	if (web.isAdmin) {
		const others = new Set(
			events.flatMap((event) => {
				const id = event.subjectUserId ?? (event.target?.type === 'user' ? event.target.id : null)
				return id && id !== web.userId ? [id] : []
			})
		)
		await Promise.all(
			[...others].map(async (id) => {
				const user = await users.findById(id).catch((error: unknown) => {
					if (error instanceof AppError && error.code === 'not_found') return undefined
					throw error
				})
				if (user) accounts.set(id, `/admin?q=${encodeURIComponent(user.username)}#user-${id}`)
			})
		)
		if (events.some((event) => event.target?.type === 'signup_link'))
			for (const link of await signups.listLinks()) signupLinks.set(link.id, link.hint)
	}
	return {
		configs: readable,
		teams: teamsById,
		keys: new Set(keys.map((key) => key.id)),
		users: accounts,
		people,
		signupLinks
	}
}

export const activityPages = (deps: WebDeps) => ({
	/** Your activity: what you did, and what others did that concerns you. */
	mine: ({ request, web, view }: PageContext) =>
		attempt(request, view, async () => {
			const { events, search, pager } = await activityPageOf(request, '/activity', (query) =>
				deps.audit.mine(web, query)
			)
			const links = await activityLinks(deps, web, events)
			return page(
				<ActivityPage
					ctx={view}
					title="Your activity"
					path="/activity"
					events={events}
					search={search}
					reader={{ viewerId: web.userId, links }}
					pager={pager}
					aside={
						web.isAdmin ? (
							<>
								These are your own events; every user's are in <a href="/admin/activity">Server activity</a>.
							</>
						) : undefined
					}
				/>
			)
		})
})
