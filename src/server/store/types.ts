// Over 500 lines: the whole Store interface, every method both engines implement and every row type the services
// see, in one place so the two engines are held to the same contract.
import type { InvitedRole, Plan, Role, Tool } from '../../shared/constants'
import type { TableAccess } from './tables'

/**
 * The persistence boundary. Services speak only to this
 * interface: plain rows in, plain rows out, every method async so that a
 * PostgreSQL backend fits unchanged, except the key lookup of the auth gate
 * (see `KeyStore.findCaller`). A write that spans several rows is one method
 * owning its transaction.
 */
export interface Store {
	/** Which database engine holds the data (docs/postgresql.md). */
	engine: 'sqlite' | 'postgres'
	users: UserStore & UserCount
	keys: KeyStore
	sessions: SessionStore
	signups: SignupStore
	loginFailures: LoginFailureStore
	configs: ConfigStore
	teams: TeamStore
	audit: AuditStore
	jobs: JobStore
	meta: MetaStore
	instances: InstanceStore
	/** Whole tables, for `db copy` only (docs/operations.md). */
	tables: TableAccess
	/** True when the database answers. */
	ping(): Promise<boolean>
	/** What a failed ping means, for the log (`/healthz`): "the SQLite file is gone, replaced or damaged". */
	downReason: string
	/** True when `keys.findCaller` answers synchronously (SQLite), so the auth gate need not await it. */
	findsCallerSynchronously: boolean
	/** What the metrics report (docs/operations.md): row counts and the database's size on disk. */
	stats(): Promise<{ users: number; configs: number; versions: number; databaseBytes: number }>
	/** Writes a consistent copy of the database to `file` (which must not exist). */
	backup(file: string): Promise<void>
	/** How the event broker learns that another process wrote to the feed (src/server/store/change-signal.ts). */
	changeSignal: ChangeSignalSource
	close(): void
}

/**
 * docs/api.md "Live changes": SQLite's `PRAGMA data_version` moves when another connection committed;
 * PostgreSQL notifies `cfgsync_events` at every commit that adds to the feed (drizzle-postgres/0003).
 */
export type ChangeSignalSource =
	| { engine: 'sqlite'; dataVersion(): number }
	| {
			engine: 'postgres'
			/** Listens on a connection of its own; `onListen` runs at first and after every reconnect. */
			listen(onNotify: () => void, onListen: () => void): Promise<() => Promise<void>>
	  }

/**
 * Who did something, for the audit log (docs/operations.md). A request with an API
 * key names the key by its hash: the store records that key's device name.
 */
export interface AuditActor {
	userId: string | null
	username: string | null
	keyHash?: string
	/** How the actor came when not with a key: "web", "admin command", "server". */
	via?: string
	address: string | null
}

export { AUDIT_TYPES, type AuditType } from '../../shared/api/audit'
import type { AuditType } from '../../shared/api/audit'
import type { PushCondition } from '../../shared/api/configs'

export type AuditDetails = Record<string, string | number | boolean | null>

/** One event, written by the store in the transaction of the change it records. */
export interface AuditEvent {
	id: string
	at: string
	type: AuditType
	actor: AuditActor
	teamId?: string | null
	/** The user the event concerns when it is not (only) the actor. */
	subjectUserId?: string | null
	target?: {
		type: 'config' | 'team' | 'user' | 'key' | 'invitation' | 'member' | 'session' | 'server' | 'signup_link'
		id?: string | null
		name?: string | null
	}
	details?: AuditDetails
}

export interface AuditRow {
	id: string
	at: string
	type: AuditType
	actorUserId: string | null
	actorUsername: string | null
	actorDevice: string | null
	/** The key used, when one was (a device name can be taken over; a key id never is). */
	actorKeyId: string | null
	address: string | null
	teamId: string | null
	subjectUserId: string | null
	targetType: string | null
	targetId: string | null
	targetName: string | null
	details: AuditDetails
}

/** An audit event as the change feed gives it: with its number in commit order. */
export interface FeedRow extends AuditRow {
	seq: number
}

/**
 * Which events: `userId`, events the user did or that concern them; `teamId`, the team's events. `before`: older
 * than that id; `after`: the `limit` events just newer than that id. Always newest first. `search`: the type, actor,
 * device, address or target contains it (case-insensitively).
 */
export interface AuditListQuery {
	userId?: string
	teamId?: string
	type?: string
	/** Only events about this config, team, key or user. */
	targetId?: string
	before?: string
	after?: string
	search?: string
	limit: number
}

export interface AuditStore {
	/** Records an event that changes nothing else (a failed login). */
	record(event: AuditEvent): Promise<void>
	/**
	 * Newest first, `limit` at most, ids below `before`. `userId`: events the user
	 * did or that concern them; `teamId`: the team's events; `targetId`: only those about that target.
	 */
	list(query: AuditListQuery): Promise<AuditRow[]>
	/**
	 * docs/api.md "Live changes": the change feed, the events numbered after `after` in commit order, oldest
	 * first, `limit` at most. A number, once read, is never followed by a lower one committed later.
	 */
	feed(after: number, limit: number): Promise<FeedRow[]>
	/** The highest number in the feed (0 when empty). */
	feedEnd(): Promise<number>
	/** When the event with this feed number happened, or undefined when it is not kept (never issued, or pruned). */
	feedAt(seq: number): Promise<string | undefined>
	/** Drops events older than `before` — at most `limit` of the oldest when given (a batch); returns how many. */
	prune(before: string, limit?: number): Promise<number>
}

export interface JobStore {
	/**
	 * docs/postgresql.md: claims one slot of a schedule (its time in ms) for `name`;
	 * true for exactly one of the instances that ask for the same slot.
	 */
	claim(name: string, slot: number): Promise<boolean>
}

/** A config as the Configs page lists it: with its team, when it has one. */
export interface VisibleConfigRow extends ConfigRow {
	teamName: string | null
	teamSlug: string | null
}

export interface UserRow {
	id: string
	email: string
	username: string
	passwordHash: string | null
	plan: Plan
	isAdmin: boolean
	createdAt: string
}

export type NewUser = UserRow

/** What the admin page shows of each user. */
export interface UserActivityRow extends UserRow {
	keyCount: number
	/** The latest use of any of their keys or web sessions. */
	lastSeenAt: string | null
}

/** What the Admin page counts (docs/web.md); apart from UserStore, and added to it by each engine's index. */
export interface UserCount {
	/** How many users there are; with a search, how many `listWithActivity` finds with it. */
	count(search?: string): Promise<number>
}

export interface UserStore {
	/** Returns false when the email or username is taken (case-insensitively). */
	create(user: NewUser, audit?: AuditEvent): Promise<boolean>
	/** By email or username, case-insensitively. */
	findByLogin(login: string): Promise<UserRow | undefined>
	findById(id: string): Promise<UserRow | undefined>
	list(): Promise<UserRow[]>
	/** Every user, oldest first; with a page, those whose email or username contains its search, that page of them. */
	listWithActivity(page?: ListPage): Promise<UserActivityRow[]>
	setPlan(id: string, plan: Plan, audit?: AuditEvent): Promise<boolean>
	setAdmin(id: string, isAdmin: boolean, audit?: AuditEvent): Promise<boolean>
	/**
	 * Sets the password and, in the same transaction, ends the user's web
	 * sessions but `keepSession` (docs/operations.md, docs/web.md) and, with `revokeKeys`, revokes every key.
	 */
	setPassword(
		id: string,
		passwordHash: string,
		options: { keepSession?: string; revokeKeys?: boolean },
		audit?: AuditEvent
	): Promise<{ revokedKeys: number; endedSessions: number } | undefined>
	/** Revokes every key and ends every web session of the user. */
	signOutEverywhere(id: string, audit?: AuditEvent): Promise<{ revokedKeys: number; endedSessions: number }>
	/**
	 * Teams in which the user is the only owner while others are members:
	 * removing the user would leave them ownerless.
	 */
	soleOwnerTeams(id: string): Promise<{ id: string; name: string; slug: string }[]>
	/**
	 * Removes the user, their keys, memberships and personal configs in one
	 * transaction. Team configs they pushed stay with the team and are
	 * re-attributed to another owner; teams they were the only member of go.
	 * Returns false when the user does not exist, or 'sole_owner' when (checked
	 * inside the transaction) they are the last owner of a team with members.
	 */
	remove(id: string, audit?: AuditEvent): Promise<boolean | 'sole_owner'>
}

/** What the auth gate reads about the holder of a key, in one lookup of three columns. */
export interface CallerRow {
	userId: string
	email: string
	username: string
	/** A read-only key (0/1 on SQLite, a boolean on PostgreSQL: the hot lookup returns the column as stored). */
	readOnly: boolean | number
}

/**
 * Who is calling: with an API key (named by its hash, which the gate computed
 * anyway: each column the per-request lookup returns costs time on every
 * request), or with a web session (docs/web.md).
 */
export interface Caller extends Omit<CallerRow, 'readOnly'> {
	keyHash?: string
	sessionIdHash?: string
	/** docs/api.md keys with a scope: a read-only key may read and stream, never write. A web session never is. */
	readOnly?: boolean
}

/** A person acting through the API (with a key) or the web application (with a session), and where from. */
export interface Actor extends Caller {
	address: string
}

export interface KeyRow {
	id: string
	userId: string
	device: string
	createdAt: string
	lastUsedAt: string | null
	/** docs/api.md keys with a scope; a key issued without it reads and writes. */
	readOnly?: boolean
}

export interface StoredKey extends KeyRow {
	keyHash: string
}

export interface KeyStore {
	/**
	 * The hot path of every request: key hash → the user holding it.
	 * Synchronous on SQLite on purpose (the auth gate's synchronous key lookup, docs/architecture.md): the gate
	 * answers before Elysia parses anything, and awaiting it cost every request
	 * several percent of its CPU. On PostgreSQL it is a network round trip, so a
	 * promise; the gate awaits only there (`Store.findsCallerSynchronously`).
	 */
	findCaller(keyHash: string): CallerRow | undefined | Promise<CallerRow | undefined>
	/** Sets the key's lastUsedAt unless it is already newer than `staleBefore`. */
	touch(keyHash: string, at: string, staleBefore: string): Promise<void>
	/** Stores a key for (user, device), revoking that device's previous key, in one transaction. */
	issue(key: StoredKey, audit?: AuditEvent): Promise<void>
	listForUser(userId: string): Promise<StoredKey[]>
	/** Revokes one of the user's keys; false when it is not theirs or does not exist. */
	revoke(userId: string, keyId: string, audit?: AuditEvent): Promise<boolean>
	/** Revokes the key with this hash (logout). */
	revokeByHash(keyHash: string, audit?: AuditEvent): Promise<void>
	/**
	 * Gives one of the user's keys another device name (docs/api.md, PATCH /api/keys/:id): the key as it is
	 * now, undefined when it is not theirs or does not exist, 'taken' when another of their keys has that name.
	 */
	rename(userId: string, keyId: string, device: string, audit?: AuditEvent): Promise<StoredKey | 'taken' | undefined>
}

export interface SessionRow {
	/** SHA-256 of the cookie's random id; the id itself is never stored. */
	idHash: string
	userId: string
	createdAt: string
	lastSeenAt: string
	/** Absolute expiry; the idle expiry follows lastSeenAt. */
	expiresAt: string
	userAgent: string
	address: string
}

export interface SessionStore {
	create(session: SessionRow, audit?: AuditEvent): Promise<void>
	/** A live session (not past `now`, seen after `idleSince`) with its user. */
	find(idHash: string, now: string, idleSince: string): Promise<{ session: SessionRow; user: UserRow } | undefined>
	/** Sets lastSeenAt unless it is already newer than `staleBefore`. */
	touch(idHash: string, at: string, staleBefore: string): Promise<void>
	/** Ends one session (sign-out); false when it was gone. */
	remove(idHash: string, audit?: AuditEvent): Promise<boolean>
	/** The user's live sessions (not past `now`, seen after `idleSince`), the most recently seen first (docs/web.md, Account). */
	listForUser(userId: string, now: string, idleSince: string): Promise<SessionRow[]>
	/** Ends the user's sessions but `keep`, recording the event `auditOf` gives each (none for undefined); how many ended. */
	removeOthers(userId: string, keep: string, auditOf?: (session: SessionRow) => AuditEvent | undefined): Promise<number>
	/** Drops sessions past their absolute expiry or idle since `idleBefore`. */
	prune(now: string, idleBefore: string): Promise<number>
}

/** docs/web.md first start and sign-up: the setup address (`setup`) or a server admin's sign-up link (`join`). */
export type SignupKind = 'setup' | 'join'

export interface SignupLinkRow {
	id: string
	kind: SignupKind
	/** SHA-256 hex of the token; the token itself is never stored. */
	tokenHash: string
	/** The token's first characters, so that an admin can tell their links apart. */
	hint: string
	/** The plan of the accounts made through it. */
	plan: Plan
	maxUses: number
	uses: number
	createdAt: string
	/** Null for a setup address: it lives until a server admin exists. */
	expiresAt: string | null
	revokedAt: string | null
	createdBy: string | null
}

/** A sign-up link as the Admin page lists it: with its maker's username. */
export interface SignupLinkView extends SignupLinkRow {
	createdByName: string | null
}

export interface SignupStore {
	create(link: SignupLinkRow, audit?: AuditEvent): Promise<void>
	find(tokenHash: string): Promise<SignupLinkRow | undefined>
	/** True when any user exists (a first start prints a setup address only when none does). */
	hasUsers(): Promise<boolean>
	/** True when a server admin exists: every setup address is dead then. */
	hasAdmin(): Promise<boolean>
	/** Sign-up links (`join`), newest first. */
	listJoin(limit: number): Promise<SignupLinkView[]>
	/** Revokes a sign-up link that is not revoked yet; false when there is none such. */
	revoke(id: string, at: string, audit?: AuditEvent): Promise<boolean>
	/**
	 * Creates `user` through the link whose token hashes to `tokenHash`, in one transaction:
	 * one use is taken only while the link is unrevoked, unexpired at `now` and not used up, and
	 * for a setup address only while no server admin exists (then every setup address dies).
	 * Two people using a one-use link at once get one account; two first admins at once, one.
	 * 'gone' when the link cannot be used, 'taken' when the email or username exists (no use is taken).
	 */
	redeem(tokenHash: string, now: string, user: UserRow, audit: AuditEvent[]): Promise<'created' | 'taken' | 'gone'>
	/**
	 * The fleet's one setup address (docs/operations.md), in one transaction: while no admin exists, the usable setup
	 * link whose sealed token is kept (in `meta`) is returned as it is; when there is none, or `fresh`,
	 * `link` is made with `sealedToken` and every other setup link is revoked. Undefined when an admin exists.
	 */
	openSetup(input: {
		link: SignupLinkRow
		sealedToken: string
		now: string
		fresh: boolean
		audit?: AuditEvent
	}): Promise<{ sealedToken: string; created: boolean } | undefined>
}

/** Where the setup address's token is kept, sealed, so every instance of a fleet prints the same one. */
export const SETUP_TOKEN_META = 'setup_address'

/** docs/api.md: how many failures within the window each scope may have before it is refused. */
export interface ThrottleLimits {
	/** One login from one client address: refused past it. */
	perLoginAddress: number
	/** One client address, whatever the login: refused past it. */
	perAddress: number
	/**
	 * One login from all addresses together: never refused (docs/operations.md, anyone could lock anyone out), only
	 * slowed past it (the store says how many that login has).
	 */
	perLogin: number
}

export interface LoginFailureStore {
	/**
	 * Takes a login attempt atomically: when both refusing scopes (login and
	 * address, address) are under their limits since `since`, records this
	 * attempt as a failure (a success clears it) and answers ok with how many
	 * failures that login had since `since` from all addresses. Otherwise records nothing and returns the time
	 * of the failure that tipped the count, so the caller can say when to
	 * retry. One transaction, so a parallel burst cannot slip past a limit.
	 */
	reserve(attempt: {
		loginKey: string
		address: string
		at: number
		since: number
		limits: ThrottleLimits
	}): Promise<{ ok: true; loginFailures: number } | { ok: false; tippedAt: number }>
	/** Clears the failures of one login from one address (a successful login). */
	clearLoginAt(loginKey: string, address: string): Promise<void>
	/** Clears every failure of a login (the admin's `user unlock`); returns how many went. */
	clearLogin(loginKey: string, audit?: AuditEvent): Promise<number>
	/** Drops failures older than `before`. */
	prune(before: number): Promise<number>
}

export interface ConfigRow {
	id: string
	userId: string
	teamId: string | null
	name: string
	tool: Tool
	version: number
	hash: string
	currentVersionId: string
	createdAt: string
	updatedAt: string
}

/** A config with its current version's sealed data. */
export interface ConfigWithData extends ConfigRow {
	sealed: Uint8Array
}

/** What the latest read sends, and no more: every column read is a value built per request on the hottest path. */
export type LatestRow = Pick<
	ConfigWithData,
	'id' | 'name' | 'tool' | 'version' | 'hash' | 'currentVersionId' | 'updatedAt' | 'sealed'
>

export interface VersionRow {
	id: string
	configId: string
	version: number
	hash: string
	createdAt: string
}

export interface VersionWithData extends VersionRow {
	sealed: Uint8Array
}

/** A version's sealed data with the ids bound into it (docs/operations.md: configId:versionId is the AAD). */
export interface SealedRecord {
	id: string
	configId: string
	sealed: Uint8Array
}

/** Where a config lives: a user's personal space or a team. */
export type Owner = { userId: string; teamId: null } | { userId: string; teamId: string }

/**
 * Seals the data for a version record whose ids are only fixed inside the
 * transaction. `pending` is the key rotation's pending key as stored in `meta`
 * (docs/operations.md), read in the same transaction, so no write made after a
 * rotation started is sealed under the old key.
 */
export type SealFor = (configId: string, versionId: string, pending: string | undefined) => Uint8Array

/** A conditional push: declared once, with the wire models (src/shared/api/configs.ts). */
export type { PushCondition } from '../../shared/api/configs'

export interface PushInput {
	owner: Owner
	name: string
	tool: Tool
	hash: string
	seal: SealFor
	/** Used when the push creates the config. */
	newConfigId: string
	newVersionId: string
	at: string
	condition?: PushCondition
	/** Recorded when the push stores a version; the store fills in the config id and the version. */
	audit?: AuditEvent
}

export type PushResult =
	| { kind: 'created' | 'updated' | 'unchanged'; config: ConfigRow }
	| { kind: 'precondition_failed'; current: { version: number; hash: string } | null }
	| { kind: 'team_gone' }

export interface ConfigStore {
	/**
	 * Creates the config or appends a version, atomically: versions stay
	 * contiguous and concurrent first pushes make one config.
	 */
	push(input: PushInput): Promise<PushResult>
	/** Quotas (docs/operations.md): the bytes an owner (a user's personal configs, or a team) stores, all versions. */
	storedBytes(owner: Owner): Promise<number>
	/**
	 * The push rate (docs/operations.md): when the user's n-th most recent stored push at or after `sinceId` (a time-ordered
	 * id) happened, or undefined when they stored fewer than n since.
	 */
	nthPushSince(userId: string, sinceId: string, n: number): Promise<string | undefined>
	/** Appends a version with already-known content (rollback); undefined when the config is gone. */
	appendVersion(input: {
		configId: string
		hash: string
		seal: SealFor
		newVersionId: string
		at: string
		/** The store fills in the new version number. */
		audit?: AuditEvent
	}): Promise<VersionRow | undefined>
	findByKey(owner: Owner, name: string, tool: string): Promise<LatestRow | undefined>
	findById(id: string): Promise<ConfigWithData | undefined>
	/** Without data: for access checks and conditional requests. */
	findMetaById(id: string): Promise<ConfigRow | undefined>
	/** By name and tool; a page starts after `page.after` (a keyset cursor) and holds at most `page.limit`. */
	listPersonal(userId: string, page?: ConfigsPage): Promise<ConfigRow[]>
	listForTeam(teamId: string, page?: ConfigsPage): Promise<ConfigRow[]>
	/**
	 * A page of the configs a user sees (their personal ones and those of their live teams) whose name or tool
	 * contains the search, ordered by name, tool and team (personal first).
	 */
	listVisible(userId: string, page: ListPage): Promise<VisibleConfigRow[]>
	/** Deletes the config and its versions in one transaction; false when it was gone. */
	remove(id: string, audit?: AuditEvent): Promise<boolean>
	/** Versions highest first; `before` and `limit` page through them. */
	listVersions(configId: string, page?: { before?: number; limit?: number }): Promise<VersionWithData[]>
	/** The numbers of the versions listVersions would return, without their data (to decide a page's `Link`). */
	versionNumbers(configId: string, page: { before?: number; limit: number }): Promise<number[]>
	findVersion(configId: string, versionId: string): Promise<VersionWithData | undefined>
	/** Sealed version records in id order after `afterId`, at most `limit` (key rotation walks them). */
	sealedPage(afterId: string | null, limit: number): Promise<SealedRecord[]>
	/** The newest stored version's sealed record (readiness opens it), or undefined when there is none. */
	newestSealed(): Promise<SealedRecord | undefined>
	/**
	 * Replaces sealed data record by record, each only if it still holds `from`
	 * (compare and swap), in one transaction; returns how many were replaced.
	 */
	reseal(records: { id: string; from: Uint8Array; to: Uint8Array }[]): Promise<number>
	/**
	 * Inserts whole configs with their already-sealed versions in one
	 * transaction (bulk loading: seeding benchmarks, imports). The caller keeps
	 * each config's version, hash and currentVersionId consistent with its versions.
	 */
	importMany(items: { config: ConfigRow; versions: VersionWithData[] }[]): Promise<void>
}

export interface TeamRow {
	id: string
	name: string
	slug: string
	createdAt: string
	deletedAt: string | null
}

/** A keyset page of a team's members: after (joinedAt, membership id), at most `limit`. */
export interface MembersPage {
	after?: { joinedAt: string; id: string }
	limit: number
	/** Only members of this role (the owners, to tell whether one is the only one). */
	role?: Role
	/** Only this user's membership. */
	userId?: string
}

export interface MemberRow {
	id: string
	teamId: string
	userId: string
	email: string
	username: string
	role: Role
	joinedAt: string
}

/** A pending invitation with the names a person needs to decide (never an email: docs/api.md). */
export interface InvitationRow {
	teamId: string
	teamSlug: string
	teamName: string
	userId: string
	username: string
	role: InvitedRole
	/** The inviter's username. */
	invitedBy: string
	createdAt: string
	expiresAt: string
}

export interface NewInvitation {
	id: string
	teamId: string
	userId: string
	role: InvitedRole
	invitedBy: string
	createdAt: string
	expiresAt: string
}

export interface TeamStore {
	/**
	 * Creates the team with its first owner; false when the slug is taken (deleted teams
	 * included) or another team gave it up by a rename after `reservedSince`.
	 */
	create(
		team: TeamRow,
		owner: { membershipId: string; userId: string; joinedAt: string },
		reservedSince: string,
		audit?: AuditEvent
	): Promise<boolean>
	/** A live team by slug with the caller's role, or undefined when missing, deleted or not a member. */
	findForMember(slug: string, userId: string): Promise<{ team: TeamRow; role: Role } | undefined>
	/** A team by id, deleted or not (the event stream names the team a member left). */
	findById(teamId: string): Promise<TeamRow | undefined>
	/** The caller's role in a live team by id; undefined when missing, deleted or not a member. */
	roleIn(teamId: string, userId: string): Promise<Role | undefined>
	listForUser(userId: string): Promise<(TeamRow & { role: Role })[]>
	/** By joining time; a page starts after `page.after` (the last member of the previous page). */
	members(teamId: string, page?: MembersPage): Promise<MemberRow[]>
	/**
	 * Renames and/or re-slugs; 'conflict' when the new slug is taken, or given up
	 * by another team after `reservedSince`. The old slug stays reserved for this
	 * team from `at`; taking back its own reserved slug is allowed.
	 */
	update(
		teamId: string,
		changes: { name?: string; slug?: string },
		at: string,
		reservedSince: string,
		audit?: AuditEvent
	): Promise<TeamRow | 'conflict' | undefined>
	softDelete(teamId: string, at: string, audit?: AuditEvent): Promise<boolean>
	/**
	 * Soft-deleted teams the user owns, deleted after `since` (so not yet due for the purge), the latest
	 * deletion first: what the owner may still restore (docs/web.md).
	 */
	deletedOwnedBy(userId: string, since: string): Promise<(TeamRow & { deletedAt: string })[]>
	/**
	 * The soft-deleted team holding `slug` (until it is purged) and the user's role in it (undefined for
	 * someone who was not a member); undefined when no deleted team holds it.
	 */
	deletedHolder(
		slug: string,
		userId: string
	): Promise<{ team: TeamRow & { deletedAt: string }; role?: Role } | undefined>
	/**
	 * Undoes a soft delete of a team deleted after `since`, with its members and configs as they were:
	 * 'conflict' when another team took its slug by a rename after `reservedSince`; undefined when the team
	 * is not deleted, or is due for the purge.
	 */
	restore(
		teamId: string,
		since: string,
		reservedSince: string,
		audit?: AuditEvent
	): Promise<TeamRow | 'conflict' | undefined>
	/**
	 * Invites a user, in one transaction: 'member' when they already are one,
	 * 'invited' when an invitation is pending (an expired one is replaced).
	 */
	invite(invitation: NewInvitation, now: string, audit?: AuditEvent): Promise<InvitationRow | 'member' | 'invited'>
	/** A user's pending invitations to live teams, newest first. */
	invitationsForUser(userId: string, now: string): Promise<InvitationRow[]>
	/** A team's pending invitations, newest first. */
	invitationsForTeam(teamId: string, now: string): Promise<InvitationRow[]>
	findInvitation(teamId: string, userId: string, now: string): Promise<InvitationRow | undefined>
	/** Turns a pending invitation to a live team into a membership with its role, in one transaction; the store fills in the audit event's team. */
	acceptInvitation(
		slug: string,
		userId: string,
		now: string,
		membership: { id: string; joinedAt: string },
		audit?: AuditEvent
	): Promise<MemberRow | undefined>
	/** Declines (deletes) the user's pending invitation to the team with this slug; the store fills in the audit event's team. */
	declineInvitation(slug: string, userId: string, now: string, audit?: AuditEvent): Promise<boolean>
	/** Cancels an invitation, pending or expired. */
	cancelInvitation(teamId: string, userId: string, audit?: AuditEvent): Promise<boolean>
	setInvitationRole(
		teamId: string,
		userId: string,
		role: InvitedRole,
		now: string,
		audit?: AuditEvent
	): Promise<InvitationRow | undefined>
	/**
	 * Changes a role, refusing ('last_owner') to demote the team's last owner.
	 * Checked inside the transaction so two demotions cannot both pass.
	 */
	setRole(teamId: string, userId: string, role: Role, audit?: AuditEvent): Promise<MemberRow | 'last_owner' | undefined>
	/** Removes a membership, refusing ('last_owner') to remove the last owner. */
	removeMember(teamId: string, userId: string, audit?: AuditEvent): Promise<boolean | 'last_owner'>
	/** Ids of teams soft-deleted before `before`. */
	deletedBefore(before: string): Promise<string[]>
	/**
	 * Removes a soft-deleted team with its memberships and invitations, and any configs and versions
	 * `purgeStep` left (none when it ran to the end), in one transaction.
	 */
	purge(teamId: string): Promise<boolean>
	/**
	 * One short transaction of a soft-deleted team's purge: removes about `limit` rows at most (whole
	 * configs with their versions, or a config's old versions `limit` at a time when it has more) and
	 * answers how many went, 0 when no config is left. The steps before `purge`, so a large team's purge
	 * never holds the database in one long statement (docs/performance.md#purge); every step leaves each
	 * remaining config whole, so a crash between two steps leaves a purge the next run finishes.
	 */
	purgeStep(teamId: string, limit: number): Promise<number>
	/** Drops slug reservations released before `releasedBefore` and invitations expired before `expiredBefore`. */
	pruneReservationsAndInvitations(releasedBefore: string, expiredBefore: string): Promise<void>
}

/** The `meta` table as the migration transaction sees it (both engines). */
export interface MetaAccess {
	get(key: string): string | undefined
	set(key: string, value: string): void
}

export interface OpenOptions {
	/**
	 * Runs inside the transaction that applies the migrations, after them:
	 * two processes opening a new database at once run it one after the other,
	 * and throwing rolls the whole transaction back (nothing migrated or written).
	 */
	withinMigration?: (meta: MetaAccess) => void
	/**
	 * SQLite only: deleted and overwritten content is zeroed in the file (`PRAGMA secure_delete`), for
	 * `rekey`, so no page keeps what the old key opens. PostgreSQL's dumps hold only live rows.
	 */
	secureDelete?: boolean
}

export interface MetaStore {
	get(key: string): Promise<string | undefined>
	set(key: string, value: string): Promise<void>
	delete(key: string): Promise<void>
}

/** A running server as its heartbeat reports it (docs/operations.md key rotation). */
export interface InstanceRow {
	id: string
	/** Which master key it seals with (`Sealer.keyId`), never the key. */
	keyId: string
	/** Milliseconds since the epoch. */
	seenAt: number
}

export interface InstanceStore {
	/** Records that the server `id` is alive now and seals with the key `keyId`. */
	report(row: InstanceRow): Promise<void>
	/** A server that stops says so, so a rotation does not wait for it. */
	forget(id: string): Promise<void>
	/** The servers whose last heartbeat is at or after `since` (ms); older rows are removed. */
	seenSince(since: number): Promise<InstanceRow[]>
}

/** A page of a list: what to look for (empty: everything), where the page starts and how long it is. */
/** A keyset page of a configs list, ordered by name then tool (byte order on both engines). */
export interface ConfigsPage {
	after?: { name: string; tool: string }
	limit: number
}

export interface ListPage {
	search?: string
	offset: number
	limit: number
}
