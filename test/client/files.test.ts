import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { asFileSet, safeTarget } from '../../src/client/files'
import { homeRelative, knownFiles } from '../../src/client/tools'
import { TOOLS } from '../../src/lib/constants'
import { tempDir } from '../temp'

let saved: Record<string, string | undefined>
let home: string
beforeAll(() => {
	saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME }
	home = tempDir('home')
	process.env.HOME = home
	delete process.env.XDG_CONFIG_HOME
})
afterAll(() => {
	for (const [key, value] of Object.entries(saved)) {
		if (value === undefined) delete process.env[key]
		else process.env[key] = value
	}
})

describe('client file rules', () => {
	test('paths from the server must stay inside home', () => {
		expect(safeTarget('.claude/settings.json')).toBe(join(home, '.claude', 'settings.json'))
		for (const bad of ['', '/etc/passwd', '../x', '.claude/../../x', 'a//b', './a', 'a\\b', 'C:/x', 'a\0b', '.claude/..']) {
			expect(() => safeTarget(bad)).toThrow()
		}
	})

	test('local paths become home-relative keys; outside home they are refused', () => {
		expect(homeRelative(join(home, '.codex', 'config.toml'))).toBe('.codex/config.toml')
		expect(homeRelative('/etc/hosts')).toBeUndefined()
		expect(homeRelative(home)).toBeUndefined()
	})

	test('every tool has well-known files under home', () => {
		expect(knownFiles('claude-code')).toEqual(['.claude/settings.json', '.claude/CLAUDE.md'])
		expect(knownFiles('vscode')).toEqual(['.config/Code/User/settings.json', '.config/Code/User/keybindings.json'])
		for (const tool of TOOLS) expect(knownFiles(tool).length).toBeGreaterThan(0)
	})

	test('only {"files": {path: text}} is a file set', () => {
		expect(asFileSet({ files: { a: 'x' } })).toEqual({ files: { a: 'x' } })
		for (const other of [null, 'text', [], { files: [] }, { files: { a: 1 } }, { other: {} }]) expect(asFileSet(other)).toBeUndefined()
	})
})
