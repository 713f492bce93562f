import { and, desc, eq, gt, lt, ne, or } from 'drizzle-orm'
import type { SessionStore, UserRow } from '../types'
import { audit, changes, type Executor, row, rows, write } from './executor'
import { userFieldsOf } from './users'

/** docs/web.md web sessions, looked up by the SHA-256 of the cookie's id. */
export function sessionStore(ex: Executor): SessionStore {
	const { sessions, users } = ex.tables
	const sessionFields = {
		idHash: sessions.idHash,
		userId: sessions.userId,
		createdAt: sessions.createdAt,
		lastSeenAt: sessions.lastSeenAt,
		expiresAt: sessions.expiresAt,
		userAgent: sessions.userAgent,
		address: sessions.address
	}
	const userFields = userFieldsOf(users)
	return {
		create: (session, event) =>
			ex.transaction(function* (db) {
				yield* write(db.insert(sessions).values(session))
				yield* audit(event)
			}),
		async find(idHash, now, idleSince) {
			const found = await ex.execute((db) =>
				row(
					db
						.select({ session: sessionFields, user: userFields })
						.from(sessions)
						.innerJoin(users, eq(users.id, sessions.userId))
						.where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now), gt(sessions.lastSeenAt, idleSince)))
				)
			)
			return found && { session: found.session, user: found.user as UserRow }
		},
		touch: (idHash, at, staleBefore) =>
			ex.execute((db) =>
				write(
					db
						.update(sessions)
						.set({ lastSeenAt: at })
						.where(and(eq(sessions.idHash, idHash), lt(sessions.lastSeenAt, staleBefore)))
				)
			),
		remove: (idHash, event) =>
			ex.transaction(function* (db) {
				const removed = (yield* changes(db.delete(sessions).where(eq(sessions.idHash, idHash)))) > 0
				if (removed) yield* audit(event)
				return removed
			}),
		listForUser: (userId, now, idleSince) =>
			ex.execute((db) =>
				rows(
					db
						.select(sessionFields)
						.from(sessions)
						.where(and(eq(sessions.userId, userId), gt(sessions.expiresAt, now), gt(sessions.lastSeenAt, idleSince)))
						.orderBy(desc(sessions.lastSeenAt), desc(sessions.createdAt))
				)
			),
		removeOthers: (userId, keep, auditOf) =>
			ex.transaction(function* (db) {
				const ended = yield* rows(
					db
						.delete(sessions)
						.where(and(eq(sessions.userId, userId), ne(sessions.idHash, keep)))
						.returning(sessionFields)
				)
				for (const session of ended) yield* audit(auditOf?.(session))
				return ended.length
			}),
		prune: (now, idleBefore) =>
			ex.execute((db) =>
				changes(db.delete(sessions).where(or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, idleBefore))))
			)
	}
}
