import { z } from 'zod'

/**
 * The documented shape of each command's --json output (docs/client.md, "Output for
 * scripts"), strict: a field added or dropped fails the test that checks
 * every command against its schema. Times are ISO 8601 UTC with
 * milliseconds (docs/api.md), never "3 minutes ago".
 */

const time = z.iso.datetime()
const id = z.uuid()
const config = z.strictObject({ tool: z.string(), name: z.string(), team: z.string().nullable() })
const entry = z.strictObject({ path: z.string(), file: z.string() })

/** A key (null: the whole file) that stays on this machine, and where that was said. */
const Local = entry.extend({ key: z.string().nullable(), origin: z.enum(['here', 'everywhere', 'ignoredSettings']) })

export const Report = z.strictObject({
	config,
	dryRun: z.boolean(),
	serverVersion: z.number().int().nullable(),
	pushed: z.strictObject({ version: z.number().int(), files: z.array(z.string()) }).nullable(),
	changes: z.array(
		entry.extend({ action: z.enum(['created', 'updated', 'deleted', 'merged', 'mine', 'theirs', 'marked']) })
	),
	conflicts: z.array(
		entry.extend({
			why: z.enum(['both-changed', 'no-base', 'deleted-here', 'deleted-there']),
			keys: z.array(z.string())
		})
	),
	unsent: z.array(entry),
	unpulled: z.array(entry),
	sent: z.array(entry.extend({ action: z.enum(['added', 'changed', 'removed']) })),
	unchanged: z.array(entry),
	skipped: z.array(entry.extend({ why: z.string() })),
	refused: z.array(entry.extend({ why: z.string() })),
	local: z.array(Local),
	backups: z.string().nullable()
})

const Member = z.strictObject({
	id,
	userId: id,
	email: z.string(),
	username: z.string(),
	role: z.enum(['owner', 'admin', 'member']),
	joinedAt: time
})
const Invitation = z.strictObject({
	teamSlug: z.string(),
	teamName: z.string(),
	userId: id,
	username: z.string(),
	role: z.enum(['admin', 'member']),
	invitedBy: z.string(),
	createdAt: time,
	expiresAt: time,
	status: z.literal('invited')
})
const Team = z.strictObject({ id, name: z.string(), slug: z.string() })
const Key = z.strictObject({
	id,
	device: z.string(),
	createdAt: time,
	lastUsedAt: time.nullable(),
	current: z.boolean(),
	scope: z.enum(['read-write', 'read-only'])
})
const AuditEvent = z.strictObject({
	id,
	type: z.string(),
	at: time,
	actor: z.strictObject({
		userId: id.nullable(),
		username: z.string().nullable(),
		device: z.string().nullable(),
		keyId: id.nullable()
	}),
	address: z.string().nullable(),
	teamId: id.nullable(),
	subjectUserId: id.nullable(),
	target: z.strictObject({ type: z.string(), id: z.string().nullable(), name: z.string().nullable() }).nullable(),
	details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))
})

/** Command (with its subcommand) → the schema of its stdout. */
export const SHAPES = {
	login: z.strictObject({
		server: z.string(),
		profile: z.string(),
		username: z.string(),
		email: z.string(),
		device: z.string(),
		keyId: id,
		scope: z.enum(['read-write', 'read-only'])
	}),
	logout: z.strictObject({
		server: z.string(),
		profile: z.string(),
		device: z.string(),
		key: z.enum(['revoked', 'already_revoked', 'still_active'])
	}),
	whoami: z.strictObject({
		username: z.string(),
		email: z.string(),
		server: z.string(),
		profile: z.string(),
		device: z.string().nullable(),
		key: z.enum(['saved', 'CFGSYNC_API_KEY']),
		scope: z.enum(['read-write', 'read-only']).nullable(),
		usage: z
			.strictObject({
				bytes: z.strictObject({ used: z.number(), limit: z.number() }),
				pushesPerMinute: z.number(),
				teams: z.array(
					z.strictObject({
						id,
						slug: z.string(),
						name: z.string(),
						bytes: z.strictObject({ used: z.number(), limit: z.number() })
					})
				)
			})
			.nullable()
	}),
	keys: z.array(Key),
	'keys rename': Key,
	'keys revoke': z.strictObject({ revoked: z.strictObject({ id, device: z.string() }), current: z.boolean() }),
	status: z.array(
		z.strictObject({
			config,
			status: z.enum([
				'in sync',
				'local changes',
				'remote changes',
				'local and remote changes',
				'conflict',
				'not on the server',
				'server unreachable',
				'not synced here'
			]),
			syncedVersion: z.number().int().nullable(),
			serverVersion: z.number().int().nullable(),
			files: z.array(
				z.strictObject({
					path: z.string(),
					file: z.string(),
					change: z.enum(['local', 'remote', 'merged', 'conflict', 'skipped']),
					detail: z.string().nullable()
				})
			),
			local: z.array(Local)
		})
	),
	push: Report,
	pull: Report,
	resolve: Report,
	sync: z.array(z.union([Report, z.strictObject({ config, error: z.string(), code: z.string() })])),
	watch: Report.extend({ at: time }),
	discard: z.strictObject({
		config,
		discarded: z.array(entry.extend({ action: z.enum(['reverted', 'restored', 'deleted']) })),
		refused: z.array(entry.extend({ why: z.string() })),
		backups: z.string().nullable()
	}),
	diff: z.strictObject({
		from: z.string(),
		to: z.string(),
		patches: z.array(z.strictObject({ path: z.string(), file: z.string(), patch: z.string() }))
	}),
	list: z.array(
		z.strictObject({
			id,
			name: z.string(),
			tool: z.string(),
			version: z.number().int(),
			hash: z.string(),
			updatedAt: time
		})
	),
	history: z.strictObject({
		config,
		versions: z.array(
			z.strictObject({
				id,
				version: z.number().int(),
				hash: z.string(),
				createdAt: time,
				isCurrent: z.boolean(),
				files: z.array(z.string()),
				pushedBy: z
					.strictObject({
						username: z.string().nullable(),
						device: z.string().nullable(),
						rollbackTo: z.number().int().nullable()
					})
					.nullable()
			})
		),
		note: z.string().nullable()
	}),
	rollback: z.strictObject({
		id,
		version: z.number().int(),
		hash: z.string(),
		createdAt: time,
		isCurrent: z.literal(true)
	}),
	delete: z.strictObject({
		deleted: z.strictObject({
			id,
			tool: z.string(),
			name: z.string(),
			team: z.string().nullable(),
			version: z.number().int()
		})
	}),
	local: z.strictObject({ config, local: z.array(Local) }),
	'team list': z.array(
		z.strictObject({
			id,
			name: z.string(),
			slug: z.string(),
			role: z.enum(['owner', 'admin', 'member']),
			createdAt: time
		})
	),
	'team create': Team,
	'team show': z.strictObject({
		id,
		name: z.string(),
		slug: z.string(),
		createdAt: time,
		userRole: z.enum(['owner', 'admin', 'member']),
		members: z.array(Member),
		invitations: z.array(Invitation).optional()
	}),
	'team invite': Invitation,
	'team role': z.union([Member, Invitation]),
	'team remove': z.strictObject({ team: z.string(), username: z.string(), removed: z.enum(['member', 'invitation']) }),
	'team leave': z.strictObject({ team: z.string(), left: z.literal(true) }),
	'team rename': Team,
	'team delete': z.strictObject({ team: z.string(), deleted: z.literal(true) }),
	invitations: z.array(Invitation),
	'invitations accept': Member,
	'invitations decline': z.strictObject({ team: z.string(), declined: z.literal(true) }),
	log: z.array(AuditEvent),
	/** stderr: zero or more warnings, then on failure one error. */
	warning: z.strictObject({ warning: z.string() }),
	error: z.strictObject({ error: z.string(), code: z.string().regex(/^[a-z_]+$/) })
} as const

export type Shape = keyof typeof SHAPES
