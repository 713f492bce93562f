/** docs/api.md: the one list of tool identifiers; the first is the default. */
export const TOOLS = ['claude-code', 'cursor', 'windsurf', 'vscode', 'codex', 'gemini-cli'] as const
export type Tool = (typeof TOOLS)[number]
export const DEFAULT_TOOL: Tool = 'claude-code'

export const PLANS = ['free', 'pro', 'team'] as const
export type Plan = (typeof PLANS)[number]
/** Plans that unlock version history and rollback. */
export const HISTORY_PLANS: readonly Plan[] = ['pro', 'team']

export const ROLES = ['owner', 'admin', 'member'] as const
export type Role = (typeof ROLES)[number]
/** Roles an invitation can carry: owners are made from members, never invited as such. */
export const INVITED_ROLES = ['admin', 'member'] as const
export type InvitedRole = (typeof INVITED_ROLES)[number]

export const CONFIG_NAME_PATTERN = /^[A-Za-z0-9_-]{1,100}$/
export const DEFAULT_CONFIG_NAME = 'default'
/** 512 KiB of the UTF-8 JSON serialisation of `data`. */
export const DATA_MAX_BYTES = 524_288
/** Whole request bodies; bigger ones are refused before they are read. */
export const BODY_MAX_BYTES = 1_048_576
/** docs/api.md: the one unauthenticated body is small; deep or large ones would only cost CPU. */
export const LOGIN_BODY_MAX_BYTES = 16_384
/** JSON nesting allowed in a request body; deeper is refused so nothing recurses without bound. */
export const JSON_MAX_DEPTH = 1000

export const USERNAME_PATTERN = /^[A-Za-z0-9_.-]{1,64}$/
export const PASSWORD_MIN = 8
export const TEAM_NAME_MAX = 50
export const DEVICE_MAX = 100

/** docs/api.md keys with a scope: what a key may do. A read-only key reads and streams, never writes. */
export const KEY_SCOPES = ['read-write', 'read-only'] as const
export type KeyScope = (typeof KEY_SCOPES)[number]

export const DAY_MS = 24 * 60 * 60 * 1000
/** docs/api.md: a soft-deleted team is removed for good after 30 days. */
export const TEAM_RETENTION_MS = 30 * DAY_MS
/** docs/api.md: an invitation expires after 7 days. */
export const INVITATION_TTL_MS = 7 * DAY_MS
/** docs/api.md: a slug given up by a rename stays reserved for 30 days. */
export const SLUG_RESERVATION_MS = 30 * DAY_MS
/** docs/web.md: a web session ends after 7 days without use, and 30 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 7 * DAY_MS
export const SESSION_MAX_MS = 30 * DAY_MS
