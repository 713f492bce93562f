import { expect } from 'bun:test'
import { createApp, type AppDeps } from '../../src/server/app'
import type { TrustedProxies } from '../../src/server/lib/client-address'
import { manualClock } from '../../src/server/lib/clock'
import { createSealer, generateMasterKey, generateApiKey, sha256Hex } from '../../src/server/lib/crypto'
import { newId } from '../../src/server/lib/ids'
import { memoryLogger } from '../../src/server/lib/log'
import { createPasswordHasher } from '../../src/server/lib/passwords'
import type { Plan } from '../../src/shared/constants'
import { openTestStore } from './engine'
import type { Store } from '../../src/server/store/types'

/** Argon2id at its cheapest: tests exercise the logic, not the cost. */
export const fastPasswords = createPasswordHasher({ memoryCost: 1024, timeCost: 1 })

export interface TestUser {
	id: string
	email: string
	username: string
	password: string
	key: string
	plan: Plan
}

export interface Response {
	status: number
	headers: Headers
	body: any
	text: string
}

/** A fresh app on a fresh database of the test engine (test/support/engine.ts), with a movable clock and a readable log. */
export function testApp(
	options: {
		store?: Store
		address?: (request: Request) => string
		trustedProxies?: TrustedProxies
		events?: AppDeps['events']
		/** The web pages' comparisons (web/comparisons.ts); by default the app's own, in worker threads. */
		comparisons?: AppDeps['comparisons']
		metricsToken?: string
		/** The sealer of another app whose database this one opens (a copy of a frozen world). */
		sealer?: ReturnType<typeof createSealer>
		/** How the login slow-down waits (docs/operations.md); tests record it instead of waiting. */
		sleep?: AppDeps['sleep']
		/** Quotas (docs/operations.md); the defaults when not given. */
		quotas?: AppDeps['quotas']
	} = {}
) {
	const store = options.store ?? openTestStore()
	const clock = manualClock()
	const logger = memoryLogger()
	const sealer = options.sealer ?? createSealer(generateMasterKey())
	const app = createApp({
		store,
		sealer,
		clock,
		logger,
		passwords: fastPasswords,
		peerAddress: options.address,
		trustedProxies: options.trustedProxies,
		events: options.events,
		comparisons: options.comparisons,
		metricsToken: options.metricsToken,
		sleep: options.sleep,
		quotas: options.quotas
	})
	let counter = 0

	/** One request through the app; bodies that are not strings are sent as JSON. */
	async function call(
		method: string,
		path: string,
		options: { body?: unknown; key?: string | null; headers?: Record<string, string> } = {}
	): Promise<Response> {
		const headers = new Headers(options.headers)
		if (options.key) headers.set('authorization', `Bearer ${options.key}`)
		let body: string | undefined
		if (options.body !== undefined) {
			body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
			if (!headers.has('content-type')) headers.set('content-type', 'application/json')
			// `new Request` sets no content-length; a real client does.
			headers.set('content-length', String(Buffer.byteLength(body)))
		}
		const response = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
		const text = await response.text()
		let parsed: unknown
		try {
			parsed = text === '' ? undefined : JSON.parse(text)
		} catch {
			parsed = text
		}
		return { status: response.status, headers: response.headers, body: parsed, text }
	}

	/** Creates a user directly in the store, with a key for device "test". */
	async function user(plan: Plan = 'team', name?: string): Promise<TestUser> {
		counter++
		const username = name ?? `user${counter}`
		const password = `password-${username}`
		const id = newId()
		await store.users.create({
			id,
			email: `${username}@example.test`,
			username,
			passwordHash: await fastPasswords.hash(password),
			plan,
			isAdmin: false,
			createdAt: new Date(clock.now()).toISOString()
		})
		const key = generateApiKey()
		await store.keys.issue({
			id: newId(),
			userId: id,
			device: 'test',
			keyHash: sha256Hex(key),
			createdAt: new Date(clock.now()).toISOString(),
			lastUsedAt: null
		})
		return { id, email: `${username}@example.test`, username, password, key, plan }
	}

	/** Makes `user` a member of the team with `role`: invited by `by` (an owner), then accepted (docs/api.md). */
	async function join(by: TestUser, slug: string, user: TestUser, role: 'admin' | 'member' | 'owner' = 'member') {
		const invited = await call('POST', `/api/teams/${slug}/members`, {
			key: by.key,
			body: { login: user.username, role: role === 'owner' ? 'admin' : role }
		})
		expect(invited.status).toBe(201)
		const accepted = await call('POST', `/api/invitations/${slug}/accept`, { key: user.key })
		expect(accepted.status).toBe(200)
		if (role === 'owner')
			expect(
				(await call('PATCH', `/api/teams/${slug}/members/${user.id}`, { key: by.key, body: { role } })).status
			).toBe(200)
		return accepted.body as { id: string; userId: string; role: string }
	}

	return { app, store, clock, logger, sealer, call, user, join }
}

export type TestApp = ReturnType<typeof testApp>
