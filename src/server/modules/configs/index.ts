import { Elysia } from 'elysia'
import { z } from 'zod'
import {
	asIs,
	etagOf,
	jsonArrayResponse,
	jsonResponse,
	NO_STORE,
	notModified,
	objectWithData,
	parseEntityTags,
	strongTags,
	weakTags
} from '../../lib/http'
import type { AuthPlugin } from '../../plugins/auth'
import { headerParameters } from '../../plugins/openapi'
import { jsonBody } from '../../plugins/json-body'
import {
	ConfigIdParams,
	ConfigSummary,
	ConfigVersion,
	FullConfig,
	LatestConfig,
	LatestQuery,
	ListQuery,
	PreconditionFailed,
	PushBody,
	type PushCondition,
	PushConditionHeaders,
	PushResult,
	PushStored,
	ReadConditionHeaders,
	RollbackBody,
	RolledBack,
	Usage,
	VersionIdParams,
	VersionsQuery
} from '../../../shared/api/configs'
import { apiPath, ROUTES } from '../../../shared/api/routes'
import type { ConfigsService, WithData } from './service'

/** docs/api.md: If-Match compares strongly, If-None-Match weakly (RFC 9110 §13.1). */
function pushCondition(headers: Headers): PushCondition | undefined {
	const ifMatch = parseEntityTags(headers.get('if-match'))
	const ifNoneMatch = parseEntityTags(headers.get('if-none-match'))
	if (ifMatch === undefined && ifNoneMatch === undefined) return undefined
	return { ifMatch: ifMatch && strongTags(ifMatch), ifNoneMatch: ifNoneMatch && weakTags(ifNoneMatch) }
}

const readCondition = (headers: Headers) => {
	const tags = parseEntityTags(headers.get('if-none-match'))
	return tags && weakTags(tags)
}

const withData = (document: WithData<object>) => objectWithData(document.fields, document.data)
const readHeaders = headerParameters(ReadConditionHeaders)
const pushHeaders = headerParameters(PushConditionHeaders)

export const configsRoutes = (configs: ConfigsService, gate: AuthPlugin) =>
	new Elysia({ tags: ['configs'] })
		.use(gate)
		.get(
			ROUTES.configs,
			async ({ caller, query, set }) => {
				const page = await configs.list(caller, query.teamId, query)
				if (page.next !== undefined) {
					const next = new URLSearchParams({
						...(query.teamId ? { teamId: query.teamId } : {}),
						limit: String(query.limit),
						after: page.next
					})
					set.headers.link = `<${ROUTES.configs}?${next}>; rel="next"`
				}
				return page.configs
			},
			{
				auth: true,
				query: ListQuery,
				response: z.array(ConfigSummary),
				detail: { summary: 'List your configs, or a team’s' }
			}
		)
		.get(
			ROUTES.latestConfig,
			async ({ caller, query, request, set }) => {
				const result = await configs.latest(caller, query, readCondition(request.headers))
				if (result.notModified) return asIs(set, notModified(result.hash))
				return asIs(set, jsonResponse(withData(result), { headers: { etag: etagOf(result.hash), ...NO_STORE } }))
			},
			{
				auth: true,
				query: LatestQuery,
				response: { 200: LatestConfig },
				detail: {
					'x-header-parameters': readHeaders,
					summary: 'The current version of a config by name and tool',
					description:
						'Sends `ETag: "<hash>"`; with a matching `If-None-Match` the answer is 304 with no body, so clients can poll cheaply.'
				}
			}
		)
		.post(
			ROUTES.configs,
			async ({ actor, body, request, set, status }) => {
				const result = await configs.push(actor, body, pushCondition(request.headers))
				set.headers.etag = etagOf(result.hash)
				return result.kind === 'created' ? status(201, result.body) : result.body
			},
			{
				...jsonBody,
				actor: true,
				body: PushBody,
				response: { 200: PushResult, 201: PushStored, 412: PreconditionFailed },
				detail: {
					'x-header-parameters': pushHeaders,
					summary: 'Create a config or push a new version',
					description:
						'201 for a new config; 200 with the next version when the data changed; 200 with `noChange: true` when it did not (key order does not count). `If-Match: "<hash>"` refuses with 412 when the config moved on; `If-None-Match: *` makes the push create-only.'
				}
			}
		)
		.get(
			ROUTES.config,
			async ({ caller, params, request, set }) => {
				const result = await configs.get(caller, params.id, readCondition(request.headers))
				if (result.notModified) return asIs(set, notModified(result.hash))
				return asIs(set, jsonResponse(withData(result), { headers: { etag: etagOf(result.hash), ...NO_STORE } }))
			},
			{
				auth: true,
				params: ConfigIdParams,
				response: { 200: FullConfig },
				detail: {
					'x-header-parameters': readHeaders,
					summary: 'A config with its data',
					description: 'Sends `ETag`; a matching `If-None-Match` gets 304.'
				}
			}
		)
		.delete(
			ROUTES.config,
			async ({ actor, params, status }) => {
				await configs.remove(actor, params.id)
				return status(204)
			},
			{ actor: true, params: ConfigIdParams, detail: { summary: 'Delete a config and all its versions' } }
		)
		.get(
			ROUTES.versions,
			async ({ caller, params, query }) => {
				const { versions, next } = await configs.versions(caller, params.id, query)
				// RFC 8288; a path, so the link is right behind any proxy whatever Host it was reached by.
				const link: Record<string, string> =
					next === undefined
						? {}
						: { link: `<${apiPath(ROUTES.versions, params)}?limit=${query.limit}&before=${next}>; rel="next"` }
				return jsonArrayResponse(
					(async function* () {
						for await (const version of versions) yield withData(version)
					})(),
					{ ...NO_STORE, ...link }
				)
			},
			{
				auth: true,
				params: ConfigIdParams,
				query: VersionsQuery,
				response: { 200: z.array(ConfigVersion) },
				detail: {
					summary: 'Version history, highest first (Pro and Team plans)',
					description:
						'Pages of `limit` versions (default 100, so a config with at most 100 versions gets all of them); when more remain the answer carries `Link: <…>; rel="next"` (RFC 8288), whose `before` is the lowest version number of this page.'
				}
			}
		)
		.get(
			ROUTES.version,
			async ({ caller, params }) =>
				jsonResponse(withData(await configs.version(caller, params.id, params.versionId)), { headers: NO_STORE }),
			{
				auth: true,
				params: VersionIdParams,
				response: { 200: ConfigVersion },
				detail: { summary: 'One version (Pro and Team plans)' }
			}
		)
		.post(ROUTES.rollback, ({ actor, params, body }) => configs.rollback(actor, params.id, body.versionId), {
			...jsonBody,
			actor: true,
			params: ConfigIdParams,
			body: RollbackBody,
			response: { 200: RolledBack },
			detail: { summary: 'Restore a version as a new current version (Pro and Team plans)' }
		})

/** Quotas (docs/operations.md): what the caller and their teams store, against the limits (`cfgsync whoami` shows it). */
export const usageRoutes = (configs: ConfigsService, gate: AuthPlugin) =>
	new Elysia({ tags: ['configs'] }).use(gate).get(ROUTES.usage, ({ caller }) => configs.usage(caller), {
		auth: true,
		response: Usage,
		detail: {
			summary: 'What you and your teams store, and the quotas',
			description:
				'Bytes stored (every version of every config) by your personal configs and by each of your teams, against CFGSYNC_QUOTA_BYTES, and the pushes a minute allowed per user (CFGSYNC_QUOTA_PUSHES_PER_MINUTE); a limit of 0 is none.'
		}
	})
