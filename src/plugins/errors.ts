import { Elysia, ValidationError } from 'elysia'
import { AppError, type ErrorDetail } from '../lib/errors'
import { SECURITY_HEADERS } from '../lib/http'
import type { Logger } from '../lib/log'
import type { RequestTracker } from './request-log'

const MAX_DETAILS = 20

/**
 * The one error mapper (STYLE §5): every failure leaves as CONTRACT §2's JSON
 * body, never a stack trace, SQL or the submitted value. `.use()` it first:
 * a hook covers only the routes registered after it.
 */
export const errorsPlugin = (logger: Logger, tracker: RequestTracker) =>
	new Elysia({ name: 'errors' }).onError({ as: 'global' }, ({ code, error, set, request }) => {
		const appError = toAppError(code, error)
		const requestId = tracker.idOf(request)
		if (appError.code === 'internal') {
			logger.error('unhandled error', {
				requestId,
				method: request.method,
				errorName: error instanceof Error ? error.name : typeof error,
				errorMessage: error instanceof Error ? error.message : undefined,
				stack: error instanceof Error ? error.stack : undefined
			})
		}
		set.status = appError.status
		// Unmatched paths never reach the app's default headers.
		Object.assign(set.headers, SECURITY_HEADERS)
		set.headers['content-type'] = 'application/json'
		set.headers['x-request-id'] = requestId
		if (appError.status === 401) set.headers['www-authenticate'] = 'Bearer'
		if (appError.headers) Object.assign(set.headers, appError.headers)
		return appError.toBody()
	})

function toAppError(code: string | number, error: unknown): AppError {
	if (error instanceof AppError) return error
	if (error instanceof ValidationError) return fromValidation(error)
	switch (code) {
		case 'PARSE': {
			const cause = (error as Error).cause
			if (cause instanceof AppError) return cause
			return new AppError('invalid_request', 'The request body is not valid JSON.')
		}
		case 'NOT_FOUND':
			return new AppError('not_found', 'No such route.')
		case 'INVALID_COOKIE_SIGNATURE':
		case 'INVALID_FILE_TYPE':
			return new AppError('invalid_request', 'The request is malformed.')
		default:
			return new AppError('internal', 'Something went wrong on the server; it has been logged.', { cause: error })
	}
}

function fromValidation(error: ValidationError): AppError {
	// CONTRACT §2: a path id that is not a UUID is a 404, like any unknown id.
	if (error.type === 'params') return new AppError('not_found', 'Not found.')
	// Our own response did not match its schema: a bug, not the caller's fault.
	if (error.type === 'response') return new AppError('internal', 'Something went wrong on the server; it has been logged.', { cause: error })
	const where = error.type === 'query' ? 'query' : error.type === 'headers' ? 'header' : 'body'
	const details: ErrorDetail[] = (error.all as { path?: string; message?: string }[])
		.slice(0, MAX_DETAILS)
		.map((issue) => ({ path: issue.path && issue.path !== 'root' ? issue.path : where, message: readable(issue.message) }))
	const first = details[0]
	const message = first ? `Invalid ${where}: ${first.path === where ? '' : `${first.path}: `}${first.message}` : `Invalid ${where}.`
	return new AppError('invalid_request', message, { details })
}

/** zod says "expected string, received undefined" for a missing field; a person reads "Required." better. */
const readable = (message: string | undefined): string =>
	message === undefined ? 'Invalid value.' : /received undefined$/.test(message) ? 'Required.' : message
