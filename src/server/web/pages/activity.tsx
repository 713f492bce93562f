import type { ComponentChildren } from 'preact'
import { z } from 'zod'
import type { AuditEventView } from '../../../shared/api/audit'
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
	return event.target?.type === 'user' || event.target?.type === 'invitation'
		? (event.target.name ?? 'a user')
		: 'a member'
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
			return `${who} revoked all of ${whose} keys and web sessions`
		case 'password.changed':
			return `${who} changed ${who === 'You' ? 'your' : 'their'} password`
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
		case 'invitation.sent':
			return (
				<>
					{who} invited {them}
					<InTeam event={event} reader={reader} word="to" />
					{role ? ` as ${role}` : ''}
				</>
			)
		case 'invitation.changed':
			return (
				<>
					{who} changed {whose} invitation
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
					{who} cancelled {whose} invitation
					<InTeam event={event} reader={reader} word="to" />
				</>
			)
		case 'member.role_changed':
			return (
				<>
					{who} changed {whose} role
					<InTeam event={event} reader={reader} />
				</>
			)
		case 'member.removed':
			return (
				<>
					{who} removed {them}
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
		case 'user.created':
			if (detail(event, 'through'))
				return `${who === 'You' ? 'You' : them} signed up through ${detail(event, 'through') === 'setup address' ? 'the setup address' : 'a sign-up link'}${detail(event, 'plan') ? ` on the ${detail(event, 'plan')} plan` : ''}`
			return `${who} created ${whose} account${detail(event, 'plan') ? ` on the ${detail(event, 'plan')} plan` : ''}`
		case 'user.plan_changed':
			return `${who} changed ${whose} plan from ${detail(event, 'from') ?? '?'} to ${detail(event, 'to') ?? '?'}`
		case 'user.admin_changed':
			return detail(event, 'admin') === 'true'
				? `${who} made ${them} a server admin`
				: `${who} took the server admin role from ${them}`
		case 'user.password_reset':
			return `${who} reset ${whose} password`
		case 'user.unlocked':
			return `${who} cleared ${whose} failed sign-ins`
		case 'user.removed':
			return `${who} removed ${whose} account`
		case 'signup_link.created': {
			const kind = detail(event, 'kind') === 'setup' ? 'a setup address' : 'a sign-up link'
			const plan = detail(event, 'plan')
			return `${who} made ${kind} ${event.target?.name ? `(${event.target.name}…) ` : ''}${plan ? `for the ${plan} plan` : ''}`.trim()
		}
		case 'signup_link.revoked':
			return `${who} revoked a sign-up link${event.target?.name ? ` (${event.target.name}…)` : ''}`
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
	back
}: {
	ctx: ViewContext
	title: string
	path: string
	events: AuditEventView[]
	search: string
	reader: Reader
	pager: ActivityPager
	back?: { href: string; label: string }
}) {
	return (
		<Layout ctx={ctx} title={search === '' ? title : `${title}: “${search}”`}>
			{back ? (
				<p class="crumbs">
					<a href={back.href}>{back.label}</a>
				</p>
			) : null}
			<h1>{title}</h1>
			<p class="lead">Sign-ins, keys, pushes and team changes, newest first, with where each came from.</p>
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

/** The links an Activity page may carry: configs still readable, the viewer's live teams, their live keys. */
export async function activityLinks(
	{ configs, teams, auth }: Pick<WebDeps, 'configs' | 'teams' | 'auth'>,
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
	return {
		configs: readable,
		teams: new Map(mine.map((team) => [team.id, { name: team.name, slug: team.slug }])),
		keys: new Set(keys.map((key) => key.id))
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
				/>
			)
		})
})
