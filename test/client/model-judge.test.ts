import { describe, expect, test } from 'bun:test'
import { droppable, linesApart, movesEveryBase } from '../support/client/model/judge'

/**
 * The model test's judge (test/support/client/model/judge.ts): it calls a
 * reported conflict wrong only when it is wrong against every base the
 * machine could hold, so the set of bases must not lose one the client keeps;
 * and settling a conflict may drop the side not picked only where it clashes.
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

describe('what settling a conflict may drop', () => {
	const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`

	test('JSON: only the losing side’s value of the clashing key, never its other keys', () => {
		const base = json({ k1: 'w1x', k2: 'w2x', k3: 'w3x' })
		const local = json({ k1: 'w10x', k2: 'w11x', k3: 'w3x' })
		const remote = json({ k1: 'w20x', k2: 'w2x', k3: 'w21x' })
		expect([...droppable('.claude/settings.json', [base], local, remote, 'local')]).toEqual(['w10x'])
		expect([...droppable('.claude/settings.json', [base], local, remote, 'remote')]).toEqual(['w20x'])
	})

	test('JSON: a key that clashes against one of the bases the machine could hold may go', () => {
		const older = json({ k1: 'w1x', k2: 'w0x' })
		const base = json({ k1: 'w1x', k2: 'w2x' })
		const local = json({ k1: 'w10x', k2: 'w11x' })
		const remote = json({ k1: 'w1x', k2: 'w2x', k3: 'w20x' })
		expect([...droppable('.claude/settings.json', [base], local, remote, 'local')]).toEqual([])
		expect([...droppable('.claude/settings.json', [base, older], local, remote, 'local')]).toEqual(['w11x'])
	})

	test('text: the lines of a clash (touching changes too), not a change elsewhere', () => {
		const base = '# T\n- w1x\n- w2x\n- w3x\n- w4x\n- w5x\n'
		const local = '# T\n- w10x\n- w2x\n- w3x\n- w4x\n- w11x\n'
		const remote = '# T\n- w20x\n- w2x\n- w3x\n- w4x\n- w5x\n'
		expect([...droppable('.claude/CLAUDE.md', [base], local, remote, 'local')]).toEqual(['w10x'])
		const touching = '# T\n- w1x\n- w21x\n- w3x\n- w4x\n- w5x\n'
		expect([...droppable('.claude/CLAUDE.md', [base], local, touching, 'local')]).toEqual(['w10x'])
		expect([...droppable('.claude/CLAUDE.md', [base], local, touching, 'remote')]).toEqual(['w21x'])
	})

	test('a file deleted on one side: all of the other side’s may go; nothing when both sides agree', () => {
		const base = '# T\n- w1x\n'
		const local = '# T\n- w1x\n- w10x\n'
		expect([...droppable('.claude/commands/a.md', [base], local, undefined, 'local')].sort()).toEqual(['w10x', 'w1x'])
		expect([...droppable('.claude/commands/a.md', [base], local, undefined, 'remote')]).toEqual([])
		expect([...droppable('.claude/commands/a.md', [base], local, local, 'local')]).toEqual([])
	})
})
