import { and, eq, gt, lt, or } from 'drizzle-orm'
import type { SessionStore, UserRow } from '../types'
import { writeAudit } from './audit'
import type { PgDb } from './client'
import { sessions, users } from './schema'
import { userFields } from './users'

/** docs/web.md web sessions, looked up by the SHA-256 of the cookie's id. */
export function postgresSessions(db: PgDb): SessionStore {
	const sessionFields = {
		idHash: sessions.idHash,
		userId: sessions.userId,
		createdAt: sessions.createdAt,
		lastSeenAt: sessions.lastSeenAt,
		expiresAt: sessions.expiresAt,
		userAgent: sessions.userAgent,
		address: sessions.address
	}
	return {
		create: (session, event) =>
			db.transaction(async (tx) => {
				await tx.insert(sessions).values(session)
				await writeAudit(tx, event)
			}),
		async find(idHash, now, idleSince) {
			const [row] = await db
				.select({ session: sessionFields, user: userFields })
				.from(sessions)
				.innerJoin(users, eq(users.id, sessions.userId))
				.where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now), gt(sessions.lastSeenAt, idleSince)))
			return row && { session: row.session, user: row.user as UserRow }
		},
		touch: async (idHash, at, staleBefore) =>
			void (await db
				.update(sessions)
				.set({ lastSeenAt: at })
				.where(and(eq(sessions.idHash, idHash), lt(sessions.lastSeenAt, staleBefore)))),
		remove: (idHash, event) =>
			db.transaction(async (tx) => {
				const removed =
					(await tx.delete(sessions).where(eq(sessions.idHash, idHash)).returning({ idHash: sessions.idHash })).length >
					0
				if (removed) await writeAudit(tx, event)
				return removed
			}),
		prune: async (now, idleBefore) =>
			(
				await db
					.delete(sessions)
					.where(or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, idleBefore)))
					.returning({ idHash: sessions.idHash })
			).length
	}
}
