import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from '../../shared/api/errors'

export type { ErrorCode, ErrorDetail }

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
