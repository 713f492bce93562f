import { PromptCancelled } from '../shared/terminal'
import type { IO } from './io'
import { CliFailure, EXIT } from './output'

/** Is there a person at a terminal to ask? */
export const interactive = (io: IO): boolean => io.stdin.isTTY

/**
 * Asks on the terminal. Without one, fails with `hint`: what to pass instead
 * (a usage error, exit 2: the same command with that option would work).
 */
export async function ask(question: string, hint: string, hidden: boolean, io: IO): Promise<string> {
	let answer: string | undefined
	try {
		answer = await io.stdin.prompt(question, { hidden })
	} catch (error) {
		if (error instanceof PromptCancelled) throw new CliFailure('cancelled', 130, 'cancelled')
		throw error
	}
	if (answer === undefined) throw new CliFailure(hint, EXIT.usage)
	return answer.trim() === '' && !hidden ? ask(question, hint, hidden, io) : answer
}

/**
 * docs/client.md: destructive commands ask first on a terminal (y/N) and refuse
 * without --yes otherwise (exit 2: the command needs --yes to run unattended).
 */
export async function confirm(question: string, rerun: string, yes: boolean | undefined, io: IO): Promise<void> {
	if (yes) return
	if (!interactive(io)) {
		throw new CliFailure(
			`${question.replace(/\?$/, '')}: there is no terminal to ask on, so nothing was done. To do it without asking: ${rerun} --yes`,
			EXIT.usage,
			'confirmation_required'
		)
	}
	let answer: string | undefined
	try {
		answer = await io.stdin.prompt(`${question} [y/N] `)
	} catch (error) {
		if (!(error instanceof PromptCancelled)) throw error
	}
	if (!/^y(es)?$/i.test((answer ?? '').trim())) throw new CliFailure('Nothing was done.', EXIT.error, 'declined')
}
