import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import { toIso, type Clock } from '../../lib/clock'
import { sha256Hex, type Sealer } from '../../lib/crypto'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import type { Logger } from '../../lib/log'
import type { PasswordHasher } from '../../lib/passwords'
import type { AuditActor, SignupKind, SignupLinkRow, SignupLinkView, Store, UserRow } from '../../store/types'

/** A link's kind and the admin page's view of it, as this service hands them to the pages. */
export type { SignupKind, SignupLinkView } from '../../store/types'
import { ADMIN_COMMAND, createAuditEvents, type Actor } from '../audit/event'
import type { AuthService } from '../auth/service'
import { Email, Password, PlanName, Username } from '../../../shared/api/users'

/** docs/web.md: a sign-up link is good for this many accounts and days unless the admin says otherwise. */
export const SIGNUP_DEFAULTS = { uses: 1, days: 7 } as const
const MAX_USES = 1000
const MAX_DAYS = 365
/** Sign-up links the Admin page lists, newest first. */
const LISTED_LINKS = 50
/** docs/operations.md: a setup address dies after 24 hours (and when any user is made admin). */
const SETUP_LIFETIME_MS = 24 * 3600_000
/** What the kept setup token is sealed with, so it cannot be moved to another purpose. */
const SETUP_AAD = 'cfgsync setup address'
/** A token: 32 random bytes, base64url. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/
/** How much of a token the Admin page shows, so an admin can tell their links apart. */
const HINT_LENGTH = 6

export const NewSignupLink = z.object({
	plan: PlanName,
	uses: z.coerce
		.number({ error: 'Give a whole number of uses.' })
		.int('Give a whole number of uses.')
		.min(1, 'A link is good for at least one account.')
		.max(MAX_USES, `A link is good for at most ${MAX_USES} accounts.`)
		.default(SIGNUP_DEFAULTS.uses),
	days: z.coerce
		.number({ error: 'Give a whole number of days.' })
		.int('Give a whole number of days.')
		.min(1, 'A link lives at least one day.')
		.max(MAX_DAYS, `A link lives at most ${MAX_DAYS} days.`)
		.default(SIGNUP_DEFAULTS.days)
})
export type NewSignupLinkRequest = { plan: string; uses?: string | number; days?: string | number }

/** The account a person fills in on the setup or sign-up page. */
export const SignupForm = z.object({ email: Email, username: Username, password: Password })
export type SignupFormInput = { email: string; username: string; password: string }

/** Why a link cannot be used. */
export type DeadReason = 'unknown' | 'used_up' | 'expired' | 'revoked' | 'admin_exists'

/**
 * A link that cannot be used (docs/web.md): the page says so with a 404 (unknown) or 410 (it
 * existed but is used up, expired, revoked, or, for the setup address, an admin exists), never a form.
 */
export class DeadLink extends Error {
	constructor(
		readonly kind: SignupKind,
		readonly reason: DeadReason
	) {
		super(deadMessage(kind, reason))
		this.name = 'DeadLink'
	}
	get status(): 404 | 410 {
		return this.reason === 'unknown' ? 404 : 410
	}
}

function deadMessage(kind: SignupKind, reason: DeadReason): string {
	if (kind === 'setup') {
		if (reason === 'unknown')
			return 'There is no setup address here. cfgsync-server prints its setup address when it starts with no user; `cfgsync-server setup-link` prints a new one.'
		if (reason === 'admin_exists')
			return 'This server has an admin already, so its setup address no longer works: sign in instead.'
		return 'This setup address has ended (they last 24 hours, and a newer one ends it): run `cfgsync-server setup-link` on the server for a new one.'
	}
	const ask = 'Ask the server’s admin for a new one.'
	if (reason === 'used_up') return `This sign-up link has been used up. ${ask}`
	if (reason === 'expired') return `This sign-up link has expired. ${ask}`
	if (reason === 'revoked') return `This sign-up link was revoked. ${ask}`
	return `This sign-up link does not exist. ${ask}`
}

/** Where a link stands at `now`: usable, or why not. */
export function linkState(
	link: SignupLinkRow,
	now: number
): 'active' | Exclude<DeadReason, 'unknown' | 'admin_exists'> {
	if (link.revokedAt !== null) return 'revoked'
	if (link.uses >= link.maxUses) return 'used_up'
	if (link.expiresAt !== null && Date.parse(link.expiresAt) <= now) return 'expired'
	return 'active'
}

const newToken = () => randomBytes(32).toString('base64url')
/** What failed uses of one link are counted under (the throttle of docs/api.md), by its token's hash. */
const throttleKeyOf = (tokenHash: string) => `signup:${tokenHash}`

/**
 * docs/web.md first start and sign-up: the setup address a first start prints, the sign-up links
 * server admins make, and the accounts made through them. Only a token's SHA-256 is stored; the
 * token is shown once, to whoever made it.
 */
export function createSignupService({
	store,
	clock,
	passwords,
	auth,
	logger,
	sealer
}: {
	store: Store
	clock: Clock
	passwords: PasswordHasher
	/** Seals the fleet's setup address (docs/operations.md), so every instance prints the one the first made. */
	sealer?: Pick<Sealer, 'seal' | 'open'>
	/** The sign-in throttle (docs/api.md), which the pages share; the admin command, which only makes links, has none. */
	auth?: Pick<AuthService, 'throttle'>
	logger?: Logger
}) {
	const event = createAuditEvents(clock)
	const throttle = () => {
		if (auth === undefined) throw new Error('the setup and sign-up pages need the sign-in throttle')
		return auth.throttle
	}
	const visitor = (address: string): AuditActor => ({ userId: null, username: null, via: 'web', address })

	/** The link a token names, if it is of this kind and usable now; else why not. */
	async function usable(kind: SignupKind, token: string): Promise<SignupLinkRow | DeadReason> {
		if (!TOKEN_PATTERN.test(token)) return 'unknown'
		const link = await store.signups.find(sha256Hex(token))
		if (!link || link.kind !== kind) return 'unknown'
		// A setup link revoked while no admin exists was ended by a newer one (docs/operations.md): "ended", not "has an admin".
		if (kind === 'setup' && (await store.signups.hasAdmin())) return 'admin_exists'
		const state = linkState(link, clock.now())
		return state === 'active' ? link : state
	}

	/** A refused use is audited and logged (docs/operations.md), then answered with the page that says why. */
	async function refuse(kind: SignupKind, reason: DeadReason, address: string): Promise<never> {
		logger?.warn('sign-up refused', { address, page: kind, reason })
		await store.audit.record(event('signup.refused', visitor(address), { details: { page: kind, reason } }))
		throw new DeadLink(kind, reason)
	}

	async function create(
		kind: SignupKind,
		plan: SignupLinkRow['plan'],
		uses: number,
		days: number | null,
		by: Actor | AuditActor
	) {
		const token = newToken()
		const now = clock.now()
		const link: SignupLinkRow = {
			id: newId(),
			kind,
			tokenHash: sha256Hex(token),
			hint: token.slice(0, HINT_LENGTH),
			plan,
			maxUses: uses,
			uses: 0,
			createdAt: toIso(now),
			expiresAt: days === null ? null : toIso(now + days * 86_400_000),
			revokedAt: null,
			createdBy: 'email' in by ? by.userId : null
		}
		await store.signups.create(
			link,
			event('signup_link.created', by, {
				target: { type: 'signup_link', id: link.id, name: link.hint },
				details: { kind, plan, uses, days }
			})
		)
		return { token, link }
	}

	return {
		/**
		 * At a first start (no user at all): a new setup address, good for one first admin. Each
		 * start before then makes its own (every instance prints a working one); all die once an admin exists.
		 */
		async openSetup(
			plan: SignupLinkRow['plan'],
			{ fresh = false }: { fresh?: boolean } = {}
		): Promise<string | undefined> {
			if (!fresh && (await store.signups.hasUsers())) return undefined
			if (sealer === undefined) throw new Error('the setup address needs the master key')
			const token = newToken()
			const now = clock.now()
			const link: SignupLinkRow = {
				id: newId(),
				kind: 'setup',
				tokenHash: sha256Hex(token),
				hint: token.slice(0, HINT_LENGTH),
				plan,
				maxUses: 1,
				uses: 0,
				createdAt: toIso(now),
				expiresAt: toIso(now + SETUP_LIFETIME_MS),
				revokedAt: null,
				createdBy: null
			}
			const sealedToken = Buffer.from(sealer.seal(token, SETUP_AAD)).toString('base64')
			const by = { userId: null, username: null, via: 'server', address: null } as const
			const opened = await store.signups.openSetup({
				link,
				sealedToken,
				now: link.createdAt,
				fresh,
				audit: event('signup_link.created', by, {
					target: { type: 'signup_link', id: link.id, name: link.hint },
					details: { kind: 'setup', plan, uses: 1, days: 1 }
				})
			})
			if (opened === undefined) return undefined
			try {
				return sealer.open(Buffer.from(opened.sealedToken, 'base64'), SETUP_AAD)
			} catch {
				// Kept under a key this process does not hold (a rotation since): a fresh address ends the old one.
				if (fresh) throw new Error('the setup address just made does not open')
				return this.openSetup(plan, { fresh: true })
			}
		},

		/** A sign-up link (the Admin page's "Invite people", or `invite create`); the token is returned once. */
		async createLink(input: NewSignupLinkRequest, by: Actor | AuditActor = ADMIN_COMMAND) {
			const parsed = NewSignupLink.safeParse(input)
			if (!parsed.success) throw new AppError('invalid_request', parsed.error.issues[0]?.message ?? 'Invalid link.')
			const { plan, uses, days } = parsed.data
			return create('join', plan, uses, days, by)
		},

		listLinks: (): Promise<SignupLinkView[]> => store.signups.listJoin(LISTED_LINKS),

		async findLink(id: string): Promise<SignupLinkView> {
			const link = (await store.signups.listJoin(LISTED_LINKS)).find((candidate) => candidate.id === id)
			if (!link) throw new AppError('not_found', 'No such sign-up link.')
			return link
		},

		async revokeLink(id: string, by: Actor | AuditActor = ADMIN_COMMAND): Promise<void> {
			const revoked = await store.signups.revoke(
				id,
				toIso(clock.now()),
				event('signup_link.revoked', by, { target: { type: 'signup_link', id } })
			)
			if (!revoked) throw new AppError('not_found', 'No such sign-up link, or it was revoked already.')
		},

		/**
		 * The link behind a page view: usable, or a DeadLink. A view never counts (docs/operations.md): any site can make
		 * a visitor's browser open links (`<img src=…/join/x>`), so a view spends no budget, writes no audit event
		 * and no security-log line (a fail2ban jail would ban the visitor's whole office); only a use (redeem) does.
		 */
		async check(kind: SignupKind, token: string): Promise<SignupLinkRow> {
			const found = await usable(kind, token)
			if (typeof found !== 'string') return found
			throw new DeadLink(kind, found)
		},

		/**
		 * Makes the account (the first admin through the setup address) and takes one use of the
		 * link, as one transaction. Every attempt counts as a failure until it succeeds, as at sign-in.
		 */
		async redeem(kind: SignupKind, token: string, form: SignupFormInput, address: string): Promise<UserRow> {
			const tokenHash = sha256Hex(token)
			await throttle().take(throttleKeyOf(tokenHash), address)
			const found = await usable(kind, token)
			if (typeof found === 'string') return refuse(kind, found, address)
			const valid = SignupForm.safeParse(form)
			if (!valid.success) {
				const issue = valid.error.issues[0]
				const label = { email: 'Email', username: 'Username', password: 'Password' }[String(issue?.path[0])]
				throw new AppError('invalid_request', `${label ? `${label}: ` : ''}${issue?.message ?? 'invalid'}`)
			}
			const user: UserRow = {
				id: newId(),
				email: valid.data.email,
				username: valid.data.username,
				passwordHash: await passwords.hash(valid.data.password),
				plan: found.plan,
				isAdmin: kind === 'setup',
				createdAt: toIso(clock.now())
			}
			const result = await store.signups.redeem(tokenHash, user.createdAt, user, [
				event(
					'user.created',
					{ userId: user.id, username: user.username, via: 'web', address },
					{
						subjectUserId: user.id,
						target: { type: 'user', id: user.id, name: user.username },
						details: {
							plan: user.plan,
							admin: user.isAdmin,
							through: kind === 'setup' ? 'setup address' : 'sign-up link',
							link: found.hint
						}
					}
				)
			])
			if (result === 'taken') throw new AppError('conflict', 'A user with that email or username already exists.')
			if (result === 'gone') {
				// Used up (or an admin made) between the check and the use.
				const now = await usable(kind, token)
				return refuse(kind, typeof now === 'string' ? now : 'used_up', address)
			}
			await throttle().succeeded(throttleKeyOf(tokenHash), address)
			return user
		}
	}
}

export type SignupService = ReturnType<typeof createSignupService>
