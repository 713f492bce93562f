import { Elysia } from 'elysia'
import type { Clock } from './lib/clock'
import type { Sealer } from './lib/crypto'
import type { Logger } from './lib/log'
import type { PasswordHasher } from './lib/passwords'
import { authRoutes, type ClientAddress } from './modules/auth'
import { createAuthService } from './modules/auth/service'
import { configsRoutes } from './modules/configs'
import { createConfigPolicy } from './modules/configs/policy'
import { createConfigsService } from './modules/configs/service'
import { healthRoutes } from './modules/health'
import { teamsRoutes } from './modules/teams'
import { createTeamsService } from './modules/teams/service'
import { authPlugin } from './plugins/auth'
import { errorsPlugin } from './plugins/errors'
import { openapiPlugin } from './plugins/openapi'
import { createRequestTracker, requestLogPlugin } from './plugins/request-log'
import type { Store } from './store/types'

export interface AppDeps {
	store: Store
	sealer: Sealer
	clock: Clock
	logger: Logger
	passwords: PasswordHasher
	/** Defaults to "unknown" (in-process tests have no socket); the server passes the peer address. */
	clientAddress?: ClientAddress
}

/** Builds the whole HTTP app; tests call it with an in-memory store and `app.handle(request)`. */
export function createApp(deps: AppDeps) {
	const auth = createAuthService(deps)
	const gate = authPlugin(auth)
	const policy = createConfigPolicy(deps.store)
	const configs = createConfigsService({ ...deps, policy })
	const teams = createTeamsService(deps)
	const tracker = createRequestTracker()
	// Elysia assumes URLs start with at least "http://a.bc" and looks for the path
	// from character 11; a homelab box reached as http://nas/ would then be routed
	// by the wrong path (its /docs was a 404). Our URLs are always plain http.
	return new Elysia({ handler: { standardHostname: false } })
		.use(errorsPlugin(deps.logger, tracker))
		.use(requestLogPlugin(deps.logger, tracker))
		.use(gate)
		.use(openapiPlugin())
		.use(healthRoutes(deps.store.ping))
		.use(authRoutes(auth, gate, deps.clientAddress ?? (() => 'unknown')))
		.use(configsRoutes(configs, gate))
		.use(teamsRoutes(teams, gate))
}

export type App = ReturnType<typeof createApp>
