import { and, asc, count, eq, inArray, isNull, max, ne, or, sql } from 'drizzle-orm'
import type { AuditEvent, UserRow, UserStore } from '../types'
import { containsAny, loginKey, withActivity } from '../shared'
import { audit, changes, type Db, type Executor, row, rows, type Tables, type Work, write } from './executor'

/** A user's row as the store gives it out (never the lower-cased keys). */
export const userFieldsOf = (users: Tables['users']) => ({
	id: users.id,
	email: users.email,
	username: users.username,
	passwordHash: users.passwordHash,
	plan: users.plan,
	isAdmin: users.isAdmin,
	createdAt: users.createdAt
})

export function userStore(ex: Executor): UserStore {
	const { apiKeys, configs, sessions, teamMembers, teams, users } = ex.tables
	const userFields = userFieldsOf(users)
	const byLogin = ex.prepare((db) =>
		db
			.select(userFields)
			.from(users)
			.where(or(eq(users.emailKey, sql.placeholder('key')), eq(users.usernameKey, sql.placeholder('key'))))
	)
	const byId = ex.prepare((db) =>
		db
			.select(userFields)
			.from(users)
			.where(eq(users.id, sql.placeholder('id')))
	)

	/** Live teams where this user is the only owner and someone else is still a member. */
	const soleOwnerTeams = (db: Db, userId: string) =>
		rows(
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
				.orderBy(ex.bytewise(teams.slug))
		)

	/** One update with its audit event, in one transaction; the event only when something changed. */
	const audited = (update: (db: Db) => PromiseLike<unknown>, event: AuditEvent | undefined) =>
		ex.transaction(function* (db): Work<boolean> {
			const changed = yield* changes(update(db))
			if (changed > 0) yield* audit(event)
			return changed > 0
		})

	return {
		async create(user, event) {
			try {
				await ex.transaction(function* (db) {
					yield* write(
						db.insert(users).values({ ...user, emailKey: loginKey(user.email), usernameKey: loginKey(user.username) })
					)
					yield* audit(event)
				})
				return true
			} catch (error) {
				if (ex.isUniqueViolation(error)) return false
				throw error
			}
		},
		findByLogin: (login) => ex.execute(() => row(byLogin, { key: loginKey(login) })) as Promise<UserRow | undefined>,
		findById: (id) => ex.execute(() => row(byId, { id })) as Promise<UserRow | undefined>,
		list: (): Promise<UserRow[]> =>
			ex.execute((db) => rows(db.select(userFields).from(users).orderBy(asc(users.createdAt)))),
		async listWithActivity(page) {
			// The page's users first, then the key and session figures of those users alone (docs/api.md, "Pages": a
			// GROUP BY over every key and session for each page grew with the server).
			const found: UserRow[] = await ex.execute((db) => {
				const query = db
					.select(userFields)
					.from(users)
					.where(containsAny([users.email, users.username], page?.search))
					.orderBy(asc(users.createdAt), asc(users.id))
					.$dynamic()
				return rows(page === undefined ? query : query.limit(page.limit).offset(page.offset))
			})
			if (found.length === 0) return []
			const ids = found.map((user) => user.id)
			// Apart, so that PostgreSQL reads both at once on two connections.
			const [keys, seen] = await Promise.all([
				ex.execute((db) =>
					rows(
						db
							.select({ userId: apiKeys.userId, keyCount: count(), lastUsed: max(apiKeys.lastUsedAt) })
							.from(apiKeys)
							.where(inArray(apiKeys.userId, ids))
							.groupBy(apiKeys.userId)
					)
				),
				ex.execute((db) =>
					rows(
						db
							.select({ userId: sessions.userId, lastSeen: max(sessions.lastSeenAt) })
							.from(sessions)
							.where(inArray(sessions.userId, ids))
							.groupBy(sessions.userId)
					)
				)
			])
			return withActivity(found, keys, seen)
		},
		setPlan: (id, plan, event) => audited((db) => db.update(users).set({ plan }).where(eq(users.id, id)), event),
		setAdmin: (id, isAdmin, event) => audited((db) => db.update(users).set({ isAdmin }).where(eq(users.id, id)), event),
		setPassword: (id, passwordHash, options, event) =>
			ex.transaction(function* (db) {
				if ((yield* changes(db.update(users).set({ passwordHash }).where(eq(users.id, id)))) === 0) return undefined
				// docs/web.md, "Sessions and CSRF": any password change ends the user's other web sessions.
				const keep = options.keepSession
				const endedSessions = yield* changes(
					db
						.delete(sessions)
						.where(
							keep === undefined ? eq(sessions.userId, id) : and(eq(sessions.userId, id), ne(sessions.idHash, keep))
						)
				)
				const revokedKeys = options.revokeKeys ? yield* changes(db.delete(apiKeys).where(eq(apiKeys.userId, id))) : 0
				yield* audit(event && { ...event, details: { ...event.details, revokedKeys, endedSessions } })
				return { revokedKeys, endedSessions }
			}),
		signOutEverywhere: (id, event) =>
			ex.transaction(function* (db) {
				// The event first: it names the device of the key that asked, which is about to go.
				const keys = yield* row(db.select({ n: count() }).from(apiKeys).where(eq(apiKeys.userId, id)))
				const live = yield* row(db.select({ n: count() }).from(sessions).where(eq(sessions.userId, id)))
				const revokedKeys = Number(keys?.n ?? 0)
				const endedSessions = Number(live?.n ?? 0)
				yield* audit(event && { ...event, details: { ...event.details, revokedKeys, endedSessions } })
				yield* write(db.delete(apiKeys).where(eq(apiKeys.userId, id)))
				yield* write(db.delete(sessions).where(eq(sessions.userId, id)))
				return { revokedKeys, endedSessions }
			}),
		soleOwnerTeams: (id) => ex.execute((db) => soleOwnerTeams(db, id)),
		remove: (id, event) =>
			ex.transaction(function* (db): Work<boolean | 'sole_owner'> {
				// NO KEY UPDATE (PostgreSQL): it does not block a membership row being inserted for this user meanwhile
				// (a foreign-key check), so that cannot deadlock with the team lock below.
				if (!(yield* row(db.select({ id: users.id }).from(users).where(eq(users.id, id)), 'no key update')))
					return false
				const memberships = yield* rows(
					db.select({ teamId: teamMembers.teamId }).from(teamMembers).where(eq(teamMembers.userId, id))
				)
				// The user's teams are locked (in id order, so two removals cannot deadlock) before the
				// last-owner check: a demotion or removal in one of them waits for this transaction.
				const teamIds = memberships.map((membership) => membership.teamId).sort()
				if (teamIds.length > 0)
					yield* rows(
						db.select({ id: teams.id }).from(teams).where(inArray(teams.id, teamIds)).orderBy(asc(teams.id)),
						'update'
					)
				if ((yield* soleOwnerTeams(db, id)).length > 0) return 'sole_owner'
				yield* audit(event)
				for (const teamId of teamIds) {
					const heir = yield* row(
						db
							.select({ userId: teamMembers.userId })
							.from(teamMembers)
							.where(and(eq(teamMembers.teamId, teamId), ne(teamMembers.userId, id)))
							.orderBy(
								sql`CASE ${teamMembers.role} WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`,
								asc(teamMembers.joinedAt)
							)
							.limit(1)
					)
					if (heir) {
						// Team configs belong to the team: they stay, attributed to the most senior remaining member.
						yield* write(
							db
								.update(configs)
								.set({ userId: heir.userId })
								.where(and(eq(configs.teamId, teamId), eq(configs.userId, id)))
						)
					} else {
						// Nobody else is in the team: it would be unreachable, so it goes with its configs.
						yield* write(db.delete(teams).where(eq(teams.id, teamId)))
					}
				}
				// Cascades remove keys, sessions, memberships, invitations and personal configs with their versions.
				yield* write(db.delete(users).where(eq(users.id, id)))
				return true
			})
	}
}
