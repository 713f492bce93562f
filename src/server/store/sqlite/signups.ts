import { and, desc, eq, isNull, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import { SETUP_TOKEN_META, type AuditEvent, type SignupLinkRow, type SignupStore, type UserRow } from '../types'
import type { AuditWriter } from './audit'
import type { SqliteDb } from './client'
import { changed, isUniqueViolation } from './errors'
import { meta, signupLinks, users } from './schema'
import { loginKey, parseKept } from '../shared'

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

/** Thrown inside the redeem transaction to roll back the use it took. */
class Taken extends Error {}

/** docs/web.md first start and sign-up; SQLite's single writer serialises every redeem. */
export function sqliteSignups(db: SqliteDb, sqlite: Database, audit: AuditWriter): SignupStore {
	const createTx = sqlite.transaction((link: SignupLinkRow, event: AuditEvent | undefined) => {
		db.insert(signupLinks).values(link).run()
		audit(event)
	})

	const revokeTx = sqlite.transaction((id: string, at: string, event: AuditEvent | undefined) => {
		const rows = changed(
			db
				.update(signupLinks)
				.set({ revokedAt: at })
				.where(and(eq(signupLinks.id, id), eq(signupLinks.kind, 'join'), isNull(signupLinks.revokedAt)))
				.run()
		)
		if (rows > 0) audit(event)
		return rows > 0
	})

	const redeemTx = sqlite.transaction((tokenHash: string, now: string, user: UserRow, events: AuditEvent[]) => {
		// One use, taken only while the link can be used: the condition and the increment are one statement.
		const used = db
			.update(signupLinks)
			.set({ uses: sql`${signupLinks.uses} + 1` })
			.where(
				and(
					eq(signupLinks.tokenHash, tokenHash),
					isNull(signupLinks.revokedAt),
					sql`${signupLinks.uses} < ${signupLinks.maxUses}`,
					sql`(${signupLinks.expiresAt} IS NULL OR ${signupLinks.expiresAt} > ${now})`,
					sql`(${signupLinks.kind} <> 'setup' OR NOT EXISTS (SELECT 1 FROM ${users} WHERE ${users.isAdmin} = 1))`
				)
			)
			.returning({ kind: signupLinks.kind })
			.all()
		const kind = used[0]?.kind
		if (kind === undefined) return 'gone' as const
		try {
			db.insert(users)
				.values({ ...user, emailKey: loginKey(user.email), usernameKey: loginKey(user.username) })
				.run()
		} catch (error) {
			if (isUniqueViolation(error)) throw new Taken()
			throw error
		}
		// An admin exists now: every setup address dies with this one.
		if (kind === 'setup')
			db.update(signupLinks)
				.set({ revokedAt: now })
				.where(and(eq(signupLinks.kind, 'setup'), isNull(signupLinks.revokedAt)))
				.run()
		for (const event of events) audit(event)
		return 'created' as const
	})

	const openSetupTx = sqlite.transaction(
		(input: Parameters<SignupStore['openSetup']>[0]): Awaited<ReturnType<SignupStore['openSetup']>> => {
			if (db.select({ id: users.id }).from(users).where(eq(users.isAdmin, true)).limit(1).get() !== undefined)
				return undefined
			const kept = parseKept(
				db.select({ value: meta.value }).from(meta).where(eq(meta.key, SETUP_TOKEN_META)).get()?.value
			)
			if (!input.fresh && kept !== undefined) {
				const link = db
					.select({ id: signupLinks.id })
					.from(signupLinks)
					.where(and(eq(signupLinks.id, kept.id), usableSetup(input.now)))
					.get()
				if (link !== undefined) return { sealedToken: kept.sealed, created: false }
			}
			db.update(signupLinks)
				.set({ revokedAt: input.now })
				.where(and(eq(signupLinks.kind, 'setup'), isNull(signupLinks.revokedAt)))
				.run()
			db.insert(signupLinks).values(input.link).run()
			const value = JSON.stringify({ id: input.link.id, sealed: input.sealedToken })
			db.insert(meta)
				.values({ key: SETUP_TOKEN_META, value })
				.onConflictDoUpdate({ target: meta.key, set: { value } })
				.run()
			audit(input.audit)
			return { sealedToken: input.sealedToken, created: true }
		}
	)

	return {
		openSetup: async (input) => openSetupTx.immediate(input),
		create: async (link, event) => createTx.immediate(link, event),
		find: async (tokenHash) =>
			db.select(linkFields).from(signupLinks).where(eq(signupLinks.tokenHash, tokenHash)).get() as
				| SignupLinkRow
				| undefined,
		hasUsers: async () => db.select({ id: users.id }).from(users).limit(1).get() !== undefined,
		hasAdmin: async () =>
			db.select({ id: users.id }).from(users).where(eq(users.isAdmin, true)).limit(1).get() !== undefined,
		listJoin: async (limit) =>
			db
				.select({ ...linkFields, createdByName: users.username })
				.from(signupLinks)
				.leftJoin(users, eq(users.id, signupLinks.createdBy))
				.where(eq(signupLinks.kind, 'join'))
				.orderBy(desc(signupLinks.createdAt), desc(signupLinks.id))
				.limit(limit)
				.all() as Awaited<ReturnType<SignupStore['listJoin']>>,
		revoke: async (id, at, event) => revokeTx.immediate(id, at, event),
		async redeem(tokenHash, now, user, events) {
			try {
				return redeemTx.immediate(tokenHash, now, user, events)
			} catch (error) {
				if (error instanceof Taken) return 'taken'
				throw error
			}
		}
	}
}
