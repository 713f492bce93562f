import { AppError } from '../../lib/errors'
import { uuidv7Floor } from '../../lib/ids'
import type { AuditRow, Caller, Store } from '../../store/types'
import type { AuditEventView, AuditQuery } from '../../../shared/api/audit'

/** The web's Activity pages also look for text and page towards newer events (docs/web.md). */
export type ActivityQuery = AuditQuery & { search?: string; after?: string }

export const auditView = (row: AuditRow): AuditEventView => ({
	id: row.id,
	type: row.type,
	at: row.at,
	actor: { userId: row.actorUserId, username: row.actorUsername, device: row.actorDevice, keyId: row.actorKeyId },
	address: row.address,
	teamId: row.teamId,
	subjectUserId: row.subjectUserId,
	target: row.targetType === null ? null : { type: row.targetType, id: row.targetId, name: row.targetName },
	details: row.details
})

/**
 * An event someone else did that concerns the caller (an invitation, a role change, a failed login
 * on their account): who acted and what, never the actor's client address or device.
 */
const asSubjectSees = (row: AuditRow): AuditEventView => {
	const view = auditView(row)
	return { ...view, actor: { ...view.actor, device: null, keyId: null }, address: null }
}

/** A team's or the server's events: another user's key id is theirs (their own keys' list), not the reader's. */
const asReaderSees =
	(caller: Caller) =>
	(row: AuditRow): AuditEventView => {
		const view = auditView(row)
		return row.actorUserId === caller.userId ? view : { ...view, actor: { ...view.actor, keyId: null } }
	}

/** Who made a version: their username and device (the key's name, "web" for the web application). */
export interface VersionAuthor {
	username: string | null
	device: string | null
	/** For a rollback: the version it restored. */
	restored: number | null
}

const AUTHOR_PAGE = 200
const AUTHOR_PAGES = 5
/** A version's event is written in its transaction; instances' clocks may differ by a little. */
const NEWEST_MARGIN_MS = 60_000

/** docs/operations.md: your own events, and a team's for its owners and admins; never anyone else's. */
export function createAuditService({ store }: { store: Store }) {
	return {
		/** Events the caller did or that concern them (a failed login on their account, an admin action), newest first. */
		async mine(caller: Caller, query: ActivityQuery): Promise<AuditEventView[]> {
			return (await store.audit.list({ userId: caller.userId, ...query })).map((row) =>
				row.actorUserId === caller.userId ? auditView(row) : asSubjectSees(row)
			)
		},

		/**
		 * Who pushed each version of a config (docs/web.md: a config's history says who pushed it from
		 * which device), from the config's push and rollback events. Anyone who may read the config learns
		 * this much of them, as every member already does from its live changes (docs/api.md): the username
		 * and the device, never the address nor any other event. So a team config's plain members see it too,
		 * though the team's activity is for its owners and admins. Reads at most a few pages of the config's
		 * events, newest first; a version missing from the map is no longer in the log.
		 */
		async versionAuthors(
			caller: Caller,
			config: { id: string; teamId: string | null },
			versions: { version: number; createdAt: string }[]
		): Promise<Map<number, VersionAuthor>> {
			const by = new Map<number, VersionAuthor>()
			if (versions.length === 0) return by
			let scope: { userId: string } | { teamId: string } = { userId: caller.userId }
			if (config.teamId !== null) {
				// The config's page has checked this already; a caller outside the team learns nothing here either.
				if ((await store.teams.roleIn(config.teamId, caller.userId)) === null) return by
				scope = { teamId: config.teamId }
			}
			// ISO timestamps, compared as strings.
			let oldest = versions[0]?.createdAt as string
			let newest = oldest
			for (const v of versions) {
				if (v.createdAt < oldest) oldest = v.createdAt
				if (v.createdAt > newest) newest = v.createdAt
			}
			// From just after the newest version shown (an event's id carries its time): a page of older versions
			// reads its own events, not the newest ones of a long history.
			let before: string | undefined = uuidv7Floor(Date.parse(newest) + NEWEST_MARGIN_MS)
			for (let pages = 0; pages < AUTHOR_PAGES; pages++) {
				const rows = await store.audit.list({ ...scope, targetId: config.id, before, limit: AUTHOR_PAGE })
				for (const row of rows) {
					const version = row.details.version
					if (row.type !== 'config.pushed' && row.type !== 'config.rolled_back') continue
					if (row.targetType !== 'config' || typeof version !== 'number' || by.has(version)) continue
					const restored = row.details.restored
					by.set(version, {
						username: row.actorUsername,
						device: row.actorDevice,
						restored: typeof restored === 'number' ? restored : null
					})
				}
				const last = rows[rows.length - 1]
				if (!last || rows.length < AUTHOR_PAGE || last.at < oldest || versions.every((v) => by.has(v.version))) break
				before = last.id
			}
			return by
		},

		/**
		 * Every user's events, newest first, for server admins only (the web's admin gate asks: docs/web.md). Events
		 * as they are recorded: who, what, where from; never config data, which no event carries.
		 */
		async everyone(caller: Caller, query: ActivityQuery): Promise<AuditEventView[]> {
			return (await store.audit.list(query)).map(asReaderSees(caller))
		},

		/** A team's events for its owners and admins; members get 403, others 404. */
		async team(caller: Caller, slug: string, query: ActivityQuery): Promise<AuditEventView[]> {
			const found = await store.teams.findForMember(slug, caller.userId)
			if (!found) throw new AppError('not_found', 'No such team.')
			if (found.role === 'member')
				throw new AppError('forbidden', "Only a team owner or admin can read the team's activity.")
			return (await store.audit.list({ teamId: found.team.id, ...query })).map(asReaderSees(caller))
		}
	}
}

export type AuditService = ReturnType<typeof createAuditService>
