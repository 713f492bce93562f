import type { IssuedKey, KeyView } from '../shared/api/auth'
import type { ConfigSummary, RolledBack } from '../shared/api/configs'
import type { Tool } from '../shared/constants'

/** Responses the client reads, typed from the server's own zod models so the two cannot drift. */
export type { ConfigSummary, IssuedKey, KeyView, RolledBack }
export interface LatestConfig extends ConfigSummary {
	data: unknown
}
export interface ConfigVersion {
	id: string
	version: number
	hash: string
	data: unknown
	createdAt: string
	isCurrent: boolean
}
export interface Team {
	id: string
	name: string
	slug: string
	role: string
	createdAt: string
}
export interface PushResult {
	id: string
	name: string
	tool: Tool
	version?: number
	updatedAt?: string
	noChange?: true
	message?: string
}

/** A failed call: the server's error code (CONTRACT §2) or `unreachable` when no answer came. */
export class ApiError extends Error {
	constructor(
		readonly status: number,
		readonly code: string,
		message: string,
		readonly body: Record<string, unknown> = {}
	) {
		super(message)
	}
}

export interface Reply<T> {
	status: number
	headers: Headers
	body: T
}

export type Api = ReturnType<typeof createApi>

export function createApi(server: string, key?: string) {
	const base = server.replace(/\/+$/, '')
	async function call<T>(method: string, path: string, options: { body?: unknown; headers?: Record<string, string>; ok?: number[] } = {}): Promise<Reply<T>> {
		const headers: Record<string, string> = { accept: 'application/json', ...options.headers }
		if (key) headers.authorization = `Bearer ${key}`
		let payload: string | undefined
		if (options.body !== undefined) {
			payload = JSON.stringify(options.body)
			headers['content-type'] = 'application/json'
		}
		let response: Response
		try {
			response = await fetch(`${base}${path}`, { method, headers, body: payload, redirect: 'error' })
		} catch (error) {
			throw new ApiError(0, 'unreachable', `cannot reach the server at ${base}: ${(error as Error).message}`)
		}
		const text = await response.text()
		let body: unknown
		try {
			body = text === '' ? undefined : JSON.parse(text)
		} catch {
			throw new ApiError(response.status, 'bad_response', `${base} did not answer like a cfgsync server (HTTP ${response.status})`)
		}
		if (response.status >= 400 && !options.ok?.includes(response.status)) {
			const error = (body ?? {}) as { error?: string; code?: string }
			throw new ApiError(response.status, error.code ?? 'unknown', error.error ?? `HTTP ${response.status}`, body as Record<string, unknown>)
		}
		return { status: response.status, headers: response.headers, body: body as T }
	}
	return { base, call }
}

export const query = (params: Record<string, string | number | undefined>) => {
	const entries = Object.entries(params).filter(([, value]) => value !== undefined) as [string, string | number][]
	return entries.length === 0 ? '' : `?${entries.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`).join('&')}`
}
