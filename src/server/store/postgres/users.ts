import { and, asc, count, eq, inArray, isNull, max, ne, sql } from 'drizzle-orm'
import type { AuditEvent, UserRow, UserStore } from '../types'
import { containsAny, loginKey, withActivity } from '../shared'
import { writeAudit } from './audit'
import type { PgDb, PgTx } from './client'
import { isUniqueViolation } from './errors'
import { apiKeys, configs, sessions, teamMembers, teams, users } from './schema'

export const userFields = {
	id: users.id,
	email: users.email,
	username: users.username,
	passwordHash: users.passwordHash,
	plan: users.plan,
	isAdmin: users.isAdmin,
	createdAt: users.createdAt
}

/** Live teams where this user is the only owner and someone else is still a member. */
const soleOwnerTeams = (tx: PgTx, userId: string) =>
	tx
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
		.orderBy(sql`${teams.slug} COLLATE "C"`)

export function postgresUsers(db: PgDb): UserStore {
	/** One write with its audit event, in one transaction; the event only when something changed. */
	const audited = (write: (tx: PgTx) => Promise<unknown[]>, event: AuditEvent | undefined) =>
		db.transaction(async (tx) => {
			const rows = (await write(tx)).length
			if (rows > 0) await writeAudit(tx, event)
			return rows
		})
	const byId = async (tx: PgTx, id: string) =>
		(await tx.select(userFields).from(users).where(eq(users.id, id)))[0] as UserRow | undefined

	return {
		async create(user, event) {
			try {
				await db.transaction(async (tx) => {
					await tx
						.insert(users)
						.values({ ...user, emailKey: loginKey(user.email), usernameKey: loginKey(user.username) })
					await writeAudit(tx, event)
				})
				return true
			} catch (error) {
				if (isUniqueViolation(error)) return false
				throw error
			}
		},
		findByLogin: async (login) => {
			const key = loginKey(login)
			return (
				await db.select(userFields).from(users).where(sql`${users.emailKey} = ${key} OR ${users.usernameKey} = ${key}`)
			)[0] as UserRow | undefined
		},
		findById: (id) => byId(db, id),
		list: async () => (await db.select(userFields).from(users).orderBy(asc(users.createdAt))) as UserRow[],
		async listWithActivity(page) {
			// The page's users first, then the key and session figures of those users alone (docs/performance.md).
			const query = db
				.select(userFields)
				.from(users)
				.where(containsAny([users.email, users.username], page?.search))
				.orderBy(asc(users.createdAt), asc(users.id))
				.$dynamic()
			const found = (await (page === undefined ? query : query.limit(page.limit).offset(page.offset))) as UserRow[]
			if (found.length === 0) return []
			const ids = found.map((user) => user.id)
			const [keys, seen] = await Promise.all([
				db
					.select({ userId: apiKeys.userId, keyCount: count(), lastUsed: max(apiKeys.lastUsedAt) })
					.from(apiKeys)
					.where(inArray(apiKeys.userId, ids))
					.groupBy(apiKeys.userId),
				db
					.select({ userId: sessions.userId, lastSeen: max(sessions.lastSeenAt) })
					.from(sessions)
					.where(inArray(sessions.userId, ids))
					.groupBy(sessions.userId)
			])
			return withActivity(found, keys, seen)
		},
		setPlan: async (id, plan, event) =>
			(await audited(
				(tx) => tx.update(users).set({ plan }).where(eq(users.id, id)).returning({ id: users.id }),
				event
			)) > 0,
		setAdmin: async (id, isAdmin, event) =>
			(await audited(
				(tx) => tx.update(users).set({ isAdmin }).where(eq(users.id, id)).returning({ id: users.id }),
				event
			)) > 0,
		setPassword: (id, passwordHash, options, event) =>
			db.transaction(async (tx) => {
				if (
					(await tx.update(users).set({ passwordHash }).where(eq(users.id, id)).returning({ id: users.id })).length ===
					0
				)
					return undefined
				// docs/operations.md, docs/web.md: any password change ends the user's other web sessions.
				const keep = options.keepSession
				const endedSessions = (
					await tx
						.delete(sessions)
						.where(
							keep === undefined ? eq(sessions.userId, id) : and(eq(sessions.userId, id), ne(sessions.idHash, keep))
						)
						.returning({ idHash: sessions.idHash })
				).length
				const revokedKeys = options.revokeKeys
					? (await tx.delete(apiKeys).where(eq(apiKeys.userId, id)).returning({ id: apiKeys.id })).length
					: 0
				await writeAudit(tx, event && { ...event, details: { ...event.details, revokedKeys, endedSessions } })
				return { revokedKeys, endedSessions }
			}),
		signOutEverywhere: (id, event) =>
			db.transaction(async (tx) => {
				// The event first: it names the device of the key that asked, which is about to go.
				const [keys] = await tx.select({ n: count() }).from(apiKeys).where(eq(apiKeys.userId, id))
				const [live] = await tx.select({ n: count() }).from(sessions).where(eq(sessions.userId, id))
				const revokedKeys = Number(keys?.n ?? 0)
				const endedSessions = Number(live?.n ?? 0)
				await writeAudit(tx, event && { ...event, details: { ...event.details, revokedKeys, endedSessions } })
				await tx.delete(apiKeys).where(eq(apiKeys.userId, id))
				await tx.delete(sessions).where(eq(sessions.userId, id))
				return { revokedKeys, endedSessions }
			}),
		soleOwnerTeams: (id) => soleOwnerTeams(db, id),
		remove: (id, event) =>
			db.transaction(async (tx): Promise<boolean | 'sole_owner'> => {
				// NO KEY UPDATE: it does not block a membership row being inserted for this user meanwhile (a foreign-key check), so that cannot deadlock with the team lock below.
				if (!(await tx.select({ id: users.id }).from(users).where(eq(users.id, id)).for('no key update'))[0])
					return false
				const memberships = await tx
					.select({ teamId: teamMembers.teamId })
					.from(teamMembers)
					.where(eq(teamMembers.userId, id))
				// The user's teams are locked (in id order, so two removals cannot deadlock) before the
				// last-owner check: a demotion or removal in one of them waits for this transaction.
				const teamIds = memberships.map((row) => row.teamId).sort()
				if (teamIds.length > 0)
					await tx
						.select({ id: teams.id })
						.from(teams)
						.where(inArray(teams.id, teamIds))
						.orderBy(asc(teams.id))
						.for('update')
				if ((await soleOwnerTeams(tx, id)).length > 0) return 'sole_owner'
				await writeAudit(tx, event)
				for (const teamId of teamIds) {
					const [heir] = await tx
						.select({ userId: teamMembers.userId })
						.from(teamMembers)
						.where(and(eq(teamMembers.teamId, teamId), ne(teamMembers.userId, id)))
						.orderBy(
							sql`CASE ${teamMembers.role} WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`,
							asc(teamMembers.joinedAt)
						)
						.limit(1)
					if (heir) {
						// Team configs belong to the team: they stay, attributed to the most senior remaining member.
						await tx
							.update(configs)
							.set({ userId: heir.userId })
							.where(and(eq(configs.teamId, teamId), eq(configs.userId, id)))
					} else {
						// Nobody else is in the team: it would be unreachable, so it goes with its configs.
						await tx.delete(teams).where(eq(teams.id, teamId))
					}
				}
				// Cascades remove keys, sessions, memberships, invitations and personal configs with their versions.
				await tx.delete(users).where(eq(users.id, id))
				return true
			})
	}
}
