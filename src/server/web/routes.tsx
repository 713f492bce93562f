import { Elysia, status } from 'elysia'
import htmxFile from 'htmx.org/dist/htmx.min.js' with { type: 'file' }
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { VNode } from 'preact'
import { render } from 'preact-render-to-string'
import type { Clock } from '../lib/clock'
import { HISTORY_PLANS, type Role } from '../../shared/constants'
import { sha256Hex } from '../lib/crypto'
import { AppError } from '../lib/errors'
import { CONTENT_SECURITY_POLICY, htmlResponse, NO_STORE, pathOf } from '../lib/http'
import type { Actor } from '../modules/audit/event'
import { AuditQuery } from '../../shared/api/audit'
import type { AuditService } from '../modules/audit/service'
import type { AuthService } from '../modules/auth/service'
import type { ConfigsService } from '../modules/configs/service'
import type { SessionsService, WebCaller } from '../modules/sessions/service'
import { AddMemberBody, CreateTeamBody, PatchTeamBody, SetRoleBody } from '../../shared/api/teams'
import type { TeamsService } from '../modules/teams/service'
import type { UsersService } from '../modules/users/service'
import { readForm } from '../plugins/json-body'
import cssFile from './assets/app.css' with { type: 'file' }
import { diffData } from './diff'
import { clearedSessionCookie, CSRF_FIELD, createWebGate, ownOrigin, fromOwnPages, sessionCookie } from './session'
import { AdminPage, ActivityPage, UserRow } from './views/admin'
import { ComparePage, ConfigPage, ConfigsPage, DiffView, type ConfigPageData, type ConfigRowView, type CompareData } from './views/configs'
import type { ViewContext } from './views/layout'
import { AccountPage, ConfirmPage, DevicesPage, ErrorPage, SignInPage } from './views/pages'
import { MemberRow, TeamPage, TeamsPage, type TeamPageData } from './views/teams'

export interface WebDeps {
	sessions: SessionsService
	auth: AuthService
	configs: ConfigsService
	teams: TeamsService
	users: UsersService
	audit: AuditService
	clock: Clock
	/** The client address of a request (CONTRACT §2), for throttling and the audit log. */
	addressOf: (request: Request) => string
	/** True when the request came over HTTPS, directly or through a trusted proxy. */
	https: (request: Request) => boolean
}

/** Fixed messages shown after a change (the query names one; nothing from it is echoed). */
const NOTICES: Record<string, string> = {
	revoked: 'The key was revoked: that device can no longer reach the server.',
	password: 'Your password was changed. Your other web sessions were signed out.',
	'rolled-back': 'Rolled back: the chosen version is now the current one, as a new version.',
	created: 'The team was created.',
	joined: 'You joined the team.',
	declined: 'The invitation was declined.',
	invited: 'The invitation was sent. They join once they accept it.',
	role: 'The role was changed.',
	removed: 'Removed.',
	left: 'You left the team.',
	renamed: 'The team was renamed.',
	deleted: 'The team was deleted.',
	'user-added': 'The user was added.',
	plan: 'The plan was changed.',
	'keys-revoked': 'Every key and web session of that user was revoked.',
	'user-removed': 'The user was removed.'
}

const ASSET_PREFIX = '/assets'
const versioned = (file: string) => sha256Hex(readFileSync(file)).slice(0, 12)

type Body = Record<string, unknown> | undefined

/** A form field as text ('' when missing or not text). */
const field = (body: unknown, name: string): string => {
	const value = (body as Body)?.[name]
	return typeof value === 'string' ? value : ''
}

const isHtmx = (request: Request) => request.headers.get('hx-request') === 'true'

/** Only a path of this site: never `//elsewhere` or a full URL (no open redirect). */
const safeNext = (next: string | null | undefined): string | undefined =>
	next && /^\/(?![/\\])[^\s]*$/.test(next) && !next.startsWith('/sign-') ? next : undefined

const redirect = (location: string, headers: Record<string, string> = {}) =>
	new Response(null, { status: 303, headers: { location, ...NO_STORE, ...headers } })

/**
 * The web application (CONTRACT §8): server-rendered pages over the same
 * services as the API. Its gate is local to these routes: the cookie is read
 * only here, and /api stays bearer-only with its hot paths untouched.
 */
export function webRoutes(deps: WebDeps) {
	const { sessions, auth, configs, teams, users, audit, clock, addressOf } = deps
	const gate = createWebGate(sessions)
	const assets = { css: `${ASSET_PREFIX}/app.css?v=${versioned(cssFile)}`, htmx: `${ASSET_PREFIX}/htmx.min.js?v=${versioned(htmxFile)}` }
	const originOf = (request: Request) => ownOrigin(request, deps.https(request))

	const ctxOf = (request: Request, caller?: WebCaller): ViewContext => ({
		user: caller && { userId: caller.userId, username: caller.username, isAdmin: caller.isAdmin, csrfToken: caller.csrfToken },
		now: clock.now(),
		assets,
		path: pathOf(request.url)
	})

	/** A whole page, never cached (it carries a session or config data: CONTRACT §3). */
	const page = (node: VNode, init: { status?: number; headers?: Record<string, string> } = {}) =>
		htmlResponse(`<!DOCTYPE html>${render(node)}`, { status: init.status, headers: { ...NO_STORE, ...init.headers } })

	/** A piece of a page for htmx to swap in. */
	const fragment = (node: VNode | null, init: { status?: number; headers?: Record<string, string> } = {}) =>
		htmlResponse(node ? render(node) : '', { status: init.status, headers: { ...NO_STORE, ...init.headers } })

	const noticeOf = (request: Request) => NOTICES[new URL(request.url).searchParams.get('notice') ?? ''] ?? undefined

	/**
	 * A service's refusal as a page (or, for htmx, as an alert swapped into the
	 * page's alert region). Anything else is a bug: the error mapper logs it.
	 */
	function failure(request: Request, caller: WebCaller | undefined, error: unknown): Response {
		if (!(error instanceof AppError)) throw error
		const headers = error.headers ?? {}
		if (isHtmx(request)) {
			return fragment(
				<p class="alert" role="alert">
					{error.message}
				</p>,
				{ status: error.status, headers: { ...headers, 'hx-retarget': '#alerts', 'hx-reswap': 'innerHTML' } }
			)
		}
		return page(<ErrorPage ctx={ctxOf(request, caller)} status={error.status} message={error.message} />, { status: error.status, headers })
	}

	const attempt = (request: Request, caller: WebCaller | undefined, work: () => Promise<Response>): Promise<Response> =>
		work().catch((error: unknown) => failure(request, caller, error))

	/** After a change: the page again (POST, redirect, GET), or for htmx what it swaps in. */
	const done = (request: Request, location: string, htmx: () => Response = () => fragment(null)) => (isHtmx(request) ? htmx() : redirect(location))

	/** Signed out (or the session ended): to the sign-in page, coming back here afterwards. */
	function signedOut(request: Request, set: { headers: Record<string, unknown> }) {
		if (isHtmx(request)) {
			set.headers['hx-redirect'] = '/'
			return status(401, '')
		}
		const path = pathOf(request.url)
		set.headers.location = request.method === 'GET' && path !== '/' ? `/?next=${encodeURIComponent(path + new URL(request.url).search)}` : '/'
		Object.assign(set.headers, NO_STORE)
		return status(303, '')
	}

	/** A macro's refusal: the page, with the headers of every HTML page, and the status. */
	function stop(set: { headers: Record<string, unknown> }, code: 403, node: VNode) {
		Object.assign(set.headers, { 'content-type': 'text/html;charset=utf-8', 'content-security-policy': CONTENT_SECURITY_POLICY, 'x-frame-options': 'DENY', ...NO_STORE })
		return status(code, `<!DOCTYPE html>${render(node)}`)
	}

	const forbidden = (request: Request, caller: WebCaller, set: { headers: Record<string, unknown> }, message: string) =>
		stop(set, 403, <ErrorPage ctx={ctxOf(request, caller)} status={403} message={message} />)

	const actorOf = (request: Request, caller: WebCaller): Actor & WebCaller => ({ ...caller, address: addressOf(request) })

	/** Admin actions name users by id; the users service takes a login. */
	async function userById(id: string) {
		const user = (await users.listWithActivity()).find((candidate) => candidate.id === id)
		if (!user) throw new AppError('not_found', 'No such user.')
		return user
	}

	const oneTimePassword = () => randomBytes(12).toString('base64url')

	async function teamPageData(caller: WebCaller, slug: string): Promise<TeamPageData> {
		const detail = await teams.get(caller, slug)
		const list = await configs.list(caller, detail.id)
		return {
			...detail,
			userId: caller.userId,
			invitations: 'invitations' in detail ? detail.invitations : undefined,
			configs: list.map((config) => ({ ...config, team: { name: detail.name, slug: detail.slug } }))
		}
	}

	async function allConfigs(caller: WebCaller): Promise<ConfigRowView[]> {
		const personal = (await configs.list(caller, undefined)).map((config) => ({ ...config, team: null }))
		const mine = await teams.list(caller)
		const perTeam = await Promise.all(
			mine.map(async (team) => (await configs.list(caller, team.id)).map((config) => ({ ...config, team: { name: team.name, slug: team.slug } })))
		)
		return [...personal, ...perTeam.flat()]
	}

	const parseData = (bytes: Uint8Array): unknown => JSON.parse(Buffer.from(bytes).toString('utf8'))

	async function configPageData(caller: WebCaller, id: string, before: number | undefined): Promise<ConfigPageData> {
		const found = await configs.get(caller, id, undefined)
		if (found.notModified) throw new AppError('internal', 'unexpected 304')
		const { fields } = found
		const team = fields.teamId === null ? undefined : (await teams.list(caller)).find((candidate) => candidate.id === fields.teamId)
		const role: Role | undefined = team?.role
		const historyAllowed = HISTORY_PLANS.includes(caller.plan)
		let versions: ConfigPageData['versions']
		let olderThan: number | undefined
		const limit = 50
		if (historyAllowed) {
			versions = []
			for await (const version of await configs.versions(caller, id, { limit, before })) versions.push(version.fields)
			if (versions.length === limit) olderThan = versions[versions.length - 1]?.version
		}
		return {
			id: fields.id,
			name: fields.name,
			tool: fields.tool,
			version: fields.version,
			currentVersionId: fields.currentVersionId,
			updatedAt: fields.updatedAt,
			team: team ? { name: team.name, slug: team.slug } : null,
			data: parseData(found.data),
			versions,
			olderThan,
			historyNote: historyAllowed ? undefined : 'Version history, comparing versions and rollback need the Pro or Team plan.',
			canRollBack: historyAllowed && (fields.teamId === null || role === 'owner' || role === 'admin')
		}
	}

	const beforeOf = (request: Request): string | undefined => {
		const parsed = AuditQuery.safeParse({ before: new URL(request.url).searchParams.get('before') ?? undefined })
		return parsed.success ? parsed.data.before : undefined
	}

	return (
		// Hidden from the OpenAPI document (it describes the API); tagged so tests can tell these routes apart.
		new Elysia({ name: 'web', detail: { hide: true, tags: ['web'] } })
			// CONTRACT §3: every form is read through the counting reader, before the session and CSRF checks.
			.onParse(readForm)
			.macro({
				/** A page for signed-in people: the session from the cookie, or off to sign in. */
				page: {
					resolve: async ({ request, set }) => {
						const caller = await gate.caller(request)
						if (!caller) return signedOut(request, set)
						return { web: caller }
					}
				},
				/** A change: a live session, its CSRF token, and a request from our own pages (CONTRACT §8). */
				change: {
					resolve: async ({ request, set, body }) => {
						const caller = await gate.caller(request)
						if (!caller) return signedOut(request, set)
						if (!gate.allowsChange(request, caller, (body as Body)?.[CSRF_FIELD], originOf(request))) {
							return forbidden(request, caller, set, 'This request did not come from this application\'s own pages, so nothing was changed. Reload the page and try again.')
						}
						return { web: caller, actor: actorOf(request, caller) }
					}
				},
				/** Server admins only (CONTRACT §8: anyone else gets 403). */
				admin: {
					resolve: async ({ request, set }) => {
						const caller = await gate.caller(request)
						if (!caller) return signedOut(request, set)
						if (!caller.isAdmin) return forbidden(request, caller, set, 'The Admin area is for server admins.')
						return {}
					}
				}
			})
			.get(`${ASSET_PREFIX}/app.css`, () => asset(cssFile, 'text/css;charset=utf-8'))
			.get(`${ASSET_PREFIX}/htmx.min.js`, () => asset(htmxFile, 'text/javascript;charset=utf-8'))

			// Sign in and out
			.get('/', async ({ request }) => {
				const caller = await gate.caller(request)
				if (caller) return redirect('/configs')
				const next = safeNext(new URL(request.url).searchParams.get('next'))
				return page(<SignInPage ctx={ctxOf(request)} next={next} />)
			})
			// Reloading the address bar after a failed sign-in or a sign-out lands on a page, not a 404.
			.get('/sign-in', () => redirect('/'))
			.get('/sign-out', () => redirect('/'))
			.post('/sign-in', async ({ request, body }) => {
				const login = field(body, 'login').slice(0, 320)
				const password = field(body, 'password').slice(0, 1024)
				const next = safeNext(field(body, 'next'))
				const again = (error: string, init: { status: number; headers?: Record<string, string> }) =>
					page(<SignInPage ctx={ctxOf(request)} login={login} error={error} next={next} />, init)
				// No session yet, so no token: a sign-in posted from another site is refused by its origin alone.
				if (!fromOwnPages(request.headers, originOf(request))) return again('Sign in from this page.', { status: 403 })
				if (login === '' || password === '') return again('Enter your username or email and your password.', { status: 400 })
				try {
					const signed = await sessions.signIn(login, password, addressOf(request), request.headers.get('user-agent') ?? '')
					return redirect(next ?? '/configs', { 'set-cookie': sessionCookie(signed.cookie, deps.https(request)) })
				} catch (error) {
					if (error instanceof AppError && (error.code === 'unauthorized' || error.code === 'rate_limited')) {
						return again(error.code === 'unauthorized' ? 'Wrong username, email or password.' : error.message, { status: error.status, headers: error.headers })
					}
					throw error
				}
			})
			.post(
				'/sign-out',
				async ({ request, web }) => {
					await sessions.signOut(actorOf(request, web))
					return redirect('/', { 'set-cookie': clearedSessionCookie(deps.https(request)) })
				},
				{ change: true }
			)

			// Configs
			.get('/configs', ({ request, web }) => attempt(request, web, async () => page(<ConfigsPage ctx={ctxOf(request, web)} configs={await allConfigs(web)} />)), {
				page: true
			})
			.get(
				'/configs/:id',
				({ request, web, params }) =>
					attempt(request, web, async () => {
						const before = Number(new URL(request.url).searchParams.get('before'))
						const data = await configPageData(web, params.id, Number.isInteger(before) && before > 0 ? before : undefined)
						return page(<ConfigPage ctx={ctxOf(request, web)} config={data} notice={noticeOf(request)} />)
					}),
				{ page: true }
			)
			.get(
				'/configs/:id/compare',
				({ request, web, params }) =>
					attempt(request, web, async () => {
						const query = new URL(request.url).searchParams
						const fromId = query.get('from') ?? ''
						const toId = query.get('to') ?? ''
						if (fromId === '' || toId === '') return redirect(`/configs/${params.id}#history`)
						const [from, to] = await Promise.all([configs.version(web, params.id, fromId), configs.version(web, params.id, toId)])
						const config = await configs.get(web, params.id, undefined)
						if (config.notModified) throw new AppError('internal', 'unexpected 304')
						const compare: CompareData = {
							configId: params.id,
							name: config.fields.name,
							tool: config.fields.tool,
							from: { id: from.fields.id, version: from.fields.version },
							to: { id: to.fields.id, version: to.fields.version },
							files: diffData(parseData(from.data), parseData(to.data)),
							view: query.get('view') === 'split' ? 'split' : 'unified'
						}
						if (isHtmx(request)) return fragment(<DiffView compare={compare} />)
						return page(<ComparePage ctx={ctxOf(request, web)} compare={compare} />)
					}),
				{ page: true }
			)
			.get(
				'/configs/:id/rollback',
				({ request, web, params }) =>
					attempt(request, web, async () => {
						const versionId = new URL(request.url).searchParams.get('version') ?? ''
						const target = await configs.version(web, params.id, versionId)
						const config = await configPageData(web, params.id, undefined)
						if (!config.canRollBack) throw new AppError('forbidden', 'Rolling back this config needs the Pro or Team plan and, for a team config, the admin or owner role.')
						return page(
							<ConfirmPage
								ctx={ctxOf(request, web)}
								title={`Roll back ${config.name}`}
								question={`Make version ${target.fields.version} of ${config.name} (${config.tool}) current again? This adds a new version with its data; every version stays in the history.`}
								action={`/configs/${params.id}/rollback`}
								button="Roll back"
								cancel={`/configs/${params.id}`}
								fields={{ version: versionId }}
							/>
						)
					}),
				{ page: true }
			)
			.post(
				'/configs/:id/rollback',
				({ request, web, actor, params, body }) =>
					attempt(request, web, async () => {
						await configs.rollback(actor, params.id, field(body, 'version'))
						return redirect(`/configs/${params.id}?notice=rolled-back`)
					}),
				{ change: true }
			)

			// Devices
			.get('/devices', ({ request, web }) => attempt(request, web, async () => page(<DevicesPage ctx={ctxOf(request, web)} keys={await auth.listKeys(web)} notice={noticeOf(request)} />)), {
				page: true
			})
			.post(
				'/devices/:id/revoke',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						await auth.revokeKey(actor, params.id)
						return done(request, '/devices?notice=revoked')
					}),
				{ change: true }
			)

			// Teams and invitations
			.get(
				'/teams',
				({ request, web }) =>
					attempt(request, web, async () =>
						page(<TeamsPage ctx={ctxOf(request, web)} teams={await teams.list(web)} invitations={await teams.invitations(web)} canCreate={web.plan === 'team'} notice={noticeOf(request)} />)
					),
				{ page: true }
			)
			.post(
				'/teams',
				({ request, web, actor, body }) =>
					attempt(request, web, async () => {
						const form = { name: field(body, 'name'), slug: field(body, 'slug').trim() }
						try {
							// The API's own schema: the same rules for the name and the optional slug.
							const parsed = CreateTeamBody.safeParse({ name: form.name, slug: form.slug === '' ? undefined : form.slug })
							if (!parsed.success) {
								const issue = parsed.error.issues[0]
								throw new AppError('invalid_request', `${issue?.path.join('.') === 'slug' ? 'Slug' : 'Name'}: ${issue?.message ?? 'invalid'}`)
							}
							const created = await teams.create(actor, parsed.data.name, parsed.data.slug)
							return redirect(`/teams/${created.slug}?notice=created`)
						} catch (error) {
							if (!(error instanceof AppError) || error.status >= 500) throw error
							return page(
								<TeamsPage ctx={ctxOf(request, web)} teams={await teams.list(web)} invitations={await teams.invitations(web)} canCreate={web.plan === 'team'} error={error.message} form={form} />,
								{ status: error.status }
							)
						}
					}),
				{ change: true }
			)
			.post(
				'/invitations/:slug/accept',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						await teams.accept(actor, params.slug)
						return redirect(`/teams/${params.slug}?notice=joined`)
					}),
				{ change: true }
			)
			.post(
				'/invitations/:slug/decline',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						await teams.decline(actor, params.slug)
						return redirect('/teams?notice=declined')
					}),
				{ change: true }
			)
			.get(
				'/teams/:slug',
				({ request, web, params }) =>
					attempt(request, web, async () => page(<TeamPage ctx={ctxOf(request, web)} team={await teamPageData(web, params.slug)} notice={noticeOf(request)} />)),
				{ page: true }
			)
			.get(
				'/teams/:slug/activity',
				({ request, web, params }) =>
					attempt(request, web, async () => {
						const detail = await teams.get(web, params.slug)
						const events = await audit.team(web, params.slug, { limit: 50, before: beforeOf(request) })
						const last = events.length === 50 ? events[events.length - 1]?.id : undefined
						return page(
							<ActivityPage
								ctx={ctxOf(request, web)}
								title={`Activity of ${detail.name}`}
								events={events}
								back={{ href: `/teams/${detail.slug}`, label: detail.name }}
								older={last ? `/teams/${detail.slug}/activity?before=${last}` : undefined}
							/>
						)
					}),
				{ page: true }
			)
			.post(
				'/teams/:slug/members',
				({ request, web, actor, params, body }) =>
					attempt(request, web, async () => {
						try {
							const parsed = AddMemberBody.safeParse({ login: field(body, 'login'), role: field(body, 'role') || undefined })
							if (!parsed.success) throw new AppError('invalid_request', `${parsed.error.issues[0]?.path.join('.') === 'role' ? 'Role' : 'Username or email'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
							await teams.invite(actor, params.slug, parsed.data)
							return redirect(`/teams/${params.slug}?notice=invited`)
						} catch (error) {
							if (!(error instanceof AppError) || error.status >= 500 || error.code === 'not_found' && error.message === 'No such team.') throw error
							return page(<TeamPage ctx={ctxOf(request, web)} team={await teamPageData(web, params.slug)} inviteError={error.message} />, { status: error.status })
						}
					}),
				{ change: true }
			)
			.post(
				'/teams/:slug/members/:userId/role',
				({ request, web, actor, params, body }) =>
					attempt(request, web, async () => {
						const row = async (error?: string, statusCode = 200) => {
							const team = await teamPageData(web, params.slug)
							const member = team.members.find((candidate) => candidate.userId === params.userId)
							if (!member) return fragment(null, { status: statusCode })
							return fragment(<MemberRow ctx={ctxOf(request, web)} team={team} member={member} error={error} />, { status: statusCode })
						}
						try {
							const parsed = SetRoleBody.safeParse({ role: field(body, 'role') })
							if (!parsed.success) throw new AppError('invalid_request', 'Roles are owner, admin and member.')
							await teams.setRole(actor, params.slug, params.userId, parsed.data.role)
						} catch (error) {
							if (isHtmx(request) && error instanceof AppError && error.status < 500 && error.status !== 404) return row(error.message, error.status)
							throw error
						}
						return isHtmx(request) ? row() : redirect(`/teams/${params.slug}?notice=role`)
					}),
				{ change: true }
			)
			.post(
				'/teams/:slug/members/:userId/remove',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						await teams.removeMember(actor, params.slug, params.userId)
						if (params.userId === web.userId) return isHtmx(request) ? fragment(null, { headers: { 'hx-redirect': '/teams?notice=left' } }) : redirect('/teams?notice=left')
						return done(request, `/teams/${params.slug}?notice=removed`)
					}),
				{ change: true }
			)
			.post(
				'/teams/:slug/leave',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						await teams.removeMember(actor, params.slug, web.userId)
						return redirect('/teams?notice=left')
					}),
				{ change: true }
			)
			.post(
				'/teams/:slug/rename',
				({ request, web, actor, params, body }) =>
					attempt(request, web, async () => {
						try {
							const team = await teams.get(web, params.slug)
							const name = field(body, 'name')
							const slug = field(body, 'slug').trim()
							const parsed = PatchTeamBody.safeParse({ name: name.trim() === team.name ? undefined : name, slug: slug === '' || slug === team.slug ? undefined : slug })
							if (!parsed.success) throw new AppError('invalid_request', `${parsed.error.issues[0]?.path.join('.') === 'slug' ? 'Slug' : 'Name'}: ${parsed.error.issues[0]?.message ?? 'invalid'}`)
							const updated = await teams.update(actor, params.slug, parsed.data)
							return redirect(`/teams/${updated.slug}?notice=renamed`)
						} catch (error) {
							if (!(error instanceof AppError) || error.status >= 500 || error.status === 404) throw error
							return page(<TeamPage ctx={ctxOf(request, web)} team={await teamPageData(web, params.slug)} error={error.message} />, { status: error.status })
						}
					}),
				{ change: true }
			)
			.get(
				'/teams/:slug/delete',
				({ request, web, params }) =>
					attempt(request, web, async () => {
						const team = await teams.get(web, params.slug)
						if (team.userRole !== 'owner') throw new AppError('forbidden', 'Only a team owner can delete the team.')
						return page(
							<ConfirmPage
								ctx={ctxOf(request, web)}
								title={`Delete ${team.name}`}
								question={`Delete the team ${team.name} (${team.slug})? It and its configs disappear for every member at once and are removed for good after 30 days.`}
								action={`/teams/${team.slug}/delete`}
								button="Delete team"
								cancel={`/teams/${team.slug}`}
							/>
						)
					}),
				{ page: true }
			)
			.post(
				'/teams/:slug/delete',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						await teams.remove(actor, params.slug)
						return redirect('/teams?notice=deleted')
					}),
				{ change: true }
			)

			// Account and activity
			.get(
				'/account',
				({ request, web }) => page(<AccountPage ctx={ctxOf(request, web)} email={web.email} plan={web.plan} notice={noticeOf(request)} />),
				{ page: true }
			)
			.post(
				'/account/password',
				({ request, web, actor, body }) =>
					attempt(request, web, async () => {
						const again = (error: string, statusCode: number, headers?: Record<string, string>) =>
							page(<AccountPage ctx={ctxOf(request, web)} email={web.email} plan={web.plan} error={error} />, { status: statusCode, headers })
						const next = field(body, 'new')
						// The form asks once (CONTRACT §8 makes a confirmation field optional); a client that sends one gets it checked.
						const confirm = (body as Body)?.confirm
						if (typeof confirm === 'string' && confirm !== next) return again('The new password and its confirmation differ.', 400)
						try {
							await sessions.changePassword(actor, field(body, 'current'), next)
						} catch (error) {
							if (error instanceof AppError && error.status < 500) return again(error.message, error.status, error.headers)
							throw error
						}
						return redirect('/account?notice=password')
					}),
				{ change: true }
			)
			.get(
				'/activity',
				({ request, web }) =>
					attempt(request, web, async () => {
						const events = await audit.mine(web, { limit: 50, before: beforeOf(request) })
						const last = events.length === 50 ? events[events.length - 1]?.id : undefined
						return page(
							<ActivityPage ctx={ctxOf(request, web)} title="Your activity" events={events} back={{ href: '/account', label: 'Account' }} older={last ? `/activity?before=${last}` : undefined} />
						)
					}),
				{ page: true }
			)

			// Admin (server admins)
			.get('/admin', ({ request, web }) => attempt(request, web, async () => page(<AdminPage ctx={ctxOf(request, web)} users={await users.listWithActivity()} notice={noticeOf(request)} />)), {
				page: true,
				admin: true
			})
			.post(
				'/admin/users',
				({ request, web, actor, body }) =>
					attempt(request, web, async () => {
						const form = { email: field(body, 'email').trim(), username: field(body, 'username').trim(), plan: field(body, 'plan') || 'team' }
						const given = field(body, 'password')
						const password = given === '' ? oneTimePassword() : given
						try {
							const user = await users.add({ ...form, plan: form.plan as never, password }, actor)
							if (given !== '') return redirect('/admin?notice=user-added')
							return page(<AdminPage ctx={ctxOf(request, web)} users={await users.listWithActivity()} notice={NOTICES['user-added']} oneTimePassword={{ username: user.username, password }} />)
						} catch (error) {
							if (!(error instanceof AppError) || error.status >= 500) throw error
							return page(<AdminPage ctx={ctxOf(request, web)} users={await users.listWithActivity()} error={error.message} form={form} />, { status: error.status })
						}
					}),
				{ change: true, admin: true }
			)
			.post(
				'/admin/users/:id/plan',
				({ request, web, actor, params, body }) =>
					attempt(request, web, async () => {
						const user = await userById(params.id)
						await users.setPlan(user.username, field(body, 'plan') as never, actor)
						if (!isHtmx(request)) return redirect('/admin?notice=plan')
						return fragment(<UserRow ctx={ctxOf(request, web)} user={await userById(params.id)} />)
					}),
				{ change: true, admin: true }
			)
			.post(
				'/admin/users/:id/reset-password',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						const user = await userById(params.id)
						if (user.id === web.userId) throw new AppError('conflict', 'Change your own password on the Account page.')
						const password = oneTimePassword()
						await users.setPassword(user.username, password, {}, actor)
						return page(<AdminPage ctx={ctxOf(request, web)} users={await users.listWithActivity()} oneTimePassword={{ username: user.username, password }} />)
					}),
				{ change: true, admin: true }
			)
			.post(
				'/admin/users/:id/revoke-keys',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						const user = await userById(params.id)
						if (user.id === web.userId) throw new AppError('conflict', 'Revoke your own keys on the Devices page: this would also sign you out here.')
						await users.revokeKeys(user.username, actor)
						if (!isHtmx(request)) return redirect('/admin?notice=keys-revoked')
						return fragment(<UserRow ctx={ctxOf(request, web)} user={await userById(params.id)} />)
					}),
				{ change: true, admin: true }
			)
			.post(
				'/admin/users/:id/remove',
				({ request, web, actor, params }) =>
					attempt(request, web, async () => {
						const user = await userById(params.id)
						if (user.id === web.userId) throw new AppError('conflict', 'You cannot remove your own account here; another admin or `cfgsync-server user remove` can.')
						await users.remove(user.username, actor)
						return done(request, '/admin?notice=user-removed')
					}),
				{ change: true, admin: true }
			)
	)
}

/** An embedded asset; its URL carries a content hash, so it may be cached for good. */
const asset = (file: string, type: string) =>
	new Response(Bun.file(file), { headers: { 'content-type': type, 'cache-control': 'public, max-age=31536000, immutable' } })
