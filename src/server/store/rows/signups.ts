import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { SETUP_TOKEN_META, type SignupLinkRow, type SignupStore } from '../types'
import { loginKey, parseKept } from '../shared'
import { audit, changes, type Db, type Executor, lock, row, rows, write } from './executor'

/**
 * docs/web.md first start and sign-up. A link's use is one conditional UPDATE, so two uses of a one-use
 * link at once serialise on its row (SQLite: on its single writer) and the second finds it used up. Two
 * setup addresses (printed by two instances) are different rows: the first admin is serialised by a lock.
 */
export function signupStore(ex: Executor): SignupStore {
	const { meta, signupLinks, users } = ex.tables
	const linkFields = {
		id: signupLinks.id,
		kind: signupLinks.kind,
		tokenHash: signupLinks.tokenHash,
		hint: signupLinks.hint,
		plan: signupLinks.plan,
		maxUses: signupLinks.maxUses,
		uses: signupLinks.uses,
		createdAt: signupLinks.createdAt,
		expiresAt: signupLinks.expiresAt,
		revokedAt: signupLinks.revokedAt,
		createdBy: signupLinks.createdBy
	}
	/** A link that can still be used at `now` (for a setup address, an admin existing is checked apart). */
	const usable = (now: string) =>
		and(
			isNull(signupLinks.revokedAt),
			sql`${signupLinks.uses} < ${signupLinks.maxUses}`,
			sql`(${signupLinks.expiresAt} IS NULL OR ${signupLinks.expiresAt} > ${now})`
		)
	const anAdmin = (db: Db) => db.select({ id: users.id }).from(users).where(eq(users.isAdmin, true)).limit(1)
	/** Every setup address still open is revoked: an admin exists, or a new address replaces them. */
	const revokeSetups = (db: Db, now: string) =>
		db
			.update(signupLinks)
			.set({ revokedAt: now })
			.where(and(eq(signupLinks.kind, 'setup'), isNull(signupLinks.revokedAt)))

	return {
		openSetup: (input) =>
			ex.transaction(function* (db) {
				// Instances starting together take turns here: the first makes the address, the others find it.
				yield* lock('first-admin')
				if ((yield* row(anAdmin(db))) !== undefined) return undefined
				const kept = parseKept(
					(yield* row(db.select({ value: meta.value }).from(meta).where(eq(meta.key, SETUP_TOKEN_META))))?.value
				)
				if (!input.fresh && kept !== undefined) {
					const link = yield* row(
						db
							.select({ id: signupLinks.id })
							.from(signupLinks)
							.where(and(eq(signupLinks.id, kept.id), eq(signupLinks.kind, 'setup'), usable(input.now)))
					)
					if (link !== undefined) return { sealedToken: kept.sealed, created: false }
				}
				yield* write(revokeSetups(db, input.now))
				yield* write(db.insert(signupLinks).values(input.link))
				const value = JSON.stringify({ id: input.link.id, sealed: input.sealedToken })
				yield* write(
					db
						.insert(meta)
						.values({ key: SETUP_TOKEN_META, value })
						.onConflictDoUpdate({ target: meta.key, set: { value } })
				)
				yield* audit(input.audit)
				return { sealedToken: input.sealedToken, created: true }
			}),
		create: (link, event) =>
			ex.transaction(function* (db) {
				yield* write(db.insert(signupLinks).values(link))
				yield* audit(event)
			}),
		find: (tokenHash) =>
			ex.execute((db) =>
				row(db.select(linkFields).from(signupLinks).where(eq(signupLinks.tokenHash, tokenHash)))
			) as Promise<SignupLinkRow | undefined>,
		hasUsers: async () =>
			(await ex.execute((db) => row(db.select({ id: users.id }).from(users).limit(1)))) !== undefined,
		hasAdmin: async () => (await ex.execute((db) => row(anAdmin(db)))) !== undefined,
		listJoin: (limit) =>
			ex.execute((db) =>
				rows(
					db
						.select({ ...linkFields, createdByName: users.username })
						.from(signupLinks)
						.leftJoin(users, eq(users.id, signupLinks.createdBy))
						.where(eq(signupLinks.kind, 'join'))
						.orderBy(desc(signupLinks.createdAt), desc(signupLinks.id))
						.limit(limit)
				)
			) as ReturnType<SignupStore['listJoin']>,
		revoke: (id, at, event) =>
			ex.transaction(function* (db) {
				const revoked =
					(yield* changes(
						db
							.update(signupLinks)
							.set({ revokedAt: at })
							.where(and(eq(signupLinks.id, id), eq(signupLinks.kind, 'join'), isNull(signupLinks.revokedAt)))
					)) > 0
				if (revoked) yield* audit(event)
				return revoked
			}),
		async redeem(tokenHash, now, user, events) {
			try {
				return await ex.transaction(function* (db) {
					const link = yield* row(
						db.select({ kind: signupLinks.kind }).from(signupLinks).where(eq(signupLinks.tokenHash, tokenHash))
					)
					if (!link) return 'gone' as const
					// PostgreSQL reads committed rows: once the lock is held, the update below sees an admin made meanwhile.
					if (link.kind === 'setup') yield* lock('first-admin')
					// One use, taken only while the link can be used: the condition and the increment are one statement.
					const used = yield* changes(
						db
							.update(signupLinks)
							.set({ uses: sql`${signupLinks.uses} + 1` })
							.where(
								and(
									eq(signupLinks.tokenHash, tokenHash),
									usable(now),
									sql`(${signupLinks.kind} <> 'setup' OR NOT EXISTS (SELECT 1 FROM ${users} WHERE ${eq(users.isAdmin, true)}))`
								)
							)
					)
					if (used === 0) return 'gone' as const
					// A unique violation here rolls the transaction back, and with it the use just taken.
					yield* write(
						db.insert(users).values({ ...user, emailKey: loginKey(user.email), usernameKey: loginKey(user.username) })
					)
					// An admin exists now: every setup address dies with this one.
					if (link.kind === 'setup') yield* write(revokeSetups(db, now))
					for (const event of events) yield* audit(event)
					return 'created' as const
				})
			} catch (error) {
				if (ex.isUniqueViolation(error)) return 'taken'
				throw error
			}
		}
	}
}
