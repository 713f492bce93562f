// Over 500 lines: a sentence for each of the 34 audit types (SENTENCES), beside the page and handlers that show them.
import type { ComponentChildren } from 'preact'
import { z } from 'zod'
import type { AuditEventView, AuditType } from '../../../shared/api/audit'
import { AppError } from '../../lib/errors'
import type { ActivityQuery } from '../../modules/audit/service'
import { attempt, page, type PageContext, type WebDeps } from '../kit'
import { configTitle, Layout, Time, type ViewContext } from '../layout'
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

/** An audit event names a config "tool/name"; the page names it as every other page does, tool first. */
function configNameOf(recorded: string | null | undefined): string {
	if (recorded === undefined || recorded === null) return 'a config'
	const slash = recorded.indexOf('/')
	return slash > 0 ? configTitle({ tool: recorded.slice(0, slash), name: recorded.slice(slash + 1) }) : recorded
}

function ConfigRef({ event, reader }: { event: AuditEventView; reader: Reader }) {
	const name = configNameOf(event.target?.name)
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

/** What a sentence is made from: the event, who reads it, who did it, whom it concerns, and the role it names. */
interface SentenceParts {
	event: AuditEventView
	reader: Reader
	who: string
	them: string
	whose: string
	role: string | undefined
}

/** Each kind of event as a sentence: a Record, so a new audit type is a type error until it has one. */
const SENTENCES: Record<AuditType, (parts: SentenceParts) => ComponentChildren> = {
	'login.succeeded': ({ event, reader, who }) => (
		<>
			{who} signed in with the cfgsync client on{' '}
			<DeviceRef name={detail(event, 'device') ?? 'a device'} keyId={event.target?.id} reader={reader} />
		</>
	),
	'login.failed': ({ event }) => {
		const reason = detail(event, 'reason') ?? ''
		const where = detail(event, 'via') === 'web' ? 'on the web' : 'from the cfgsync client'
		return `Sign-in ${where} refused: ${REASONS[reason] ?? reason.replaceAll('_', ' ')}`
	},
	'key.issued': ({ event, reader, who }) => (
		<>
			{who} issued a key for{' '}
			<DeviceRef name={event.target?.name ?? 'a device'} keyId={event.target?.id} reader={reader} />
		</>
	),
	'session.started': ({ who }) => `${who} signed in on the web`,
	'session.ended': ({ event, who }) =>
		detail(event, 'reason') === 'signed_out_elsewhere'
			? `${who} signed out another web session (${event.target?.name ?? 'a browser'})`
			: `${who} signed out on the web`,
	'key.revoked': ({ event, reader, who }) => {
		if (detail(event, 'reason') === 'logout')
			return `${who} signed out the cfgsync client on “${event.actor.device ?? 'a device'}”`
		return (
			<>
				{who} revoked the key of{' '}
				<DeviceRef name={event.target?.name ?? 'a device'} keyId={event.target?.id} reader={reader} />
			</>
		)
	},
	'key.renamed': ({ event, reader, who }) => (
		<>
			{who} renamed the device “{detail(event, 'from') ?? 'a device'}” to{' '}
			<DeviceRef name={event.target?.name ?? 'a device'} keyId={event.target?.id} reader={reader} />
		</>
	),
	'keys.revoked': ({ event, reader, who, whose }) => (
		<>
			{who} revoked all of{' '}
			<PersonRef event={event} reader={reader}>
				{whose} keys and web sessions
			</PersonRef>
		</>
	),
	'password.changed': ({ event, reader, who }) => (
		<>
			{who} changed{' '}
			<PersonRef event={event} reader={reader}>
				{who === 'You' ? 'your' : 'their'} password
			</PersonRef>
		</>
	),
	'config.pushed': ({ event, reader, who }) => (
		<>
			{who} pushed <ConfigRef event={event} reader={reader} />
			{detail(event, 'version') ? ` version ${detail(event, 'version')}` : ''}
			<InTeam event={event} reader={reader} />
		</>
	),
	'config.rolled_back': ({ event, reader, who }) => (
		<>
			{who} rolled <ConfigRef event={event} reader={reader} /> back to version {detail(event, 'restored') ?? '?'}
			<InTeam event={event} reader={reader} />
		</>
	),
	'config.deleted': ({ event, reader, who }) => (
		<>
			{who} deleted <ConfigRef event={event} reader={reader} />
			<InTeam event={event} reader={reader} />
		</>
	),
	'team.created': ({ event, reader, who }) => (
		<>
			{who} created the team <TeamRef event={event} reader={reader} />
		</>
	),
	'team.renamed': ({ event, reader, who }) => (
		<>
			{who} renamed the team <TeamRef event={event} reader={reader} />
		</>
	),
	'team.deleted': ({ event, reader, who }) => (
		<>
			{who} deleted the team <TeamRef event={event} reader={reader} />
		</>
	),
	'team.restored': ({ event, reader, who }) => (
		<>
			{who} restored the deleted team <TeamRef event={event} reader={reader} />
		</>
	),
	'invitation.sent': ({ event, reader, who, them, role }) => (
		<>
			{who} invited{' '}
			<PersonRef event={event} reader={reader}>
				{them}
			</PersonRef>
			<InTeam event={event} reader={reader} word="to" />
			{role ? ` as ${role}` : ''}
		</>
	),
	'invitation.changed': ({ event, reader, who, whose }) => (
		<>
			{who} changed{' '}
			<PersonRef event={event} reader={reader}>
				{whose} invitation
			</PersonRef>
			<InTeam event={event} reader={reader} word="to" />
			{detail(event, 'to') ? ` to ${detail(event, 'to')}` : ''}
		</>
	),
	'invitation.accepted': ({ event, reader, who }) => (
		<>
			{who} accepted an invitation and joined
			{event.teamId !== null && event.teamId === reader.teamId ? ' the team' : ''}
			<InTeam event={event} reader={reader} word="" />
		</>
	),
	'invitation.declined': ({ event, reader, who }) => (
		<>
			{who} declined an invitation
			<InTeam event={event} reader={reader} word="to" />
		</>
	),
	'invitation.cancelled': ({ event, reader, who, whose }) => (
		<>
			{who} cancelled{' '}
			<PersonRef event={event} reader={reader}>
				{whose} invitation
			</PersonRef>
			<InTeam event={event} reader={reader} word="to" />
		</>
	),
	'member.role_changed': ({ event, reader, who, whose }) => (
		<>
			{who} changed{' '}
			<PersonRef event={event} reader={reader}>
				{whose} role
			</PersonRef>
			<InTeam event={event} reader={reader} />
		</>
	),
	'member.removed': ({ event, reader, who, them }) => (
		<>
			{who} removed{' '}
			<PersonRef event={event} reader={reader}>
				{them}
			</PersonRef>
			<InTeam event={event} reader={reader} word="from" />
		</>
	),
	'member.left': ({ event, reader, who }) => (
		<>
			{who} left
			{event.teamId !== null && event.teamId === reader.teamId ? ' the team' : ''}
			<InTeam event={event} reader={reader} word="" />
		</>
	),
	'user.created': ({ event, reader, who, them, whose }) => {
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
	},
	'user.plan_changed': ({ event, reader, who, whose }) => (
		<>
			{who} changed{' '}
			<PersonRef event={event} reader={reader}>
				{whose} plan
			</PersonRef>{' '}
			from {detail(event, 'from') ?? '?'} to {detail(event, 'to') ?? '?'}
		</>
	),
	'user.admin_changed': ({ event, reader, who, them }) => {
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
	},
	'user.password_reset': ({ event, reader, who, whose }) => (
		<>
			{who} reset{' '}
			<PersonRef event={event} reader={reader}>
				{whose} password
			</PersonRef>
		</>
	),
	'user.unlocked': ({ event, reader, who, whose }) => (
		<>
			{who} cleared{' '}
			<PersonRef event={event} reader={reader}>
				{whose} failed sign-ins
			</PersonRef>
		</>
	),
	'user.removed': ({ who, whose }) => `${who} removed ${whose} account`,
	'signup_link.created': ({ event, reader, who }) => {
		const kind = detail(event, 'kind') === 'setup' ? 'a setup address' : 'a sign-up link'
		const plan = detail(event, 'plan')
		return (
			<>
				{who} made {kind} <SignupLinkRef event={event} reader={reader} />
				{plan ? ` for the ${plan} plan` : ''}
			</>
		)
	},
	'signup_link.revoked': ({ event, reader, who }) => (
		<>
			{who} revoked a sign-up link <SignupLinkRef event={event} reader={reader} />
		</>
	),
	'signup.refused': ({ event }) => {
		const reason = detail(event, 'reason')
		return `A sign-up was refused${reason ? `: ${reason.replaceAll('_', ' ')}` : ''}`
	},
	'backup.written': ({ who }) => `${who} wrote a backup of the server`,
	'backup.restored': ({ who }) => `${who} restored the server from a backup`,
	'master_key.rotated': ({ who }) => `${who} rotated the server's master key`
}

/** One event as a sentence, from the reader's side ("You pushed …", "alice invited you to Crew"). */
export function sentenceOf(event: AuditEventView, reader: Reader): ComponentChildren {
	const them = subjectOf(event, reader)
	const sentence = SENTENCES[event.type]
	// A type this build does not know (written by a newer server sharing the database) is shown as it is.
	if (sentence === undefined) return event.type
	return sentence({
		event,
		reader,
		who: actorOf(event, reader),
		them,
		whose: whoseOf(them),
		role: detail(event, 'role')
	})
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
