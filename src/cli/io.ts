import { parseArgs, type ParseArgsConfig } from 'node:util'
import { AppError } from '../lib/errors'

/** A command failure: printed as one line on stderr, exit status 1 (2 for usage). */
export class CliError extends Error {
	constructor(
		message: string,
		readonly exitCode = 1
	) {
		super(message)
	}
}

/** A wrong invocation: one line naming the problem and where the usage is (exit status 2). */
export const usageError = (problem: string) => new CliError(`${problem} (see cfgsync-server --help)`, 2)

/** node:util parseArgs, strict, with its errors turned into one usage line. */
export function parseCommand<T extends ParseArgsConfig['options']>(args: string[], options: T) {
	try {
		return parseArgs({ args, options, allowPositionals: true, strict: true })
	} catch (error) {
		throw usageError((error as Error).message.split('\n')[0] ?? 'invalid arguments')
	}
}

/** Runs a command body; any failure becomes one clear line on stderr and a non-zero exit. */
export async function runCommand(body: () => Promise<void>): Promise<number> {
	try {
		await body()
		return 0
	} catch (error) {
		if (error instanceof CliError) {
			process.stderr.write(`cfgsync-server: ${error.message}\n`)
			return error.exitCode
		}
		if (error instanceof AppError) {
			process.stderr.write(`cfgsync-server: ${error.message}\n`)
			return 1
		}
		process.stderr.write(`cfgsync-server: ${error instanceof Error ? error.message : String(error)}\n`)
		return 1
	}
}

/** Reads all of standard input (for --password-stdin), without its trailing newline. */
export async function readStdin(): Promise<string> {
	const text = await new Response(Bun.stdin.stream()).text()
	return text.replace(/\r?\n$/, '')
}

/** Asks for a secret on the terminal without echoing it. */
export async function promptHidden(question: string): Promise<string> {
	const stdin = process.stdin
	if (!stdin.isTTY) throw new CliError('no password given: pass --password, --password-stdin, or run this on a terminal')
	process.stderr.write(question)
	stdin.setRawMode(true)
	stdin.resume()
	stdin.setEncoding('utf8')
	return new Promise((resolve, reject) => {
		let value = ''
		const done = (error?: Error) => {
			stdin.setRawMode(false)
			stdin.pause()
			stdin.off('data', onData)
			process.stderr.write('\n')
			if (error) reject(error)
			else resolve(value)
		}
		const onData = (chunk: string) => {
			for (const char of chunk) {
				if (char === '\r' || char === '\n') return done()
				if (char === '\u0003') return done(new CliError('cancelled', 130))
				if (char === '\u007f' || char === '\b') value = value.slice(0, -1)
				else value += char
			}
		}
		stdin.on('data', onData)
	})
}

/** --password, --password-stdin, or a prompt (typed twice) on a terminal. */
export async function passwordFrom(values: { password?: string; 'password-stdin'?: boolean }): Promise<string> {
	if (values.password !== undefined && values['password-stdin']) throw new CliError('give --password or --password-stdin, not both', 2)
	if (values.password !== undefined) return values.password
	if (values['password-stdin']) return readStdin()
	const first = await promptHidden('Password: ')
	const second = await promptHidden('Password (again): ')
	if (first !== second) throw new CliError('the two passwords differ')
	return first
}
