import { and, asc, count, eq, inArray, isNull, max, ne, or, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { AuditEvent, UserRow, UserStore } from '../types'
import type { AuditWriter } from './audit'
import type { SqliteDb } from './client'
import { apiKeys, configs, sessions, teamMembers, teams, users } from './schema'
import { changed, isUniqueViolation } from './errors'
import { containsAny, loginKey, withActivity } from '../shared'

export const userFields = {
	id: users.id,
	email: users.email,
	username: users.username,
	passwordHash: users.passwordHash,
	plan: users.plan,
	isAdmin: users.isAdmin,
	createdAt: users.createdAt
}

export function sqliteUsers(db: SqliteDb, sqlite: Database, audit: AuditWriter): UserStore {
	const byLogin = db
		.select(userFields)
		.from(users)
		.where(or(eq(users.emailKey, sql.placeholder('key')), eq(users.usernameKey, sql.placeholder('key'))))
		.prepare()
	const byId = db
		.select(userFields)
		.from(users)
		.where(eq(users.id, sql.placeholder('id')))
		.prepare()

	/** Live teams where this user is the only owner and someone else is still a member. */
	const soleOwnerTeams = (userId: string) =>
		db
			.select({ id: teams.id, name: teams.name, slug: teams.slug })
			.from(teamMembers)
			.innerJoin(teams, eq(teams.id, teamMembers.teamId))
			.where(
				and(
					eq(teamMembers.userId, userId),
					eq(teamMembers.role, 'owner'),
					isNull(teams.deletedAt),
					sql`NOT EXISTS (SELECT 1 FROM ${teamMembers} o WHERE o.team_id = ${teams.id} AND o.role = 'owner' AND o.user_id <> ${userId})`,
					sql`EXISTS (SELECT 1 FROM ${teamMembers} m WHERE m.team_id = ${teams.id} AND m.user_id <> ${userId})`
				)
			)
			.orderBy(asc(teams.slug))
			.all()

	/** One write with its audit event, in one transaction; the event only when something changed. */
	const audited = sqlite.transaction((write: () => number, event: AuditEvent | undefined) => {
		const rows = write()
		if (rows > 0) audit(event)
		return rows
	})

	/** Ends the user's web sessions but `keep`; returns how many. */
	const endSessions = (id: string, keep?: string) =>
		changed(
			db
				.delete(sessions)
				.where(keep === undefined ? eq(sessions.userId, id) : and(eq(sessions.userId, id), ne(sessions.idHash, keep)))
				.run()
		)

	const setPasswordTx = sqlite.transaction(
		(
			id: string,
			passwordHash: string,
			options: { keepSession?: string; revokeKeys?: boolean },
			event: AuditEvent | undefined
		) => {
			if (changed(db.update(users).set({ passwordHash }).where(eq(users.id, id)).run()) === 0) return undefined
			// docs/operations.md, docs/web.md: any password change ends the user's other web sessions.
			const endedSessions = endSessions(id, options.keepSession)
			const revokedKeys = options.revokeKeys ? changed(db.delete(apiKeys).where(eq(apiKeys.userId, id)).run()) : 0
			audit(event && { ...event, details: { ...event.details, revokedKeys, endedSessions } })
			return { revokedKeys, endedSessions }
		}
	)

	const signOutEverywhereTx = sqlite.transaction((id: string, event: AuditEvent | undefined) => {
		// The event first: it names the device of the key that asked, which is about to go.
		const revokedKeys = db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.userId, id)).get()?.n ?? 0
		const endedSessions = db.select({ n: count() }).from(sessions).where(eq(sessions.userId, id)).get()?.n ?? 0
		audit(event && { ...event, details: { ...event.details, revokedKeys, endedSessions } })
		db.delete(apiKeys).where(eq(apiKeys.userId, id)).run()
		db.delete(sessions).where(eq(sessions.userId, id)).run()
		return { revokedKeys, endedSessions }
	})

	const removeUser = sqlite.transaction((id: string, event: AuditEvent | undefined): boolean | 'sole_owner' => {
		if (!byId.get({ id })) return false
		if (soleOwnerTeams(id).length > 0) return 'sole_owner'
		audit(event)
		const memberships = db
			.select({ teamId: teamMembers.teamId })
			.from(teamMembers)
			.where(eq(teamMembers.userId, id))
			.all()
		for (const { teamId } of memberships) {
			const heir = db
				.select({ userId: teamMembers.userId })
				.from(teamMembers)
				.where(and(eq(teamMembers.teamId, teamId), ne(teamMembers.userId, id)))
				.orderBy(
					sql`CASE ${teamMembers.role} WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`,
					asc(teamMembers.joinedAt)
				)
				.limit(1)
				.get()
			if (heir) {
				// Team configs belong to the team: they stay, attributed to the most senior remaining member.
				db.update(configs)
					.set({ userId: heir.userId })
					.where(and(eq(configs.teamId, teamId), eq(configs.userId, id)))
					.run()
			} else {
				// Nobody else is in the team: it would be unreachable, so it goes with its configs.
				db.delete(teams).where(eq(teams.id, teamId)).run()
			}
		}
		// Cascades remove keys, sessions, memberships, invitations and personal configs with their versions.
		db.delete(users).where(eq(users.id, id)).run()
		return true
	})

	const createTx = sqlite.transaction((user: UserRow, event: AuditEvent | undefined) => {
		db.insert(users)
			.values({ ...user, emailKey: loginKey(user.email), usernameKey: loginKey(user.username) })
			.run()
		audit(event)
	})

	return {
		async create(user, event) {
			try {
				createTx.immediate(user, event)
				return true
			} catch (error) {
				if (isUniqueViolation(error)) return false
				throw error
			}
		},
		findByLogin: async (login) => byLogin.get({ key: loginKey(login) }) as UserRow | undefined,
		findById: async (id) => byId.get({ id }) as UserRow | undefined,
		list: async () => db.select(userFields).from(users).orderBy(asc(users.createdAt)).all() as UserRow[],
		async listWithActivity(page) {
			// The page's users first, then the key and session figures of those users alone (docs/performance.md: a
			// GROUP BY over every key and session for each page grew with the server).
			const found = db
				.select(userFields)
				.from(users)
				.where(containsAny([users.email, users.username], page?.search))
				.orderBy(asc(users.createdAt), asc(users.id))
				.limit(page?.limit ?? -1)
				.offset(page?.offset ?? 0)
				.all() as UserRow[]
			if (found.length === 0) return []
			const ids = found.map((user) => user.id)
			const keys = db
				.select({ userId: apiKeys.userId, keyCount: count(), lastUsed: max(apiKeys.lastUsedAt) })
				.from(apiKeys)
				.where(inArray(apiKeys.userId, ids))
				.groupBy(apiKeys.userId)
				.all()
			const seen = db
				.select({ userId: sessions.userId, lastSeen: max(sessions.lastSeenAt) })
				.from(sessions)
				.where(inArray(sessions.userId, ids))
				.groupBy(sessions.userId)
				.all()
			return withActivity(found, keys, seen)
		},
		setPlan: async (id, plan, event) =>
			audited.immediate(() => changed(db.update(users).set({ plan }).where(eq(users.id, id)).run()), event) > 0,
		setAdmin: async (id, isAdmin, event) =>
			audited.immediate(() => changed(db.update(users).set({ isAdmin }).where(eq(users.id, id)).run()), event) > 0,
		setPassword: async (id, passwordHash, options, event) => setPasswordTx.immediate(id, passwordHash, options, event),
		signOutEverywhere: async (id, event) => signOutEverywhereTx.immediate(id, event),
		soleOwnerTeams: async (id) => soleOwnerTeams(id),
		remove: async (id, event) => removeUser.immediate(id, event)
	}
}
