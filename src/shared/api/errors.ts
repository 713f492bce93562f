/**
 * Every error code the API answers with and its HTTP status, one list for both programs: the server
 * throws only these (`AppError`), the client switches on them (`ApiError`). docs/api.md#errors says when
 * each is sent.
 */
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
	/** A stored version that no key this server holds opens: that version alone answers it. */
	unreadable: 500,
	unavailable: 503
} as const

export type ErrorCode = keyof typeof ERROR_STATUS

export const ERROR_CODES = Object.keys(ERROR_STATUS) as ErrorCode[]

/** Whether a code a server sent is one of these (a newer server may send one this client does not know). */
export const isErrorCode = (value: unknown): value is ErrorCode =>
	typeof value === 'string' && (ERROR_CODES as string[]).includes(value)

/** One refused field of an `invalid_request`: where, and why. */
export interface ErrorDetail {
	path: string
	message: string
}
