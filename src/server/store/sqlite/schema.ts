import { sql } from 'drizzle-orm'
import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'
import { INVITED_ROLES, PLANS, ROLES, TOOLS } from '../../../shared/constants'

/** Timestamps are ISO 8601 UTC strings with milliseconds: they sort as text. */

export const users = sqliteTable(
	'users',
	{
		id: text('id').primaryKey(),
		email: text('email').notNull(),
		/** Lower-cased copies carry the case-insensitive uniqueness (SQLite's NOCASE folds ASCII only). */
		emailKey: text('email_key').notNull(),
		username: text('username').notNull(),
		usernameKey: text('username_key').notNull(),
		passwordHash: text('password_hash'),
		plan: text('plan', { enum: PLANS }).notNull(),
		/** Server admins see the web application's Admin page (docs/operations.md, docs/web.md). */
		isAdmin: integer('is_admin', { mode: 'boolean' }).notNull().default(false),
		createdAt: text('created_at').notNull()
	},
	(t) => [uniqueIndex('users_email_key').on(t.emailKey), uniqueIndex('users_username_key').on(t.usernameKey)]
)

export const apiKeys = sqliteTable(
	'api_keys',
	{
		id: text('id').primaryKey(),
		userId: text('user_id')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		device: text('device').notNull(),
		/** SHA-256 hex of the whole key; the key itself is never stored. */
		keyHash: text('key_hash').notNull(),
		createdAt: text('created_at').notNull(),
		lastUsedAt: text('last_used_at'),
		/** docs/api.md keys with a scope: a read-only key reads and streams but never writes (403 read_only_key). */
		readOnly: integer('read_only', { mode: 'boolean' }).notNull().default(false)
	},
	(t) => [
		uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
		// One active key per (user, device): a revoked key is deleted, so this is the whole rule.
		uniqueIndex('api_keys_user_device_key').on(t.userId, t.device)
	]
)

export const loginFailures = sqliteTable(
	'login_failures',
	{
		id: integer('id').primaryKey({ autoIncrement: true }),
		loginKey: text('login_key').notNull(),
		address: text('address').notNull(),
		/** Milliseconds since the epoch. */
		at: integer('at').notNull()
	},
	(t) => [
		index('login_failures_login_idx').on(t.loginKey, t.at),
		index('login_failures_address_idx').on(t.address, t.at),
		index('login_failures_login_address_idx').on(t.loginKey, t.address, t.at)
	]
)

export const teams = sqliteTable(
	'teams',
	{
		id: text('id').primaryKey(),
		name: text('name').notNull(),
		slug: text('slug').notNull(),
		createdAt: text('created_at').notNull(),
		deletedAt: text('deleted_at')
	},
	(t) => [
		// Across live and soft-deleted teams: a deleted team's slug stays taken until it is purged.
		uniqueIndex('teams_slug_key').on(t.slug),
		index('teams_deleted_at_idx').on(t.deletedAt).where(sql`${t.deletedAt} IS NOT NULL`)
	]
)

export const teamMembers = sqliteTable(
	'team_members',
	{
		id: text('id').primaryKey(),
		teamId: text('team_id')
			.notNull()
			.references(() => teams.id, { onDelete: 'cascade' }),
		userId: text('user_id')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		role: text('role', { enum: ROLES }).notNull(),
		joinedAt: text('joined_at').notNull()
	},
	(t) => [uniqueIndex('team_members_team_user_key').on(t.teamId, t.userId), index('team_members_user_idx').on(t.userId)]
)

/** docs/api.md: nobody becomes a member without accepting; one pending invitation per (team, user). */
export const teamInvitations = sqliteTable(
	'team_invitations',
	{
		id: text('id').primaryKey(),
		teamId: text('team_id')
			.notNull()
			.references(() => teams.id, { onDelete: 'cascade' }),
		userId: text('user_id')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		role: text('role', { enum: INVITED_ROLES }).notNull(),
		invitedBy: text('invited_by')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		createdAt: text('created_at').notNull(),
		expiresAt: text('expires_at').notNull()
	},
	(t) => [
		uniqueIndex('team_invitations_team_user_key').on(t.teamId, t.userId),
		index('team_invitations_user_idx').on(t.userId)
	]
)

/** docs/api.md: a slug given up by a rename stays the team's for 30 days, so nobody else can take it over. */
export const teamSlugReservations = sqliteTable(
	'team_slug_reservations',
	{
		slug: text('slug').primaryKey(),
		teamId: text('team_id')
			.notNull()
			.references(() => teams.id, { onDelete: 'cascade' }),
		releasedAt: text('released_at').notNull()
	},
	(t) => [index('team_slug_reservations_team_idx').on(t.teamId)]
)

export const configs = sqliteTable(
	'configs',
	{
		id: text('id').primaryKey(),
		/** The owner of a personal config; whoever created a team config. */
		userId: text('user_id')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		teamId: text('team_id').references(() => teams.id, { onDelete: 'cascade' }),
		name: text('name').notNull(),
		tool: text('tool', { enum: TOOLS }).notNull(),
		version: integer('version').notNull(),
		hash: text('hash').notNull(),
		/** Kept in step with config_versions by the push and rollback transactions. */
		currentVersionId: text('current_version_id').notNull(),
		createdAt: text('created_at').notNull(),
		updatedAt: text('updated_at').notNull(),
		/** The bytes of all its versions as stored, kept by push and rollback: what the storage quota adds up (docs/operations.md). */
		storedBytes: integer('stored_bytes').notNull().default(0)
	},
	(t) => [
		// docs/api.md push matching; these make concurrent first pushes create one config.
		uniqueIndex('configs_personal_key').on(t.userId, t.name, t.tool).where(sql`${t.teamId} IS NULL`),
		uniqueIndex('configs_team_key').on(t.teamId, t.name, t.tool).where(sql`${t.teamId} IS NOT NULL`),
		index('configs_user_idx').on(t.userId)
	]
)

export const configVersions = sqliteTable(
	'config_versions',
	{
		id: text('id').primaryKey(),
		configId: text('config_id')
			.notNull()
			.references(() => configs.id, { onDelete: 'cascade' }),
		version: integer('version').notNull(),
		hash: text('hash').notNull(),
		/** AES-256-GCM: nonce | ciphertext | tag, with "configId:versionId" as AAD. */
		data: blob('data', { mode: 'buffer' }).notNull(),
		createdAt: text('created_at').notNull()
	},
	(t) => [uniqueIndex('config_versions_config_version_key').on(t.configId, t.version)]
)

/** Small key/value facts about the database itself (the master-key check). */
export const meta = sqliteTable('meta', {
	key: text('key').primaryKey(),
	value: text('value').notNull()
})

/**
 * docs/web.md: web sessions. The cookie holds a random id; only its SHA-256 is
 * stored, like API keys. Idle expiry follows last_seen_at; expires_at is absolute.
 */
export const sessions = sqliteTable(
	'sessions',
	{
		idHash: text('id_hash').primaryKey(),
		userId: text('user_id')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		createdAt: text('created_at').notNull(),
		lastSeenAt: text('last_seen_at').notNull(),
		expiresAt: text('expires_at').notNull(),
		userAgent: text('user_agent').notNull(),
		address: text('address').notNull()
	},
	(t) => [index('sessions_user_idx').on(t.userId), index('sessions_expires_at_idx').on(t.expiresAt)]
)

/**
 * docs/web.md first start and sign-up: the setup address printed at a first start (`kind` setup)
 * and the sign-up links server admins make (`kind` join). Only the SHA-256 of a link's token is
 * stored, with its first characters (`hint`) so that an admin can tell their links apart.
 */
export const signupLinks = sqliteTable(
	'signup_links',
	{
		id: text('id').primaryKey(),
		kind: text('kind', { enum: ['setup', 'join'] }).notNull(),
		tokenHash: text('token_hash').notNull(),
		hint: text('hint').notNull(),
		plan: text('plan', { enum: PLANS }).notNull(),
		maxUses: integer('max_uses').notNull(),
		uses: integer('uses').notNull().default(0),
		createdAt: text('created_at').notNull(),
		/** Null for a setup address: it lives until an admin exists. */
		expiresAt: text('expires_at'),
		revokedAt: text('revoked_at'),
		/** Null when made by the admin command or at a first start, or once its maker is removed. */
		createdBy: text('created_by').references(() => users.id, { onDelete: 'set null' })
	},
	(t) => [
		uniqueIndex('signup_links_token_hash_key').on(t.tokenHash),
		index('signup_links_kind_idx').on(t.kind, t.createdAt)
	]
)

/**
 * docs/operations.md audit log: who did what, when, from where, to what; never
 * config data, keys or passwords. Not tied to users or teams by foreign keys:
 * the record of what happened outlives what it happened to (365 days by default).
 */
export const auditEvents = sqliteTable(
	'audit_events',
	{
		/** UUIDv7: time-ordered, so pages are taken by id. */
		id: text('id').primaryKey(),
		/**
		 * docs/api.md "Live changes": the change feed's cursor, in commit order (ids are made before their
		 * transaction, so two writers may commit them out of order). Given inside the write lock.
		 */
		seq: integer('seq'),
		at: text('at').notNull(),
		type: text('type').notNull(),
		actorUserId: text('actor_user_id'),
		actorUsername: text('actor_username'),
		/** The device name of the key used, "web" for a web session, "admin command", or "server". */
		actorDevice: text('actor_device'),
		/**
		 * The id of the key used, when one was: a device name can be taken over (a new login under it
		 * replaces its key), a key id never is — what a client's device trust goes by (docs/sync-model.md).
		 */
		actorKeyId: text('actor_key_id'),
		address: text('address'),
		teamId: text('team_id'),
		/** The user the event concerns when it is not the actor (a failed login on their account, an admin action). */
		subjectUserId: text('subject_user_id'),
		targetType: text('target_type'),
		targetId: text('target_id'),
		targetName: text('target_name'),
		/** Small JSON object: versions, roles, names; never data. */
		details: text('details').notNull()
	},
	// Every index is written by every push, so there are few: none on `at` (ids are time-ordered, so
	// retention deletes by id), and the team and subject indexes hold only the events that have one.
	(t) => [
		index('audit_events_actor_idx').on(t.actorUserId, t.id),
		index('audit_events_subject_idx').on(t.subjectUserId, t.id).where(sql`${t.subjectUserId} IS NOT NULL`),
		index('audit_events_team_idx').on(t.teamId, t.id).where(sql`${t.teamId} IS NOT NULL`),
		uniqueIndex('audit_events_seq_key').on(t.seq)
	]
)

/** docs/postgresql.md: scheduled jobs run once per schedule across instances; the conditional update of this row decides who. */
export const jobLeases = sqliteTable('job_leases', {
	name: text('name').primaryKey(),
	/** Milliseconds since the epoch of the schedule slot last claimed. */
	lastRun: integer('last_run').notNull()
})

/**
 * Each running server's heartbeat and the id of the master key it seals with (docs/operations.md): a key
 * rotation waits until every live server seals with the new key before it retires the old one.
 * Runtime state: `db copy` does not copy it.
 */
export const serverInstances = sqliteTable('server_instances', {
	id: text('id').primaryKey(),
	keyId: text('key_id').notNull(),
	/** Milliseconds since the epoch of the last heartbeat. */
	seenAt: integer('seen_at').notNull()
})
