import { describe, expect, test } from 'bun:test'
import { parseArgs } from 'node:util'
import { ApiError, connectionProblem } from '../../src/client/api'
import { usageProblem } from '../../src/client/commands/command'
import { suggest } from '../../src/client/context'
import { explain } from '../../src/client/output'

/** Errors from node:util's parseArgs and from fetch, told in cfgsync's words (docs/client.md). */

const options = { name: { type: 'string', short: 'n' }, yes: { type: 'boolean', short: 'y' } } as const
const problem = (args: string[]) => {
	try {
		parseArgs({ args, options, allowPositionals: true, strict: true })
	} catch (error) {
		return usageProblem(error, 'push', Object.keys(options), suggest)
	}
	throw new Error(`${args.join(' ')} parsed`)
}

describe('usage problems', () => {
	test.each([
		[['--bogus'], 'cfgsync push has no option --bogus (see cfgsync push --help)'],
		[['--nam', 'x'], 'cfgsync push has no option --nam: did you mean --name? (see cfgsync push --help)'],
		[['-x'], 'cfgsync push has no option -x (see cfgsync push --help)'],
		[['--name'], '--name needs a value, as in --name VALUE (see cfgsync push --help)'],
		[['--yes=1'], '--yes takes no value: write --yes alone (see cfgsync push --help)'],
		[
			['--name', '-y'],
			'--name needs a value, and the next word starts with "-": give the value as --name=VALUE (see cfgsync push --help)'
		]
	])('%p', (args, said) => {
		expect(problem(args)).toBe(said)
	})
})

describe('connection problems', () => {
	test('Bun and Node errors become a sentence without their own wording', () => {
		const bun = Object.assign(
			new TypeError('ECONNREFUSED: Unable to connect. Is the computer able to access the url?'),
			{
				code: 'ECONNREFUSED'
			}
		)
		const node = Object.assign(new TypeError('fetch failed'), { cause: { code: 'ENOTFOUND', message: 'getaddrinfo' } })
		expect(connectionProblem(bun)).toStartWith('nothing answers there (connection refused)')
		expect(connectionProblem(node)).toStartWith('its host name was not found')
		expect(connectionProblem(Object.assign(new TypeError('x'), { code: 'EPROTO' }))).toContain('secure connection')
		for (const said of [connectionProblem(bun), connectionProblem(node), connectionProblem(new Error('odd'))])
			expect(said).not.toMatch(/Is the computer|fetch failed/)
	})
})

describe('a plan that does not allow it', () => {
	const context = { server: 'https://sync.example' }
	test('the command to ask for is the plan the server names, never guessed from its sentence', () => {
		const team = new ApiError(403, 'plan_required', 'Creating teams needs the Team plan.', { plan: 'team' })
		expect(explain(team, context)).toEndWith('cfgsync-server user set-plan <you> team')
		const history = new ApiError(403, 'plan_required', 'History needs the team plan, or Pro.', { plan: 'pro' })
		expect(explain(history, context)).toEndWith('cfgsync-server user set-plan <you> pro')
	})
})
