import { toIso, type Clock } from '../../lib/clock'
import { canonicalJson, InexactValueError } from '../../../shared/content-hash'
import { DATA_MAX_BYTES } from '../../../shared/constants'
import { sha256Hex, type Sealer } from '../../lib/crypto'
import { PENDING_KEY_META } from '../../lib/key-check'
import type { Logger } from '../../lib/log'
import { AppError } from '../../lib/errors'
import { newId } from '../../lib/ids'
import type { Caller, ConfigRow, ListPage, Owner, Store, VersionWithData } from '../../store/types'

/** What the routes and pages pass through to this service: a list's page. */
export type { ListPage } from '../../store/types'
import { createAuditEvents, type Actor } from '../audit/event'
import type {
	LatestQuery,
	PushBody,
	PushCondition,
	RolledBack,
	Usage,
	VersionsQuery
} from '../../../shared/api/configs'
import type { ConfigPolicy } from './policy'
import { createQuota, DEFAULT_QUOTAS, type QuotaLimits } from './quota'

/** AAD of a version record: its ciphertext only opens in this row of this config (docs/operations.md). */
const aad = (configId: string, versionId: string) => `${configId}:${versionId}`

/** One page of a config's history; `next` is the `before` cursor of the following page when more remain. */
export interface VersionsPage {
	versions: AsyncIterable<VersionView>
	next?: number
}

/** A stored document whose `data` is kept as the UTF-8 JSON bytes it was stored as, so it is sent without re-parsing. */
export interface WithData<T> {
	fields: T
	data: Buffer
}

/** A version as stored is its JSON plus the nonce and tag of AES-256-GCM: what a quota check adds before sealing. */
const SEALED_OVERHEAD = 28

/** Versions read per query while a list streams: at most 8 × 512 KiB in memory per request. */
const VERSION_PAGE = 8

export type VersionView = WithData<{ id: string; version: number; hash: string; createdAt: string; isCurrent: boolean }>

export type Conditional<T> = { notModified: true; hash: string } | ({ notModified: false; hash: string } & T)

const summary = (config: Pick<ConfigRow, 'id' | 'name' | 'tool' | 'version' | 'hash' | 'updatedAt'>) => ({
	id: config.id,
	name: config.name,
	tool: config.tool,
	version: config.version,
	hash: config.hash,
	updatedAt: config.updatedAt
})

/** RFC 9110 weak comparison for If-None-Match on reads. */
const matchesAny = (tags: string[] | '*' | undefined, hash: string) =>
	tags !== undefined && (tags === '*' || tags.includes(hash))

export function createConfigsService({
	store,
	sealer,
	clock,
	policy,
	metrics,
	logger,
	sealingAllowed = () => true,
	quotas = DEFAULT_QUOTAS
}: {
	store: Store
	sealer: Sealer
	/** Where an unreadable version is named (docs/operations.md). */
	logger?: Pick<Logger, 'error'>
	clock: Clock
	policy: ConfigPolicy
	metrics?: { push(result: 'created' | 'updated' | 'unchanged'): void }
	/** False while this server may have missed a key rotation (jobs/heartbeat.ts): it then seals nothing. */
	sealingAllowed?: () => boolean
	/** docs/operations.md: CFGSYNC_QUOTA_BYTES and CFGSYNC_QUOTA_PUSHES_PER_MINUTE. */
	quotas?: QuotaLimits
}) {
	const quota = createQuota({ store, clock, limits: quotas })
	/**
	 * Quotas (docs/operations.md), before a version is stored: the user's pushes a minute (`rate`) and the owner's
	 * bytes. A refusal is only for a version that would be stored: a push of the current content changes
	 * nothing and always goes through (looked up only on the way to a refusal).
	 */
	const withinQuota = async (
		owner: Owner,
		userId: string,
		incoming: number,
		rate: boolean,
		unchanged: () => Promise<boolean>
	) => {
		try {
			if (rate) await quota.checkRate(userId)
			await quota.checkBytes(owner, incoming)
		} catch (error) {
			if (error instanceof AppError && (await unchanged())) return
			throw error
		}
	}
	const mustBeAbleToSeal = () => {
		if (!sealingAllowed()) {
			throw new AppError(
				'unavailable',
				'This server lost touch with the database for a few seconds and is catching up; try again shortly.',
				{ headers: { 'retry-after': '2' } }
			)
		}
	}
	/**
	 * The record's plaintext under a key this process knows, or, during a key
	 * rotation (docs/operations.md), a promise of it once the rotation's new key is
	 * learned from the database: the common case stays synchronous.
	 */
	const open = (configId: string, versionId: string, sealed: Uint8Array): Buffer | Promise<Buffer> => {
		try {
			return sealer.openBytes(sealed, aad(configId, versionId))
		} catch {
			return learnAndOpen(configId, versionId, sealed)
		}
	}
	async function learnAndOpen(configId: string, versionId: string, sealed: Uint8Array): Promise<Buffer> {
		const pending = await store.meta.get(PENDING_KEY_META)
		if (pending !== undefined) sealer.learn(pending)
		try {
			return sealer.openBytes(sealed, aad(configId, versionId))
		} catch {
			// docs/operations.md: one version no key opens (damaged, or sealed under a key this server lacks) fails alone, named once.
			logger?.error('a stored version does not open under any key this server holds', { configId, versionId })
			throw new AppError(
				'unreadable',
				'This version cannot be decrypted on this server (its record is damaged or was sealed under another master key); the other versions are unaffected. The server log names it.'
			)
		}
	}
	const event = createAuditEvents(clock)
	/** How a config is named in the audit log: never its data. */
	const targetOf = (config: Pick<ConfigRow, 'id' | 'tool' | 'name'>) => ({
		type: 'config' as const,
		id: config.id,
		name: `${config.tool}/${config.name}`
	})

	/** The config by id if the caller may do `action` on it; 404 otherwise. */
	async function visible(
		caller: Caller,
		id: string,
		action: 'read' | 'write' | 'history' | 'rollback'
	): Promise<ConfigRow> {
		const config = await store.configs.findMetaById(id)
		if (!config) throw new AppError('not_found', 'No such config.')
		await policy.authorize(caller, config, action)
		return config
	}

	const versionView = async (version: VersionWithData, currentVersionId: string): Promise<VersionView> => ({
		fields: {
			id: version.id,
			version: version.version,
			hash: version.hash,
			createdAt: version.createdAt,
			isCurrent: version.id === currentVersionId
		},
		data: await open(version.configId, version.id, version.sealed)
	})

	return {
		/** docs/operations.md: what the caller and each of their teams store, against the limits (GET /api/usage, Account). */
		async usage(caller: Pick<Caller, 'userId'>): Promise<Usage> {
			const teams = (await store.teams.listForUser(caller.userId)).filter((team) => team.deletedAt === null)
			return {
				bytes: { used: await quota.usedBytes({ userId: caller.userId, teamId: null }), limit: quotas.bytes },
				pushesPerMinute: quotas.pushesPerMinute,
				teams: await Promise.all(
					teams.map(async (team) => ({
						id: team.id,
						slug: team.slug,
						name: team.name,
						bytes: { used: await quota.usedBytes({ userId: caller.userId, teamId: team.id }), limit: quotas.bytes }
					}))
				)
			}
		},

		/**
		 * docs/api.md, push: 201 for a new config, 200 with the next version for changed
		 * data, 200 noChange for identical content (key order aside). Data is
		 * checked (400, 413) before access (404, 403), as docs/api.md orders them.
		 */
		async push(actor: Actor, body: PushBody, condition: PushCondition | undefined) {
			const dataJson = JSON.stringify(body.data)
			if (Buffer.byteLength(dataJson, 'utf8') > DATA_MAX_BYTES) {
				throw new AppError('payload_too_large', 'data is larger than 512 KiB (524,288 bytes of UTF-8 JSON).')
			}
			let hash: string
			try {
				hash = sha256Hex(canonicalJson(body.data))
			} catch (error) {
				if (!(error instanceof InexactValueError)) throw error
				const path = ['data', ...error.path].join('.')
				throw new AppError('invalid_request', `${path} ${error.reason}.`, {
					details: [{ path, message: error.reason }]
				})
			}
			const owner = await policy.scope(actor, body.teamId, 'write')
			mustBeAbleToSeal()
			const incoming = Buffer.byteLength(dataJson, 'utf8') + SEALED_OVERHEAD
			await withinQuota(owner, actor.userId, incoming, true, async () => {
				const current = await store.configs.findByKey(owner, body.name, body.tool)
				return current?.hash === hash
			})
			let sealedBytes = 0
			const result = await store.configs.push({
				owner,
				name: body.name,
				tool: body.tool,
				hash,
				seal: (configId, versionId, pending) => {
					const sealed = sealer.seal(dataJson, aad(configId, versionId), pending)
					sealedBytes = sealed.byteLength
					return sealed
				},
				newConfigId: newId(),
				newVersionId: newId(),
				at: toIso(clock.now()),
				condition,
				audit: event('config.pushed', actor, {
					teamId: owner.teamId,
					target: { type: 'config', name: `${body.tool}/${body.name}` }
				})
			})
			if (result.kind === 'created' || result.kind === 'updated' || result.kind === 'unchanged')
				metrics?.push(result.kind)
			if (result.kind === 'created' || result.kind === 'updated') quota.stored(owner, actor.userId, sealedBytes)
			switch (result.kind) {
				case 'created':
				case 'updated': {
					const { id, name, tool, version, updatedAt, hash: stored } = result.config
					return { kind: result.kind, hash: stored, body: { id, name, tool, version, updatedAt } }
				}
				case 'unchanged': {
					const { id, name, tool, hash: stored } = result.config
					const body = {
						id,
						name,
						tool,
						message: 'No change: the data equals the current version.',
						noChange: true as const
					}
					return { kind: result.kind, hash: stored, body }
				}
				case 'precondition_failed':
					throw new AppError(
						'precondition_failed',
						result.current
							? `The config has moved on to version ${result.current.version}; pull it first, or push without If-Match to overwrite.`
							: 'The config does not exist, so If-Match cannot hold.',
						{ extra: { currentVersion: result.current?.version ?? null, currentHash: result.current?.hash ?? null } }
					)
				case 'team_gone':
					throw new AppError('not_found', 'No such team.')
			}
		},

		/** Personal configs, or a team's when teamId is given (any member). */
		/** The caller's configs or a team's by name and tool: a page of them, with the cursor of the next when more remain. */
		async list(caller: Caller, teamId: string | undefined, page?: { limit: number; after?: string }) {
			const owner = await policy.scope(caller, teamId, 'read')
			const [name = '', tool = ''] = page?.after?.split(':') ?? []
			// One more than the page: whether it came says whether a next page exists.
			const rows = { after: page?.after ? { name, tool } : undefined, limit: (page?.limit ?? 0) + 1 }
			const found =
				owner.teamId === null
					? await store.configs.listPersonal(owner.userId, page && rows)
					: await store.configs.listForTeam(owner.teamId, page && rows)
			const more = page !== undefined && found.length > page.limit
			const configs = more ? found.slice(0, page.limit) : found
			const last = configs.at(-1)
			return { configs: configs.map(summary), next: more && last ? `${last.name}:${last.tool}` : undefined }
		},

		/** Which of these configs (at most a page's) still exist and the caller may read: the Activity page links those. */
		async readable(caller: Caller, ids: string[]): Promise<Set<string>> {
			const found = new Set<string>()
			for (const id of new Set(ids)) {
				try {
					await visible(caller, id, 'read')
					found.add(id)
				} catch (error) {
					if (!(error instanceof AppError)) throw error
				}
			}
			return found
		},

		/** docs/web.md, search: a page of the configs the caller sees (their own and their teams'), with each one's team. */
		async listVisible(caller: Caller, page: ListPage) {
			return (await store.configs.listVisible(caller.userId, page)).map((row) => ({
				...summary(row),
				team: row.teamSlug === null ? null : { name: row.teamName ?? row.teamSlug, slug: row.teamSlug }
			}))
		},

		/** docs/api.md, latest by name and tool; `ifNoneMatch` lets a poller get 304 without the data being decrypted. */
		async latest(
			caller: Caller,
			query: LatestQuery,
			ifNoneMatch: string[] | '*' | undefined
		): Promise<Conditional<WithData<ReturnType<typeof summary>>>> {
			const owner = await policy.scope(caller, query.teamId, 'read')
			const config = await store.configs.findByKey(owner, query.name, query.tool)
			if (!config) throw new AppError('not_found', `No config named "${query.name}" for ${query.tool}.`)
			if (matchesAny(ifNoneMatch, config.hash)) return { notModified: true, hash: config.hash }
			const data = open(config.id, config.currentVersionId, config.sealed)
			return {
				notModified: false,
				hash: config.hash,
				fields: summary(config),
				data: data instanceof Buffer ? data : await data
			}
		},

		/** docs/api.md, get by id: the full Config object. */
		async get(caller: Caller, id: string, ifNoneMatch: string[] | '*' | undefined) {
			const config = await store.configs.findById(id)
			if (!config) throw new AppError('not_found', 'No such config.')
			await policy.authorize(caller, config, 'read')
			if (matchesAny(ifNoneMatch, config.hash)) return { notModified: true as const, hash: config.hash }
			const { sealed, ...fields } = config
			return {
				notModified: false as const,
				hash: config.hash,
				fields,
				data: await open(config.id, config.currentVersionId, sealed)
			}
		},

		/** Deletes the config and all its versions (one statement: the cascade is atomic). */
		async remove(actor: Actor, id: string): Promise<void> {
			const config = await visible(actor, id, 'write')
			const removed = await store.configs.remove(
				id,
				event('config.deleted', actor, {
					teamId: config.teamId,
					target: targetOf(config),
					details: { version: config.version }
				})
			)
			if (!removed) throw new AppError('not_found', 'No such config.')
		},

		/**
		 * Versions, highest first; the one the config points to has isCurrent.
		 * Access is checked now; the versions are then read a page at a time
		 * as the consumer asks for them, so a long history of large versions
		 * is never held in memory whole. Versions never change once written,
		 * so paging by number is consistent with the list as it was at the start.
		 */
		async versions(caller: Caller, id: string, page: VersionsQuery): Promise<VersionsPage> {
			const config = await visible(caller, id, 'history')
			// The numbers alone (no data) say whether more remain, before the first byte is sent.
			const numbers = await store.configs.versionNumbers(id, { before: page.before, limit: page.limit + 1 })
			const next = numbers.length > page.limit ? numbers[page.limit - 1] : undefined
			const versions = (async function* () {
				let remaining = page.limit
				let before = page.before
				while (remaining > 0) {
					const batch = await store.configs.listVersions(id, { before, limit: Math.min(remaining, VERSION_PAGE) })
					for (const version of batch) yield await versionView(version, config.currentVersionId)
					if (batch.length < VERSION_PAGE) return
					remaining -= batch.length
					before = (batch[batch.length - 1] as VersionWithData).version
				}
			})()
			return { versions, next }
		},

		async version(caller: Caller, id: string, versionId: string) {
			const config = await visible(caller, id, 'history')
			const version = await store.configs.findVersion(id, versionId)
			if (!version) throw new AppError('not_found', 'No such version of this config.')
			return versionView(version, config.currentVersionId)
		},

		/** docs/api.md: always a new version carrying the target's data and hash, even if it equals the current one. */
		async rollback(actor: Actor, id: string, versionId: string): Promise<RolledBack> {
			const config = await visible(actor, id, 'rollback')
			const target = await store.configs.findVersion(id, versionId)
			if (!target) throw new AppError('not_found', 'No such version of this config.')
			const data = await open(id, target.id, target.sealed)
			mustBeAbleToSeal()
			// A rollback stores a version too: it counts against the owner's bytes (not against the pushes a minute).
			const owner = { userId: config.userId, teamId: config.teamId }
			await withinQuota(owner, actor.userId, data.byteLength + SEALED_OVERHEAD, false, async () => false)
			let sealedBytes = 0
			const appended = await store.configs.appendVersion({
				configId: id,
				hash: target.hash,
				seal: (configId, newVersionId, pending) => {
					const sealed = sealer.seal(data, aad(configId, newVersionId), pending)
					sealedBytes = sealed.byteLength
					return sealed
				},
				newVersionId: newId(),
				at: toIso(clock.now()),
				audit: event('config.rolled_back', actor, {
					teamId: config.teamId,
					target: targetOf(config),
					details: { restored: target.version }
				})
			})
			if (!appended) throw new AppError('not_found', 'No such config.')
			quota.stored(owner, actor.userId, sealedBytes)
			return {
				id: appended.id,
				version: appended.version,
				hash: appended.hash,
				createdAt: appended.createdAt,
				isCurrent: true
			}
		}
	}
}

export type ConfigsService = ReturnType<typeof createConfigsService>
