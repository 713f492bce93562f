import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import {
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	readdirSync,
	readlinkSync,
	statSync,
	symlinkSync,
	writeFileSync
} from 'node:fs'
import { join } from 'node:path'
import { applyWrites, asFileSet, landingPlace, readText, refusedWrites, safeTarget } from '../../src/client/files'
import { installedPaths, type Paths, usePaths } from '../../src/client/paths'
import { homeRelative, knownFiles } from '../../src/client/tools'
import { TOOLS } from '../../src/shared/constants'
import { pathsIn } from '../support/client/home'
import { tempDir } from '../support/temp'

let before: Paths | undefined
let home: string
beforeAll(() => {
	before = installedPaths()
})
// A fresh home each test, without XDG directories set.
beforeEach(() => {
	home = tempDir('home')
	usePaths(pathsIn(home, { XDG_CONFIG_HOME: undefined, XDG_STATE_HOME: undefined }))
})
afterAll(() => {
	usePaths(before)
})

const put = (path: string, content: string | Buffer) => {
	mkdirSync(join(path, '..'), { recursive: true })
	writeFileSync(path, content)
}

describe('client file rules', () => {
	test("paths from the server must stay inside home; neutral editor keys land in this platform's directory", () => {
		expect(safeTarget('.claude/settings.json')).toBe(join(home, '.claude', 'settings.json'))
		expect(safeTarget('@Code/User/settings.json')).toBe(join(home, '.config', 'Code', 'User', 'settings.json'))
		for (const bad of [
			'',
			'/etc/passwd',
			'../x',
			'.claude/../../x',
			'a//b',
			'./a',
			'a\\b',
			'C:/x',
			'a\0b',
			'.claude/..',
			'@Code/User/../../../x',
			'@Emacs/User/x',
			'@Code/User'
		]) {
			expect(() => safeTarget(bad)).toThrow()
		}
	})

	test('local paths become keys: home-relative, editor directories neutral; outside home they are refused', () => {
		expect(homeRelative(join(home, '.codex', 'config.toml'))).toBe('.codex/config.toml')
		expect(homeRelative(join(home, '.config', 'Cursor', 'User', 'settings.json'))).toBe('@Cursor/User/settings.json')
		expect(homeRelative('/etc/hosts')).toBeUndefined()
		expect(homeRelative(home)).toBeUndefined()
		expect(() => homeRelative(join(home, '@Code', 'x'))).toThrow('starts with "@"')
	})

	test('every tool has well-known files; editor files in neutral form', () => {
		expect(knownFiles('claude-code')).toEqual(['.claude/settings.json', '.claude/CLAUDE.md', '.claude.json#mcpServers'])
		expect(knownFiles('vscode')).toEqual([
			'@Code/User/settings.json',
			'@Code/User/keybindings.json',
			'@Code/User/mcp.json'
		])
		for (const tool of TOOLS) expect(knownFiles(tool).length).toBeGreaterThan(0)
	})

	test('only {"files": {path: text}} is a file set', () => {
		expect(asFileSet({ files: { a: 'x' } })).toEqual({ files: { a: 'x' } })
		for (const other of [null, 'text', [], { files: [] }, { files: { a: 1 } }, { other: {} }])
			expect(asFileSet(other)).toBeUndefined()
	})

	test('text is read exactly as its bytes: a BOM, CRLF and a missing final newline stay', () => {
		put(join(home, '.claude', 'settings.json'), Buffer.from([0xef, 0xbb, 0xbf, ...Buffer.from('{"a":1}\r\n{')]))
		expect(readText('.claude/settings.json')).toBe('\uFEFF{"a":1}\r\n{')
		expect(readText('.claude/CLAUDE.md')).toBeUndefined()
		put(join(home, '.claude', 'bin.md'), Buffer.from([0xff, 0xfe, 0x00]))
		expect(() => readText('.claude/bin.md')).toThrow('not UTF-8')
	})
})

describe('writing files', () => {
	test('writes are byte-exact; what is overwritten or deleted is backed up first (0600); new files are 0600, existing keep their mode', () => {
		const settings = join(home, '.claude', 'settings.json')
		put(settings, 'old\n')
		const backups = join(home, 'backups')
		const { backedUp } = applyWrites(
			[
				{ key: '.claude/settings.json', content: '\uFEFF{"a":1}\r\n', kind: 'updated' },
				{ key: '.claude/CLAUDE.md', content: 'no newline', kind: 'created' }
			],
			backups
		)
		expect(backedUp).toBe(1)
		expect([...readFileSync(settings).subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
		expect(readFileSync(settings, 'utf8')).toBe('\uFEFF{"a":1}\r\n')
		expect(readFileSync(join(home, '.claude', 'CLAUDE.md'), 'utf8')).toBe('no newline')
		expect(statSync(join(home, '.claude', 'CLAUDE.md')).mode & 0o777).toBe(0o600)
		expect(readFileSync(join(backups, '.claude', 'settings.json'), 'utf8')).toBe('old\n')
		expect(statSync(join(backups, '.claude', 'settings.json')).mode & 0o777).toBe(0o600)
		applyWrites([{ key: '.claude/CLAUDE.md', content: null, kind: 'deleted' }], backups)
		expect(existsSync(join(home, '.claude', 'CLAUDE.md'))).toBe(false)
		expect(readFileSync(join(backups, '.claude', 'CLAUDE.md'), 'utf8')).toBe('no newline')
		// No temporary files are left beside the targets.
		expect(readdirSync(join(home, '.claude'))).toEqual(['settings.json'])
	})

	test('a symlinked file whose target is inside home is written through: the link stays', () => {
		const dotfiles = join(home, 'dotfiles', 'claude-settings.json')
		put(dotfiles, '{"old":true}\n')
		mkdirSync(join(home, '.claude'))
		symlinkSync(dotfiles, join(home, '.claude', 'settings.json'))
		expect(refusedWrites([{ key: '.claude/settings.json', content: 'x', kind: 'updated' }]).size).toBe(0)
		applyWrites([{ key: '.claude/settings.json', content: '{"new":true}\n', kind: 'updated' }], join(home, 'backups'))
		expect(lstatSync(join(home, '.claude', 'settings.json')).isSymbolicLink()).toBe(true)
		expect(readlinkSync(join(home, '.claude', 'settings.json'))).toBe(dotfiles)
		expect(readFileSync(dotfiles, 'utf8')).toBe('{"new":true}\n')
		// Deleting removes the link, never what it points to.
		applyWrites([{ key: '.claude/settings.json', content: null, kind: 'deleted' }], join(home, 'backups'))
		expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false)
		expect(readFileSync(dotfiles, 'utf8')).toBe('{"new":true}\n')
	})

	test('a link (of the file, or of a directory above it, dangling or not) that leads outside home is refused', () => {
		const outside = tempDir('outside')
		symlinkSync(outside, join(home, '.claude'))
		mkdirSync(join(home, '.codex'))
		symlinkSync(join(outside, 'nowhere', 'config.toml'), join(home, '.codex', 'config.toml'))
		put(join(home, '.gemini', 'settings.json'), '{}')
		const refused = refusedWrites([
			{ key: '.claude/settings.json', content: 'x', kind: 'created' },
			{ key: '.codex/config.toml', content: 'x', kind: 'created' },
			{ key: '.gemini/settings.json', content: 'x', kind: 'updated' }
		])
		expect([...refused.keys()]).toEqual(['.claude/settings.json', '.codex/config.toml'])
		expect(refused.get('.claude/settings.json')).toContain('points outside your home directory')
		expect(landingPlace(join(home, '.claude', 'a', 'b.json'))).toBe(join(outside, 'a', 'b.json'))
	})
})
