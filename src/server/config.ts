import { resolve } from 'node:path'
import { Cron } from 'croner'
import { z } from 'zod'
import { parseTrustedProxies } from './lib/client-address'
import { PLANS } from '../shared/constants'
import { givenValue, type ServeFlag, SETTINGS, type SettingName, settingName } from './settings'

/** The flags serve was given (settings.ts): each wins over its environment variables, which win over its default. */
export type ConfigFlags = { [K in ServeFlag]?: string }

/** A croner pattern (5 fields, or 6 with seconds first). */
const CronPattern = z.string().superRefine((pattern, context) => {
	try {
		new Cron(pattern, { paused: true }).stop()
	} catch (error) {
		context.addIssue({ code: 'custom', message: `"${pattern}" is not a cron pattern (${(error as Error).message})` })
	}
})

const Port = z.coerce.number().int().min(0).max(65_535)

/**
 * docs/api.md: the address people use, as an origin (scheme, host, port): the
 * pages print it before paths of their own, so it may carry no path, query,
 * fragment or credentials. A trailing slash is dropped.
 */
const PublicUrl = z.string().transform((value, context) => {
	const example = 'such as https://cfgsync.example.com'
	const url = URL.parse(value.trim())
	if (url === null || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
		context.addIssue({ code: 'custom', message: `"${value}" is not an http:// or https:// URL (${example})` })
		return z.NEVER
	}
	if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
		context.addIssue({
			code: 'custom',
			message: `"${value}" must be the server's address alone, with no path, query or user name (${example}); cfgsync is served from the root of its address`
		})
		return z.NEVER
	}
	return url.origin
})

export const Config = z.object({
	port: Port,
	host: z.string().min(1),
	dataDir: z.string().min(1),
	/** docs/postgresql.md: a postgres:// URL puts the data in PostgreSQL; without it, SQLite in the data directory. */
	databaseUrl: z
		.string()
		.regex(
			/^postgres(ql)?:\/\//i,
			'expected a postgres:// or postgresql:// URL (without it, the data stays in SQLite in the data directory)'
		)
		.optional(),
	/** Connections each process keeps to PostgreSQL at most (its pool); unused with SQLite. */
	databasePool: z.coerce.number().int().min(1).max(1000),
	/** base64 of 32 bytes; when set, no master.key file is used. */
	masterKey: z.string().optional(),
	defaultPlan: z.enum(PLANS),
	logLevel: z.enum(['debug', 'info', 'warn', 'error']),
	/** docs/api.md: proxies (CIDR list) whose X-Forwarded-For names the client. */
	trustedProxies: z.string().superRefine((list, context) => {
		try {
			parseTrustedProxies(list)
		} catch (error) {
			context.addIssue({ code: 'custom', message: (error as Error).message })
		}
	}),
	/** Deprecated CFGSYNC_TRUST_PROXY=1: trust whatever peer connects (used only when trustedProxies is empty). */
	trustProxy: z.boolean(),
	/** docs/operations.md: /metrics answers only requests bearing this token; no token, no /metrics. */
	metricsToken: z.string().min(16, 'use at least 16 characters (e.g. openssl rand -hex 24)').optional(),
	/** docs/operations.md scheduled backups: where (none without it), when, and how many are kept. */
	backupDir: z.string().min(1).optional(),
	backupSchedule: CronPattern,
	backupKeep: z.coerce.number().int().min(1).max(10_000),
	/** docs/client.md: executables served at /download/<file> (none without it). */
	downloadsDir: z.string().min(1).optional(),
	/** docs/api.md: the address people use (an origin, no trailing slash); without it pages use the request's Host. */
	publicUrl: PublicUrl.optional(),
	/** docs/operations.md: how long audit events are kept. */
	auditRetentionDays: z.coerce.number().int().min(1).max(36_500),
	/** Quotas (docs/operations.md): bytes stored per user or team, stored pushes a minute per user; 0 is no limit. */
	quotaBytes: z.coerce.number().int().min(0),
	quotaPushesPerMinute: z.coerce.number().int().min(0),
	/** Processes serving one port (SO_REUSEPORT); 'auto' is one per core. */
	workers: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)])
})
export type Config = Readonly<z.infer<typeof Config>>

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes|on)$/i.test(value)

/** Reads flags and environment once, at start; a bad value is one clear error. */
export function loadConfig(flags: ConfigFlags = {}, env: Record<string, string | undefined> = process.env): Config {
	const given = (name: SettingName) => givenValue(name, (flags as Record<string, string | undefined>)[name], env)
	const path = (name: SettingName) => {
		const value = given(name)
		return value ? resolve(value) : undefined
	}
	const parsed = Config.safeParse({
		port: given('port') ?? 8787,
		host: given('host') ?? '0.0.0.0',
		dataDir: resolve(given('dataDir') ?? './data'),
		databaseUrl: given('databaseUrl'),
		databasePool: given('databasePool') ?? 10,
		masterKey: given('masterKey'),
		defaultPlan: given('defaultPlan') ?? 'team',
		logLevel: given('logLevel') ?? 'info',
		trustedProxies: given('trustedProxies') ?? '',
		trustProxy: truthy(given('trustProxy')),
		metricsToken: given('metricsToken'),
		backupDir: path('backupDir'),
		backupSchedule: given('backupSchedule') ?? '0 3 * * *',
		backupKeep: given('backupKeep') ?? 14,
		downloadsDir: path('downloadsDir'),
		publicUrl: given('publicUrl'),
		auditRetentionDays: given('auditRetentionDays') ?? 365,
		quotaBytes: given('quotaBytes') ?? 256 * 1024 * 1024,
		quotaPushesPerMinute: given('quotaPushesPerMinute') ?? 120,
		workers: given('workers') ?? 1
	} satisfies Record<SettingName, unknown>)
	if (!parsed.success) {
		const issue = parsed.error.issues[0]
		const setting = String(issue?.path[0] ?? '')
		throw new Error(
			`invalid setting ${setting in SETTINGS ? settingName(setting as SettingName) : setting}: ${issue?.message ?? 'invalid'}`
		)
	}
	return Object.freeze(parsed.data)
}
