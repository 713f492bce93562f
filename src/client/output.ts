import { ApiError } from './api'

/** A failure to report: one message, a non-zero exit status (2 for wrong usage). */
export class CliFailure extends Error {
	constructor(
		message: string,
		readonly exitCode = 1
	) {
		super(message)
	}
}

const colourOn = (stream: NodeJS.WriteStream) => stream.isTTY === true && !process.env.NO_COLOR
const paint = (code: number) => (text: string, stream: NodeJS.WriteStream = process.stdout) => (colourOn(stream) ? `\x1b[${code}m${text}\x1b[0m` : text)
export const green = paint(32)
export const yellow = paint(33)
export const red = paint(31)
export const dim = paint(2)
export const bold = paint(1)

export const say = (line = '') => void process.stdout.write(`${line}\n`)
export const warn = (line: string) => void process.stderr.write(`${yellow(line, process.stderr)}\n`)
export const json = (value: unknown) => void process.stdout.write(`${JSON.stringify(value, null, 2)}\n`)

/** A plain-text table, columns padded to their widest cell. */
export function table(header: string[], rows: string[][]) {
	const all = [header, ...rows]
	const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)))
	say(bold(header.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ').trimEnd()))
	for (const row of rows) say(row.map((cell, i) => cell.padEnd(widths[i] as number)).join('  ').trimEnd())
}

/** Every server error code as a sentence a person understands, with what to do next. */
export function explain(error: ApiError, context: { server: string; what?: string }): string {
	switch (error.code) {
		case 'unauthorized':
			return `Not logged in to ${context.server}, or this device's key was revoked: run cfgsync login.`
		case 'plan_required':
			return `${error.message} Ask the server's admin to run: cfgsync-server user set-plan <you> ${/team plan/i.test(error.message) ? 'team' : 'pro'}`
		case 'forbidden':
			return `Not allowed: ${error.message}`
		case 'not_found':
			return context.what ? `${context.what} does not exist on ${context.server} (or you cannot see it).` : `Not found: ${error.message}`
		case 'conflict':
			return error.message
		case 'precondition_failed':
			return `The server has a newer version (${error.body.currentVersion ?? '?'}) than this machine last synced.`
		case 'payload_too_large':
			return `Too large for the server: ${error.message}`
		case 'rate_limited':
			return error.message
		case 'invalid_request':
			return `The server refused the request: ${error.message}`
		case 'unreachable':
		case 'bad_response':
			return error.message
		case 'internal':
			return `The server failed (${error.message}); its log has the details.`
		default:
			return `${error.message} (HTTP ${error.status})`
	}
}
