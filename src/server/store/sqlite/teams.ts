import { and, asc, count, desc, eq, gt, inArray, isNotNull, isNull, lt, ne, sql, type SQL } from 'drizzle-orm'
import { alias } from 'drizzle-orm/sqlite-core'
import type { Database } from 'bun:sqlite'
import type { InvitedRole, Role } from '../../../shared/constants'
import type { AuditEvent, InvitationRow, MemberRow, NewInvitation, TeamRow, TeamStore } from '../types'
import type { AuditWriter } from './audit'
import type { SqliteDb } from './client'
import { changed, isUniqueViolation } from './errors'
import { purgeStepPlan } from '../shared'
import { configs, configVersions, teamInvitations, teamMembers, teams, teamSlugReservations, users } from './schema'
import type { WalCheckpoints } from './wal-checkpoints'

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

export function sqliteTeams(
	db: SqliteDb,
	sqlite: Database,
	audit: AuditWriter,
	checkpoints: WalCheckpoints
): TeamStore {
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
	/** Pending invitations (not expired, team alive) matching `where`, newest first. */
	const invitations = (where: SQL | undefined, now: string) =>
		db
			.select(invitationFields)
			.from(teamInvitations)
			.innerJoin(teams, eq(teams.id, teamInvitations.teamId))
			.innerJoin(users, eq(users.id, teamInvitations.userId))
			.innerJoin(inviters, eq(inviters.id, teamInvitations.invitedBy))
			.where(and(where, gt(teamInvitations.expiresAt, now), isNull(teams.deletedAt)))
			.orderBy(desc(teamInvitations.createdAt), asc(teams.slug))
			.all() as InvitationRow[]
	const pendingInvitation = (teamId: string, userId: string, now: string) =>
		invitations(and(eq(teamInvitations.teamId, teamId), eq(teamInvitations.userId, userId)), now)[0]
	/** Another team's claim on a slug it gave up by a rename after `since`. */
	const reservedByOther = (slug: string, teamId: string, since: string) =>
		db
			.select({ teamId: teamSlugReservations.teamId })
			.from(teamSlugReservations)
			.where(
				and(
					eq(teamSlugReservations.slug, slug),
					ne(teamSlugReservations.teamId, teamId),
					gt(teamSlugReservations.releasedAt, since)
				)
			)
			.get() !== undefined
	const invitationOf = (teamId: string, userId: string) =>
		and(eq(teamInvitations.teamId, teamId), eq(teamInvitations.userId, userId))
	const liveTeamBySlug = (slug: string) =>
		db
			.select(teamFields)
			.from(teams)
			.where(and(eq(teams.slug, slug), isNull(teams.deletedAt)))
			.get()

	const createTx = sqlite.transaction(
		(
			team: TeamRow,
			owner: { membershipId: string; userId: string; joinedAt: string },
			reservedSince: string,
			event: AuditEvent | undefined
		) => {
			if (reservedByOther(team.slug, team.id, reservedSince)) return false
			// A reservation older than the window is spent: the slug is free again.
			db.delete(teamSlugReservations).where(eq(teamSlugReservations.slug, team.slug)).run()
			db.insert(teams).values(team).run()
			db.insert(teamMembers)
				.values({
					id: owner.membershipId,
					teamId: team.id,
					userId: owner.userId,
					role: 'owner',
					joinedAt: owner.joinedAt
				})
				.run()
			audit(event)
			return true
		}
	)

	const updateTx = sqlite.transaction(
		(
			teamId: string,
			changes: { name?: string; slug?: string },
			at: string,
			reservedSince: string,
			event: AuditEvent | undefined
		): TeamRow | 'conflict' | undefined => {
			const current = db.select(teamFields).from(teams).where(eq(teams.id, teamId)).get()
			if (!current) return undefined
			if (changes.slug !== undefined && changes.slug !== current.slug) {
				if (reservedByOther(changes.slug, teamId, reservedSince)) return 'conflict'
				// Taking back its own old slug (or a spent reservation) ends that reservation.
				db.delete(teamSlugReservations).where(eq(teamSlugReservations.slug, changes.slug)).run()
				db.insert(teamSlugReservations)
					.values({ slug: current.slug, teamId, releasedAt: at })
					.onConflictDoUpdate({ target: teamSlugReservations.slug, set: { teamId, releasedAt: at } })
					.run()
			}
			if (changes.name === undefined && changes.slug === undefined) return current
			const updated = db.update(teams).set(changes).where(eq(teams.id, teamId)).returning(teamFields).get()
			audit(
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
		}
	)

	const inviteTx = sqlite.transaction(
		(invitation: NewInvitation, now: string, event: AuditEvent | undefined): InvitationRow | 'member' | 'invited' => {
			if (member(invitation.teamId, invitation.userId)) return 'member'
			if (pendingInvitation(invitation.teamId, invitation.userId, now)) return 'invited'
			// An expired invitation for the same person is replaced by the new one.
			db.delete(teamInvitations)
				.where(and(eq(teamInvitations.teamId, invitation.teamId), eq(teamInvitations.userId, invitation.userId)))
				.run()
			db.insert(teamInvitations).values(invitation).run()
			audit(event)
			return pendingInvitation(invitation.teamId, invitation.userId, now) as InvitationRow
		}
	)

	const acceptTx = sqlite.transaction(
		(
			slug: string,
			userId: string,
			now: string,
			membership: { id: string; joinedAt: string },
			event: AuditEvent | undefined
		): MemberRow | undefined => {
			const team = liveTeamBySlug(slug)
			if (!team) return undefined
			const invitation = pendingInvitation(team.id, userId, now)
			if (!invitation) return undefined
			db.delete(teamInvitations)
				.where(and(eq(teamInvitations.teamId, team.id), eq(teamInvitations.userId, userId)))
				.run()
			audit(
				event && {
					...event,
					teamId: team.id,
					target: { type: 'team', id: team.id, name: team.slug },
					details: { ...event.details, role: invitation.role }
				}
			)
			// Already a member (joined by another path meanwhile): the invitation is spent, the membership stays as it is.
			const existing = member(team.id, userId)
			if (existing) return existing
			db.insert(teamMembers)
				.values({ id: membership.id, teamId: team.id, userId, role: invitation.role, joinedAt: membership.joinedAt })
				.run()
			return member(team.id, userId)
		}
	)
	const declineTx = sqlite.transaction((slug: string, userId: string, now: string, event: AuditEvent | undefined) => {
		const team = liveTeamBySlug(slug)
		if (!team || !pendingInvitation(team.id, userId, now)) return false
		db.delete(teamInvitations).where(invitationOf(team.id, userId)).run()
		audit(event && { ...event, teamId: team.id, target: { type: 'team', id: team.id, name: team.slug } })
		return true
	})
	const restoreTx = sqlite.transaction(
		(
			teamId: string,
			since: string,
			reservedSince: string,
			event: AuditEvent | undefined
		): TeamRow | 'conflict' | undefined => {
			const team = db
				.select(teamFields)
				.from(teams)
				.where(and(eq(teams.id, teamId), isNotNull(teams.deletedAt), gt(teams.deletedAt, since)))
				.get()
			if (!team) return undefined
			if (reservedByOther(team.slug, teamId, reservedSince)) return 'conflict'
			const restored = db.update(teams).set({ deletedAt: null }).where(eq(teams.id, teamId)).returning(teamFields).get()
			audit(event && { ...event, details: { ...event.details, deletedAt: team.deletedAt } })
			return restored
		}
	)
	/** TeamStore.purgeStep: whole configs, or the old versions of one too large for a step. */
	const purgeStepTx = sqlite.transaction((teamId: string, limit: number): number => {
		const found = db
			.select({ id: configs.id, version: configs.version, currentVersionId: configs.currentVersionId })
			.from(configs)
			.innerJoin(teams, eq(teams.id, configs.teamId))
			.where(and(eq(configs.teamId, teamId), isNotNull(teams.deletedAt)))
			.limit(limit)
			.all()
		const plan = purgeStepPlan(found, limit)
		if (!plan) return 0
		if ('whole' in plan) {
			const versions = changed(db.delete(configVersions).where(inArray(configVersions.configId, plan.whole)).run())
			return versions + changed(db.delete(configs).where(inArray(configs.id, plan.whole)).run())
		}
		const config = found[0] as (typeof found)[number]
		const old = changed(
			db
				.delete(configVersions)
				.where(
					inArray(
						configVersions.id,
						db
							.select({ id: configVersions.id })
							.from(configVersions)
							.where(and(eq(configVersions.configId, config.id), ne(configVersions.id, config.currentVersionId)))
							.orderBy(asc(configVersions.version))
							.limit(limit)
					)
				)
				.run()
		)
		// Its old versions gone: the config goes, its current version by the cascade.
		return old > 0 ? old : 2 * changed(db.delete(configs).where(eq(configs.id, config.id)).run())
	})
	/** One write with its audit event; the event only when something changed. */
	const audited = sqlite.transaction((write: () => number, event: AuditEvent | undefined) => {
		const rows = write()
		if (rows > 0) audit(event)
		return rows
	})

	// A team always keeps an owner: the count and the change happen under one write lock.
	const setRoleTx = sqlite.transaction(
		(
			teamId: string,
			userId: string,
			role: Role,
			event: AuditEvent | undefined
		): MemberRow | 'last_owner' | undefined => {
			const current = member(teamId, userId)
			if (!current) return undefined
			if (current.role === 'owner' && role !== 'owner' && ownerCount(teamId) <= 1) return 'last_owner'
			db.update(teamMembers)
				.set({ role })
				.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
				.run()
			audit(
				event && {
					...event,
					target: { type: 'member', id: userId, name: current.username },
					details: { ...event.details, from: current.role, to: role }
				}
			)
			return { ...current, role }
		}
	)
	const removeMemberTx = sqlite.transaction(
		(teamId: string, userId: string, event: AuditEvent | undefined): boolean | 'last_owner' => {
			const current = member(teamId, userId)
			if (!current) return false
			if (current.role === 'owner' && ownerCount(teamId) <= 1) return 'last_owner'
			db.delete(teamMembers)
				.where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
				.run()
			audit(
				event && {
					...event,
					target: { type: 'member', id: userId, name: current.username },
					details: { ...event.details, role: current.role }
				}
			)
			return true
		}
	)

	return {
		async create(team, owner, reservedSince, event) {
			try {
				return createTx.immediate(team, owner, reservedSince, event)
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
		findById: async (teamId) => db.select(teamFields).from(teams).where(eq(teams.id, teamId)).get(),
		roleIn: async (teamId, userId) => roleIn.get({ teamId, userId })?.role,
		listForUser: async (userId) =>
			db
				.select({ ...teamFields, role: teamMembers.role })
				.from(teamMembers)
				.innerJoin(teams, liveMembership(userId))
				.orderBy(asc(teams.name), asc(teams.slug))
				.all(),
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
			return (page ? query.limit(page.limit) : query).all()
		},
		async update(teamId, changes, at, reservedSince, event) {
			try {
				return updateTx.immediate(teamId, changes, at, reservedSince, event)
			} catch (error) {
				if (isUniqueViolation(error)) return 'conflict'
				throw error
			}
		},
		softDelete: async (teamId, at, event) =>
			audited.immediate(
				() =>
					changed(
						db
							.update(teams)
							.set({ deletedAt: at })
							.where(and(eq(teams.id, teamId), isNull(teams.deletedAt)))
							.run()
					),
				event
			) > 0,
		deletedOwnedBy: async (userId, since) =>
			db
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
				.orderBy(desc(teams.deletedAt), asc(teams.slug))
				.all() as (TeamRow & { deletedAt: string })[],
		async deletedHolder(slug, userId) {
			const team = db
				.select(teamFields)
				.from(teams)
				.where(and(eq(teams.slug, slug), isNotNull(teams.deletedAt)))
				.get() as (TeamRow & { deletedAt: string }) | undefined
			if (!team) return undefined
			const role = db
				.select({ role: teamMembers.role })
				.from(teamMembers)
				.where(and(eq(teamMembers.teamId, team.id), eq(teamMembers.userId, userId)))
				.get()?.role
			return { team, role }
		},
		restore: async (teamId, since, reservedSince, event) => restoreTx.immediate(teamId, since, reservedSince, event),
		invite: async (invitation, now, event) => inviteTx.immediate(invitation, now, event),
		invitationsForUser: async (userId, now) => invitations(eq(teamInvitations.userId, userId), now),
		invitationsForTeam: async (teamId, now) => invitations(eq(teamInvitations.teamId, teamId), now),
		findInvitation: async (teamId, userId, now) => pendingInvitation(teamId, userId, now),
		acceptInvitation: async (slug, userId, now, membership, event) =>
			acceptTx.immediate(slug, userId, now, membership, event),
		declineInvitation: async (slug, userId, now, event) => declineTx.immediate(slug, userId, now, event),
		cancelInvitation: async (teamId, userId, event) =>
			audited.immediate(() => changed(db.delete(teamInvitations).where(invitationOf(teamId, userId)).run()), event) > 0,
		async setInvitationRole(teamId, userId, role: InvitedRole, now, event) {
			const updated = audited.immediate(
				() =>
					changed(
						db
							.update(teamInvitations)
							.set({ role })
							.where(and(invitationOf(teamId, userId), gt(teamInvitations.expiresAt, now)))
							.run()
					),
				event
			)
			return updated > 0 ? pendingInvitation(teamId, userId, now) : undefined
		},
		setRole: async (teamId, userId, role, event) => setRoleTx.immediate(teamId, userId, role, event),
		removeMember: async (teamId, userId, event) => removeMemberTx.immediate(teamId, userId, event),
		deletedBefore: async (before) =>
			db
				.select({ id: teams.id })
				.from(teams)
				.where(and(isNotNull(teams.deletedAt), lt(teams.deletedAt, before)))
				.all()
				.map((row) => row.id),
		// Cascades take its memberships, invitations, and whatever configs and versions purgeStep left.
		purge: async (teamId) =>
			changed(
				db
					.delete(teams)
					.where(and(eq(teams.id, teamId), isNotNull(teams.deletedAt)))
					.run()
			) > 0,
		// A step is background work: its checkpoint runs off the server's thread (wal-checkpoints.ts).
		purgeStep: async (teamId, limit) => checkpoints.afterStep(() => purgeStepTx.immediate(teamId, limit)),
		async pruneReservationsAndInvitations(releasedBefore, expiredBefore) {
			db.delete(teamSlugReservations).where(lt(teamSlugReservations.releasedAt, releasedBefore)).run()
			db.delete(teamInvitations).where(lt(teamInvitations.expiresAt, expiredBefore)).run()
		}
	}
}
