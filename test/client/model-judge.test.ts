import { describe, expect, test } from 'bun:test'
import { linesApart, movesEveryBase } from '../support/client/model/judge'

/**
 * The model test's judge (test/support/client/model/judge.ts): it calls a
 * reported conflict wrong only when it is wrong against every base the
 * machine could hold, so the set of bases must not lose one the client keeps.
 */

describe('the bases a command leaves', () => {
	test('a push naming one file leaves the config’s other files on their old base', () => {
		// Seed 44, step 113: `push claude-code --team model-team ~/.claude/commands/team-4.md` answered
		// "pushed v9" and listed nothing unpulled, yet team-1.md kept the base it had before v8.
		const args = [
			'push',
			'claude-code',
			'--team',
			'model-team',
			'/home/a/.claude/commands/team-4.md',
			'--yes',
			'--json'
		]
		expect(movesEveryBase('push', args, { unpulled: [], refused: [] })).toBe(false)
	})

	test('a whole-config push or pull that wrote or sent everything moves every base', () => {
		expect(movesEveryBase('push', ['push', 'claude-code', '--team', 'model-team', '--yes', '--json'], {})).toBe(true)
		expect(movesEveryBase('pull', ['pull', 'gemini-cli', '--yes', '--json'], { unpulled: [], refused: [] })).toBe(true)
	})

	test('a push that left the server’s changes unwritten, refused a file, or a resolve, does not', () => {
		const args = ['push', 'gemini-cli', '--yes', '--json']
		expect(movesEveryBase('push', args, { unpulled: [{ path: 'x' }] })).toBe(false)
		expect(movesEveryBase('push', args, { refused: [{ path: 'x' }] })).toBe(false)
		expect(movesEveryBase('resolve', ['resolve', 'gemini-cli', '--mine', '--yes', '--json'], {})).toBe(false)
	})
})

describe('lines apart', () => {
	test('an insertion right above a replaced line touches it: no certain merge', () => {
		const base = '# T\n- a\n- b\n- c\n'
		expect(linesApart(base, '# T\n- a\n- b\n- X\n', '# T\n- a\n- b\n- N\n- c\n')).toBe(false)
	})

	test('changes with an unchanged line between them merge', () => {
		const base = '# T\n- a\n- b\n- c\n'
		expect(linesApart(base, '# T\n- X\n- b\n- c\n', '# T\n- a\n- b\n- Y\n')).toBe(true)
	})
})
