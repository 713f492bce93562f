import { randomBytes } from 'node:crypto'
import { toIso, type Clock } from '../../lib/clock'
import { SESSION_IDLE_MS, SESSION_MAX_MS } from '../../../shared/constants'
import { sha256Hex, type Sealer } from '../../lib/crypto'
import { AppError } from '../../lib/errors'
import type { PasswordHasher } from '../../lib/passwords'
import type { Caller, SessionRow, Store, UserRow } from '../../store/types'
import { browserName } from '../../lib/user-agent'
import { createAuditEvents, type Actor } from '../audit/event'
import type { AuthService } from '../auth/service'
import { Password } from '../../../shared/api/users'

/** lastSeenAt is written at most once a minute per session, like a key's lastUsedAt. */
const TOUCH_EVERY_MS = 60 * 1000
/** What a session cookie holds: 32 random bytes, base64url. */
const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{43}$/

/** One of a user's web sessions as the Account page lists it (docs/web.md): never its id or its hash. */
export interface SessionView {
	/** What names it in the address of its "Sign out": a hash of its id's hash, of no use as a cookie. */
	ref: string
	/** The browser and system, from its user agent ("Chrome on Linux"). */
	browser: string
	address: string
	createdAt: string
	lastSeenAt: string
	/** The session this request came with. */
	current: boolean
}

const refOf = (idHash: string) => sha256Hex(`session-ref:${idHash}`).slice(0, 32)
const nameOf = (session: Pick<SessionRow, 'userAgent' | 'address'>) =>
	`${browserName(session.userAgent)}, ${session.address}`

/** A signed-in person as the web application sees them. */
export interface WebCaller extends Caller {
	sessionIdHash: string
	plan: UserRow['plan']
	isAdmin: boolean
	/** The per-session token every form and htmx request must carry (docs/web.md). */
	csrfToken: string
}

/**
 * docs/web.md web sessions: a random id in a cookie, stored only as its
 * SHA-256 with the user, times, user agent and address; idle expiry 7 days,
 * absolute 30. Sign-in shares the API login's password check and throttling.
 * The CSRF token is derived from the session (a keyed hash), so it needs no storage.
 */
export function createSessionsService({
	store,
	clock,
	passwords,
	auth,
	sealer
}: {
	store: Store
	clock: Clock
	passwords: PasswordHasher
	auth: Pick<AuthService, 'checkPassword'>
	sealer: Pick<Sealer, 'keyedHash' | 'seal' | 'open'>
}) {
	const event = createAuditEvents(clock)
	const csrfOf = (idHash: string) => sealer.keyedHash('csrf', idHash)

	/** A new session for `user`: the cookie value is returned once, only its hash is stored. */
	async function start(user: UserRow, address: string, userAgent: string) {
		const id = randomBytes(32).toString('base64url')
		const idHash = sha256Hex(id)
		const now = clock.now()
		const expiresAt = toIso(now + SESSION_MAX_MS)
		await store.sessions.create(
			{
				idHash,
				userId: user.id,
				createdAt: toIso(now),
				lastSeenAt: toIso(now),
				expiresAt,
				userAgent: userAgent.slice(0, 300),
				address
			},
			event(
				'session.started',
				{ userId: user.id, username: user.username, via: 'web', address },
				{ target: { type: 'session', id: idHash.slice(0, 12) } }
			)
		)
		return { cookie: id, expiresAt, user }
	}

	return {
		/** Checks the password (401, 429 as the API login) and starts a session; the cookie value is returned once. */
		async signIn(login: string, password: string, address: string, userAgent: string) {
			return start(await auth.checkPassword(login, password, address, 'web'), address, userAgent)
		},

		/** Signs in a person who has just made their account (docs/web.md: setup and sign-up links). */
		start: (user: UserRow, address: string, userAgent: string) => start(user, address, userAgent),

		/** The live session a cookie names, or undefined (unknown, expired, idle too long, user gone). */
		async resolve(cookie: string | undefined): Promise<WebCaller | undefined> {
			if (cookie === undefined || !SESSION_ID_PATTERN.test(cookie)) return undefined
			const idHash = sha256Hex(cookie)
			const now = clock.now()
			const found = await store.sessions.find(idHash, toIso(now), toIso(now - SESSION_IDLE_MS))
			if (!found) return undefined
			if (Date.parse(found.session.lastSeenAt) < now - TOUCH_EVERY_MS) {
				await store.sessions.touch(idHash, toIso(now), toIso(now - TOUCH_EVERY_MS))
			}
			const { user } = found
			return {
				userId: user.id,
				email: user.email,
				username: user.username,
				plan: user.plan,
				isAdmin: user.isAdmin,
				sessionIdHash: idHash,
				csrfToken: csrfOf(idHash)
			}
		},

		/** True when `token` is this session's CSRF token (compared in constant time by hashing both sides). */
		checkCsrf(caller: WebCaller, token: string | null | undefined): boolean {
			if (typeof token !== 'string') return false
			return sha256Hex(token) === sha256Hex(caller.csrfToken)
		},

		/** Deletes the session on the server (docs/web.md: signing out ends it there, not just in the browser). */
		async signOut(actor: Actor & { sessionIdHash: string }): Promise<void> {
			await store.sessions.remove(
				actor.sessionIdHash,
				event('session.ended', actor, { target: { type: 'session', id: actor.sessionIdHash.slice(0, 12) } })
			)
		},

		/** docs/web.md Account: the user's live web sessions, this one first, then the most recently seen. */
		async listSessions(caller: Pick<WebCaller, 'userId' | 'sessionIdHash'>): Promise<SessionView[]> {
			const now = clock.now()
			const sessions = await store.sessions.listForUser(caller.userId, toIso(now), toIso(now - SESSION_IDLE_MS))
			const views = sessions.map((session) => ({
				ref: refOf(session.idHash),
				browser: browserName(session.userAgent),
				address: session.address,
				createdAt: session.createdAt,
				lastSeenAt: session.lastSeenAt,
				current: session.idHash === caller.sessionIdHash
			}))
			return [...views.filter((view) => view.current), ...views.filter((view) => !view.current)]
		},

		/**
		 * Ends another of the user's web sessions ("Sign out" on Account): one of someone else's, or one that
		 * ended already, is a 404 (never a 403); this very session is signed out with the header's "Sign out".
		 */
		async signOutSession(actor: Actor & { sessionIdHash: string }, ref: string): Promise<void> {
			const now = clock.now()
			const sessions = await store.sessions.listForUser(actor.userId, toIso(now), toIso(now - SESSION_IDLE_MS))
			const session = sessions.find((candidate) => refOf(candidate.idHash) === ref)
			if (!session) throw new AppError('not_found', 'No such session: it may have ended already.')
			if (session.idHash === actor.sessionIdHash)
				throw new AppError('conflict', 'That is this session: sign it out with "Sign out" at the top of the page.')
			const ended = await store.sessions.remove(
				session.idHash,
				event('session.ended', actor, {
					target: { type: 'session', id: session.idHash.slice(0, 12), name: nameOf(session) },
					details: { reason: 'signed_out_elsewhere' }
				})
			)
			if (!ended) throw new AppError('not_found', 'No such session: it may have ended already.')
		},

		/** "Sign out everywhere else" (docs/web.md Account): every other web session of the user ends; how many did. */
		signOutOthers(actor: Actor & { sessionIdHash: string }): Promise<number> {
			const now = clock.now()
			// One that had expired already (idle or at its end, not yet pruned) is dropped without an event: it ended before.
			const live = (session: SessionRow) =>
				Date.parse(session.expiresAt) > now && Date.parse(session.lastSeenAt) > now - SESSION_IDLE_MS
			return store.sessions.removeOthers(actor.userId, actor.sessionIdHash, (session) =>
				live(session)
					? event('session.ended', actor, {
							target: { type: 'session', id: session.idHash.slice(0, 12), name: nameOf(session) },
							details: { reason: 'signed_out_elsewhere' }
						})
					: undefined
			)
		},

		/**
		 * Seals a one-time value to this session (docs/web.md: the temporary password shown once after
		 * a redirect): only the same session opens it, and only with this server's master key.
		 */
		sealFlash(caller: Pick<WebCaller, 'sessionIdHash'>, value: string): string {
			return Buffer.from(sealer.seal(value, `flash:${caller.sessionIdHash}`)).toString('base64url')
		},

		/** A value sealed by sealFlash for this session, or undefined (another session's, tampered, or not ours). */
		openFlash(caller: Pick<WebCaller, 'sessionIdHash'>, sealed: string | undefined): string | undefined {
			if (sealed === undefined || sealed.length > 4096 || !/^[A-Za-z0-9_-]+$/.test(sealed)) return undefined
			try {
				return sealer.open(Buffer.from(sealed, 'base64url'), `flash:${caller.sessionIdHash}`)
			} catch {
				return undefined
			}
		},

		/**
		 * A signed-in user changes their own password: the current one is checked
		 * (throttled like a login), the current session stays, every other web session ends;
		 * with `signOutDevices` (docs/web.md: "Sign out my devices") every API key of theirs is revoked too.
		 */
		async changePassword(
			actor: Actor & { sessionIdHash: string },
			current: string,
			next: string,
			options: { signOutDevices?: boolean } = {}
		): Promise<{ endedSessions: number }> {
			const valid = Password.safeParse(next)
			if (!valid.success) {
				throw new AppError('invalid_request', valid.error.issues[0]?.message ?? 'Invalid password.', {
					details: [{ path: 'newPassword', message: valid.error.issues[0]?.message ?? 'Invalid password.' }]
				})
			}
			await auth.checkPassword(actor.username, current, actor.address, 'web').catch((error: unknown) => {
				if (error instanceof AppError && error.code === 'unauthorized')
					throw new AppError('forbidden', 'The current password is wrong.')
				throw error
			})
			const result = await store.users.setPassword(
				actor.userId,
				await passwords.hash(valid.data),
				{ keepSession: actor.sessionIdHash, revokeKeys: options.signOutDevices === true },
				event('password.changed', actor)
			)
			if (!result) throw new AppError('unauthorized', 'Your account no longer exists.')
			return { endedSessions: result.endedSessions }
		}
	}
}

export type SessionsService = ReturnType<typeof createSessionsService>
