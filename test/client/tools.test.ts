import { describe, expect, test } from 'bun:test'
import { stringify as toToml } from 'smol-toml'
import { TOOLS } from '../../src/shared/constants'
import {
	DESCRIPTORS,
	MCP_CONTAINERS,
	MCP_SECRET_FIELDS,
	PARTS,
	RUNS_CODE,
	WELL_KNOWN,
	type KeyPath,
	type ToolDescriptor
} from '../../src/client/tools'
import { nameMatches, partKey } from '../../src/client/tools/descriptor'
import { runnables } from '../../src/client/sync/runs-code'
import { findSecrets } from '../../src/client/sync/secrets'
import { toLocal, type Os, type Platform } from '../../src/client/sync/paths'

// Each tool's descriptor is complete, and the detectors find through them every rule they held themselves before.

const machines: Record<Os, Platform> = {
	linux: { os: 'linux', home: '/home/ada' },
	darwin: { os: 'darwin', home: '/Users/ada' },
	win32: { os: 'win32', home: 'C:\\Users\\ada', appData: 'C:\\Users\\ada\\AppData\\Roaming' }
}
const appDirs: Record<Os, string> = {
	linux: '.config',
	darwin: 'Library/Application Support',
	win32: 'AppData/Roaming'
}
const descriptors = TOOLS.map((tool) => DESCRIPTORS[tool])

/** A value set at `path` (`*` as the name `x`). */
function nest(path: KeyPath, value: unknown): Record<string, unknown> {
	const [name, ...rest] = path as [string, ...string[]]
	return { [name === '*' ? 'x' : name]: rest.length === 0 ? value : nest(rest, value) }
}
const written = (descriptor: ToolDescriptor, value: Record<string, unknown>) =>
	descriptor.format === 'toml' ? toToml(value) : JSON.stringify(value)
const sample = (descriptor: ToolDescriptor) =>
	descriptor.format === 'toml' ? '.codex/config.toml' : '.claude/settings.json'
const shown = (path: KeyPath, extra: string[] = []) =>
	[...path.map((name) => (name === '*' ? 'x' : name)), ...extra]
		.map((name) => (/^[A-Za-z_$][\w$-]*$/.test(name) ? name : `[${JSON.stringify(name)}]`))
		.join('.')
		.replace(/\.\[/g, '[')

describe('the tool descriptors', () => {
	test('six tools, one descriptor each, with files on every OS it supports (all three today)', () => {
		expect(Object.keys(DESCRIPTORS)).toEqual([...TOOLS])
		for (const tool of TOOLS) {
			const descriptor = DESCRIPTORS[tool]
			expect(descriptor.id).toBe(tool)
			expect(Object.keys(descriptor.platforms).sort()).toEqual(['darwin', 'linux', 'win32'])
			for (const os of ['linux', 'darwin', 'win32'] as const) {
				const places = descriptor.platforms[os]
				expect(places?.files.length).toBeGreaterThan(0)
				for (const key of [...(places?.files ?? []), ...(places?.dirs ?? [])]) {
					const local = toLocal(key, machines[os])
					expect(local).toBeDefined()
					if (key.startsWith('@')) expect(local?.startsWith(`${appDirs[os]}/${descriptor.editor}/User/`)).toBe(true)
				}
			}
			expect(WELL_KNOWN[tool].files).toEqual([...(descriptor.platforms.linux?.files ?? [])])
			expect(WELL_KNOWN[tool].dirs).toEqual([...(descriptor.platforms.linux?.dirs ?? [])])
		}
	})

	test('an editor names its user directory; every part is one of its files; every MCP place names a file', () => {
		for (const descriptor of descriptors) {
			for (const key of descriptor.platforms.linux?.files ?? [])
				if (key.startsWith('@')) expect(key.startsWith(`@${descriptor.editor}/User/`)).toBe(true)
			for (const part of descriptor.parts) {
				expect(descriptor.platforms.linux?.files).toContain(partKey(part))
				expect(PARTS[partKey(part)]).toEqual(part)
			}
			for (const servers of descriptor.mcp) {
				expect(servers.file).not.toBe('')
				expect(servers.path.length).toBeGreaterThan(0)
				expect(servers.runs === 'entry' || servers.runs.length > 0).toBe(true)
			}
		}
		expect(Object.keys(PARTS)).toEqual(['.claude.json#mcpServers'])
	})

	test('the detectors hold no rule of their own: every rule they used before is found through the descriptors, in the same order', () => {
		const fields = ['command', 'args', 'url', 'serverUrl', 'httpUrl']
		expect(RUNS_CODE.json.commands).toEqual([
			['statusLine'],
			['apiKeyHelper'],
			['awsAuthRefresh'],
			['awsCredentialExport'],
			['otelHeadersHelper'],
			['toolDiscoveryCommand'],
			['toolCallCommand'],
			['tools', 'discoveryCommand'],
			['tools', 'callCommand']
		])
		expect(RUNS_CODE.json.hooks).toEqual([['hooks']])
		expect(RUNS_CODE.json.mcp.map((rule) => ({ path: rule.path, onlyIn: rule.onlyIn }))).toEqual([
			{ path: ['mcpServers'], onlyIn: undefined },
			{ path: ['mcp', 'servers'], onlyIn: undefined },
			{ path: ['mcp.servers'], onlyIn: undefined },
			{ path: ['servers'], onlyIn: 'mcp.json' },
			{ path: ['projects', '*', 'mcpServers'], onlyIn: undefined }
		])
		for (const rule of RUNS_CODE.json.mcp)
			expect(rule.runs === 'entry' ? [] : [...rule.runs].sort()).toEqual([...fields].sort())
		expect(RUNS_CODE.toml).toEqual({
			commands: [['notify']],
			hooks: [],
			mcp: [{ path: ['mcp_servers'], runs: 'entry' }]
		})
		expect([...MCP_CONTAINERS].sort()).toEqual(['mcpServers', 'servers', 'mcp_servers', 'mcp.servers'].sort())
		expect([...MCP_SECRET_FIELDS].sort()).toEqual(['env', 'headers', 'http_headers'])
	})

	test("each tool's code-running keys and MCP servers are found by the review, and its MCP credentials by secret detection", () => {
		for (const descriptor of descriptors) {
			for (const path of descriptor.runsCode.commands) {
				const found = runnables(sample(descriptor), written(descriptor, nest(path, 'run.sh')))
				expect([...(found as Map<string, string>).keys()]).toEqual([shown(path)])
			}
			for (const path of descriptor.runsCode.hooks) {
				const found = runnables(
					sample(descriptor),
					written(descriptor, nest(path, { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] }))
				)
				expect([...(found as Map<string, string>).keys()]).toEqual([`${shown(path)}.Stop[0]`])
			}
			for (const servers of descriptor.mcp) {
				const field = servers.runs === 'entry' ? 'command' : (servers.runs[0] as string)
				const entry = {
					[field]: 'server-bin',
					...Object.fromEntries(servers.secrets.map((name) => [name, { UPSTREAM: 'a1b2c3d4e5f6a7b8' }]))
				}
				const text = written(descriptor, nest(servers.path, { s: entry }))
				const key = servers.file.startsWith('@') || servers.file.startsWith('.') ? servers.file : sample(descriptor)
				expect([...(runnables(key, text) as Map<string, string>).keys()]).toEqual([shown(servers.path, ['s'])])
				expect(findSecrets(key, text).map((secret) => secret.path)).toEqual(
					servers.secrets.map((name) => shown(servers.path, ['s', name, 'UPSTREAM']))
				)
			}
		}
	})

	test('no inert key runs code, holds MCP servers or widens permissions, nor lies under one that does', () => {
		const covers = (pattern: KeyPath, key: KeyPath) =>
			pattern.length <= key.length && pattern.every((name, i) => nameMatches(name, key[i] as string))
		const within = (a: KeyPath, b: KeyPath) => covers(a, b) || covers(b, a)
		for (const descriptor of descriptors) {
			const reviewed = [
				...descriptor.runsCode.commands,
				...descriptor.runsCode.hooks,
				...descriptor.mcp.map((servers) => servers.path),
				...descriptor.widens
			]
			expect(descriptor.inert.length).toBeGreaterThan(0)
			for (const key of descriptor.inert)
				for (const path of reviewed)
					expect({ tool: descriptor.id, key, path, within: within(path, key) }).toEqual({
						tool: descriptor.id,
						key,
						path,
						within: false
					})
		}
		// Gemini CLI's theme is inert (docs/sync-model.md).
		expect(DESCRIPTORS['gemini-cli'].inert).toContainEqual(['theme'])
	})

	test('`*` in a name matches any run of characters', () => {
		expect(nameMatches('*', '/src/app')).toBe(true)
		expect(nameMatches('terminal.*', 'terminal.integrated.shell.linux')).toBe(true)
		expect(nameMatches('terminal.*', 'editor.terminal')).toBe(false)
		expect(nameMatches('*Path', 'python.defaultInterpreterPath')).toBe(true)
		expect(nameMatches('*.path', 'git.path')).toBe(true)
		expect(nameMatches('a*b*c', 'abc')).toBe(true)
		expect(nameMatches('a*b*c', 'acb')).toBe(false)
		expect(nameMatches('ab*ba', 'aba')).toBe(false)
		expect(nameMatches('theme', 'theme')).toBe(true)
		expect(nameMatches('theme', 'themes')).toBe(false)
	})
})
