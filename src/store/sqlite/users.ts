import { and, asc, eq, isNull, ne, or, sql } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { UserRow, UserStore } from '../types'
import type { SqliteDb } from './client'
import { configs, teamMembers, teams, users } from './schema'
import { changed, isUniqueViolation } from './errors'

const userFields = {
	id: users.id,
	email: users.email,
	username: users.username,
	passwordHash: users.passwordHash,
	plan: users.plan,
	createdAt: users.createdAt
}

/** Emails and usernames are unique and matched case-insensitively (CONTRACT §1). */
export const loginKey = (login: string): string => login.trim().toLowerCase()

export function sqliteUsers(db: SqliteDb, sqlite: Database): UserStore {
	const byLogin = db
		.select(userFields)
		.from(users)
		.where(or(eq(users.emailKey, sql.placeholder('key')), eq(users.usernameKey, sql.placeholder('key'))))
		.prepare()
	const byId = db.select(userFields).from(users).where(eq(users.id, sql.placeholder('id'))).prepare()

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

	const removeUser = sqlite.transaction((id: string): boolean | 'sole_owner' => {
		if (!byId.get({ id })) return false
		if (soleOwnerTeams(id).length > 0) return 'sole_owner'
		const memberships = db.select({ teamId: teamMembers.teamId }).from(teamMembers).where(eq(teamMembers.userId, id)).all()
		for (const { teamId } of memberships) {
			const heir = db
				.select({ userId: teamMembers.userId })
				.from(teamMembers)
				.where(and(eq(teamMembers.teamId, teamId), ne(teamMembers.userId, id)))
				.orderBy(sql`CASE ${teamMembers.role} WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END`, asc(teamMembers.joinedAt))
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
		// Cascades remove keys, memberships and personal configs with their versions.
		db.delete(users).where(eq(users.id, id)).run()
		return true
	})

	return {
		async create(user) {
			try {
				db.insert(users)
					.values({ ...user, emailKey: loginKey(user.email), usernameKey: loginKey(user.username) })
					.run()
				return true
			} catch (error) {
				if (isUniqueViolation(error)) return false
				throw error
			}
		},
		findByLogin: async (login) => byLogin.get({ key: loginKey(login) }) as UserRow | undefined,
		findById: async (id) => byId.get({ id }) as UserRow | undefined,
		list: async () => db.select(userFields).from(users).orderBy(asc(users.createdAt)).all() as UserRow[],
		setPlan: async (id, plan) => changed(db.update(users).set({ plan }).where(eq(users.id, id)).run()) > 0,
		setPassword: async (id, passwordHash) => changed(db.update(users).set({ passwordHash }).where(eq(users.id, id)).run()) > 0,
		soleOwnerTeams: async (id) => soleOwnerTeams(id),
		remove: async (id) => removeUser.immediate(id)
	}
}
