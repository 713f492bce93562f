/**
 * Every setting of the server, declared once: its environment variables, its flag when it has one,
 * and its lines in `cfgsync-server --help` and `serve --help`. config.ts reads them (flag, then
 * environment, then its default), admin/serve.ts parses the flags, src/index.ts prints the help and
 * takes --database-url, and an invalid value's error names them. docs/operations.md#configuration
 * lists them for people. No imports: the binary reads this for --help without loading the server.
 */
interface Setting {
	/** Its environment variables, the first one set wins. */
	env: readonly string[]
	flag?: {
		name: string
		/** The value's name in usage lines (`--port N`). */
		value: string
		short?: string
		/** Taken from the arguments of every command by src/index.ts, before the command parses its own. */
		everyCommand?: true
		/** What it does, in `serve --help` (`env` names its variables). */
		help?: (env: string) => string
	}
	/** Its lines under "Environment:" in `cfgsync-server --help`; without them, docs/operations.md alone lists it. */
	help?: readonly string[]
	/** An empty value (`CFGSYNC_X=` in an environment file) counts as unset. */
	emptyIsUnset?: true
}

export const SETTINGS = {
	port: {
		env: ['CFGSYNC_PORT', 'PORT'],
		flag: { name: 'port', value: 'N', short: 'p', help: (env) => `port to listen on (default 8787, or ${env})` },
		help: ['port (default 8787)']
	},
	host: {
		env: ['CFGSYNC_HOST'],
		flag: { name: 'host', value: 'H', help: (env) => `address to listen on (default 0.0.0.0, or ${env})` },
		help: ['address to listen on (default 0.0.0.0)']
	},
	dataDir: {
		env: ['CFGSYNC_DATA_DIR'],
		flag: { name: 'data-dir', value: 'D', help: (env) => `the data directory (default ./data, or ${env})` },
		help: ['data directory (default ./data)']
	},
	databaseUrl: {
		env: ['CFGSYNC_DATABASE_URL'],
		flag: { name: 'database-url', value: 'URL', everyCommand: true },
		help: [
			'postgres://user:password@host/db: keep the data in PostgreSQL',
			'(add ?prepare=false behind PgBouncer in transaction mode)'
		],
		emptyIsUnset: true
	},
	masterKey: {
		env: ['CFGSYNC_MASTER_KEY'],
		help: ['base64 of 32 bytes; else <data-dir>/master.key, created on first start'],
		emptyIsUnset: true
	},
	defaultPlan: { env: ['CFGSYNC_DEFAULT_PLAN'], help: ['plan of new users (default team)'] },
	logLevel: { env: ['CFGSYNC_LOG_LEVEL'], help: ['debug, info, warn or error (default info)'] },
	trustedProxies: {
		env: ['CFGSYNC_TRUSTED_PROXIES'],
		help: [
			'comma-separated CIDR list of your reverse proxies; only their',
			'X-Forwarded-For/-Proto/-Host are believed (e.g. 127.0.0.1/32,10.0.0.0/8)'
		]
	},
	trustProxy: { env: ['CFGSYNC_TRUST_PROXY'], help: ['deprecated: 1 trusts X-Forwarded-For from any peer'] },
	workers: {
		env: ['CFGSYNC_WORKERS'],
		flag: {
			name: 'workers',
			value: 'N|auto',
			help: () => 'processes serving the port (default 1; auto = one per core)'
		},
		help: ['processes serving the port (default 1; auto = one per core)']
	},
	backupDir: {
		env: ['CFGSYNC_BACKUP_DIR'],
		flag: { name: 'backup-dir', value: 'D', help: (env) => `write verified backups here on a schedule (or ${env})` },
		help: ['scheduled backups go here (none without it)']
	},
	backupSchedule: {
		env: ['CFGSYNC_BACKUP_SCHEDULE'],
		flag: {
			name: 'backup-schedule',
			value: 'CRON',
			help: (env) => `when, as a cron pattern (default "0 3 * * *", or ${env})`
		},
		help: ['when, as a cron pattern (default 0 3 * * *)']
	},
	backupKeep: {
		env: ['CFGSYNC_BACKUP_KEEP'],
		flag: {
			name: 'backup-keep',
			value: 'N',
			help: (env) => `keep the newest N scheduled backups (default 14, or ${env})`
		},
		help: ['how many scheduled backups are kept (default 14)']
	},
	metricsToken: {
		env: ['CFGSYNC_METRICS_TOKEN'],
		help: ['serve Prometheus metrics at /metrics to this bearer token'],
		emptyIsUnset: true
	},
	auditRetentionDays: { env: ['CFGSYNC_AUDIT_RETENTION_DAYS'], help: ['how long audit events are kept (default 365)'] },
	downloadsDir: {
		env: ['CFGSYNC_DOWNLOADS_DIR'],
		flag: {
			name: 'downloads-dir',
			value: 'D',
			help: (env) =>
				`offer the client executables in D at /download (or ${env});\nthe npm package cfgsync.tgz is always offered (it is inside this binary)`
		},
		help: ['client executables served at /download (npm run build:release makes them)']
	},
	publicUrl: {
		env: ['CFGSYNC_PUBLIC_URL'],
		flag: {
			name: 'public-url',
			value: 'URL',
			help: (env) =>
				`the address people use, e.g. https://cfgsync.example.com (or ${env}):\npages print it (the install command on /download); without it they use the request's Host`
		},
		help: [
			'the address people use (https://cfgsync.example.com), printed by pages;',
			"without it pages use the request's Host (X-Forwarded-* from trusted proxies only)"
		],
		emptyIsUnset: true
	},
	databasePool: {
		env: ['CFGSYNC_DATABASE_POOL'],
		help: ['PostgreSQL connections each process keeps at most (default 10)'],
		emptyIsUnset: true
	},
	quotaBytes: {
		env: ['CFGSYNC_QUOTA_BYTES'],
		help: ["bytes each user's and each team's configs may store (default 256 MiB; 0 is none)"]
	},
	quotaPushesPerMinute: {
		env: ['CFGSYNC_QUOTA_PUSHES_PER_MINUTE'],
		help: ['stored pushes a minute per user (default 120; 0 is none)']
	}
} as const satisfies Record<string, Setting>

export type SettingName = keyof typeof SETTINGS

type Flagged = { [K in SettingName]: (typeof SETTINGS)[K] extends { flag: object } ? K : never }[SettingName]
/** The settings `serve` takes as flags (--database-url, which every command takes, is read from the environment it sets). */
export type ServeFlag = Exclude<Flagged, 'databaseUrl'>

const setting = (name: SettingName): Setting => SETTINGS[name]

/** The settings serve takes as its own flags, in --help's order. */
export const SERVE_FLAGS = (Object.keys(SETTINGS) as SettingName[]).filter(
	(name): name is ServeFlag => setting(name).flag !== undefined && !setting(name).flag?.everyCommand
)

/** serve's parsed flags (`values['data-dir']`) by setting (`dataDir`), as config.ts's loadConfig takes them. */
export const serveFlagValues = (values: Record<string, unknown>): { [K in ServeFlag]?: string } =>
	Object.fromEntries(SERVE_FLAGS.map((name) => [name, values[SETTINGS[name].flag.name]]))

/** `--port N`, `--workers N|auto`. */
export const flagWithValue = (name: SettingName) => {
	const flag = setting(name).flag
	return flag ? `--${flag.name} ${flag.value}` : ''
}

/** How an error names a setting, so it names what a person can fix: `--port / CFGSYNC_PORT`, `CFGSYNC_LOG_LEVEL`. */
export function settingName(name: SettingName): string {
	const { flag, env } = setting(name)
	return flag ? `--${flag.name} / ${env[0]}` : (env[0] as string)
}

/** The value a setting is given: its flag's, else the first of its environment variables that is set. */
export function givenValue(
	name: SettingName,
	flagValue: string | undefined,
	env: Record<string, string | undefined>
): string | undefined {
	const { env: names, emptyIsUnset } = setting(name)
	for (const value of [flagValue, ...names.map((variable) => env[variable])])
		if (value !== undefined && !(emptyIsUnset && value === '')) return value
	return undefined
}

/** Two columns: each label padded to `width`, a text's further lines under its first. */
export function columns(rows: [label: string, text: string][], width: number, indent = '  '): string {
	return rows
		.map(([label, text]) => {
			const [first, ...rest] = text.split('\n')
			const head = `${indent}${label.padEnd(width)}  ${first}`
			return [head, ...rest.map((line) => `${indent}${' '.repeat(width)}  ${line}`)].join('\n')
		})
		.join('\n')
}

/** The "Environment:" lines of `cfgsync-server --help`. */
export function environmentHelp(): string {
	const rows = (Object.keys(SETTINGS) as SettingName[]).flatMap((name): [string, string][] => {
		const { env, help } = setting(name)
		return help ? [[env.join(' / '), help.join('\n')]] : []
	})
	return columns(rows, Math.max(...rows.map(([label]) => label.length)))
}

/** The option lines of `serve --help`. */
export function serveFlagsHelp(): string {
	const rows = SERVE_FLAGS.map((name): [string, string] => {
		const { flag, env } = setting(name)
		const label = flag?.short ? `${flagWithValue(name)}, -${flag.short} ${flag.value}` : flagWithValue(name)
		return [label, flag?.help?.(env.join(' / ')) ?? '']
	})
	return columns(rows, Math.max(...rows.map(([label]) => label.length)))
}
