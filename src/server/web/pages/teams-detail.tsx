import type { Role } from '../../../shared/constants'
import type { Invitation, TeamMember } from '../../../shared/api/teams'
import { attempt, beforeOf, noticeOf, page, type PageContext, type WebDeps } from '../kit'
import { Alert, Csrf, Layout, Notice, Time, type ViewContext } from '../layout'
import { ActivityPage } from './account'
import { ConfigsTable, type ConfigRowView } from './configs'

// One team's page: members, invitations, its configs, and its activity (docs/web.md). Its forms are handled in teams-changes.tsx.

export interface TeamPageData {
	id: string
	name: string
	slug: string
	createdAt: string
	userRole: Role
	members: TeamMember[]
	invitations?: Invitation[]
	configs: ConfigRowView[]
	userId: string
}

const RANK: Record<Role, number> = { member: 0, admin: 1, owner: 2 }

/** The API's rule (docs/api.md): owner removes anyone, admin removes members; leaving is a button of its own. */
const mayRemove = (viewer: Role, target: Role) => viewer === 'owner' || (viewer === 'admin' && target === 'member')

export function MemberRow({
	ctx,
	team,
	member,
	error
}: {
	ctx: ViewContext
	team: Pick<TeamPageData, 'slug' | 'userRole' | 'userId'>
	member: TeamMember
	error?: string
}) {
	const self = member.userId === team.userId
	const base = `/teams/${team.slug}/members/${member.userId}`
	return (
		<tr id={`member-${member.userId}`}>
			<th scope="row" data-label="Username">
				{member.username}
				{self ? <span class="muted"> (you)</span> : null}
			</th>
			<td data-label="Email">{member.email}</td>
			<td data-label="Role">
				{team.userRole === 'owner' ? (
					<form
						method="post"
						action={`${base}/role`}
						hx-post={`${base}/role`}
						hx-trigger="change"
						hx-target="closest tr"
						hx-swap="outerHTML"
						class="role-form"
					>
						<Csrf ctx={ctx} />
						<label for={`role-${member.userId}`} class="visually-hidden">
							Role
						</label>
						<select id={`role-${member.userId}`} name="role">
							{(['owner', 'admin', 'member'] as const).map((role) => (
								<option value={role} selected={member.role === role}>
									{role}
								</option>
							))}
						</select>
						<button type="submit" class="secondary small">
							Save
						</button>
					</form>
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
				{self ? (
					<form method="post" action={`/teams/${team.slug}/leave`}>
						<Csrf ctx={ctx} />
						<button type="submit" class="secondary">
							Leave
						</button>
					</form>
				) : mayRemove(team.userRole, member.role) ? (
					<form
						method="post"
						action={`${base}/remove`}
						hx-post={`${base}/remove`}
						hx-target="closest tr"
						hx-swap="delete"
						hx-confirm={`Remove ${member.username} from the team?`}
					>
						<Csrf ctx={ctx} />
						<button type="submit" class="danger">
							Remove
						</button>
					</form>
				) : null}
			</td>
		</tr>
	)
}

export function TeamPage({
	ctx,
	team,
	error,
	notice,
	inviteError
}: {
	ctx: ViewContext
	team: TeamPageData
	error?: string
	notice?: string
	inviteError?: string
}) {
	const adminPlus = RANK[team.userRole] >= RANK.admin
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
			<Alert message={error} />
			<section>
				<h2>Members</h2>
				<table class="stack-on-phone">
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
							<MemberRow ctx={ctx} team={team} member={member} />
						))}
					</tbody>
				</table>
			</section>
			{adminPlus ? (
				<section class="narrow">
					<h2 id="add-member">Add member</h2>
					<p class="hint">They get an invitation and join once they accept it on their Teams page.</p>
					<Alert message={inviteError} />
					<form method="post" action={`/teams/${team.slug}/members`} class="stack" aria-labelledby="add-member">
						<Csrf ctx={ctx} />
						<label for="invite-login">Username or email</label>
						<input id="invite-login" name="login" type="text" required />
						<label for="invite-role">Role</label>
						<select id="invite-role" name="role">
							<option value="member">member</option>
							{team.userRole === 'owner' ? <option value="admin">admin</option> : null}
						</select>
						<button type="submit">Add member</button>
					</form>
				</section>
			) : null}
			{team.invitations && team.invitations.length > 0 ? (
				<section>
					<h2>Pending invitations</h2>
					<table class="stack-on-phone">
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
							{team.invitations.map((invitation) => (
								<tr>
									<th scope="row" data-label="Username">
										{invitation.username}
									</th>
									<td data-label="Role">{invitation.role}</td>
									<td data-label="Invited by">{invitation.invitedBy}</td>
									<td data-label="Expires">
										<time datetime={invitation.expiresAt}>{invitation.expiresAt.slice(0, 10)}</time>
									</td>
									<td class="actions">
										{team.userRole === 'owner' || invitation.role === 'member' ? (
											<form
												method="post"
												action={`/teams/${team.slug}/members/${invitation.userId}/remove`}
												hx-post={`/teams/${team.slug}/members/${invitation.userId}/remove`}
												hx-target="closest tr"
												hx-swap="delete"
											>
												<Csrf ctx={ctx} />
												<button type="submit" class="secondary">
													Cancel
												</button>
											</form>
										) : null}
									</td>
								</tr>
							))}
						</tbody>
					</table>
				</section>
			) : null}
			<section>
				<h2>Configs</h2>
				{team.configs.length === 0 ? (
					<p class="empty">
						No team config yet. Admins push them with <code>cfgsync push --team {team.slug}</code>.
					</p>
				) : (
					<ConfigsTable ctx={ctx} configs={team.configs} showTeam={false} />
				)}
			</section>
			{adminPlus ? (
				<section class="narrow">
					<h2 id="rename">Rename</h2>
					<form method="post" action={`/teams/${team.slug}/rename`} class="stack" aria-labelledby="rename">
						<Csrf ctx={ctx} />
						<label for="rename-name">Name</label>
						<input id="rename-name" name="name" type="text" required maxlength={50} value={team.name} />
						<label for="rename-slug">Slug</label>
						<input
							id="rename-slug"
							name="slug"
							type="text"
							required
							maxlength={50}
							pattern="[a-z0-9]+(-[a-z0-9]+)*"
							value={team.slug}
							aria-describedby="rename-hint"
						/>
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

export const teamPages = ({ teams, configs, audit }: WebDeps) => {
	/** The team as its page shows it: the caller's view of it (404 when they are not in it) with its configs. */
	async function teamPageData(caller: PageContext['web'], slug: string): Promise<TeamPageData> {
		const detail = await teams.get(caller, slug)
		const list = await configs.list(caller, detail.id)
		return {
			...detail,
			userId: caller.userId,
			invitations: 'invitations' in detail ? detail.invitations : undefined,
			configs: list.map((config) => ({ ...config, team: { name: detail.name, slug: detail.slug } }))
		}
	}

	return {
		teamPageData,

		show: ({ request, web, view, params }: PageContext & { params: { slug: string } }) =>
			attempt(request, view, async () =>
				page(<TeamPage ctx={view} team={await teamPageData(web, params.slug)} notice={noticeOf(request)} />)
			),

		activity: ({ request, web, view, params }: PageContext & { params: { slug: string } }) =>
			attempt(request, view, async () => {
				const detail = await teams.get(web, params.slug)
				const events = await audit.team(web, params.slug, { limit: 50, before: beforeOf(request) })
				const last = events.length === 50 ? events[events.length - 1]?.id : undefined
				return page(
					<ActivityPage
						ctx={view}
						title={`Activity of ${detail.name}`}
						events={events}
						back={{ href: `/teams/${detail.slug}`, label: detail.name }}
						older={last ? `/teams/${detail.slug}/activity?before=${last}` : undefined}
					/>
				)
			})
	}
}
