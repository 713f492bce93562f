import { sql } from 'drizzle-orm'
import { bigint, bigserial, boolean, customType, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core'
import { INVITED_ROLES, PLANS, ROLES, TOOLS } from '../../../shared/constants'

/**
 * The PostgreSQL twin of `../sqlite/schema.ts` (docs/postgresql.md): the same tables,
 * columns, nullability and indexes, checked by test/server/store/schema-parity.test.ts.
 * Timestamps stay ISO 8601 text, so rows are the same on both engines.
 */

/** drizzle 0.45 has no `bytea`; Bun.SQL binds a Uint8Array as bytea and returns a Buffer. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'bytea' })

/** Milliseconds since the epoch overflow `integer`; as numbers, not the strings Bun.SQL returns for int8. */
const epochMs = (name: string) => bigint(name, { mode: 'number' })

export const users = pgTable(
	'users',
	{
		id: text('id').primaryKey(),
		email: text('email').notNull(),
		emailKey: text('email_key').notNull(),
		username: text('username').notNull(),
		usernameKey: text('username_key').notNull(),
		passwordHash: text('password_hash'),
		plan: text('plan', { enum: PLANS }).notNull(),
		isAdmin: boolean('is_admin').notNull().default(false),
		createdAt: text('created_at').notNull()
	},
	(t) => [uniqueIndex('users_email_key').on(t.emailKey), uniqueIndex('users_username_key').on(t.usernameKey)]
)

export const apiKeys = pgTable(
	'api_keys',
	{
		id: text('id').primaryKey(),
		userId: text('user_id')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		device: text('device').notNull(),
		keyHash: text('key_hash').notNull(),
		createdAt: text('created_at').notNull(),
		lastUsedAt: text('last_used_at'),
		/** docs/api.md keys with a scope: a read-only key reads and streams but never writes (403 read_only_key). */
		readOnly: boolean('read_only').notNull().default(false)
	},
	(t) => [
		uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
		uniqueIndex('api_keys_user_device_key').on(t.userId, t.device)
	]
)

export const loginFailures = pgTable(
	'login_failures',
	{
		id: bigserial('id', { mode: 'number' }).primaryKey(),
		loginKey: text('login_key').notNull(),
		address: text('address').notNull(),
		at: epochMs('at').notNull()
	},
	(t) => [
		index('login_failures_login_idx').on(t.loginKey, t.at),
		index('login_failures_address_idx').on(t.address, t.at),
		index('login_failures_login_address_idx').on(t.loginKey, t.address, t.at)
	]
)

export const teams = pgTable(
	'teams',
	{
		id: text('id').primaryKey(),
		name: text('name').notNull(),
		slug: text('slug').notNull(),
		createdAt: text('created_at').notNull(),
		deletedAt: text('deleted_at')
	},
	(t) => [
		uniqueIndex('teams_slug_key').on(t.slug),
		index('teams_deleted_at_idx').on(t.deletedAt).where(sql`${t.deletedAt} IS NOT NULL`)
	]
)

export const teamMembers = pgTable(
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

export const teamInvitations = pgTable(
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

export const teamSlugReservations = pgTable(
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

export const configs = pgTable(
	'configs',
	{
		id: text('id').primaryKey(),
		userId: text('user_id')
			.notNull()
			.references(() => users.id, { onDelete: 'cascade' }),
		teamId: text('team_id').references(() => teams.id, { onDelete: 'cascade' }),
		name: text('name').notNull(),
		tool: text('tool', { enum: TOOLS }).notNull(),
		version: integer('version').notNull(),
		hash: text('hash').notNull(),
		currentVersionId: text('current_version_id').notNull(),
		createdAt: text('created_at').notNull(),
		updatedAt: text('updated_at').notNull(),
		/** The bytes of all its versions as stored, kept by push and rollback: what the storage quota adds up (docs/operations.md). */
		storedBytes: bigint('stored_bytes', { mode: 'number' }).notNull().default(0)
	},
	(t) => [
		uniqueIndex('configs_personal_key').on(t.userId, t.name, t.tool).where(sql`${t.teamId} IS NULL`),
		uniqueIndex('configs_team_key').on(t.teamId, t.name, t.tool).where(sql`${t.teamId} IS NOT NULL`),
		index('configs_user_idx').on(t.userId)
	]
)

export const configVersions = pgTable(
	'config_versions',
	{
		id: text('id').primaryKey(),
		configId: text('config_id')
			.notNull()
			.references(() => configs.id, { onDelete: 'cascade' }),
		version: integer('version').notNull(),
		hash: text('hash').notNull(),
		data: bytea('data').notNull(),
		createdAt: text('created_at').notNull()
	},
	(t) => [uniqueIndex('config_versions_config_version_key').on(t.configId, t.version)]
)

export const meta = pgTable('meta', {
	key: text('key').primaryKey(),
	value: text('value').notNull()
})

export const sessions = pgTable(
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
export const signupLinks = pgTable(
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

export const auditEvents = pgTable(
	'audit_events',
	{
		id: text('id').primaryKey(),
		/** Given at commit, in commit order, by a trigger (drizzle-postgres/0003): see ../sqlite/schema.ts. */
		seq: bigint('seq', { mode: 'number' }),
		at: text('at').notNull(),
		type: text('type').notNull(),
		actorUserId: text('actor_user_id'),
		actorUsername: text('actor_username'),
		actorDevice: text('actor_device'),
		actorKeyId: text('actor_key_id'),
		address: text('address'),
		teamId: text('team_id'),
		subjectUserId: text('subject_user_id'),
		targetType: text('target_type'),
		targetId: text('target_id'),
		targetName: text('target_name'),
		details: text('details').notNull()
	},
	(t) => [
		index('audit_events_actor_idx').on(t.actorUserId, t.id),
		index('audit_events_subject_idx').on(t.subjectUserId, t.id).where(sql`${t.subjectUserId} IS NOT NULL`),
		index('audit_events_team_idx').on(t.teamId, t.id).where(sql`${t.teamId} IS NOT NULL`),
		uniqueIndex('audit_events_seq_key').on(t.seq)
	]
)

export const jobLeases = pgTable('job_leases', {
	name: text('name').primaryKey(),
	lastRun: epochMs('last_run').notNull()
})

/** As in the SQLite schema: each running server's heartbeat and the id of the key it seals with. */
export const serverInstances = pgTable('server_instances', {
	id: text('id').primaryKey(),
	keyId: text('key_id').notNull(),
	seenAt: epochMs('seen_at').notNull()
})
