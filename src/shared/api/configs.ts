import { z } from 'zod'
import { CONFIG_NAME_PATTERN, DEFAULT_CONFIG_NAME, DEFAULT_TOOL, TOOLS } from '../constants'

export const Uuid = z.guid('Must be a UUID.')
export const ConfigName = z
	.string()
	.regex(CONFIG_NAME_PATTERN, 'Names are 1-100 letters, digits, dashes or underscores.')
	.describe('letters, digits, dashes and underscores; at most 100')
export const ToolId = z.enum(TOOLS, {
	error: (issue) => (issue.input === undefined ? 'Required.' : `Must be one of ${TOOLS.join(', ')}.`)
})

const isObject = (value: unknown): value is Record<string, unknown> =>
	typeof value === 'object' && value !== null && !Array.isArray(value)

/**
 * A JSON object or a string, passed through untouched: zod's own object
 * parsing would copy it and drop `__proto__` keys, which docs/api.md says are
 * ordinary data.
 */
export const ConfigData = z
	.custom<string | Record<string, unknown>>((value) => typeof value === 'string' || isObject(value), {
		error: (issue) => (issue.input === undefined ? 'Required.' : 'Must be a JSON object or a string.')
	})
	.meta({
		description: 'the configuration content: a JSON object or a string, at most 512 KiB as UTF-8 JSON',
		anyOf: [{ type: 'object' }, { type: 'string' }]
	})

export const PushBody = z.object({
	name: ConfigName.default(DEFAULT_CONFIG_NAME),
	tool: ToolId.default(DEFAULT_TOOL),
	data: ConfigData,
	teamId: Uuid.nullish().describe("push to this team's configs (owner or admin)")
})
export type PushBody = z.infer<typeof PushBody>

/**
 * A conditional push (docs/api.md, RFC 9110): `ifMatch` holds when the config exists and its current
 * hash is listed (`*`: exists at all); `ifNoneMatch` holds when it does not exist or its hash is not
 * listed (`*`: create only). The client sends it as the headers below; the server reads them into it.
 */
export interface PushCondition {
	ifMatch?: string[] | '*'
	ifNoneMatch?: string[] | '*'
}

/** Headers the conditional requests read (documented in OpenAPI; read from the request directly). */
export const PushConditionHeaders = z.object({
	'if-match': z
		.string()
		.optional()
		.describe('"<hash>" you last pulled: the push is refused with 412 if the config has moved on'),
	'if-none-match': z.literal('*').optional().describe('`*` makes the push create-only: 412 if the config exists')
})
export const ReadConditionHeaders = z.object({
	'if-none-match': z
		.string()
		.optional()
		.describe('"<hash>" you already have: 304 with no body while it is still current')
})

/** A page's size: 100 unless asked, at most 1,000. (docs/api.md, pagination) */
export const PageLimit = z.coerce
	.number()
	.int()
	.min(1)
	.max(1000)
	.default(100)
	.describe('at most this many (default 100); when more remain the answer carries `Link: <…>; rel="next"`')
export const ListQuery = z.object({
	teamId: Uuid.optional().describe("list this team's configs instead of your own"),
	limit: PageLimit,
	after: z
		.string()
		.regex(/^[A-Za-z0-9_-]{1,100}:[a-z-]{1,40}$/, 'Must be NAME:TOOL, as a rel="next" link carries it.')
		.optional()
		.describe('the cursor of a `rel="next"` link: the name and tool of the last config of the previous page')
})
export type ListQuery = z.infer<typeof ListQuery>
export const LatestQuery = z.object({
	name: ConfigName,
	tool: ToolId,
	teamId: Uuid.optional().describe("the team's config instead of your own")
})
export type LatestQuery = z.infer<typeof LatestQuery>

export const VersionsQuery = z.object({
	limit: z.coerce
		.number()
		.int()
		.min(1)
		.max(1000)
		.default(100)
		.describe('at most this many versions (default 100): a longer history answers `Link: <…>; rel="next"`'),
	before: z.coerce
		.number()
		.int()
		.min(1)
		.optional()
		.describe('only versions numbered below this one: the cursor a `rel="next"` link carries')
})
export type VersionsQuery = z.infer<typeof VersionsQuery>

export const ConfigIdParams = z.object({ id: z.guid() })
export const VersionIdParams = z.object({ id: z.guid(), versionId: z.guid() })
export const RollbackBody = z.object({ versionId: Uuid.describe('the version whose data is restored') })
export type RollbackBody = z.infer<typeof RollbackBody>

const timestamp = z.iso.datetime()
const data = z
	.unknown()
	.meta({ description: 'the stored content, exactly as pushed', anyOf: [{ type: 'object' }, { type: 'string' }] })

export const ConfigSummary = z.object({
	id: z.uuid(),
	name: z.string(),
	tool: ToolId,
	version: z.number().int(),
	hash: z.string(),
	updatedAt: timestamp
})
export type ConfigSummary = z.infer<typeof ConfigSummary>

export const LatestConfig = ConfigSummary.extend({ data })
export type LatestConfig = z.infer<typeof LatestConfig>
export const FullConfig = z.object({
	id: z.uuid(),
	userId: z.uuid(),
	teamId: z.uuid().nullable(),
	name: z.string(),
	tool: ToolId,
	version: z.number().int(),
	hash: z.string(),
	currentVersionId: z.uuid(),
	data,
	createdAt: timestamp,
	updatedAt: timestamp
})

export const PushStored = z.object({
	id: z.uuid(),
	name: z.string(),
	tool: ToolId,
	version: z.number().int(),
	updatedAt: timestamp
})
export const PushUnchanged = z.object({
	id: z.uuid(),
	name: z.string(),
	tool: ToolId,
	message: z.string(),
	noChange: z.literal(true)
})
/** What a push answers with 200: the new version, or that the data did not change. */
export const PushResult = z.union([PushStored, PushUnchanged])
export type PushResult = z.infer<typeof PushResult>

export const ConfigVersion = z.object({
	id: z.uuid(),
	version: z.number().int(),
	hash: z.string(),
	data,
	createdAt: timestamp,
	isCurrent: z.boolean()
})
export type ConfigVersion = z.infer<typeof ConfigVersion>
export const RolledBack = ConfigVersion.omit({ data: true })
export type RolledBack = z.infer<typeof RolledBack>

export const PreconditionFailed = z.object({
	error: z.string(),
	code: z.literal('precondition_failed'),
	currentVersion: z.number().int().nullable(),
	currentHash: z.string().nullable()
})

/** Quotas (docs/operations.md): bytes stored (all versions) against the limit; 0 is no limit. */
export const StorageUsage = z.object({
	used: z.number().int().describe('bytes stored, every version of every config counted'),
	limit: z.number().int().describe('CFGSYNC_QUOTA_BYTES; 0: no limit')
})
export const Usage = z.object({
	bytes: StorageUsage.describe("the caller's personal configs"),
	pushesPerMinute: z.number().int().describe('CFGSYNC_QUOTA_PUSHES_PER_MINUTE, per user; 0: no limit'),
	teams: z
		.array(z.object({ id: z.uuid(), slug: z.string(), name: z.string(), bytes: StorageUsage }))
		.describe("each of the caller's teams: what its configs store")
})
export type Usage = z.infer<typeof Usage>
