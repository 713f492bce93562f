import { and, asc, desc, eq, gt, isNull, lt, sql, type SQL, gte, sum } from 'drizzle-orm'
import type { Database } from 'bun:sqlite'
import type {
	AuditEvent,
	ConfigRow,
	ConfigsPage,
	ConfigStore,
	ConfigWithData,
	LatestRow,
	Owner,
	PushInput,
	PushResult,
	SealedRecord,
	SealFor,
	VersionRow,
	VersionWithData
} from '../types'
import type { AuditWriter } from './audit'
import { type SqliteDb, writerWhenFree } from './client'
import { changed } from './errors'
import { rememberedRows } from './remembered'
import { hotRows } from './rows'
import { aliased, conditionFails, containsAny, type ListPage, visiblePage } from '../shared'
import { PENDING_KEY_META } from '../../lib/key-check'
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

const id = sql.placeholder('id')
const userId = sql.placeholder('userId')
const teamId = sql.placeholder('teamId')
const name = sql.placeholder('name')
const tool = sql.placeholder('tool')

/**
 * Configs and their versions. Every statement is prepared once: bun:sqlite
 * would otherwise re-prepare per call, which costs more than the query.
 */
/**
 * docs/web.md, search: a page of the configs a user sees, found in the database (the personal key and the
 * team key indexes narrow it to the user's configs before the search filters them).
 */
async function visibleConfigs(db: SqliteDb, userId: string, page: ListPage) {
	const end = page.offset + page.limit
	const search = containsAny([configs.name, configs.tool], page.search)
	const scan = (scope: SQL | undefined, team: { name: string; slug: string } | null) => async () =>
		(
			db
				.select(configFields)
				.from(configs)
				.where(and(scope, search))
				.orderBy(asc(configs.name), asc(configs.tool))
				.limit(end)
				.all() as ConfigRow[]
		).map((row) => ({ ...row, teamName: team?.name ?? null, teamSlug: team?.slug ?? null }))
	const live = db
		.select({ id: teams.id, name: teams.name, slug: teams.slug })
		.from(teamMembers)
		.innerJoin(teams, eq(teams.id, teamMembers.teamId))
		.where(and(eq(teamMembers.userId, userId), isNull(teams.deletedAt)))
		.all()
	return visiblePage(
		[
			scan(and(eq(configs.userId, userId), isNull(configs.teamId)), null),
			...live.map((team) => scan(eq(configs.teamId, team.id), team))
		],
		page
	)
}

export function sqliteConfigs(
	db: SqliteDb,
	sqlite: Database,
	audit: AuditWriter,
	/** The remembered callers (keys.ts): a push changes no key or user, so it need not make them forget. */
	callers: { unaffectedBy<T>(write: () => T): T } = { unaffectedBy: (write) => write() }
): ConfigStore {
	const currentVersionJoin = eq(configVersions.id, configs.currentVersionId)
	const personalKey = and(
		eq(configs.userId, userId),
		isNull(configs.teamId),
		eq(configs.name, name),
		eq(configs.tool, tool)
	)
	const teamKey = and(eq(configs.teamId, teamId), eq(configs.name, name), eq(configs.tool, tool))

	// The reads every sync client makes; see rows.ts for why they bypass Drizzle's row mapper.
	const latestWhere = (where: SQL | undefined) =>
		hotRows<LatestRow>(
			sqlite,
			db.select(aliased(latestFields)).from(configs).innerJoin(configVersions, currentVersionJoin).where(where)
		)
	const withDataWhere = (where: SQL | undefined) =>
		hotRows<ConfigWithData>(
			sqlite,
			db.select(aliased(withData)).from(configs).innerJoin(configVersions, currentVersionJoin).where(where)
		)
	const metaWhere = (where: SQL | undefined) =>
		hotRows<ConfigRow>(sqlite, db.select(aliased(configFields)).from(configs).where(where))
	const personalLatest = latestWhere(personalKey)
	const teamLatest = latestWhere(teamKey)
	// The read every sync client polls, remembered sealed while nothing is committed (remembered.ts); at most 16 MiB of it.
	const latestRemembered = rememberedRows<LatestRow>(sqlite, {
		rows: 10_000,
		bytes: (row) => row.sealed.byteLength,
		maxBytes: 16 * 1024 * 1024
	})
	const byIdWithData = withDataWhere(eq(configs.id, id))
	const personalMeta = metaWhere(personalKey)
	const teamMeta = metaWhere(teamKey)
	const metaById = metaWhere(eq(configs.id, id))
	const teamAlive = db
		.select({ id: teams.id })
		.from(teams)
		.where(and(eq(teams.id, id), isNull(teams.deletedAt)))
		.prepare()
	// Keyset pages: everything after (afterName, afterTool); '' before every name starts at the top.
	const afterCursor = sql`(${configs.name}, ${configs.tool}) > (${sql.placeholder('afterName')}, ${sql.placeholder('afterTool')})`
	const listPersonal = db
		.select(configFields)
		.from(configs)
		.where(and(eq(configs.userId, userId), isNull(configs.teamId), afterCursor))
		.orderBy(configs.name, configs.tool)
		.limit(sql.placeholder('limit'))
		.prepare()
	const listTeam = db
		.select(configFields)
		.from(configs)
		.where(and(eq(configs.teamId, teamId), afterCursor))
		.orderBy(configs.name, configs.tool)
		.limit(sql.placeholder('limit'))
		.prepare()
	const pageOf = (page: ConfigsPage | undefined) => ({
		afterName: page?.after?.name ?? '',
		afterTool: page?.after?.tool ?? '',
		limit: page?.limit ?? -1
	})
	const insertConfig = db
		.insert(configs)
		.values({
			id,
			userId,
			teamId,
			name,
			tool,
			version: 1,
			hash: sql.placeholder('hash'),
			currentVersionId: sql.placeholder('versionId'),
			createdAt: sql.placeholder('at'),
			updatedAt: sql.placeholder('at'),
			storedBytes: sql.placeholder('bytes')
		})
		.prepare()
	const insertVersion = db
		.insert(configVersions)
		.values({
			id: sql.placeholder('versionId'),
			configId: id,
			version: sql.placeholder('version'),
			hash: sql.placeholder('hash'),
			data: sql.placeholder('data'),
			createdAt: sql.placeholder('at')
		})
		.prepare()
	const setCurrent = db
		.update(configs)
		.set({
			version: sql`${sql.placeholder('version')}`,
			hash: sql`${sql.placeholder('hash')}`,
			currentVersionId: sql`${sql.placeholder('versionId')}`,
			updatedAt: sql`${sql.placeholder('at')}`,
			storedBytes: sql`${configs.storedBytes} + ${sql.placeholder('bytes')}`
		})
		.where(eq(configs.id, id))
		.prepare()
	// Quotas (docs/operations.md): what an owner stores, summed over its few configs (each keeps its versions' total).
	const personalBytes = db
		.select({ bytes: sum(configs.storedBytes) })
		.from(configs)
		.where(and(eq(configs.userId, userId), isNull(configs.teamId)))
		.prepare()
	const teamBytes = db
		.select({ bytes: sum(configs.storedBytes) })
		.from(configs)
		.where(eq(configs.teamId, teamId))
		.prepare()
	// The n-th most recent push a user stored since an id (ids are time-ordered): the actor index, newest first.
	const nthPush = db
		.select({ at: auditEvents.at })
		.from(auditEvents)
		.where(
			and(
				eq(auditEvents.actorUserId, userId),
				gte(auditEvents.id, sql.placeholder('sinceId')),
				eq(auditEvents.type, 'config.pushed')
			)
		)
		.orderBy(desc(auditEvents.id))
		.limit(1)
		.offset(sql.placeholder('offset'))
		.prepare()
	const deleteConfig = db.delete(configs).where(eq(configs.id, id)).prepare()
	const versionsPage = db
		.select({ ...versionFields, sealed: configVersions.data })
		.from(configVersions)
		.where(and(eq(configVersions.configId, id), lt(configVersions.version, sql.placeholder('before'))))
		.orderBy(desc(configVersions.version))
		.limit(sql.placeholder('limit'))
		.prepare()
	const versionNumbersPage = db
		.select({ version: configVersions.version })
		.from(configVersions)
		.where(and(eq(configVersions.configId, id), lt(configVersions.version, sql.placeholder('before'))))
		.orderBy(desc(configVersions.version))
		.limit(sql.placeholder('limit'))
		.prepare()
	const versionById = db
		.select({ ...versionFields, sealed: configVersions.data })
		.from(configVersions)
		.where(and(eq(configVersions.configId, id), eq(configVersions.id, sql.placeholder('versionId'))))
		.prepare()

	const pendingKey = db.select({ value: meta.value }).from(meta).where(eq(meta.key, PENDING_KEY_META)).prepare()
	const pending = () => pendingKey.get()?.value

	const findMeta = (owner: Owner, configName: string, configTool: string) =>
		(owner.teamId === null
			? personalMeta.get({ userId: owner.userId, name: configName, tool: configTool })
			: teamMeta.get({ teamId: owner.teamId, name: configName, tool: configTool })) as ConfigRow | undefined

	/** Appends version n+1 to `current` and makes it current; the caller holds the write lock. */
	const append = (current: ConfigRow, hash: string, seal: SealFor, versionId: string, at: string): ConfigRow => {
		const version = current.version + 1
		const data = seal(current.id, versionId, pending())
		insertVersion.run({ id: current.id, versionId, version, hash, data, at })
		setCurrent.run({ id: current.id, version, hash, versionId, at, bytes: data.byteLength })
		return { ...current, version, hash, currentVersionId: versionId, updatedAt: at }
	}

	/** Records a stored version with the config's id and the version number, known only here. */
	const auditVersion = (event: AuditEvent | undefined, configId: string, version: number) =>
		audit(
			event && {
				...event,
				target: { type: 'config', ...event.target, id: configId },
				details: { ...event.details, version }
			}
		)

	const whenFree = writerWhenFree(sqlite)
	const pushTx = sqlite.transaction((input: PushInput): PushResult => {
		const { owner } = input
		if (owner.teamId !== null && !teamAlive.get({ id: owner.teamId })) return { kind: 'team_gone' }
		const current = findMeta(owner, input.name, input.tool)
		if (conditionFails(input.condition, current)) {
			return { kind: 'precondition_failed', current: current ? { version: current.version, hash: current.hash } : null }
		}
		if (!current) {
			const configId = input.newConfigId
			const versionId = input.newVersionId
			const data = input.seal(configId, versionId, pending())
			insertConfig.run({
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
			insertVersion.run({
				id: configId,
				versionId,
				version: 1,
				hash: input.hash,
				data,
				at: input.at
			})
			auditVersion(input.audit, configId, 1)
			return {
				kind: 'created',
				config: {
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
			}
		}
		if (current.hash === input.hash) return { kind: 'unchanged', config: current }
		const updated = append(current, input.hash, input.seal, input.newVersionId, input.at)
		auditVersion(input.audit, current.id, updated.version)
		return { kind: 'updated', config: updated }
	})

	const appendTx = sqlite.transaction((input: Parameters<ConfigStore['appendVersion']>[0]): VersionRow | undefined => {
		const current = metaById.get({ id: input.configId }) as ConfigRow | undefined
		if (!current) return undefined
		const next = append(current, input.hash, input.seal, input.newVersionId, input.at)
		auditVersion(input.audit, current.id, next.version)
		return { id: input.newVersionId, configId: next.id, version: next.version, hash: next.hash, createdAt: input.at }
	})

	const removeTx = sqlite.transaction((configId: string, event: AuditEvent | undefined) => {
		const removed = changed(deleteConfig.run({ id: configId })) > 0
		if (removed) audit(event)
		return removed
	})

	const importTx = sqlite.transaction((items: Parameters<ConfigStore['importMany']>[0]) => {
		for (const { config, versions } of items) {
			db.insert(configs).values(config).run()
			for (const version of versions) {
				insertVersion.run({
					id: config.id,
					versionId: version.id,
					version: version.version,
					hash: version.hash,
					data: version.sealed,
					at: version.createdAt
				})
			}
		}
	})

	const sealedPage = db
		.select({ id: configVersions.id, configId: configVersions.configId, sealed: configVersions.data })
		.from(configVersions)
		.where(gt(configVersions.id, sql.placeholder('after')))
		.orderBy(configVersions.id)
		.limit(sql.placeholder('limit'))
		.prepare()
	const newestSealed = db
		.select({ id: configVersions.id, configId: configVersions.configId, sealed: configVersions.data })
		.from(configVersions)
		.orderBy(desc(configVersions.id))
		.limit(1)
		.prepare()
	const resealOne = db
		.update(configVersions)
		.set({ data: sql`${sql.placeholder('to')}` })
		.where(and(eq(configVersions.id, sql.placeholder('id')), eq(configVersions.data, sql.placeholder('from'))))
		.prepare()
	const resealTx = sqlite.transaction((records: Parameters<ConfigStore['reseal']>[0]) => {
		let replaced = 0
		for (const record of records)
			replaced += changed(resealOne.run({ id: record.id, from: record.from, to: record.to }))
		return replaced
	})

	return {
		sealedPage: async (afterId, limit) => sealedPage.all({ after: afterId ?? '', limit }) as SealedRecord[],
		newestSealed: async () => newestSealed.get() as SealedRecord | undefined,
		reseal: async (records) => resealTx.immediate(records),
		importMany: async (items) => importTx.immediate(items),
		// One immediate transaction, also for unchanged data: clients that know the hash skip such
		// pushes themselves, so a read before it would only add a statement to the common case.
		push: (input) => whenFree(() => callers.unaffectedBy(() => pushTx.immediate(input))),
		storedBytes: async (owner) =>
			Number(
				(owner.teamId === null ? personalBytes.get({ userId: owner.userId }) : teamBytes.get({ teamId: owner.teamId }))
					?.bytes ?? 0
			),
		nthPushSince: async (userId, sinceId, n) => nthPush.get({ userId, sinceId, offset: n - 1 })?.at,
		appendVersion: async (input) => appendTx.immediate(input),
		findByKey: async (owner, configName, configTool) =>
			owner.teamId === null
				? latestRemembered(`p\u0000${owner.userId}\u0000${configName}\u0000${configTool}`, () =>
						personalLatest.get({ userId: owner.userId, name: configName, tool: configTool })
					)
				: latestRemembered(`t\u0000${owner.teamId}\u0000${configName}\u0000${configTool}`, () =>
						teamLatest.get({ teamId: owner.teamId, name: configName, tool: configTool })
					),
		findById: async (configId) => byIdWithData.get({ id: configId }) as ConfigWithData | undefined,
		findMetaById: async (configId) => metaById.get({ id: configId }) as ConfigRow | undefined,
		listVisible: async (user, page) => visibleConfigs(db, user, page),
		listPersonal: async (owner, page) => listPersonal.all({ userId: owner, ...pageOf(page) }) as ConfigRow[],
		listForTeam: async (team, page) => listTeam.all({ teamId: team, ...pageOf(page) }) as ConfigRow[],
		remove: async (configId, event) => removeTx.immediate(configId, event),
		listVersions: async (configId, page = {}) =>
			versionsPage.all({
				id: configId,
				before: page.before ?? Number.MAX_SAFE_INTEGER,
				limit: page.limit ?? -1
			}) as VersionWithData[],
		versionNumbers: async (configId, page) =>
			versionNumbersPage
				.all({ id: configId, before: page.before ?? Number.MAX_SAFE_INTEGER, limit: page.limit })
				.map((row) => row.version),
		findVersion: async (configId, versionId) =>
			versionById.get({ id: configId, versionId }) as VersionWithData | undefined
	}
}
