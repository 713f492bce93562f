import { and, eq, gt, lt, or } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { SessionStore, UserRow } from '../types'
import type { AuditWriter } from './audit'
import type { SqliteDb } from './client'
import { changed } from './errors'
import { sessions, users } from './schema'
import { userFields } from './users'

/** docs/web.md web sessions, looked up by the SHA-256 of the cookie's id. */
export function sqliteSessions(db: SqliteDb, sqlite: Database, audit: AuditWriter): SessionStore {
	const sessionFields = {
		idHash: sessions.idHash,
		userId: sessions.userId,
		createdAt: sessions.createdAt,
		lastSeenAt: sessions.lastSeenAt,
		expiresAt: sessions.expiresAt,
		userAgent: sessions.userAgent,
		address: sessions.address
	}
	const createTx = sqlite.transaction(
		(session: Parameters<SessionStore['create']>[0], event: Parameters<SessionStore['create']>[1]) => {
			db.insert(sessions).values(session).run()
			audit(event)
		}
	)
	const removeTx = sqlite.transaction((idHash: string, event: Parameters<SessionStore['remove']>[1]) => {
		const removed = changed(db.delete(sessions).where(eq(sessions.idHash, idHash)).run()) > 0
		if (removed) audit(event)
		return removed
	})
	return {
		create: async (session, event) => createTx.immediate(session, event),
		async find(idHash, now, idleSince) {
			const row = db
				.select({ session: sessionFields, user: userFields })
				.from(sessions)
				.innerJoin(users, eq(users.id, sessions.userId))
				.where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now), gt(sessions.lastSeenAt, idleSince)))
				.get()
			return row && { session: row.session, user: row.user as UserRow }
		},
		touch: async (idHash, at, staleBefore) =>
			void db
				.update(sessions)
				.set({ lastSeenAt: at })
				.where(and(eq(sessions.idHash, idHash), lt(sessions.lastSeenAt, staleBefore)))
				.run(),
		remove: async (idHash, event) => removeTx.immediate(idHash, event),
		prune: async (now, idleBefore) =>
			changed(
				db
					.delete(sessions)
					.where(or(lt(sessions.expiresAt, now), lt(sessions.lastSeenAt, idleBefore)))
					.run()
			)
	}
}
