import { describe, expect, test } from 'bun:test'
import { AUDIT_TYPES } from '../../src/shared/api/audit'
import { COMMON, GROUPS } from '../../src/client/commands/command'
import { completionScript } from '../../src/client/commands/completion'
import { REGISTRY } from '../../src/client/commands/index'

/**
 * The command registry (src/client/commands/): one descriptor per command
 * feeds parsing, help and completion, so these checks hold for every
 * command there is, including the next one added.
 */

const flags = (options: Record<string, { short?: string }>) =>
	Object.entries(options).flatMap(([long, spec]) => [`--${long}`, ...(spec.short ? [`-${spec.short}`] : [])])

describe('the command registry', () => {
	test("names are unique, groups are the overview's, subcommands are unique per command", () => {
		const names = REGISTRY.map((c) => c.name)
		expect(new Set(names).size).toBe(names.length)
		for (const c of REGISTRY) {
			expect(GROUPS).toContain(c.group)
			const subs = (c.subcommands ?? []).map((s) => s.name)
			expect(new Set(subs).size).toBe(subs.length)
		}
	})

	// The overview's lines for a command with subcommands name every one (a hand-written line once left out team restore).
	test("every subcommand is in the overview's lines of its command", () => {
		const missing: string[] = []
		for (const c of REGISTRY.filter((c) => c.usage.length > 0)) {
			const lines = c.usage.join('\n')
			for (const sub of (c.subcommands ?? []).filter((s) => s.aliasOf === undefined)) {
				const named = new RegExp(`(^|[ |])${sub.name}( |$)`, 'm').test(lines)
				// The one run when none is named reads as the command alone (`keys` is `keys list`).
				const bare = sub.name === c.defaultSubcommand && new RegExp(`(^|\\| )${c.name}( \\||$)`, 'm').test(lines)
				if (!named && !bare) missing.push(`${c.name} ${sub.name}`)
			}
		}
		expect(missing).toEqual([])
	})

	// Short forms (-n, -f, -y) are explained once, in the overview. teams is team list, and parses as team does.
	test("every option of every command is in that command's --help", () => {
		const described = REGISTRY.filter((c) => c.name !== 'teams')
		const missing = described.flatMap((c) =>
			flags(c.options)
				.filter((flag) => flag.startsWith('--') && !new RegExp(`(^|[^\\w-])${flag}([^\\w-]|$)`, 'm').test(c.help))
				.map((flag) => `${c.name} ${flag}`)
		)
		expect(missing).toEqual([])
	})

	test('options shared by several commands mean the same everywhere (one type, one short form, one completion)', () => {
		const seen = new Map<string, string>()
		const clashes: string[] = []
		for (const c of REGISTRY) {
			for (const [long, spec] of Object.entries({ ...COMMON, ...c.options })) {
				const shape = JSON.stringify([
					spec.type,
					'short' in spec ? spec.short : undefined,
					'completes' in spec ? spec.completes : undefined
				])
				if (seen.has(long) && seen.get(long) !== shape) clashes.push(`${c.name} --${long}`)
				seen.set(long, shape)
			}
		}
		expect(clashes).toEqual([])
	})

	test('every completion script knows every command, option, subcommand and audit event type', () => {
		for (const shell of ['bash', 'zsh', 'fish']) {
			const script = completionScript(shell, REGISTRY) as string
			for (const c of REGISTRY) {
				expect(script).toContain(c.name)
				for (const flag of flags(c.options))
					if (flag.startsWith('--')) expect(script).toContain(flag.slice(shell === 'fish' ? 2 : 0))
				for (const sub of c.subcommands ?? []) expect(script).toContain(sub.name)
			}
			for (const type of AUDIT_TYPES) expect(script).toContain(type)
		}
	})

	test('nothing a user sees cites a document outside the repository or an issue number', () => {
		const seen = [
			...REGISTRY.map((c) => c.help),
			...REGISTRY.flatMap((c) => [...c.usage, c.summary]),
			...['bash', 'zsh', 'fish'].map((shell) => completionScript(shell, REGISTRY) as string)
		]
		for (const text of seen) {
			expect(text).not.toMatch(/CONTRACT|SPEC\.md|[Ii]ssue \d/)
		}
	})
})
