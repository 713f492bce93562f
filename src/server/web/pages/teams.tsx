import { CreateTeamBody } from '../../../shared/api/teams'
import type { Invitation } from '../../../shared/api/teams'
import type { Role } from '../../../shared/constants'
import { AppError } from '../../lib/errors'
import { createsTeams } from '../../modules/users/plan'
import {
	FieldError,
	FormAlert,
	fieldOfZod,
	fieldState,
	formFailed,
	formStateOf,
	refusal,
	type FormState
} from '../forms'
import { attempt, field, noticeOf, page, redirect, type ChangeContext, type PageContext, type WebDeps } from '../kit'
import { Csrf, Layout, Notice, Time, type ViewContext } from '../layout'

// The Teams page: the caller's teams, their invitations, and creating a team (docs/web.md).
// One team's page is in teams-detail.tsx, its forms in teams-changes.tsx.

export interface TeamListItemView {
	name: string
	slug: string
	role: Role
	createdAt: string
}

/** A deleted team its owner may still restore, and when it is purged. */
export interface DeletedTeamView {
	name: string
	slug: string
	deletedAt: string
	purgeAt: string
}

/** Deleted teams the viewer owns: each with its purge date and "Restore", until the purge (docs/web.md). */
function DeletedTeams({ ctx, teams }: { ctx: ViewContext; teams: DeletedTeamView[] }) {
	if (teams.length === 0) return null
	return (
		<section aria-labelledby="deleted-teams">
			<h2 id="deleted-teams">Deleted teams</h2>
			<p class="hint">
				A deleted team is gone for its members, its slug stays taken, and on its purge date it is removed for good with
				its configs. Until then you can restore it, with its members and configs as they were.
			</p>
			<table class="stack-on-phone">
				<thead>
					<tr>
						<th scope="col">Team</th>
						<th scope="col">Slug</th>
						<th scope="col">State</th>
						<th scope="col">
							<span class="visually-hidden">Actions</span>
						</th>
					</tr>
				</thead>
				<tbody>
					{teams.map((team) => (
						<tr id={`deleted-${team.slug}`}>
							<th scope="row" data-label="Team">
								{team.name}
							</th>
							<td data-label="Slug">
								<code>{team.slug}</code>
							</td>
							<td data-label="State">
								Deleted — purged on <time datetime={team.purgeAt}>{team.purgeAt.slice(0, 10)}</time>{' '}
								<span class="muted">
									— deleted <Time iso={team.deletedAt} now={ctx.now} inline />
								</span>
							</td>
							<td class="actions">
								<form method="post" action={`/teams/${team.slug}/restore`}>
									<Csrf ctx={ctx} />
									<button type="submit" class="secondary small">
										Restore<span class="visually-hidden"> {team.name}</span>
									</button>
								</form>
							</td>
						</tr>
					))}
				</tbody>
			</table>
		</section>
	)
}

export function TeamsPage({
	ctx,
	teams,
	deleted = [],
	invitations,
	canCreate,
	notice,
	form
}: {
	ctx: ViewContext
	teams: TeamListItemView[]
	/** Deleted teams the viewer owns, until their purge. */
	deleted?: DeletedTeamView[]
	invitations: Invitation[]
	canCreate: boolean
	notice?: string
	/** A failed "Create team", back after its redirect (forms.tsx). */
	form?: FormState
}) {
	const name = fieldState(form, CREATE_TEAM, 'name', 'team-name')
	const slug = fieldState(form, CREATE_TEAM, 'slug', 'team-slug', 'slug-hint')
	return (
		<Layout ctx={ctx} title="Teams">
			<h1>Teams</h1>
			<Notice message={notice} />
			{invitations.length > 0 ? (
				<section>
					<h2>Invitations</h2>
					<ul class="cards">
						{invitations.map((invitation) => (
							<li class="card">
								<p>
									<strong>{invitation.invitedBy}</strong> invited you to <strong>{invitation.teamName}</strong> as{' '}
									{invitation.role}{' '}
									<span class="muted">
										(<Time iso={invitation.createdAt} now={ctx.now} />)
									</span>
								</p>
								<div class="inline-actions">
									<form method="post" action={`/invitations/${invitation.teamSlug}/accept`}>
										<Csrf ctx={ctx} />
										<button type="submit">Accept</button>
									</form>
									<form method="post" action={`/invitations/${invitation.teamSlug}/decline`}>
										<Csrf ctx={ctx} />
										<button type="submit" class="secondary">
											Decline
										</button>
									</form>
								</div>
							</li>
						))}
					</ul>
				</section>
			) : null}
			<section>
				<h2>Your teams</h2>
				{teams.length === 0 ? (
					<p class="empty">You are in no team yet.</p>
				) : (
					<table class="stack-on-phone">
						<thead>
							<tr>
								<th scope="col">Team</th>
								<th scope="col">Slug</th>
								<th scope="col">Your role</th>
								<th scope="col">Created</th>
							</tr>
						</thead>
						<tbody>
							{teams.map((team) => (
								<tr>
									<th scope="row" data-label="Team">
										<a href={`/teams/${team.slug}`}>{team.name}</a>
									</th>
									<td data-label="Slug">
										<code>{team.slug}</code>
									</td>
									<td data-label="Your role">{team.role}</td>
									<td data-label="Created">
										<Time iso={team.createdAt} now={ctx.now} />
									</td>
								</tr>
							))}
						</tbody>
					</table>
				)}
			</section>
			<DeletedTeams ctx={ctx} teams={deleted} />
			<section class="narrow">
				<h2 id="create-team">Create team</h2>
				<FormAlert state={form} form={CREATE_TEAM} />
				{canCreate ? (
					<form method="post" action="/teams" class="stack" aria-labelledby="create-team">
						<Csrf ctx={ctx} />
						<label for="team-name">Name</label>
						<input id="team-name" name="name" type="text" required maxlength={50} {...name} />
						<FieldError state={form} form={CREATE_TEAM} name="name" id="team-name" />
						<label for="team-slug">Slug</label>
						<input id="team-slug" name="slug" type="text" maxlength={50} pattern="[a-z0-9]+(-[a-z0-9]+)*" {...slug} />
						<FieldError state={form} form={CREATE_TEAM} name="slug" id="team-slug" />
						<p id="slug-hint" class="hint">
							Optional: lower-case letters and digits joined by dashes; made from the name when empty.
						</p>
						<button type="submit">Create team</button>
					</form>
				) : (
					<p class="empty">Creating teams needs the Team plan; ask the server's administrator.</p>
				)}
			</section>
		</Layout>
	)
}

/** The form's name in a failed form's state (forms.tsx). */
const CREATE_TEAM = 'create-team'

export const teamsPages = (deps: WebDeps) => {
	const { teams } = deps
	const teamsPage = async (
		web: PageContext['web'],
		view: PageContext['view'],
		more: { notice?: string; form?: FormState }
	) => (
		<TeamsPage
			ctx={view}
			teams={await teams.list(web)}
			deleted={await teams.deleted(web)}
			invitations={await teams.invitations(web)}
			canCreate={createsTeams(web.plan)}
			{...more}
		/>
	)

	return {
		list: ({ request, web, view }: PageContext) =>
			attempt(request, view, async () => {
				const { state, headers } = formStateOf(deps, request, web, CREATE_TEAM)
				return page(await teamsPage(web, view, { notice: noticeOf(request), form: state }), { headers })
			}),

		create: ({ request, web, view, actor, body }: ChangeContext) =>
			attempt(request, view, async () => {
				const values = { name: field(body, 'name'), slug: field(body, 'slug').trim() }
				const failed = (more: Pick<FormState, 'errors' | 'general'>) =>
					formFailed(deps, request, web, '/teams', { form: CREATE_TEAM, values, ...more })
				// The API's own schema: the same rules for the name and the optional slug.
				const parsed = CreateTeamBody.safeParse({
					name: values.name,
					slug: values.slug === '' ? undefined : values.slug
				})
				if (!parsed.success) {
					const { field: name, message } = fieldOfZod(parsed.error, 'name')
					return failed({ errors: { [name]: message } })
				}
				try {
					const created = await teams.create(actor, parsed.data.name, parsed.data.slug)
					return redirect(`/teams/${created.slug}?notice=created`)
				} catch (error) {
					// A taken slug is about the slug typed, or the one made from the name.
					const about =
						error instanceof AppError && error.code === 'conflict' ? (values.slug ? 'slug' : 'name') : undefined
					return failed(
						refusal(
							error,
							error instanceof AppError && (error.status === 429 || error.status === 403)
								? undefined
								: (about ?? 'name')
						)
					)
				}
			}),

		accept: ({ request, view, actor, params }: ChangeContext & { params: { slug: string } }) =>
			attempt(request, view, async () => {
				await teams.accept(actor, params.slug)
				return redirect(`/teams/${params.slug}?notice=joined`)
			}),

		/** Owners only, until the purge (a 404 for anyone else); back to the team's page. */
		restore: ({ request, view, actor, params }: ChangeContext & { params: { slug: string } }) =>
			attempt(request, view, async () => {
				const restored = await teams.restore(actor, params.slug)
				return redirect(`/teams/${restored.slug}?notice=restored`)
			}),

		decline: ({ request, view, actor, params }: ChangeContext & { params: { slug: string } }) =>
			attempt(request, view, async () => {
				await teams.decline(actor, params.slug)
				return redirect('/teams?notice=declined')
			})
	}
}
