import { Elysia } from 'elysia'
import { clientAddress, noTrustedProxies, publicOrigin, type TrustedProxies } from './lib/client-address'
import type { Clock } from './lib/clock'
import type { Sealer } from './lib/crypto'
import { SECURITY_HEADERS } from './lib/http'
import type { Logger } from './lib/log'
import type { PasswordHasher } from './lib/passwords'
import { auditRoutes } from './modules/audit'
import { createAuditService } from './modules/audit/service'
import { authRoutes } from './modules/auth'
import { createAuthService } from './modules/auth/service'
import { configsRoutes, usageRoutes } from './modules/configs'
import { downloadRoutes } from './modules/download'
import { createDownloads, embeddedClientPackage, type Downloads } from './modules/download/service'
import { createConfigPolicy } from './modules/configs/policy'
import { createConfigsService } from './modules/configs/service'
import type { QuotaLimits } from './modules/configs/quota'
import { createEventBroker, type EventBroker, type EventBrokerOptions } from './events/broker'
import { eventsRoutes } from './events'
import { healthRoutes } from './modules/health'
import { createHealthService } from './modules/health/service'
import { createAppMetrics, type AppMetrics } from './modules/health/metrics'
import { invitationsRoutes, teamsRoutes } from './modules/teams'
import { createTeamsService } from './modules/teams/service'
import { createSessionsService } from './modules/sessions/service'
import { createSignupService } from './modules/signup/service'
import { createUsersService } from './modules/users/service'
import { authPlugin } from './plugins/auth'
import { errorsPlugin } from './plugins/errors'
import { openapiPlugin } from './plugins/openapi'
import { createRequestTracker, createRouteMatcher, requestLogPlugin, streamClosed } from './plugins/request-log'
import type { Store } from './store/types'
import { webRoutes } from './web'
import { anyoneViewOf, notFoundPage } from './web/kit'
import { type Comparisons, createComparisons } from './web/comparisons'
import { viaHttps } from './web/session'

export interface AppDeps {
	store: Store
	sealer: Sealer
	clock: Clock
	logger: Logger
	passwords: PasswordHasher
	/** The socket peer of a request; defaults to "unknown" (in-process tests have no socket). */
	peerAddress?: (request: Request) => string
	/** Proxies whose X-Forwarded-For is believed (docs/api.md); none by default. */
	trustedProxies?: TrustedProxies
	/** Shared with the jobs (backups report here); made by the app when not given. */
	metrics?: AppMetrics
	/** False while this server may have missed a master-key rotation (jobs/heartbeat.ts); writes then answer 503. */
	sealingAllowed?: () => boolean
	/** CFGSYNC_METRICS_TOKEN: /metrics answers only with it (docs/operations.md). */
	metricsToken?: string
	/** docs/client.md /download: the embedded client package and the downloads directory; by default the package only. */
	downloads?: Downloads
	/** CFGSYNC_PUBLIC_URL (docs/api.md), an origin: what pages print as this server's address. */
	publicUrl?: string
	/** The event stream's keep-alive and feed-reading periods (docs/api.md "Live changes"); tests shorten them. */
	events?: EventBrokerOptions
	/** The event broker, when the caller must end its streams at shutdown; made by the app when not given. */
	broker?: EventBroker
	/** How a slowed login waits (docs/operations.md, modules/auth/service.ts); tests record the waits instead. */
	sleep?: (ms: number) => Promise<void>
	/** The web pages' comparisons (docs/web.md): one per core at once, in worker threads; made by the app when not given. */
	comparisons?: Comparisons
	/** Quotas (docs/operations.md: CFGSYNC_QUOTA_BYTES, CFGSYNC_QUOTA_PUSHES_PER_MINUTE); the defaults when not given. */
	quotas?: QuotaLimits
}

/** Builds the whole HTTP app; tests call it with an in-memory store and `app.handle(request)`. */
export function createApp(appDeps: AppDeps) {
	const deps = { ...appDeps, metrics: appDeps.metrics ?? createAppMetrics(appDeps.store) }
	const auth = createAuthService(deps)
	const peer = deps.peerAddress ?? (() => 'unknown')
	const trusted = deps.trustedProxies ?? noTrustedProxies
	const tracker = createRequestTracker()
	const resolveAddress = (request: Request) =>
		clientAddress(peer(request), request.headers.get('x-forwarded-for'), trusted)
	// Resolved once, when the request arrives, for the access log; everything else reuses it.
	const addressOf = (request: Request) => tracker.clientOf(request) ?? resolveAddress(request)
	const originOf = (request: Request) => publicOrigin(request, peer(request), trusted, deps.publicUrl)
	const gate = authPlugin(auth, addressOf)
	const policy = createConfigPolicy(deps.store)
	const configs = createConfigsService({ ...deps, policy })
	const teams = createTeamsService(deps)
	const audit = createAuditService(deps)
	const events = deps.broker ?? createEventBroker(deps.store, { now: () => deps.clock.now(), ...deps.events })
	deps.metrics.countStreams(() => events.size)
	const closed = (request: Request, route: string) => streamClosed(deps.logger, tracker, request, route)
	const sessions = createSessionsService({ ...deps, auth })
	// Elysia assumes URLs start with at least "http://a.bc" and looks for the path
	// from character 11; a homelab box reached as http://nas/ would then be routed
	// by the wrong path (its /docs was a 404). Our URLs are always plain http.
	const routeOf = createRouteMatcher(() => app.routes)
	const app = new Elysia({ handler: { standardHostname: false } })
		.headers(SECURITY_HEADERS)
		.use(errorsPlugin(deps.logger, tracker, deps.clock, notFoundPage({ sessions, clock: deps.clock })))
		.use(requestLogPlugin(deps.logger, tracker, resolveAddress, deps.metrics, routeOf))
		.use(gate)
		.use(openapiPlugin())
		// A write answered here may have added to the feed: the streams hear of it now rather than at the next poll.
		.onAfterResponse({ as: 'global' }, ({ request }) => {
			if (request.method !== 'GET' && request.method !== 'HEAD') void events.changed()
		})
		.use(healthRoutes({ health: createHealthService(deps), metrics: deps.metrics, metricsToken: deps.metricsToken }))
		.use(eventsRoutes(events, gate, closed))
		.use(authRoutes(auth, gate, addressOf))
		.use(configsRoutes(configs, gate))
		.use(usageRoutes(configs, gate))
		.use(teamsRoutes(teams, gate))
		.use(invitationsRoutes(teams, gate))
		.use(auditRoutes(audit, gate))
		.use(
			downloadRoutes(
				deps.downloads ?? createDownloads({ clientPackage: embeddedClientPackage() }),
				originOf,
				anyoneViewOf({ sessions, clock: deps.clock })
			)
		)
		// The web application: its own routes and cookie gate; nothing of it runs on /api requests.
		.use(
			webRoutes({
				sessions,
				auth,
				configs,
				policy,
				teams,
				users: createUsersService(deps),
				audit,
				clock: deps.clock,
				addressOf,
				https: (request) => viaHttps(request, peer(request), trusted),
				signups: createSignupService({ ...deps, auth }),
				originOf,
				events,
				streamClosed: closed,
				comparisons: deps.comparisons ?? createComparisons()
			})
		)
	return app
}
