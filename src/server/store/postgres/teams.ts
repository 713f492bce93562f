import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, lt, ne, sql, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/pg-core'
import type { InvitedRole, Role } from '../../../shared/constants'
import type { AuditEvent, InvitationRow, MemberRow, TeamRow, TeamStore } from '../types'
import { writeAudit } from './audit'
import type { PgDb, PgTx } from './client'
import { isUniqueViolation } from './errors'
import { lockName } from './locks'
import { purgeStepPlan } from '../shared'
import { configs, configVersions, teamInvitations, teamMembers, teams, teamSlugReservations, users } from './schema'

const teamFields = {
	id: teams.id,
	name: teams.name,
	slug: teams.slug,
	createdAt: teams.createdAt,
	deletedAt: teams.deletedAt
}
const memberFields = {
	id: teamMembers.id,
	teamId: teamMembers.teamId,
	userId: teamMembers.userId,
	email: users.email,
	username: users.username,
	role: teamMembers.role,
	joinedAt: teamMembers.joinedAt
}
const inviters = alias(users, 'inviters')
const invitationFields = {
	teamId: teamInvitations.teamId,
	teamSlug: teams.slug,
	teamName: teams.name,
	userId: teamInvitations.userId,
	username: users.username,
	role: teamInvitations.role,
	invitedBy: inviters.username,
	createdAt: teamInvitations.createdAt,
	expiresAt: teamInvitations.expiresAt
}

/** Join condition: a membership of `userId` in a team that is not soft-deleted. */
const liveMembership = (userId: string) =>
	and(eq(teams.id, teamMembers.teamId), eq(teamMembers.userId, userId), isNull(teams.deletedAt))
const invitationOf = (teamId: string, userId: string) =>
	and(eq(teamInvitations.teamId, teamId), eq(teamInvitations.userId, userId))

const member = async (tx: PgTx, teamId: string, userId: string) =>
	(
		await tx
			.select(memberFields)
			.from(teamMembers)
			.innerJoin(users, eq(users.id, teamMembers.userId))
			.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
	)[0] as MemberRow | undefined
const ownerCount = async (tx: PgTx, teamId: string) =>
	Number(
		(
			await tx
				.select({ n: count() })
				.from(teamMembers)
				.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, 'owner')))
		)[0]?.n ?? 0
	)
/** Pending invitations (not expired, team alive) matching `where`, newest first. */
const invitations = async (tx: PgTx, where: SQL | undefined, now: string) =>
	(await tx
		.select(invitationFields)
		.from(teamInvitations)
		.innerJoin(teams, eq(teams.id, teamInvitations.teamId))
		.innerJoin(users, eq(users.id, teamInvitations.userId))
		.innerJoin(inviters, eq(inviters.id, teamInvitations.invitedBy))
		.where(and(where, gt(teamInvitations.expiresAt, now), isNull(teams.deletedAt)))
		.orderBy(desc(teamInvitations.createdAt), sql`${teams.slug} COLLATE "C"`)) as InvitationRow[]
const pendingInvitation = async (tx: PgTx, teamId: string, userId: string, now: string) =>
	(await invitations(tx, invitationOf(teamId, userId), now))[0]
/** Another team's claim on a slug it gave up by a rename after `since`. */
const reservedByOther = async (tx: PgTx, slug: string, teamId: string, since: string) =>
	(
		await tx
			.select({ teamId: teamSlugReservations.teamId })
			.from(teamSlugReservations)
			.where(
				and(
					eq(teamSlugReservations.slug, slug),
					ne(teamSlugReservations.teamId, teamId),
					gt(teamSlugReservations.releasedAt, since)
				)
			)
	).length > 0
/**
 * Locks a team's row for the rest of the transaction: every change to its
 * members, roles and invitations takes it first, so the last-owner rule and
 * the invitation rules are checked one change at a time across instances.
 */
const lockTeam = async (tx: PgTx, where: SQL | undefined) =>
	(await tx.select(teamFields).from(teams).where(where).for('update'))[0] as TeamRow | undefined

/** Teams, members and invitations on PostgreSQL (docs/api.md, docs/postgresql.md). */
export function postgresTeams(db: PgDb): TeamStore {
	/** One write with its audit event, in one transaction; the event only when something changed. */
	const audited = (write: (tx: PgTx) => Promise<unknown[]>, event: AuditEvent | undefined) =>
		db.transaction(async (tx) => {
			const rows = (await write(tx)).length
			if (rows > 0) await writeAudit(tx, event)
			return rows
		})

	return {
		async create(team, owner, reservedSince, event) {
			try {
				return await db.transaction(async (tx) => {
					await lockName(tx, 'slug', team.slug)
					if (await reservedByOther(tx, team.slug, team.id, reservedSince)) return false
					// A reservation older than the window is spent: the slug is free again.
					await tx.delete(teamSlugReservations).where(eq(teamSlugReservations.slug, team.slug))
					await tx.insert(teams).values(team)
					await tx.insert(teamMembers).values({
						id: owner.membershipId,
						teamId: team.id,
						userId: owner.userId,
						role: 'owner',
						joinedAt: owner.joinedAt
					})
					await writeAudit(tx, event)
					return true
				})
			} catch (error) {
				if (isUniqueViolation(error)) return false
				throw error
			}
		},
		async findForMember(slug, userId) {
			const [row] = await db
				.select({ ...teamFields, role: teamMembers.role })
				.from(teams)
				.innerJoin(teamMembers, liveMembership(userId))
				.where(eq(teams.slug, slug))
			if (!row) return undefined
			const { role, ...team } = row
			return { team, role }
		},
		findById: async (teamId) => (await db.select(teamFields).from(teams).where(eq(teams.id, teamId)))[0],
		roleIn: async (teamId, userId) =>
			(
				await db
					.select({ role: teamMembers.role })
					.from(teamMembers)
					.innerJoin(teams, liveMembership(userId))
					.where(eq(teamMembers.teamId, teamId))
			)[0]?.role,
		listForUser: (userId) =>
			db
				.select({ ...teamFields, role: teamMembers.role })
				.from(teamMembers)
				.innerJoin(teams, liveMembership(userId))
				.orderBy(sql`${teams.name} COLLATE "C"`, sql`${teams.slug} COLLATE "C"`),
		members: async (teamId, page) => {
			const after = page?.after
			const query = db
				.select(memberFields)
				.from(teamMembers)
				.innerJoin(users, eq(users.id, teamMembers.userId))
				.where(
					and(
						eq(teamMembers.teamId, teamId),
						after && sql`(${teamMembers.joinedAt}, ${teamMembers.id}) > (${after.joinedAt}, ${after.id})`,
						page?.role && eq(teamMembers.role, page.role),
						page?.userId === undefined ? undefined : eq(teamMembers.userId, page.userId)
					)
				)
				.orderBy(asc(teamMembers.joinedAt), asc(teamMembers.id))
			return page ? query.limit(page.limit) : query
		},
		async update(teamId, changes, at, reservedSince, event) {
			try {
				return await db.transaction(async (tx): Promise<TeamRow | 'conflict' | undefined> => {
					const current = await lockTeam(tx, eq(teams.id, teamId))
					if (!current) return undefined
					if (changes.slug !== undefined && changes.slug !== current.slug) {
						await lockName(tx, 'slug', changes.slug)
						if (await reservedByOther(tx, changes.slug, teamId, reservedSince)) return 'conflict'
						// Taking back its own old slug (or a spent reservation) ends that reservation.
						await tx.delete(teamSlugReservations).where(eq(teamSlugReservations.slug, changes.slug))
						await tx
							.insert(teamSlugReservations)
							.values({ slug: current.slug, teamId, releasedAt: at })
							.onConflictDoUpdate({ target: teamSlugReservations.slug, set: { teamId, releasedAt: at } })
					}
					if (changes.name === undefined && changes.slug === undefined) return current
					const [updated] = await tx.update(teams).set(changes).where(eq(teams.id, teamId)).returning(teamFields)
					await writeAudit(
						tx,
						event && {
							...event,
							details: {
								...event.details,
								fromName: current.name,
								toName: updated?.name ?? null,
								fromSlug: current.slug,
								toSlug: updated?.slug ?? null
							}
						}
					)
					return updated
				})
			} catch (error) {
				if (isUniqueViolation(error)) return 'conflict'
				throw error
			}
		},
		softDelete: async (teamId, at, event) =>
			(await audited(
				(tx) =>
					tx
						.update(teams)
						.set({ deletedAt: at })
						.where(and(eq(teams.id, teamId), isNull(teams.deletedAt)))
						.returning({ id: teams.id }),
				event
			)) > 0,
		deletedOwnedBy: async (userId, since) =>
			(await db
				.select(teamFields)
				.from(teamMembers)
				.innerJoin(teams, eq(teams.id, teamMembers.teamId))
				.where(
					and(
						eq(teamMembers.userId, userId),
						eq(teamMembers.role, 'owner'),
						isNotNull(teams.deletedAt),
						gt(teams.deletedAt, since)
					)
				)
				.orderBy(desc(teams.deletedAt), sql`${teams.slug} COLLATE "C"`)) as (TeamRow & { deletedAt: string })[],
		async deletedHolder(slug, userId) {
			const [team] = (await db
				.select(teamFields)
				.from(teams)
				.where(and(eq(teams.slug, slug), isNotNull(teams.deletedAt)))) as (TeamRow & { deletedAt: string })[]
			if (!team) return undefined
			const [found] = await db
				.select({ role: teamMembers.role })
				.from(teamMembers)
				.where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, userId)))
			return { team, role: found?.role }
		},
		restore: (teamId, since, reservedSince, event) =>
			db.transaction(async (tx): Promise<TeamRow | 'conflict' | undefined> => {
				// The team's row locked: a restore and the purge, or two restores, go one at a time.
				const team = await lockTeam(
					tx,
					and(eq(teams.id, teamId), isNotNull(teams.deletedAt), gt(teams.deletedAt, since))
				)
				if (!team) return undefined
				await lockName(tx, 'slug', team.slug)
				if (await reservedByOther(tx, team.slug, teamId, reservedSince)) return 'conflict'
				const [restored] = (await tx
					.update(teams)
					.set({ deletedAt: null })
					.where(eq(teams.id, teamId))
					.returning(teamFields)) as TeamRow[]
				await writeAudit(tx, event && { ...event, details: { ...event.details, deletedAt: team.deletedAt } })
				return restored
			}),
		invite: (invitation, now, event) =>
			db.transaction(async (tx): Promise<InvitationRow | 'member' | 'invited'> => {
				await lockTeam(tx, eq(teams.id, invitation.teamId))
				if (await member(tx, invitation.teamId, invitation.userId)) return 'member'
				if (await pendingInvitation(tx, invitation.teamId, invitation.userId, now)) return 'invited'
				// An expired invitation for the same person is replaced by the new one.
				await tx.delete(teamInvitations).where(invitationOf(invitation.teamId, invitation.userId))
				await tx.insert(teamInvitations).values(invitation)
				await writeAudit(tx, event)
				return (await pendingInvitation(tx, invitation.teamId, invitation.userId, now)) as InvitationRow
			}),
		invitationsForUser: (userId, now) => invitations(db, eq(teamInvitations.userId, userId), now),
		invitationsForTeam: (teamId, now) => invitations(db, eq(teamInvitations.teamId, teamId), now),
		findInvitation: (teamId, userId, now) => pendingInvitation(db, teamId, userId, now),
		acceptInvitation: (slug, userId, now, membership, event) =>
			db.transaction(async (tx): Promise<MemberRow | undefined> => {
				const team = await lockTeam(tx, and(eq(teams.slug, slug), isNull(teams.deletedAt)))
				if (!team) return undefined
				const invitation = await pendingInvitation(tx, team.id, userId, now)
				if (!invitation) return undefined
				await tx.delete(teamInvitations).where(invitationOf(team.id, userId))
				await writeAudit(
					tx,
					event && {
						...event,
						teamId: team.id,
						target: { type: 'team', id: team.id, name: team.slug },
						details: { ...event.details, role: invitation.role }
					}
				)
				// Already a member (joined by another path meanwhile): the invitation is spent, the membership stays as it is.
				const existing = await member(tx, team.id, userId)
				if (existing) return existing
				await tx
					.insert(teamMembers)
					.values({ id: membership.id, teamId: team.id, userId, role: invitation.role, joinedAt: membership.joinedAt })
				return member(tx, team.id, userId)
			}),
		declineInvitation: (slug, userId, now, event) =>
			db.transaction(async (tx) => {
				const team = await lockTeam(tx, and(eq(teams.slug, slug), isNull(teams.deletedAt)))
				if (!team || !(await pendingInvitation(tx, team.id, userId, now))) return false
				await tx.delete(teamInvitations).where(invitationOf(team.id, userId))
				await writeAudit(
					tx,
					event && { ...event, teamId: team.id, target: { type: 'team', id: team.id, name: team.slug } }
				)
				return true
			}),
		cancelInvitation: async (teamId, userId, event) =>
			(await audited(
				(tx) => tx.delete(teamInvitations).where(invitationOf(teamId, userId)).returning({ id: teamInvitations.id }),
				event
			)) > 0,
		async setInvitationRole(teamId, userId, role: InvitedRole, now, event) {
			const updated = await audited(
				(tx) =>
					tx
						.update(teamInvitations)
						.set({ role })
						.where(and(invitationOf(teamId, userId), gt(teamInvitations.expiresAt, now)))
						.returning({ id: teamInvitations.id }),
				event
			)
			return updated > 0 ? pendingInvitation(db, teamId, userId, now) : undefined
		},
		// A team always keeps an owner: the count and the change happen under the team's row lock.
		setRole: (teamId, userId, role: Role, event) =>
			db.transaction(async (tx): Promise<MemberRow | 'last_owner' | undefined> => {
				await lockTeam(tx, eq(teams.id, teamId))
				const current = await member(tx, teamId, userId)
				if (!current) return undefined
				if (current.role === 'owner' && role !== 'owner' && (await ownerCount(tx, teamId)) <= 1) return 'last_owner'
				await tx
					.update(teamMembers)
					.set({ role })
					.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
				await writeAudit(
					tx,
					event && {
						...event,
						target: { type: 'member', id: userId, name: current.username },
						details: { ...event.details, from: current.role, to: role }
					}
				)
				return { ...current, role }
			}),
		removeMember: (teamId, userId, event) =>
			db.transaction(async (tx): Promise<boolean | 'last_owner'> => {
				await lockTeam(tx, eq(teams.id, teamId))
				const current = await member(tx, teamId, userId)
				if (!current) return false
				if (current.role === 'owner' && (await ownerCount(tx, teamId)) <= 1) return 'last_owner'
				await tx.delete(teamMembers).where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
				await writeAudit(
					tx,
					event && {
						...event,
						target: { type: 'member', id: userId, name: current.username },
						details: { ...event.details, role: current.role }
					}
				)
				return true
			}),
		deletedBefore: async (before) =>
			(
				await db
					.select({ id: teams.id })
					.from(teams)
					.where(and(isNotNull(teams.deletedAt), lt(teams.deletedAt, before)))
			).map((row) => row.id),
		// Cascades take its memberships, invitations, and whatever configs and versions purgeStep left.
		purge: async (teamId) =>
			(
				await db
					.delete(teams)
					.where(and(eq(teams.id, teamId), isNotNull(teams.deletedAt)))
					.returning({ id: teams.id })
			).length > 0,
		purgeStep: (teamId, limit) =>
			db.transaction(async (tx): Promise<number> => {
				// The team's row locked, as a restore locks it (docs/performance.md#purge).
				if (!(await lockTeam(tx, and(eq(teams.id, teamId), isNotNull(teams.deletedAt))))) return 0
				const found = await tx
					.select({ id: configs.id, version: configs.version, currentVersionId: configs.currentVersionId })
					.from(configs)
					.where(eq(configs.teamId, teamId))
					.limit(limit)
				const plan = purgeStepPlan(found, limit)
				if (!plan) return 0
				if ('whole' in plan) {
					const versions = await tx
						.delete(configVersions)
						.where(inArray(configVersions.configId, plan.whole))
						.returning({ id: configVersions.id })
					const gone = await tx.delete(configs).where(inArray(configs.id, plan.whole)).returning({ id: configs.id })
					return versions.length + gone.length
				}
				const config = found[0] as (typeof found)[number]
				const old = await tx
					.delete(configVersions)
					.where(
						inArray(
							configVersions.id,
							tx
								.select({ id: configVersions.id })
								.from(configVersions)
								.where(and(eq(configVersions.configId, config.id), ne(configVersions.id, config.currentVersionId)))
								.orderBy(asc(configVersions.version))
								.limit(limit)
						)
					)
					.returning({ id: configVersions.id })
				if (old.length > 0) return old.length
				// Its old versions gone: the config goes, its current version by the cascade.
				const gone = await tx.delete(configs).where(eq(configs.id, config.id)).returning({ id: configs.id })
				return 2 * gone.length
			}),
		async pruneReservationsAndInvitations(releasedBefore, expiredBefore) {
			await db.delete(teamSlugReservations).where(lt(teamSlugReservations.releasedAt, releasedBefore))
			await db.delete(teamInvitations).where(lt(teamInvitations.expiresAt, expiredBefore))
		}
	}
}
