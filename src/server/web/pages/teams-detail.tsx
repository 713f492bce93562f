// Over 500 lines: a team's page is one view of four lists (members a page at a time, invitations, configs,
// activity) whose rows the in-place changes of teams-changes.tsx draw again, so rows and page stay together.
import { ROLES, type Role } from '../../../shared/constants'
import { type Invitation, MEMBERS_IN_DETAIL, MembersQuery, type TeamMember } from '../../../shared/api/teams'
import { FieldError, FormAlert, fieldState, formStateOf, type FormState } from '../forms'
import { attempt, noticeOf, page, type PageContext, type WebDeps } from '../kit'
import {
	Alert,
	Csrf,
	InstallClientLink,
	Layout,
	ListHeading,
	ListStatus,
	LiveNotice,
	Notice,
	SavedChoice,
	Time,
	type ViewContext
} from '../layout'
import { ActivityPage, activityLinks, activityPageOf } from './activity'
import { ConfigsTable, type ConfigRowView } from './configs'

// One team's page: members, invitations, its configs, and its activity (docs/web.md). Its forms are handled in teams-changes.tsx.

export interface TeamPageData {
	/** The event feed's position before this data was read (docs/web.md "Live changes"). */
	liveFrom: string
	id: string
	name: string
	slug: string
	createdAt: string
	userRole: Role
	/** The members this page shows: all of them, or one page of a large team's (`membersPage`). */
	members: TeamMember[]
	/** A large team's members come MEMBERS_IN_DETAIL at a time: the cursor this page starts after, and the next one's. */
	membersPage?: { after?: string; next?: string }
	/** At most two owners' ids, wherever they are in the pages: enough to tell whether one is the only one. */
	owners: string[]
	invitations?: Invitation[]
	configs: ConfigRowView[]
	userId: string
}

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 }

/** The API's rule (docs/api.md): owner removes anyone, admin removes members; leaving is a button of its own. */
const mayRemove = (viewer: Role, target: Role) => viewer === 'owner' || (viewer === 'admin' && target === 'member')

/** The API's rule for invitations: an owner cancels any, an admin those for members. */
export const mayCancel = (viewer: Role, invitation: Invitation) => viewer === 'owner' || invitation.role === 'member'

type TeamView = Pick<TeamPageData, 'slug' | 'name' | 'userRole' | 'userId'>
type MembersView = TeamView & Pick<TeamPageData, 'members' | 'membersPage' | 'owners'>

/** Which control of a row takes the focus after an in-place change: its action (Remove, Leave) or its Save. */
export type RowFocus = { id: string; on: 'action' | 'save' }

/**
 * True when `member` is the team's only owner: the API refuses to let them leave (a team keeps an owner), so their
 * row says so instead of offering "Leave".
 */
export const isSoleOwner = (owners: string[], member: TeamMember) =>
	member.role === 'owner' && owners.length === 1 && owners[0] === member.userId

/**
 * The members page a request is on: `?after=` of its address, or for an htmx change the address of the page it
 * came from (so a change swaps in the page the person is looking at). A cursor that is none is the first page.
 */
export function membersAfterOf(request: Request): string | undefined {
	const from = (address: string | null) => {
		if (!address) return undefined
		try {
			return new URL(address, 'http://localhost').searchParams.get('after') ?? undefined
		} catch {
			return undefined
		}
	}
	const after = from(request.url) ?? from(request.headers.get('hx-current-url'))
	return after !== undefined && MembersQuery.shape.after.safeParse(after).success ? after : undefined
}

/** True when the member's row offers the viewer any control (so it can take the focus). */
export const rowHasControl = (team: TeamView, member: TeamMember) =>
	member.userId === team.userId || team.userRole === 'owner' || mayRemove(team.userRole, member.role)

export const MEMBERS = { id: 'members', title: 'Members' } as const
export const INVITATIONS = { id: 'invitations', title: 'Pending invitations' } as const

export function MemberRow({
	ctx,
	team,
	member,
	error,
	focus,
	soleOwner = false
}: {
	ctx: ViewContext
	team: TeamView
	member: TeamMember
	error?: string
	focus?: RowFocus['on']
	/** The member is the team's only owner (who cannot leave). */
	soleOwner?: boolean
}) {
	const self = member.userId === team.userId
	const base = `/teams/${team.slug}/members/${member.userId}`
	const removable = !self && mayRemove(team.userRole, member.role)
	// The action takes the focus when asked, or instead of a Save this row lacks.
	const focusAction = focus === 'action' || (focus === 'save' && team.userRole !== 'owner')
	return (
		<tr id={`member-${member.userId}`}>
			<th scope="row" data-label="Username">
				{member.username}
				{self ? <span class="muted"> (you)</span> : null}
			</th>
			<td data-label="Email">{member.email}</td>
			<td data-label="Role">
				{team.userRole === 'owner' ? (
					<SavedChoice
						ctx={ctx}
						action={`${base}/role`}
						target="#members-list"
						id={`role-${member.userId}`}
						label="Role"
						name="role"
						choices={ROLES}
						value={member.role}
						focus={focus === 'save' || (focus === 'action' && self && soleOwner)}
					/>
				) : (
					member.role
				)}
				{error ? (
					<span class="alert inline" role="alert">
						{error}
					</span>
				) : null}
			</td>
			<td data-label="Joined">
				<Time iso={member.joinedAt} now={ctx.now} />
			</td>
			<td class="actions">
				{self && soleOwner ? (
					<span class="hint">You are the only owner: make someone else an owner before you leave.</span>
				) : self ? (
					<form method="get" action={`/teams/${team.slug}/leave`}>
						<button type="submit" class="secondary" autofocus={focusAction || undefined}>
							Leave
						</button>
					</form>
				) : removable ? (
					// Without JavaScript the button opens the confirmation page; with it the page's dialog asks (app.js), then htmx posts.
					<form
						method="get"
						action={`${base}/remove`}
						hx-post={`${base}/remove`}
						hx-target="#members-list"
						hx-swap="outerHTML"
						hx-confirm={`Remove ${member.username} from ${team.name}?`}
						data-confirm-button="Remove"
					>
						<button type="submit" class="danger" autofocus={focusAction || undefined}>
							Remove
						</button>
					</form>
				) : null}
			</td>
		</tr>
	)
}

/** The members table: what a change of role or a removal swaps in place. */
export function MembersList({
	ctx,
	team,
	focus,
	error
}: {
	ctx: ViewContext
	team: MembersView
	focus?: RowFocus
	error?: { userId: string; message: string }
}) {
	return (
		<div id="members-list">
			<table class="stack-on-phone" aria-labelledby="members-heading">
				<thead>
					<tr>
						<th scope="col">Username</th>
						<th scope="col">Email</th>
						<th scope="col">Role</th>
						<th scope="col">Joined</th>
						<th scope="col">
							<span class="visually-hidden">Actions</span>
						</th>
					</tr>
				</thead>
				<tbody>
					{team.members.map((member) => (
						<MemberRow
							ctx={ctx}
							team={team}
							member={member}
							focus={focus?.id === member.userId ? focus.on : undefined}
							error={error?.userId === member.userId ? error.message : undefined}
							soleOwner={isSoleOwner(team.owners, member)}
						/>
					))}
				</tbody>
			</table>
			{team.membersPage ? (
				<nav class="pager" aria-label="Pages of members">
					{team.membersPage.after !== undefined ? (
						<a href={`/teams/${team.slug}#members-heading`}>First members</a>
					) : null}
					{team.membersPage.next !== undefined ? (
						<a href={`/teams/${team.slug}?after=${encodeURIComponent(team.membersPage.next)}#members-heading`}>
							More members
						</a>
					) : null}
				</nav>
			) : null}
		</div>
	)
}

/** The pending invitations, each with "Cancel invitation": what a cancellation swaps in place. */
export function InvitationsList({
	team,
	invitations,
	focus,
	now
}: {
	team: TeamView
	invitations: Invitation[]
	focus?: string
	/** Now, for the relative expiry. */
	now: number
}) {
	return (
		<div id="invitations-list">
			{invitations.length === 0 ? (
				<p class="empty">No invitation is waiting for an answer.</p>
			) : (
				<table class="stack-on-phone" aria-labelledby="invitations-heading">
					<thead>
						<tr>
							<th scope="col">Username</th>
							<th scope="col">Role</th>
							<th scope="col">Invited by</th>
							<th scope="col">Expires</th>
							<th scope="col">
								<span class="visually-hidden">Actions</span>
							</th>
						</tr>
					</thead>
					<tbody>
						{invitations.map((invitation) => {
							const path = `/teams/${team.slug}/members/${invitation.userId}/remove`
							return (
								<tr id={`invitation-${invitation.userId}`}>
									<th scope="row" data-label="Username">
										{invitation.username}
									</th>
									<td data-label="Role">{invitation.role}</td>
									<td data-label="Invited by">{invitation.invitedBy}</td>
									<td data-label="Expires">
										<Time iso={invitation.expiresAt} now={now} />
									</td>
									<td class="actions">
										{mayCancel(team.userRole, invitation) ? (
											<form
												method="get"
												action={path}
												hx-post={path}
												hx-target="#invitations-list"
												hx-swap="outerHTML"
												hx-confirm={`Cancel the invitation of ${invitation.username} to ${team.name}?`}
												data-confirm-button="Cancel invitation"
											>
												<button type="submit" class="secondary" autofocus={focus === invitation.userId || undefined}>
													Cancel invitation
												</button>
											</form>
										) : null}
									</td>
								</tr>
							)
						})}
					</tbody>
				</table>
			)}
		</div>
	)
}

export function TeamPage({
	ctx,
	team,
	error,
	notice,
	form
}: {
	ctx: ViewContext
	team: TeamPageData
	error?: string
	notice?: string
	/** A failed "Add member" or "Rename", back after its redirect (forms.tsx). */
	form?: FormState
}) {
	const adminPlus = RANK[team.userRole] >= RANK.admin
	const login = fieldState(form, ADD_MEMBER, 'login', 'invite-login')
	const invitedRole = form?.form === ADD_MEMBER ? form.values.role : undefined
	const newName = fieldState(form, RENAME, 'name', 'rename-name')
	const newSlug = fieldState(form, RENAME, 'slug', 'rename-slug', 'rename-hint')
	return (
		<Layout ctx={ctx} title={team.name}>
			<p class="crumbs">
				<a href="/teams">Teams</a>
			</p>
			<h1>{team.name}</h1>
			<p>
				<code>{team.slug}</code> · you are {team.userRole === 'member' ? 'a' : 'an'} {team.userRole}
				{adminPlus ? (
					<>
						{' · '}
						<a href={`/teams/${team.slug}/activity`}>Activity</a>
					</>
				) : null}
			</p>
			<Notice message={notice} />
			<LiveNotice watch={`team:${team.id}`} from={team.liveFrom} />
			<Alert message={error} />
			<section>
				<ListHeading list={MEMBERS.id} title={MEMBERS.title} />
				<ListStatus list={MEMBERS.id} />
				<MembersList ctx={ctx} team={team} />
			</section>
			{adminPlus ? (
				<section class="narrow">
					<h2 id="add-member">Add member</h2>
					<p class="hint">They get an invitation and join once they accept it on their Teams page.</p>
					<FormAlert state={form} form={ADD_MEMBER} />
					<form method="post" action={`/teams/${team.slug}/members`} class="stack" aria-labelledby="add-member">
						<Csrf ctx={ctx} />
						<label for="invite-login">Username or email</label>
						<input id="invite-login" name="login" type="text" required {...login} />
						<FieldError state={form} form={ADD_MEMBER} name="login" id="invite-login" />
						<label for="invite-role">Role</label>
						<select id="invite-role" name="role">
							<option value="member">member</option>
							{team.userRole === 'owner' ? (
								<option value="admin" selected={invitedRole === 'admin'}>
									admin
								</option>
							) : null}
						</select>
						<button type="submit">Add member</button>
					</form>
				</section>
			) : null}
			{team.invitations && team.invitations.length > 0 ? (
				<section>
					<ListHeading list={INVITATIONS.id} title={INVITATIONS.title} />
					<ListStatus list={INVITATIONS.id} />
					<InvitationsList team={team} invitations={team.invitations} now={ctx.now} />
				</section>
			) : null}
			<section>
				<h2>Configs</h2>
				{team.configs.length === 0 ? (
					<p class="empty">
						No team config yet. Admins push them with <code>cfgsync push --team {team.slug}</code>:{' '}
						<InstallClientLink /> on a machine first.
					</p>
				) : (
					<ConfigsTable ctx={ctx} configs={team.configs} showTeam={false} />
				)}
			</section>
			{adminPlus ? (
				<section class="narrow">
					<h2 id="rename">Rename</h2>
					<FormAlert state={form} form={RENAME} />
					<form method="post" action={`/teams/${team.slug}/rename`} class="stack" aria-labelledby="rename">
						<Csrf ctx={ctx} />
						<label for="rename-name">Name</label>
						<input
							id="rename-name"
							name="name"
							type="text"
							required
							maxlength={50}
							{...newName}
							value={newName.value ?? team.name}
						/>
						<FieldError state={form} form={RENAME} name="name" id="rename-name" />
						<label for="rename-slug">Slug</label>
						<input
							id="rename-slug"
							name="slug"
							type="text"
							required
							maxlength={50}
							pattern="[a-z0-9]+(-[a-z0-9]+)*"
							{...newSlug}
							value={newSlug.value ?? team.slug}
							aria-describedby={newSlug['aria-describedby'] ?? 'rename-hint'}
						/>
						<FieldError state={form} form={RENAME} name="slug" id="rename-slug" />
						<p id="rename-hint" class="hint">
							A slug given up stays reserved for this team for 30 days.
						</p>
						<button type="submit">Rename</button>
					</form>
				</section>
			) : null}
			{team.userRole === 'owner' ? (
				<section class="narrow danger-zone">
					<h2>Delete team</h2>
					<p>The team and its configs disappear for everyone at once, and are removed for good after 30 days.</p>
					<form method="get" action={`/teams/${team.slug}/delete`}>
						<button type="submit" class="danger">
							Delete team
						</button>
					</form>
				</section>
			) : null}
		</Layout>
	)
}

/** The forms of a team's page, by name in a failed form's state (forms.tsx). */
export const ADD_MEMBER = 'add-member'
export const RENAME = 'rename'

export const teamPages = (deps: WebDeps) => {
	const { teams, configs, audit, events } = deps
	/** The team as its page shows it: the caller's view of it (404 when they are not in it) with its configs. */
	async function teamPageData(caller: PageContext['web'], slug: string, after?: string): Promise<TeamPageData> {
		const liveFrom = await events.cursor()
		const detail = await teams.get(caller, slug)
		const list = (await configs.list(caller, detail.id)).configs
		// A team of up to MEMBERS_IN_DETAIL members is one page; a larger one is shown a page at a time, so the page
		// stays small at thousands of members (docs/web.md).
		let members = detail.members
		let membersPage: TeamPageData['membersPage']
		if (members.length >= MEMBERS_IN_DETAIL || after !== undefined) {
			const page = await teams.members(caller, slug, { limit: MEMBERS_IN_DETAIL, after })
			members = page.members
			membersPage = { after, next: page.next }
		}
		return {
			...detail,
			members,
			membersPage,
			owners: await teams.ownerIds(caller, slug),
			liveFrom,
			userId: caller.userId,
			invitations: 'invitations' in detail ? detail.invitations : undefined,
			configs: list.map((config) => ({ ...config, team: { name: detail.name, slug: detail.slug } }))
		}
	}

	return {
		teamPageData,

		show: ({ request, web, view, params }: PageContext & { params: { slug: string } }) =>
			attempt(request, view, async () => {
				const { state, headers } = formStateOf(deps, request, web, [ADD_MEMBER, RENAME])
				return page(
					<TeamPage
						ctx={view}
						team={await teamPageData(web, params.slug, membersAfterOf(request))}
						notice={noticeOf(request)}
						form={state}
					/>,
					{ headers }
				)
			}),

		activity: ({ request, web, view, params }: PageContext & { params: { slug: string } }) =>
			attempt(request, view, async () => {
				const detail = await teams.get(web, params.slug)
				const path = `/teams/${detail.slug}/activity`
				const { events, search, pager } = await activityPageOf(request, path, (query) =>
					audit.team(web, params.slug, query)
				)
				const links = await activityLinks(deps, web, events)
				return page(
					<ActivityPage
						ctx={view}
						title={`Activity of ${detail.name}`}
						path={path}
						events={events}
						search={search}
						reader={{ viewerId: web.userId, links, teamId: detail.id }}
						pager={pager}
						back={{ href: `/teams/${detail.slug}`, label: detail.name }}
					/>
				)
			})
	}
}
