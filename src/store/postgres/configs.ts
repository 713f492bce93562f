import type { SQL as BunSQL } from 'bun'
import { and, asc, desc, eq, gt, isNull, lt, sql, type SQL } from 'drizzle-orm'
import { PENDING_KEY_META } from '../../lib/key-check'
import { aliased, conditionFails } from '../shared'
import type { AuditEvent, ConfigRow, ConfigStore, ConfigWithData, LatestRow, Owner, PushInput, PushResult, SealFor, VersionRow, VersionWithData } from '../types'
import { writeAudit } from './audit'
import type { PgDb, PgTx } from './client'
import { lockName } from './locks'
import { hotRows } from './rows'
import { configs, configVersions, meta, teams } from './schema'

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
const ownerKey = (owner: Owner) =>
	owner.teamId === null
		? and(eq(configs.userId, owner.userId), isNull(configs.teamId))
		: eq(configs.teamId, owner.teamId)

/**
 * Configs and their versions on PostgreSQL (CONTRACT §9). A push takes an
 * advisory lock on (owner, name, tool) and then the config's row, so
 * concurrent first pushes make one config and versions stay contiguous
 * across instances; a rollback takes the same row lock.
 */
export function postgresConfigs(db: PgDb, client: BunSQL): ConfigStore {
	const currentVersionJoin = eq(configVersions.id, configs.currentVersionId)
	const personalKey = and(eq(configs.userId, p('userId')), isNull(configs.teamId), eq(configs.name, p('name')), eq(configs.tool, p('tool')))
	const teamKey = and(eq(configs.teamId, p('teamId')), eq(configs.name, p('name')), eq(configs.tool, p('tool')))
	// The reads every sync client makes; see rows.ts for why they bypass Drizzle's row mapper.
	const latestWhere = (where: SQL | undefined) =>
		hotRows<LatestRow>(client, db.select(aliased(latestFields)).from(configs).innerJoin(configVersions, currentVersionJoin).where(where))
	const personalLatest = latestWhere(personalKey)
	const teamLatest = latestWhere(teamKey)
	const byIdWithData = hotRows<ConfigWithData>(
		client,
		db.select(aliased(withData)).from(configs).innerJoin(configVersions, currentVersionJoin).where(eq(configs.id, p('id')))
	)
	const metaById = hotRows<ConfigRow>(client, db.select(aliased(configFields)).from(configs).where(eq(configs.id, p('id'))))

	const pending = async (tx: PgTx) => (await tx.select({ value: meta.value }).from(meta).where(eq(meta.key, PENDING_KEY_META)))[0]?.value

	const insertVersion = (tx: PgTx, configId: string, versionId: string, version: number, hash: string, data: Uint8Array, at: string) =>
		tx.insert(configVersions).values({ id: versionId, configId, version, hash, data, createdAt: at })

	/** Appends version n+1 to `current` (whose row this transaction has locked) and makes it current. */
	const append = async (tx: PgTx, current: ConfigRow, hash: string, seal: SealFor, versionId: string, at: string): Promise<ConfigRow> => {
		const version = current.version + 1
		await insertVersion(tx, current.id, versionId, version, hash, seal(current.id, versionId, await pending(tx)), at)
		await tx.update(configs).set({ version, hash, currentVersionId: versionId, updatedAt: at }).where(eq(configs.id, current.id))
		return { ...current, version, hash, currentVersionId: versionId, updatedAt: at }
	}

	/** Records a stored version with the config's id and the version number, known only here. */
	const auditVersion = (tx: PgTx, event: AuditEvent | undefined, configId: string, version: number) =>
		writeAudit(tx, event && { ...event, target: { type: 'config', ...event.target, id: configId }, details: { ...event.details, version } })

	const push = (input: PushInput) =>
		db.transaction(async (tx): Promise<PushResult> => {
			const { owner } = input
			// A share lock on a live team: a deletion of the team waits for this push, and a push after it sees it gone.
			if (owner.teamId !== null) {
				const alive = await tx.select({ id: teams.id }).from(teams).where(and(eq(teams.id, owner.teamId), isNull(teams.deletedAt))).for('share')
				if (alive.length === 0) return { kind: 'team_gone' }
			}
			await lockName(tx, 'config', owner.teamId ?? '', owner.teamId === null ? owner.userId : '', input.name, input.tool)
			const [current] = (await tx
				.select(configFields)
				.from(configs)
				.where(and(ownerKey(owner), eq(configs.name, input.name), eq(configs.tool, input.tool)))
				.for('update')) as ConfigRow[]
			if (conditionFails(input.condition, current)) {
				return { kind: 'precondition_failed', current: current ? { version: current.version, hash: current.hash } : null }
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
				await tx.insert(configs).values(config)
				await insertVersion(tx, configId, versionId, 1, input.hash, input.seal(configId, versionId, await pending(tx)), input.at)
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
		appendVersion: (input) =>
			db.transaction(async (tx): Promise<VersionRow | undefined> => {
				const [current] = (await tx.select(configFields).from(configs).where(eq(configs.id, input.configId)).for('update')) as ConfigRow[]
				if (!current) return undefined
				const next = await append(tx, current, input.hash, input.seal, input.newVersionId, input.at)
				await auditVersion(tx, input.audit, current.id, next.version)
				return { id: input.newVersionId, configId: next.id, version: next.version, hash: next.hash, createdAt: input.at }
			}),
		findByKey: (owner, name, tool) =>
			owner.teamId === null ? personalLatest.get({ userId: owner.userId, name, tool }) : teamLatest.get({ teamId: owner.teamId, name, tool }),
		findById: (id) => byIdWithData.get({ id }),
		findMetaById: (id) => metaById.get({ id }),
		listPersonal: async (userId) =>
			(await db
				.select(configFields)
				.from(configs)
				.where(and(eq(configs.userId, userId), isNull(configs.teamId)))
				.orderBy(sql`${configs.name} COLLATE "C"`, sql`${configs.tool} COLLATE "C"`)) as ConfigRow[],
		listForTeam: async (teamId) =>
			(await db
				.select(configFields)
				.from(configs)
				.where(eq(configs.teamId, teamId))
				.orderBy(sql`${configs.name} COLLATE "C"`, sql`${configs.tool} COLLATE "C"`)) as ConfigRow[],
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
				.where(and(eq(configVersions.configId, configId), page.before === undefined ? undefined : lt(configVersions.version, page.before)))
				.orderBy(desc(configVersions.version))
			return (await (page.limit === undefined ? query : query.limit(page.limit))) as VersionWithData[]
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
		reseal: (records) =>
			db.transaction(async (tx) => {
				let replaced = 0
				for (const record of records) {
					const rows = await tx
						.update(configVersions)
						.set({ data: record.to })
						.where(and(eq(configVersions.id, record.id), eq(configVersions.data, record.from)))
						.returning({ id: configVersions.id })
					replaced += rows.length
				}
				return replaced
			}),
		importMany: (items) =>
			db.transaction(async (tx) => {
				const configRows = items.map((item) => item.config)
				const versionRows = items.flatMap(({ config, versions }) =>
					versions.map((version) => ({ id: version.id, configId: config.id, version: version.version, hash: version.hash, data: version.sealed, createdAt: version.createdAt }))
				)
				for (let i = 0; i < configRows.length; i += BULK_ROWS) await tx.insert(configs).values(configRows.slice(i, i + BULK_ROWS))
				for (let i = 0; i < versionRows.length; i += BULK_ROWS) await tx.insert(configVersions).values(versionRows.slice(i, i + BULK_ROWS))
			})
	}
}
