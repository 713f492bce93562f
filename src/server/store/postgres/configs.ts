import type { SQL as BunSQL } from 'bun'
import { and, asc, desc, eq, gt, isNull, lt, sql, type SQL, gte, sum } from 'drizzle-orm'
import { PENDING_KEY_META } from '../../lib/key-check'
import { aliased, conditionFails, containsAny, type ListPage, visiblePage } from '../shared'
import type {
	AuditEvent,
	ConfigRow,
	ConfigsPage,
	ConfigStore,
	ConfigWithData,
	LatestRow,
	PushInput,
	PushResult,
	SealFor,
	VersionRow,
	VersionWithData
} from '../types'
import { auditStatement, writeAudit } from './audit'
import type { PgDb } from './client'
import { LOCK_SQL, lockKey } from './locks'
import { hotRows, statement } from './rows'
import { auditEvents, configs, configVersions, meta, teamMembers, teams } from './schema'

const configFields = {
	id: configs.id,
	userId: configs.userId,
	teamId: configs.teamId,
	name: configs.name,
	tool: configs.tool,
	version: configs.version,
	hash: configs.hash,
	currentVersionId: configs.currentVersionId,
	createdAt: configs.createdAt,
	updatedAt: configs.updatedAt
}
const withData = { ...configFields, sealed: configVersions.data }
const latestFields = {
	id: configs.id,
	name: configs.name,
	tool: configs.tool,
	version: configs.version,
	hash: configs.hash,
	currentVersionId: configs.currentVersionId,
	updatedAt: configs.updatedAt,
	sealed: configVersions.data
}
const versionFields = {
	id: configVersions.id,
	configId: configVersions.configId,
	version: configVersions.version,
	hash: configVersions.hash,
	createdAt: configVersions.createdAt
}
/** Rows are bound this many at a time in bulk inserts (PostgreSQL takes at most 65,535 parameters). */
const BULK_ROWS = 1000

const p = (name: string) => sql.placeholder(name)

/** A reseal statement swaps at most this many records (3 parameters each, far under PostgreSQL's 65,535)... */
const RESEAL_ROWS = 500
/** ...and binds at most about this many bytes of sealed data (records run up to ~512 KiB sealed). */
const RESEAL_BYTES = 16 * 1024 * 1024

type Reseal = { id: string; from: Uint8Array; to: Uint8Array }

/**
 * `reseal`'s records in order, cut into chunks that one UPDATE … FROM (VALUES …) each swaps. An id
 * seen twice starts a new chunk: one statement updates a row once whichever VALUES row matches, so
 * the later record must compare against what the earlier one wrote, as it would one by one.
 */
function* resealChunks(records: Reseal[]): Generator<Reseal[]> {
	let chunk: Reseal[] = []
	let bytes = 0
	let ids = new Set<string>()
	for (const record of records) {
		const size = record.from.byteLength + record.to.byteLength
		if (chunk.length > 0 && (chunk.length === RESEAL_ROWS || bytes + size > RESEAL_BYTES || ids.has(record.id))) {
			yield chunk
			chunk = []
			bytes = 0
			ids = new Set()
		}
		chunk.push(record)
		bytes += size
		ids.add(record.id)
	}
	if (chunk.length > 0) yield chunk
}
/**
 * Configs and their versions on PostgreSQL (docs/postgresql.md). A push takes an
 * advisory lock on (owner, name, tool) and then the config's row, so
 * concurrent first pushes make one config and versions stay contiguous
 * across instances; a rollback takes the same row lock.
 */
/**
 * docs/web.md, search: a page of the configs a user sees, found in the database (the personal key and the
 * team key indexes narrow it to the user's configs before the search filters them).
 */
async function visibleConfigs(db: PgDb, userId: string, page: ListPage) {
	const end = page.offset + page.limit
	const search = containsAny([configs.name, configs.tool], page.search)
	const scan = (scope: SQL | undefined, team: { name: string; slug: string } | null) => async () =>
		(
			(await db
				.select(configFields)
				.from(configs)
				.where(and(scope, search))
				.orderBy(sql`${configs.name} COLLATE "C"`, sql`${configs.tool} COLLATE "C"`)
				.limit(end)) as ConfigRow[]
		).map((row) => ({ ...row, teamName: team?.name ?? null, teamSlug: team?.slug ?? null }))
	const live = await db
		.select({ id: teams.id, name: teams.name, slug: teams.slug })
		.from(teamMembers)
		.innerJoin(teams, eq(teams.id, teamMembers.teamId))
		.where(and(eq(teamMembers.userId, userId), isNull(teams.deletedAt)))
	return visiblePage(
		[
			scan(and(eq(configs.userId, userId), isNull(configs.teamId)), null),
			...live.map((team) => scan(eq(configs.teamId, team.id), team))
		],
		page
	)
}

export function postgresConfigs(db: PgDb, client: BunSQL): ConfigStore {
	/** A keyset page by name then tool in byte order ("C"), as SQLite sorts them. */
	const configsPage = async (owner: SQL | undefined, page: ConfigsPage | undefined) => {
		const after = page?.after
		const query = db
			.select(configFields)
			.from(configs)
			.where(
				and(
					owner,
					after &&
						sql`(${configs.name} COLLATE "C", ${configs.tool} COLLATE "C") > (${after.name} COLLATE "C", ${after.tool} COLLATE "C")`
				)
			)
			.orderBy(sql`${configs.name} COLLATE "C"`, sql`${configs.tool} COLLATE "C"`)
		return (await (page ? query.limit(page.limit) : query)) as ConfigRow[]
	}
	const currentVersionJoin = eq(configVersions.id, configs.currentVersionId)
	const personalKey = and(
		eq(configs.userId, p('userId')),
		isNull(configs.teamId),
		eq(configs.name, p('name')),
		eq(configs.tool, p('tool'))
	)
	const teamKey = and(eq(configs.teamId, p('teamId')), eq(configs.name, p('name')), eq(configs.tool, p('tool')))
	// The reads every sync client makes; see rows.ts for why they bypass Drizzle's row mapper.
	const latestWhere = (where: SQL | undefined) =>
		hotRows<LatestRow>(
			client,
			db.select(aliased(latestFields)).from(configs).innerJoin(configVersions, currentVersionJoin).where(where)
		)
	const personalLatest = latestWhere(personalKey)
	const teamLatest = latestWhere(teamKey)
	const byIdWithData = hotRows<ConfigWithData>(
		client,
		db
			.select(aliased(withData))
			.from(configs)
			.innerJoin(configVersions, currentVersionJoin)
			.where(eq(configs.id, p('id')))
	)
	const metaById = hotRows<ConfigRow>(
		client,
		db
			.select(aliased(configFields))
			.from(configs)
			.where(eq(configs.id, p('id')))
	)

	// The write path, as statements built once and run on Bun.SQL's transaction directly (see rows.ts).
	const teamAliveShare = statement(
		db
			.select({ id: teams.id })
			.from(teams)
			.where(and(eq(teams.id, p('teamId')), isNull(teams.deletedAt)))
			.for('share')
	)
	const currentPersonal = statement<ConfigRow>(
		db.select(aliased(configFields)).from(configs).where(personalKey).for('update')
	)
	const currentTeam = statement<ConfigRow>(db.select(aliased(configFields)).from(configs).where(teamKey).for('update'))
	const currentById = statement<ConfigRow>(
		db
			.select(aliased(configFields))
			.from(configs)
			.where(eq(configs.id, p('id')))
			.for('update')
	)
	const pendingKey = statement<{ value: string }>(
		db.select({ value: meta.value }).from(meta).where(eq(meta.key, PENDING_KEY_META))
	)
	const insertConfig = statement(
		db.insert(configs).values({
			id: p('id'),
			userId: p('userId'),
			teamId: p('teamId'),
			name: p('name'),
			tool: p('tool'),
			version: 1,
			hash: p('hash'),
			currentVersionId: p('versionId'),
			createdAt: p('at'),
			updatedAt: p('at'),
			storedBytes: p('bytes')
		})
	)
	const insertVersion = statement(
		db.insert(configVersions).values({
			id: p('versionId'),
			configId: p('id'),
			version: p('version'),
			hash: p('hash'),
			data: p('data'),
			createdAt: p('at')
		})
	)
	const setCurrent = statement(
		db
			.update(configs)
			.set({
				version: sql`${p('version')}`,
				hash: sql`${p('hash')}`,
				currentVersionId: sql`${p('versionId')}`,
				updatedAt: sql`${p('at')}`,
				storedBytes: sql`${configs.storedBytes} + ${p('bytes')}`
			})
			.where(eq(configs.id, p('id')))
	)
	const audit = auditStatement(db)
	const pending = async (tx: BunSQL) => (await pendingKey(tx))[0]?.value

	/** Appends version n+1 to `current` (whose row this transaction has locked) and makes it current. */
	const append = async (
		tx: BunSQL,
		current: ConfigRow,
		hash: string,
		seal: SealFor,
		versionId: string,
		at: string
	): Promise<ConfigRow> => {
		const version = current.version + 1
		const data = seal(current.id, versionId, await pending(tx))
		await insertVersion(tx, { id: current.id, versionId, version, hash, data, at })
		await setCurrent(tx, { id: current.id, version, hash, versionId, at, bytes: data.byteLength })
		return { ...current, version, hash, currentVersionId: versionId, updatedAt: at }
	}

	/** Records a stored version with the config's id and the version number, known only here. */
	const auditVersion = (tx: BunSQL, event: AuditEvent | undefined, configId: string, version: number) =>
		audit(
			tx,
			event && {
				...event,
				target: { type: 'config', ...event.target, id: configId },
				details: { ...event.details, version }
			}
		)

	/** A transaction on Bun.SQL itself; its queries run one after another on one connection. */
	const begin = <T>(work: (tx: BunSQL) => Promise<T>): Promise<T> =>
		client.begin((tx) => work(tx as unknown as BunSQL)) as Promise<T>

	const push = (input: PushInput) =>
		begin(async (tx): Promise<PushResult> => {
			const { owner } = input
			// A share lock on a live team: a deletion of the team waits for this push, and a push after it sees it gone.
			if (owner.teamId !== null && (await teamAliveShare(tx, { teamId: owner.teamId })).length === 0)
				return { kind: 'team_gone' }
			await tx.unsafe(LOCK_SQL, [
				lockKey('config', owner.teamId ?? '', owner.teamId === null ? owner.userId : '', input.name, input.tool)
			])
			const key = { name: input.name, tool: input.tool }
			const [current] =
				owner.teamId === null
					? await currentPersonal(tx, { userId: owner.userId, ...key })
					: await currentTeam(tx, { teamId: owner.teamId, ...key })
			if (conditionFails(input.condition, current)) {
				return {
					kind: 'precondition_failed',
					current: current ? { version: current.version, hash: current.hash } : null
				}
			}
			if (!current) {
				const configId = input.newConfigId
				const versionId = input.newVersionId
				const config: ConfigRow = {
					id: configId,
					userId: owner.userId,
					teamId: owner.teamId,
					name: input.name,
					tool: input.tool,
					version: 1,
					hash: input.hash,
					currentVersionId: versionId,
					createdAt: input.at,
					updatedAt: input.at
				}
				const data = input.seal(configId, versionId, await pending(tx))
				await insertConfig(tx, {
					id: configId,
					userId: owner.userId,
					teamId: owner.teamId,
					name: input.name,
					tool: input.tool,
					hash: input.hash,
					versionId,
					at: input.at,
					bytes: data.byteLength
				})
				await insertVersion(tx, {
					id: configId,
					versionId,
					version: 1,
					hash: input.hash,
					data,
					at: input.at
				})
				await auditVersion(tx, input.audit, configId, 1)
				return { kind: 'created', config }
			}
			if (current.hash === input.hash) return { kind: 'unchanged', config: current }
			const updated = await append(tx, current, input.hash, input.seal, input.newVersionId, input.at)
			await auditVersion(tx, input.audit, current.id, updated.version)
			return { kind: 'updated', config: updated }
		})

	return {
		push,
		// Quotas (docs/operations.md): summed over the owner's few configs, each of which keeps its versions' total.
		storedBytes: async (owner) =>
			Number(
				(
					await db
						.select({ bytes: sum(configs.storedBytes) })
						.from(configs)
						.where(
							owner.teamId === null
								? and(eq(configs.userId, owner.userId), isNull(configs.teamId))
								: eq(configs.teamId, owner.teamId)
						)
				)[0]?.bytes ?? 0
			),
		nthPushSince: async (userId, sinceId, n) =>
			(
				await db
					.select({ at: auditEvents.at })
					.from(auditEvents)
					.where(
						and(
							eq(auditEvents.actorUserId, userId),
							gte(auditEvents.id, sinceId),
							eq(auditEvents.type, 'config.pushed')
						)
					)
					.orderBy(desc(auditEvents.id))
					.limit(1)
					.offset(n - 1)
			)[0]?.at,
		appendVersion: (input) =>
			begin(async (tx): Promise<VersionRow | undefined> => {
				const [current] = await currentById(tx, { id: input.configId })
				if (!current) return undefined
				const next = await append(tx, current, input.hash, input.seal, input.newVersionId, input.at)
				await auditVersion(tx, input.audit, current.id, next.version)
				return {
					id: input.newVersionId,
					configId: next.id,
					version: next.version,
					hash: next.hash,
					createdAt: input.at
				}
			}),
		findByKey: (owner, name, tool) =>
			owner.teamId === null
				? personalLatest.get({ userId: owner.userId, name, tool })
				: teamLatest.get({ teamId: owner.teamId, name, tool }),
		findById: (id) => byIdWithData.get({ id }),
		findMetaById: (id) => metaById.get({ id }),
		listVisible: async (user, page) => visibleConfigs(db, user, page),
		listPersonal: (userId, page) => configsPage(and(eq(configs.userId, userId), isNull(configs.teamId)), page),
		listForTeam: (teamId, page) => configsPage(eq(configs.teamId, teamId), page),
		remove: (id, event) =>
			db.transaction(async (tx) => {
				const removed = (await tx.delete(configs).where(eq(configs.id, id)).returning({ id: configs.id })).length > 0
				if (removed) await writeAudit(tx, event)
				return removed
			}),
		async listVersions(configId, page = {}) {
			const query = db
				.select({ ...versionFields, sealed: configVersions.data })
				.from(configVersions)
				.where(
					and(
						eq(configVersions.configId, configId),
						page.before === undefined ? undefined : lt(configVersions.version, page.before)
					)
				)
				.orderBy(desc(configVersions.version))
			return (await (page.limit === undefined ? query : query.limit(page.limit))) as VersionWithData[]
		},
		async versionNumbers(configId, page) {
			const rows = await db
				.select({ version: configVersions.version })
				.from(configVersions)
				.where(
					and(
						eq(configVersions.configId, configId),
						page.before === undefined ? undefined : lt(configVersions.version, page.before)
					)
				)
				.orderBy(desc(configVersions.version))
				.limit(page.limit)
			return rows.map((row) => row.version)
		},
		findVersion: async (configId, versionId) =>
			(
				await db
					.select({ ...versionFields, sealed: configVersions.data })
					.from(configVersions)
					.where(and(eq(configVersions.configId, configId), eq(configVersions.id, versionId)))
			)[0] as VersionWithData | undefined,
		sealedPage: async (afterId, limit) =>
			db
				.select({ id: configVersions.id, configId: configVersions.configId, sealed: configVersions.data })
				.from(configVersions)
				.where(gt(configVersions.id, afterId ?? ''))
				.orderBy(asc(configVersions.id))
				.limit(limit),
		newestSealed: async () =>
			(
				await db
					.select({ id: configVersions.id, configId: configVersions.configId, sealed: configVersions.data })
					.from(configVersions)
					.orderBy(desc(configVersions.id))
					.limit(1)
			)[0],
		reseal: (records) =>
			db.transaction(async (tx) => {
				let replaced = 0
				for (const chunk of resealChunks(records)) {
					const rows = sql.join(
						chunk.map((record) => sql`(${record.id}::text, ${record.from}::bytea, ${record.to}::bytea)`),
						sql`, `
					)
					const swapped = await tx.execute<{ id: string }>(sql`
						UPDATE ${configVersions} AS v SET data = s.to_data
						FROM (VALUES ${rows}) AS s(id, from_data, to_data)
						WHERE v.id = s.id AND v.data = s.from_data
						RETURNING v.id`)
					replaced += swapped.length
				}
				return replaced
			}),
		importMany: (items) =>
			db.transaction(async (tx) => {
				const configRows = items.map((item) => item.config)
				const versionRows = items.flatMap(({ config, versions }) =>
					versions.map((version) => ({
						id: version.id,
						configId: config.id,
						version: version.version,
						hash: version.hash,
						data: version.sealed,
						createdAt: version.createdAt
					}))
				)
				for (let i = 0; i < configRows.length; i += BULK_ROWS)
					await tx.insert(configs).values(configRows.slice(i, i + BULK_ROWS))
				for (let i = 0; i < versionRows.length; i += BULK_ROWS)
					await tx.insert(configVersions).values(versionRows.slice(i, i + BULK_ROWS))
			})
	}
}
