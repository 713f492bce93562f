import { and, asc, count, eq, isNotNull, isNull, lt, sql, type SQL } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type { Role } from '../../lib/constants'
import type { MemberRow, TeamRow, TeamStore } from '../types'
import type { SqliteDb } from './client'
import { changed, isUniqueViolation } from './errors'
import { teamMembers, teams, users } from './schema'

const teamFields = { id: teams.id, name: teams.name, slug: teams.slug, createdAt: teams.createdAt, deletedAt: teams.deletedAt }
const memberFields = {
	id: teamMembers.id,
	teamId: teamMembers.teamId,
	userId: teamMembers.userId,
	email: users.email,
	username: users.username,
	role: teamMembers.role,
	joinedAt: teamMembers.joinedAt
}

export function sqliteTeams(db: SqliteDb, sqlite: Database): TeamStore {
	/** Join condition: a membership of `userId` in a team that is not soft-deleted. */
	const liveMembership = (userId: SQL | string) =>
		and(eq(teams.id, teamMembers.teamId), eq(teamMembers.userId, userId), isNull(teams.deletedAt))

	const findForMember = db
		.select({ ...teamFields, role: teamMembers.role })
		.from(teams)
		.innerJoin(teamMembers, liveMembership(sql`${sql.placeholder('userId')}`))
		.where(eq(teams.slug, sql.placeholder('slug')))
		.prepare()
	const roleIn = db
		.select({ role: teamMembers.role })
		.from(teamMembers)
		.innerJoin(teams, liveMembership(sql`${sql.placeholder('userId')}`))
		.where(eq(teamMembers.teamId, sql.placeholder('teamId')))
		.prepare()
	const member = (teamId: string, userId: string) =>
		db
			.select(memberFields)
			.from(teamMembers)
			.innerJoin(users, eq(users.id, teamMembers.userId))
			.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
			.get() as MemberRow | undefined
	const ownerCount = (teamId: string) =>
		db
			.select({ n: count() })
			.from(teamMembers)
			.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, 'owner')))
			.get()?.n ?? 0

	const createTx = sqlite.transaction((team: TeamRow, owner: { membershipId: string; userId: string; joinedAt: string }) => {
		db.insert(teams).values(team).run()
		db.insert(teamMembers)
			.values({ id: owner.membershipId, teamId: team.id, userId: owner.userId, role: 'owner', joinedAt: owner.joinedAt })
			.run()
	})

	// A team always keeps an owner: the count and the change happen under one write lock.
	const setRoleTx = sqlite.transaction((teamId: string, userId: string, role: Role): MemberRow | 'last_owner' | undefined => {
		const current = member(teamId, userId)
		if (!current) return undefined
		if (current.role === 'owner' && role !== 'owner' && ownerCount(teamId) <= 1) return 'last_owner'
		db.update(teamMembers)
			.set({ role })
			.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
			.run()
		return { ...current, role }
	})
	const removeMemberTx = sqlite.transaction((teamId: string, userId: string): boolean | 'last_owner' => {
		const current = member(teamId, userId)
		if (!current) return false
		if (current.role === 'owner' && ownerCount(teamId) <= 1) return 'last_owner'
		db.delete(teamMembers)
			.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
			.run()
		return true
	})

	return {
		async create(team, owner) {
			try {
				createTx.immediate(team, owner)
				return true
			} catch (error) {
				if (isUniqueViolation(error)) return false
				throw error
			}
		},
		async findForMember(slug, userId) {
			const row = findForMember.get({ slug, userId })
			if (!row) return undefined
			const { role, ...team } = row
			return { team, role }
		},
		roleIn: async (teamId, userId) => roleIn.get({ teamId, userId })?.role,
		listForUser: async (userId) =>
			db
				.select({ ...teamFields, role: teamMembers.role })
				.from(teamMembers)
				.innerJoin(teams, liveMembership(userId))
				.orderBy(asc(teams.name), asc(teams.slug))
				.all(),
		members: async (teamId) =>
			db
				.select(memberFields)
				.from(teamMembers)
				.innerJoin(users, eq(users.id, teamMembers.userId))
				.where(eq(teamMembers.teamId, teamId))
				.orderBy(asc(teamMembers.joinedAt), asc(teamMembers.id))
				.all(),
		async update(teamId, changes) {
			if (changes.name === undefined && changes.slug === undefined) {
				return db.select(teamFields).from(teams).where(eq(teams.id, teamId)).get()
			}
			try {
				return db.update(teams).set(changes).where(eq(teams.id, teamId)).returning(teamFields).get()
			} catch (error) {
				if (isUniqueViolation(error)) return 'conflict'
				throw error
			}
		},
		softDelete: async (teamId, at) =>
			changed(
				db
					.update(teams)
					.set({ deletedAt: at })
					.where(and(eq(teams.id, teamId), isNull(teams.deletedAt)))
					.run()
			) > 0,
		async addMember(membership) {
			try {
				db.insert(teamMembers).values(membership).run()
			} catch (error) {
				if (isUniqueViolation(error)) return 'conflict'
				throw error
			}
			return member(membership.teamId, membership.userId) as MemberRow
		},
		setRole: async (teamId, userId, role) => setRoleTx.immediate(teamId, userId, role),
		removeMember: async (teamId, userId) => removeMemberTx.immediate(teamId, userId),
		deletedBefore: async (before) =>
			db
				.select({ id: teams.id })
				.from(teams)
				.where(and(isNotNull(teams.deletedAt), lt(teams.deletedAt, before)))
				.all()
				.map((row) => row.id),
		// Cascades take its memberships, configs and their versions in the same statement.
		purge: async (teamId) => changed(db.delete(teams).where(and(eq(teams.id, teamId), isNotNull(teams.deletedAt))).run()) > 0
	}
}
