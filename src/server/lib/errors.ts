/** docs/api.md: every error code the API can answer, with its HTTP status. */
export const ERROR_STATUS = {
	invalid_request: 400,
	unauthorized: 401,
	plan_required: 403,
	forbidden: 403,
	read_only_key: 403,
	not_found: 404,
	conflict: 409,
	precondition_failed: 412,
	payload_too_large: 413,
	quota_exceeded: 413,
	unsupported_media_type: 415,
	rate_limited: 429,
	internal: 500,
	/** A stored version that no key this server holds opens (docs/operations.md): that version alone answers it. */
	unreadable: 500,
	unavailable: 503
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export interface ErrorDetail {
	path: string
	message: string
}

/**
 * The one error type services throw. The message is for a person and is sent
 * as is, so it must never contain secrets or stored data.
 */
export class AppError extends Error {
	readonly code: ErrorCode
	readonly status: number
	readonly details?: ErrorDetail[]
	/** Extra top-level fields of the error body (docs/api.md: 412 carries the current version). */
	readonly extra?: Record<string, unknown>
	/** Extra response headers (Retry-After on 429). */
	readonly headers?: Record<string, string>

	constructor(
		code: ErrorCode,
		message: string,
		options: {
			details?: ErrorDetail[]
			extra?: Record<string, unknown>
			headers?: Record<string, string>
			cause?: unknown
		} = {}
	) {
		super(message, { cause: options.cause })
		this.name = 'AppError'
		this.code = code
		this.status = ERROR_STATUS[code]
		this.details = options.details
		this.extra = options.extra
		this.headers = options.headers
	}

	/** The JSON body of docs/api.md. */
	toBody(): Record<string, unknown> {
		return {
			error: this.message,
			code: this.code,
			...(this.details ? { details: this.details } : {}),
			...this.extra
		}
	}
}

/**
 * The database does not answer, found by a check rather than thrown by a driver (a ping that says
 * no): the error mapper logs it as the one throttled "does not answer" line, not as a bug.
 */
export class DatabaseDownError extends Error {
	override name = 'DatabaseDownError'
}
