import { parseArgs, type ParseArgsConfig } from 'node:util'
import { AppError } from '../lib/errors'
import { prompt, PromptCancelled, readStdin } from '../../shared/terminal'

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

/** A secret typed on the terminal, never echoed; a clear error where there is no terminal. */
async function promptHidden(question: string): Promise<string> {
	try {
		const answer = await prompt(question, { hidden: true })
		if (answer === undefined)
			throw new CliError('no password given: pass --password, --password-stdin, or run this on a terminal')
		return answer
	} catch (error) {
		if (error instanceof PromptCancelled) throw new CliError('cancelled', 130)
		throw error
	}
}

/** --password, --password-stdin, or a prompt (typed twice) on a terminal. */
export async function passwordFrom(values: { password?: string; 'password-stdin'?: boolean }): Promise<string> {
	if (values.password !== undefined && values['password-stdin'])
		throw new CliError('give --password or --password-stdin, not both', 2)
	if (values.password !== undefined) return values.password
	if (values['password-stdin']) return readStdin()
	const first = await promptHidden('Password: ')
	const second = await promptHidden('Password (again): ')
	if (first !== second) throw new CliError('the two passwords differ')
	return first
}
