/**
 * Every API path, declared once: the server declares its routes with these patterns, and the client's
 * calls and the server's `Link` headers build paths from them with `apiPath`. docs/api.md lists them.
 */
export const ROUTES = {
	login: '/api/auth/login',
	logout: '/api/auth/logout',
	me: '/api/me',
	usage: '/api/usage',
	keys: '/api/keys',
	key: '/api/keys/:id',
	configs: '/api/configs',
	latestConfig: '/api/configs/latest',
	config: '/api/configs/:id',
	versions: '/api/configs/:id/versions',
	version: '/api/configs/:id/versions/:versionId',
	rollback: '/api/configs/:id/rollback',
	teams: '/api/teams',
	team: '/api/teams/:slug',
	restoreTeam: '/api/teams/:slug/restore',
	members: '/api/teams/:slug/members',
	member: '/api/teams/:slug/members/:userId',
	teamAudit: '/api/teams/:slug/audit',
	invitations: '/api/invitations',
	invitation: '/api/invitations/:teamSlug',
	acceptInvitation: '/api/invitations/:teamSlug/accept',
	audit: '/api/audit',
	events: '/api/events'
} as const

/** The `:name`s of a route pattern. */
type ParamNames<Pattern extends string> = Pattern extends `${string}:${infer Name}/${infer Rest}`
	? Name | ParamNames<Rest>
	: Pattern extends `${string}:${infer Name}`
		? Name
		: never

/** A route's path with each `:name` of its pattern filled in, URI-encoded, from `params`. */
export function apiPath<Pattern extends string>(pattern: Pattern, params: Record<ParamNames<Pattern>, string>): string {
	const values: Record<string, string> = params
	return pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(values[name] ?? ''))
}
