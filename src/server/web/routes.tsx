import { Elysia } from 'elysia'
import { readForm } from '../plugins/json-body'
import { ASSET_PREFIX, appScript, htmxScript, pageResponse, stylesheet, webKit, type WebDeps } from './kit'
import { accountPages } from './pages/account'
import { activityPages } from './pages/activity'
import { adminPages } from './pages/admin'
import { adminActivityPages } from './pages/admin-activity'
import { adminLinkPages } from './pages/admin-links'
import { adminUserPages } from './pages/admin-users'
import { configsPages } from './pages/configs'
import { configsHistoryPages } from './pages/configs-history'
import { devicesPages } from './pages/devices'
import { eventPages } from './pages/events'
import { sessionPages } from './pages/session'
import { signupPages } from './pages/signup'
import { teamPages } from './pages/teams-detail'
import { teamChangePages } from './pages/teams-changes'
import { teamsPages } from './pages/teams'

export type { WebDeps } from './kit'

/**
 * The web application (docs/web.md): server-rendered pages over the same
 * services as the API. This is its table, which path and method go to which
 * handler behind which gate (docs/web.md); the handlers live beside their
 * views in pages/. Its gate is local to these routes: the cookie is read
 * only here, and /api stays bearer-only with its hot paths untouched.
 */
export function webRoutes(deps: WebDeps) {
	const session = sessionPages(deps)
	const configs = configsPages(deps)
	const history = configsHistoryPages(deps)
	const devices = devicesPages(deps)
	const teams = teamsPages(deps)
	const team = teamPages(deps)
	const teamChanges = teamChangePages(deps)
	const account = accountPages(deps)
	const activity = activityPages(deps)
	const admin = adminPages(deps)
	const adminUsers = adminUserPages(deps)
	const adminLinks = adminLinkPages(deps)
	const adminActivity = adminActivityPages(deps)
	const signup = signupPages(deps)
	const events = eventPages(deps)

	return (
		// Hidden from the OpenAPI document (it describes the API); tagged so tests can tell these routes apart.
		new Elysia({ name: 'web', detail: { hide: true, tags: ['web'] } })
			// Every form is read through the counting reader, before the session and CSRF checks (docs/operations.md: body limits).
			.onParse(readForm)
			.use(webKit(deps))
			// Pages and fragments go out compressed when the browser accepts it (docs/web.md), a redirect's notice in its
			// one-time cookie; the assets compress themselves, once.
			.mapResponse(pageResponse(deps.https))
			.get(`${ASSET_PREFIX}/app.css`, stylesheet)
			.get(`${ASSET_PREFIX}/htmx.min.js`, htmxScript)
			.get(`${ASSET_PREFIX}/app.js`, appScript)

			// Sign in and out
			.get('/', session.signInPage)
			.get('/sign-in', session.back)
			.get('/sign-out', session.back)
			.post('/sign-in', session.signIn)
			.post('/sign-out', session.signOut, { change: true })

			// First start and sign-up links (no session yet: the token is the permission; there is no open sign-up)
			.get('/setup/:token', signup.setupPage)
			.post('/setup/:token', signup.setup)
			.get('/join/:token', signup.joinPage)
			.post('/join/:token', signup.join)

			// Configs
			.get('/configs', configs.list, { page: true })
			.get('/configs/:id', configs.show, { page: true })
			.get('/configs/:id/compare', history.compare, { page: true })
			.get('/configs/:id/compare/fold', history.fold, { page: true })
			.get('/configs/:id/versions/:versionId/download', history.download, { page: true })
			.get('/configs/:id/rollback', history.rollbackPage, { page: true })
			.post('/configs/:id/rollback', history.rollback, { change: true })
			// What the notice of the configs, config and team pages listens to (its own gate: a 401, never a redirect)
			.get('/events', events.stream)

			// Devices
			.get('/devices', devices.list, { page: true })
			.get('/devices/:id/revoke', devices.revokePage, { page: true })
			.post('/devices/:id/revoke', devices.revoke, { change: true })
			.post('/devices/:id/rename', devices.rename, { change: true })

			// Teams and invitations
			.get('/teams', teams.list, { page: true })
			.post('/teams', teams.create, { change: true })
			.post('/teams/:slug/restore', teams.restore, { change: true })
			.post('/invitations/:slug/accept', teams.accept, { change: true })
			.post('/invitations/:slug/decline', teams.decline, { change: true })
			.get('/teams/:slug', team.show, { page: true })
			.get('/teams/:slug/activity', team.activity, { page: true })
			.post('/teams/:slug/members', teamChanges.invite, { change: true })
			.post('/teams/:slug/members/:userId/role', teamChanges.setRole, { change: true })
			.get('/teams/:slug/members/:userId/remove', teamChanges.removePage, { page: true })
			.post('/teams/:slug/members/:userId/remove', teamChanges.removeMember, { change: true })
			.get('/teams/:slug/leave', teamChanges.leavePage, { page: true })
			.post('/teams/:slug/leave', teamChanges.leave, { change: true })
			.post('/teams/:slug/rename', teamChanges.rename, { change: true })
			.get('/teams/:slug/delete', teamChanges.deletePage, { page: true })
			.post('/teams/:slug/delete', teamChanges.remove, { change: true })

			// Account and activity
			.get('/account', account.show, { page: true })
			.post('/account/password', account.changePassword, { change: true })
			.post('/account/sessions/sign-out-others', account.signOutOthers, { change: true })
			.post('/account/sessions/:ref/sign-out', account.signOutSession, { change: true })
			.get('/activity', activity.mine, { page: true })

			// Admin (server admins)
			.get('/admin', admin.show, { page: true, admin: true })
			.get('/admin/activity', adminActivity.show, { page: true, admin: true })
			.post('/admin/users', admin.addUser, { change: true, admin: true })
			.post('/admin/users/:id/plan', adminUsers.setPlan, { change: true, admin: true })
			.get('/admin/users/:id/reset-password', adminUsers.confirm('reset-password'), { page: true, admin: true })
			.post('/admin/users/:id/reset-password', admin.resetPassword, { change: true, admin: true })
			.get('/admin/users/:id/revoke-keys', adminUsers.confirm('revoke-keys'), { page: true, admin: true })
			.post('/admin/users/:id/revoke-keys', adminUsers.revokeKeys, { change: true, admin: true })
			.get('/admin/users/:id/remove', adminUsers.confirm('remove'), { page: true, admin: true })
			.post('/admin/users/:id/remove', adminUsers.remove, { change: true, admin: true })
			.post('/admin/links', admin.addLink, { change: true, admin: true })
			.get('/admin/links/:id/revoke', adminLinks.revokePage, { page: true, admin: true })
			.post('/admin/links/:id/revoke', adminLinks.revoke, { change: true, admin: true })
	)
}
