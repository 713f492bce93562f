import type { ApiError } from './api'
import type { IO, Stream } from './io'
import { printable } from './sync/text'

/**
 * Exit statuses scripts can rely on (docs/client.md): 0 ok, 1 error, 2 usage,
 * 3 conflict, 4 not logged in or key refused.
 */
export const EXIT = { ok: 0, error: 1, usage: 2, conflict: 3, auth: 4 } as const

const CODES: Record<number, string> = { 1: 'error', 2: 'usage', 3: 'conflict', 4: 'unauthorized' }

/** A failure to report: one message (with what to do next), an exit status, a code for --json. */
export class CliFailure extends Error {
	readonly code: string
	constructor(
		message: string,
		readonly exitCode: number = EXIT.error,
		code?: string
	) {
		super(message)
		this.code = code ?? CODES[exitCode] ?? 'error'
	}
}

/** The words a command prints with, bound to its IO and to --json. */
export interface Printer {
	/** A line on stdout. */
	say(line?: string): void
	/** A warning on stderr, yellow (a JSON warning line with --json). */
	warn(line: string): void
	/** A note for the person on stderr (a JSON warning line with --json). */
	notice(text: string): void
	/** One JSON document on stdout. */
	json(value: unknown): void
	/** A plain-text table on stdout, columns padded to their widest cell. */
	table(header: string[], rows: string[][]): void
	/** Colours, on when the stream they are for (stdout unless told) is a terminal and NO_COLOR is unset. */
	green: Paint
	yellow: Paint
	red: Paint
	dim: Paint
	bold: Paint
	/** A time for a person, from the IO's clock (see `ago`). */
	ago(iso: string | null | undefined): string
}

type Paint = (text: string, stream?: Stream) => string

export function printer(io: IO, asJson: boolean): Printer {
	const paint =
		(code: number): Paint =>
		(text, stream = io.stdout) =>
			stream.isTTY === true && !io.env.NO_COLOR ? `\x1b[${code}m${text}\x1b[0m` : text
	const yellowOf = paint(33)
	const boldOf = paint(1)
	const say = (line = '') => void io.stdout.write(`${line}\n`)
	return {
		say,
		warn: (line) =>
			void io.stderr.write(asJson ? `${JSON.stringify({ warning: line })}\n` : `${yellowOf(line, io.stderr)}\n`),
		notice: (text) => void io.stderr.write(asJson ? `${JSON.stringify({ warning: text })}\n` : `${text}\n`),
		json: (value) => void io.stdout.write(`${JSON.stringify(value, null, 2)}\n`),
		table(header, rows) {
			const all = [header, ...rows]
			const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)))
			const line = (row: string[]) =>
				row
					.map((cell, i) => cell.padEnd(widths[i] as number))
					.join('  ')
					.trimEnd()
			say(boldOf(line(header)))
			for (const row of rows) say(line(row))
		},
		green: paint(32),
		yellow: yellowOf,
		red: paint(31),
		dim: paint(2),
		bold: boldOf,
		ago: (iso) => ago(iso, io.now())
	}
}

export const safe = printable

/** "a member", "an admin", "an owner". */
export const article = (word: string) => `${/^[aeiou]/i.test(word) ? 'an' : 'a'} ${word}`

/** A note for the person on stderr (a JSON warning line with --json). */

/** A plain-text table, columns padded to their widest cell. */

export interface ErrorContext {
	server: string
	what?: string
	/** Where the key came from: CFGSYNC_API_KEY overrides the saved login, so `cfgsync login` cannot help while it is set. */
	keySource?: 'saved' | 'env'
	/** The command that logs in again (with --profile when one is in use). */
	login?: string
}

/** Every server error as a failure a person understands, with what to do next; a refused key exits 4. */
export function failure(error: ApiError, context: ErrorContext): CliFailure {
	const message = explain(error, context)
	if (error.code === 'unauthorized') return new CliFailure(message, EXIT.auth)
	return new CliFailure(
		message,
		EXIT.error,
		error.code === 'unknown' ? String(error.body.code ?? 'unknown') : error.code
	)
}

/** Every server error code as a sentence; the server's own words are escaped before they reach the terminal. */
export function explain(error: ApiError, context: ErrorContext): string {
	const said = safe(error.message)
	switch (error.code) {
		case 'unauthorized':
			if (context.keySource === 'env') {
				return `${context.server} refused the key in CFGSYNC_API_KEY (revoked, or not a key of this server). That variable overrides the login saved by cfgsync login, so logging in again cannot help while it is set: unset CFGSYNC_API_KEY, or set it to a valid key.`
			}
			return `Not logged in to ${context.server}, or this device's key was revoked: run ${context.login ?? 'cfgsync login'}.`
		case 'plan_required':
			// The body names the least plan that would do; a server from before it said so meant Pro.
			return `${said} Ask the server's admin to run: cfgsync-server user set-plan <you> ${error.body.plan === 'team' ? 'team' : 'pro'}`
		case 'forbidden':
			return `Not allowed: ${said}`
		case 'not_found':
			return context.what
				? `${context.what} does not exist on ${context.server} (or you cannot see it).`
				: `Not found: ${said}`
		case 'conflict':
			return said
		case 'precondition_failed':
			return `The server has a newer version (${safe(String(error.body.currentVersion ?? '?'))}) than this machine last synced.`
		case 'payload_too_large':
			return `Too large for the server: ${said}`
		case 'rate_limited':
			return said
		case 'invalid_request':
			return `The server refused the request: ${said}`
		case 'unreachable':
		case 'bad_response':
			return said
		case 'internal':
			return `The server failed (${said}); its log has the details.`
		default:
			return `${said} (HTTP ${error.status})`
	}
}

const UNITS: [number, string][] = [
	[60_000, 'minute'],
	[3_600_000, 'hour'],
	[86_400_000, 'day']
]

/**
 * A time for a person: "just now", "3 minutes ago", "in 6 days", and the
 * date itself beyond a month (--json keeps the ISO time).
 */
export function ago(iso: string | null | undefined, now = Date.now()): string {
	if (!iso) return 'never'
	const at = Date.parse(iso)
	if (Number.isNaN(at)) return safe(iso)
	const diff = now - at
	const size = Math.abs(diff)
	if (size < 60_000) return diff >= 0 || size < 5_000 ? 'just now' : 'in less than a minute'
	if (size >= 30 * 86_400_000) return iso.slice(0, 10)
	let unit = UNITS[0] as [number, string]
	for (const candidate of UNITS) if (size >= candidate[0]) unit = candidate
	// Minutes count down whole; hours and days to the nearest (an invitation made now expires "in 7 days").
	const n = unit[1] === 'minute' ? Math.floor(size / unit[0]) : Math.round(size / unit[0])
	const words = `${n} ${unit[1]}${n === 1 ? '' : 's'}`
	return diff >= 0 ? `${words} ago` : `in ${words}`
}
