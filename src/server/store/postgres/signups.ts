import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import { SETUP_TOKEN_META, type SignupLinkRow, type SignupStore } from '../types'
import { loginKey, parseKept } from '../shared'
import { writeAudit } from './audit'
import type { PgDb } from './client'
import { isUniqueViolation } from './errors'
import { lockName } from './locks'
import { meta, signupLinks, users } from './schema'

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

/** A setup link that can still be used at `now` (an admin existing is checked apart). */
const usableSetup = (now: string) =>
	and(
		eq(signupLinks.kind, 'setup'),
		isNull(signupLinks.revokedAt),
		sql`${signupLinks.uses} < ${signupLinks.maxUses}`,
		sql`(${signupLinks.expiresAt} IS NULL OR ${signupLinks.expiresAt} > ${now})`
	)

/**
 * docs/web.md first start and sign-up on PostgreSQL. A link's use is one conditional UPDATE, so two
 * uses of a one-use link at once serialise on its row and the second finds it used up. Two setup
 * addresses (printed by two instances) are different rows: the first admin is serialised by a lock.
 */
export function postgresSignups(db: PgDb): SignupStore {
	return {
		openSetup: (input) =>
			db.transaction(async (tx) => {
				// Instances starting together take turns here: the first makes the address, the others find it.
				await lockName(tx, 'first-admin')
				if ((await tx.select({ id: users.id }).from(users).where(eq(users.isAdmin, true)).limit(1)).length > 0)
					return undefined
				const [row] = await tx.select({ value: meta.value }).from(meta).where(eq(meta.key, SETUP_TOKEN_META))
				const kept = parseKept(row?.value)
				if (!input.fresh && kept !== undefined) {
					const [link] = await tx
						.select({ id: signupLinks.id })
						.from(signupLinks)
						.where(and(eq(signupLinks.id, kept.id), usableSetup(input.now)))
					if (link !== undefined) return { sealedToken: kept.sealed, created: false }
				}
				await tx
					.update(signupLinks)
					.set({ revokedAt: input.now })
					.where(and(eq(signupLinks.kind, 'setup'), isNull(signupLinks.revokedAt)))
				await tx.insert(signupLinks).values(input.link)
				const value = JSON.stringify({ id: input.link.id, sealed: input.sealedToken })
				await tx
					.insert(meta)
					.values({ key: SETUP_TOKEN_META, value })
					.onConflictDoUpdate({ target: meta.key, set: { value } })
				await writeAudit(tx, input.audit)
				return { sealedToken: input.sealedToken, created: true }
			}),
		create: (link, event) =>
			db.transaction(async (tx) => {
				await tx.insert(signupLinks).values(link)
				await writeAudit(tx, event)
			}),
		find: async (tokenHash) =>
			(await db.select(linkFields).from(signupLinks).where(eq(signupLinks.tokenHash, tokenHash)))[0] as
				| SignupLinkRow
				| undefined,
		hasUsers: async () => (await db.select({ id: users.id }).from(users).limit(1)).length > 0,
		hasAdmin: async () =>
			(await db.select({ id: users.id }).from(users).where(eq(users.isAdmin, true)).limit(1)).length > 0,
		listJoin: async (limit) =>
			(await db
				.select({ ...linkFields, createdByName: users.username })
				.from(signupLinks)
				.leftJoin(users, eq(users.id, signupLinks.createdBy))
				.where(eq(signupLinks.kind, 'join'))
				.orderBy(desc(signupLinks.createdAt), desc(signupLinks.id))
				.limit(limit)) as Awaited<ReturnType<SignupStore['listJoin']>>,
		revoke: (id, at, event) =>
			db.transaction(async (tx) => {
				const rows = await tx
					.update(signupLinks)
					.set({ revokedAt: at })
					.where(and(eq(signupLinks.id, id), eq(signupLinks.kind, 'join'), isNull(signupLinks.revokedAt)))
					.returning({ id: signupLinks.id })
				if (rows.length > 0) await writeAudit(tx, event)
				return rows.length > 0
			}),
		async redeem(tokenHash, now, user, events) {
			try {
				return await db.transaction(async (tx) => {
					const [link] = await tx
						.select({ kind: signupLinks.kind })
						.from(signupLinks)
						.where(eq(signupLinks.tokenHash, tokenHash))
					if (!link) return 'gone' as const
					// Read committed: once the lock is held, the statement below sees an admin made meanwhile.
					if (link.kind === 'setup') await lockName(tx, 'first-admin')
					const used = await tx
						.update(signupLinks)
						.set({ uses: sql`${signupLinks.uses} + 1` })
						.where(
							and(
								eq(signupLinks.tokenHash, tokenHash),
								isNull(signupLinks.revokedAt),
								sql`${signupLinks.uses} < ${signupLinks.maxUses}`,
								sql`(${signupLinks.expiresAt} IS NULL OR ${signupLinks.expiresAt} > ${now})`,
								sql`(${signupLinks.kind} <> 'setup' OR NOT EXISTS (SELECT 1 FROM ${users} WHERE ${users.isAdmin}))`
							)
						)
						.returning({ kind: signupLinks.kind })
					if (used.length === 0) return 'gone' as const
					// A unique violation here aborts the transaction, and with it the use just taken.
					await tx
						.insert(users)
						.values({ ...user, emailKey: loginKey(user.email), usernameKey: loginKey(user.username) })
					if (link.kind === 'setup')
						await tx
							.update(signupLinks)
							.set({ revokedAt: now })
							.where(and(eq(signupLinks.kind, 'setup'), isNull(signupLinks.revokedAt)))
					for (const event of events) await writeAudit(tx, event)
					return 'created' as const
				})
			} catch (error) {
				if (isUniqueViolation(error)) return 'taken'
				throw error
			}
		}
	}
}
