import { Elysia, ValidationError } from 'elysia'
import type { Clock } from '../lib/clock'
import { AppError, type ErrorDetail } from '../lib/errors'
import { pathOf, SECURITY_HEADERS } from '../lib/http'
import type { Logger } from '../lib/log'
import { databaseFailure } from '../store/unavailable'
import type { RequestTracker } from './request-log'

const MAX_DETAILS = 20
/** A database that does not answer fails every request: one log line per this many milliseconds says so. */
export const DATABASE_LOG_EVERY_MS = 10_000

export { databaseFailure } from '../store/unavailable'

/**
 * The one error mapper: every failure leaves as docs/api.md's JSON
 * body, never a stack trace, SQL or the submitted value. `.use()` it first:
 * a hook covers only the routes registered after it. A database that does not
 * answer is not a bug in the request: it is logged as one `error` line naming
 * the cause, at most once per DATABASE_LOG_EVERY_MS (with how many failures
 * were not logged since), instead of a stack trace per request.
 */
export const errorsPlugin = (
	logger: Logger,
	tracker: RequestTracker,
	clock: Clock,
	/** docs/web.md: an address outside /api that matches nothing gets the application's HTML 404 page from here. */
	notFoundPage?: (request: Request) => Promise<Response>
) => {
	let lastDatabaseLine = -Infinity
	let unlogged = 0
	const databaseDown = (cause: string, requestId: string) => {
		const now = clock.now()
		if (now - lastDatabaseLine < DATABASE_LOG_EVERY_MS) {
			unlogged++
			return
		}
		logger.error('the database does not answer', {
			cause,
			requestId,
			...(unlogged > 0 ? { failedSinceLastLine: unlogged } : {})
		})
		lastDatabaseLine = now
		unlogged = 0
	}
	return new Elysia({ name: 'errors' }).onError({ as: 'global' }, ({ code, error, set, request }) => {
		if (code === 'NOT_FOUND' && notFoundPage !== undefined && !isApiPath(pathOf(request.url))) {
			set.headers['x-request-id'] = tracker.idOf(request)
			// The page is answered later (a promise): the access log and the metrics read the status from here.
			set.status = 404
			return notFoundPage(request)
		}
		const down = error instanceof AppError && error.code !== 'internal' ? undefined : databaseFailure(error)
		const appError =
			down === undefined
				? toAppError(code, error)
				: new AppError('internal', 'The database does not answer; try again shortly.')
		const requestId = tracker.idOf(request)
		if (down !== undefined) databaseDown(down, requestId)
		else if (appError.code === 'internal') {
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
}

/** /api and everything under it answers JSON, even when nothing matches (docs/api.md). */
const isApiPath = (path: string) => path === '/api' || path.startsWith('/api/')

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
	// docs/api.md: a path id that is not a UUID is a 404, like any unknown id.
	if (error.type === 'params') return new AppError('not_found', 'Not found.')
	// Our own response did not match its schema: a bug, not the caller's fault.
	if (error.type === 'response')
		return new AppError('internal', 'Something went wrong on the server; it has been logged.', { cause: error })
	const where = error.type === 'query' ? 'query' : error.type === 'headers' ? 'header' : 'body'
	const details: ErrorDetail[] = (error.all as { path?: string; message?: string }[])
		.slice(0, MAX_DETAILS)
		.map((issue) => ({
			path: issue.path && issue.path !== 'root' ? issue.path : where,
			message: readable(issue.message)
		}))
	const first = details[0]
	const message = first
		? `Invalid ${where}: ${first.path === where ? '' : `${first.path}: `}${first.message}`
		: `Invalid ${where}.`
	return new AppError('invalid_request', message, { details })
}

/** zod says "expected string, received undefined" for a missing field; a person reads "Required." better. */
const readable = (message: string | undefined): string =>
	message === undefined ? 'Invalid value.' : /received undefined$/.test(message) ? 'Required.' : message
