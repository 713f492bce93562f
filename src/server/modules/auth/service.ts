import { throttleKey } from '../../lib/client-address'
import { API_KEY_PATTERN, generateApiKey, sha256Hex, type Sealer } from '../../lib/crypto'
import { AppError } from '../../lib/errors'
import { toIso, type Clock } from '../../lib/clock'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/log'
import type { PasswordHasher } from '../../lib/passwords'
import type { AuditEvent, Caller, CallerRow, Store, StoredKey, UserRow } from '../../store/types'
import { createAuditEvents, type Actor } from '../audit/event'
import type { IssuedKey, KeyView, LoginBody } from '../../../shared/api/auth'
import type { KeyScope } from '../../../shared/constants'

/**
 * docs/api.md login throttling: failures allowed per scope within the window. Past `perLoginAddress` or
 * `perAddress` attempts are refused (429); past `perLogin` (one login from all addresses) they are only slowed,
 * so nobody can lock another person out by guessing from many addresses (docs/operations.md).
 */
export const THROTTLE = {
	windowMs: 15 * 60 * 1000,
	limits: { perLoginAddress: 10, perAddress: 30, perLogin: 100 },
	/** Each failure past `perLogin` adds this much to the wait, up to `slowMaxMs`. */
	slowStepMs: 50,
	slowMaxMs: 5000
} as const

/**
 * How long an attempt on a login waits when that login already has `failures` in the window from all addresses:
 * nothing below `perLogin`, then 50 ms more per failure, at most 5 s (reached at twice `perLogin`, what the store counts up to).
 */
export function loginSlowDownMs(failures: number): number {
	const over = failures - THROTTLE.limits.perLogin + 1
	return over <= 0 ? 0 : Math.min(THROTTLE.slowMaxMs, over * THROTTLE.slowStepMs)
}

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
/** The security log shows the login as typed, cut to this many characters (docs/operations.md). */
const LOGGED_LOGIN_MAX = 64
/** docs/api.md: lastUsedAt is written at most once a minute per key. */
const TOUCH_EVERY_MS = 60 * 1000
/** Keys remembered as recently touched; past this many the memory starts afresh (a few MB at most). */
const TOUCHED_MAX = 10_000

/** What wrong posts to /setup and /join from one address are counted under: apart from that address's sign-ins. */
const signupAddressKey = (address: string): string => `signup:${throttleKey(address)}`

const unauthorized = (message: string) => new AppError('unauthorized', message)

/** A key as its user sees it (docs/api.md GET /api/keys): never the key itself. */
const keyView = (key: StoredKey, caller: Caller): KeyView => ({
	id: key.id,
	device: key.device,
	createdAt: key.createdAt,
	lastUsedAt: key.lastUsedAt,
	current: key.keyHash === caller.keyHash,
	scope: key.readOnly ? 'read-only' : 'read-write'
})

/** Stores a new key for (user, device), replacing that device's previous one (login, and the admin's `key issue`). */
export function createKeyIssuer({ store, clock }: { store: Store; clock: Clock }) {
	return async function issueKey(
		userId: string,
		device: string,
		audit?: AuditEvent,
		scope: KeyScope = 'read-write'
	): Promise<IssuedKey> {
		const apiKey = generateApiKey()
		const createdAt = toIso(clock.now())
		const id = newId()
		const readOnly = scope === 'read-only'
		const event = audit && {
			...audit,
			target: { type: 'key' as const, id, name: device },
			details: readOnly ? { ...audit.details, scope } : audit.details
		}
		await store.keys.issue(
			{ id, userId, device, keyHash: sha256Hex(apiKey), createdAt, lastUsedAt: null, readOnly },
			event
		)
		// The login answer docs/api.md gives, as it was: the caller knows the scope it asked for; GET /api/keys shows it.
		return { apiKey, id, device, createdAt }
	}
}

/**
 * What failed logins are counted under: the account (so its email and
 * username share one budget), or for a name that is no account a keyed hash
 * of it, so a password typed into the login field is never stored (docs/operations.md).
 */
export const failureKeyOf = (user: UserRow | undefined, login: string, sealer: Pick<Sealer, 'keyedHash'>): string =>
	user ? userFailureKey(user.id) : `name:${sealer.keyedHash('login-name', login.trim().toLowerCase())}`

/** An account's failures are counted by its id, so clearing them (`user unlock`) needs no master key. */
export const userFailureKey = (userId: string): string => `user:${userId}`

export function createAuthService({
	store,
	clock,
	passwords,
	logger,
	sealer,
	metrics,
	sleep = wait
}: {
	store: Store
	clock: Clock
	passwords: PasswordHasher
	logger: Logger
	sealer: Pick<Sealer, 'keyedHash'>
	metrics?: { login(result: 'success' | 'failure'): void; rateLimited(): void }
	/** How a slowed attempt waits; tests record the waits instead. */
	sleep?: (ms: number) => Promise<void>
}) {
	// Verified against when the login is unknown, so a miss costs as much as a wrong password.
	let decoyHash: Promise<string> | undefined
	const decoy = () => (decoyHash ??= passwords.hash('decoy password never matches'))
	// When this process last wrote each key's lastUsedAt, so most requests skip the write without
	// reading the stored time. The store's own guard keeps it to once a minute across workers.
	const touchedAt = new Map<string, number>()
	const issueKey = createKeyIssuer({ store, clock })
	const event = createAuditEvents(clock)

	/** docs/operations.md security log: one fixed-format warn line per failed or refused login, for fail2ban. */
	const securityLog = (msg: 'login failed' | 'login rate limited', address: string, login: string, reason: string) =>
		logger.warn(msg, { address, login: [...login].slice(0, LOGGED_LOGIN_MAX).join(''), reason })

	/**
	 * Takes an attempt, counted as a failure until it succeeds, or refuses with
	 * 429 while the address or the (login, address) pair has too many recent failures. Taking it
	 * before the password is checked keeps a parallel burst within the limit. A login with many recent
	 * failures from all addresses is never refused, only slowed (docs/operations.md): the attempt waits
	 * (loginSlowDownMs) before its password is checked, outside any transaction.
	 */
	async function takeAttempt(
		loginKey: string,
		address: string,
		now: number,
		typed: string,
		refusal = 'Too many failed logins.'
	) {
		const taken = await store.loginFailures.reserve({
			loginKey,
			address,
			at: now,
			since: now - THROTTLE.windowMs,
			limits: THROTTLE.limits
		})
		if (taken.ok) {
			const ms = loginSlowDownMs(taken.loginFailures)
			if (ms > 0) await sleep(ms)
			return
		}
		securityLog('login rate limited', address, typed, 'rate_limited')
		metrics?.rateLimited()
		// Refused until the failure that tipped the count leaves the window.
		const seconds = Math.max(1, Math.ceil((taken.tippedAt + THROTTLE.windowMs - now) / 1000))
		const minutes = Math.ceil(seconds / 60)
		throw new AppError('rate_limited', `${refusal} Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`, {
			headers: { 'retry-after': String(seconds) }
		})
	}

	/**
	 * The password check behind API login and web sign-in, throttled as docs/api.md
	 * says: 401 for a wrong login or password (the same answer for both), 429 when
	 * the login, the address or the pair has too many recent failures.
	 */
	async function checkPassword(
		login: string,
		password: string,
		address: string,
		via: 'api' | 'web' = 'api'
	): Promise<UserRow> {
		const now = clock.now()
		const user = await store.users.findByLogin(login)
		const failureKey = failureKeyOf(user, login, sealer)
		const addressKey = throttleKey(address)
		await takeAttempt(failureKey, addressKey, now, login)
		const ok = await passwords.verify(user?.passwordHash ?? (await decoy()), password)
		// A failure stays recorded (it was taken as one); a success clears this login's count from this address.
		if (!user?.passwordHash || !ok) {
			const reason = user ? 'wrong_password' : 'unknown_login'
			securityLog('login failed', address, login, reason)
			metrics?.login('failure')
			// The name typed is kept only when it names an account: it may be a password typed in the wrong field.
			await store.audit.record(
				event(
					'login.failed',
					{ userId: null, username: null, via, address },
					{
						subjectUserId: user?.id ?? null,
						target: user ? { type: 'user', id: user.id, name: user.username } : undefined,
						details: { reason, via }
					}
				)
			)
			throw unauthorized('Wrong login or password.')
		}
		await store.loginFailures.clearLoginAt(failureKey, addressKey)
		metrics?.login('success')
		return user
	}

	/** The caller a key's lookup found, or 401; records the key's use now and then. */
	function callerOf(keyHash: string, row: CallerRow | undefined): Caller {
		if (!row) throw unauthorized('This API key is unknown or has been revoked.')
		const now = clock.now()
		const touched = touchedAt.get(keyHash)
		// (A clock set back makes the remembered time lie in the future: write then too.)
		if (touched === undefined || touched < now - TOUCH_EVERY_MS || touched > now) {
			if (touchedAt.size >= TOUCHED_MAX) touchedAt.clear()
			touchedAt.set(keyHash, now)
			// Not awaited: a lastUsedAt that could not be written (database busy) must not fail the request.
			store.keys.touch(keyHash, toIso(now), toIso(now - TOUCH_EVERY_MS)).catch((error: Error) => {
				touchedAt.delete(keyHash)
				logger.warn('key last-use not recorded', { errorName: error.name, errorMessage: error.message })
			})
		}
		return { userId: row.userId, email: row.email, username: row.username, keyHash, readOnly: Boolean(row.readOnly) }
	}

	return {
		issueKey,

		/**
		 * The auth gate: a bearer key → its caller, or 401 (docs/api.md).
		 * Synchronous on SQLite, like the lookup it makes; a promise on PostgreSQL.
		 */
		authenticate(authorization: string | null): Caller | Promise<Caller> {
			if (authorization === null) throw unauthorized('Send your API key as "Authorization: Bearer <key>".')
			const space = authorization.indexOf(' ')
			const scheme = space === -1 ? authorization : authorization.slice(0, space)
			if (scheme.toLowerCase() !== 'bearer') throw unauthorized('Send your API key as "Authorization: Bearer <key>".')
			const key = authorization.slice(space + 1).trim()
			if (!API_KEY_PATTERN.test(key)) throw unauthorized('That is not a cfgsync API key.')
			const keyHash = sha256Hex(key)
			const row = store.keys.findCaller(keyHash)
			return row instanceof Promise ? row.then((found) => callerOf(keyHash, found)) : callerOf(keyHash, row)
		},

		/** Whether `authenticate` answers synchronously (SQLite), so the gate need not await it. */
		synchronous: store.findsCallerSynchronously,

		checkPassword,

		/**
		 * docs/web.md: posts to the setup and sign-up pages are throttled like sign-in, in a budget of their own
		 * (docs/operations.md): an attempt on `key` (a link's token hash) from `address` is taken as a failure before the
		 * link is checked, counted per link and address and per address under a key of its own, so they never
		 * spend the address's sign-in budget, nor sign-ins theirs; 429 past it. `succeeded` clears it again.
		 */
		throttle: {
			take: (key: string, address: string) =>
				takeAttempt(key, signupAddressKey(address), clock.now(), key, 'Too many failed attempts.'),
			succeeded: (key: string, address: string) => store.loginFailures.clearLoginAt(key, signupAddressKey(address))
		},

		/** docs/api.md login: a new key for this device, or 401, or 429 when throttled. */
		async login(body: LoginBody, address: string): Promise<IssuedKey> {
			const user = await checkPassword(body.login, body.password, address)
			return issueKey(
				user.id,
				body.device,
				event(
					'login.succeeded',
					{ userId: user.id, username: user.username, address },
					{ details: { device: body.device } }
				),
				body.scope
			)
		},

		/** Revokes the key the request came with. */
		async logout(actor: Actor): Promise<void> {
			if (actor.keyHash === undefined) return
			await store.keys.revokeByHash(actor.keyHash, event('key.revoked', actor, { details: { reason: 'logout' } }))
		},

		async listKeys(caller: Caller): Promise<KeyView[]> {
			const keys = await store.keys.listForUser(caller.userId)
			return keys.map((key) => keyView(key, caller))
		},

		/**
		 * docs/api.md PATCH /api/keys/:id: another name for one of your devices (`device`, checked as a login's
		 * is). Another user's key or none is a 404; a name another of your keys has is a 409.
		 */
		async renameKey(actor: Actor, keyId: string, device: string): Promise<KeyView> {
			const renamed = await store.keys.rename(actor.userId, keyId, device, event('key.renamed', actor))
			if (renamed === undefined) throw new AppError('not_found', 'No such key.')
			if (renamed === 'taken')
				throw new AppError(
					'conflict',
					`Another of your devices is named "${device}" already: choose another name, or revoke that device first.`
				)
			return keyView(renamed, actor)
		},

		/** Another user's key is a 404, never a 403 (docs/api.md). */
		async revokeKey(actor: Actor, keyId: string): Promise<void> {
			if (!(await store.keys.revoke(actor.userId, keyId, event('key.revoked', actor))))
				throw new AppError('not_found', 'No such key.')
		}
	}
}

export type AuthService = ReturnType<typeof createAuthService>
