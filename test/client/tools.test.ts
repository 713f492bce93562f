import { describe, expect, test } from 'bun:test'
import { stringify as toToml } from 'smol-toml'
import { TOOLS } from '../../src/shared/constants'
import {
	DESCRIPTORS,
	MCP_CONTAINERS,
	MCP_SECRET_FIELDS,
	PARTS,
	ALWAYS_REVIEWED,
	WELL_KNOWN,
	type KeyPath,
	type ToolDescriptor
} from '../../src/client/tools'
import { nameMatches, partKey } from '../../src/client/tools/descriptor'
import { reviewWrite } from '../../src/client/sync/review'
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

	test('the keys that are never inert are found through the descriptors, and hold every key the review must always ask about', () => {
		const never = (why: string) => ALWAYS_REVIEWED.filter((key) => key.why === why).map((key) => key.path)
		expect(never('runs a program')).toEqual([
			['statusLine'],
			['apiKeyHelper'],
			['awsAuthRefresh'],
			['awsCredentialExport'],
			['otelHeadersHelper'],
			['hooks'],
			['notify'],
			['toolDiscoveryCommand'],
			['toolCallCommand'],
			['tools', 'discoveryCommand'],
			['tools', 'callCommand']
		])
		expect(never('an MCP server')).toEqual([
			['mcpServers'],
			['projects', '*', 'mcpServers'],
			['servers'],
			['mcp', 'servers'],
			['mcp.servers'],
			['mcp_servers']
		])
		const widens = never('widens what the tool may do')
		for (const path of [
			['permissions'],
			['env'],
			['approval_policy'],
			['sandbox_mode'],
			['model_providers'],
			['shell_environment_policy'],
			['terminal.*'],
			['*.path'],
			['*Path'],
			['*.executable']
		])
			expect(widens).toContainEqual(path)
		expect([...MCP_CONTAINERS].sort()).toEqual(['mcpServers', 'servers', 'mcp_servers', 'mcp.servers'].sort())
		expect([...MCP_SECRET_FIELDS].sort()).toEqual(['env', 'headers', 'http_headers'])
	})

	test("each tool's code-running, MCP and permission keys are reviewed, its inert keys are not; its MCP credentials are found by secret detection", () => {
		const review = (descriptor: ToolDescriptor, key: string, value: Record<string, unknown>) =>
			reviewWrite(descriptor.id, key, descriptor.format === 'toml' ? '' : '{}', written(descriptor, value))
		for (const descriptor of descriptors) {
			for (const path of descriptor.runsCode.commands) {
				const found = review(descriptor, sample(descriptor), nest(path, 'run.sh'))
				expect({ path, inert: found.inert, label: found.diff[0]?.endsWith('(runs a program)') }).toEqual({
					path,
					inert: false,
					label: true
				})
			}
			for (const path of descriptor.runsCode.hooks) {
				const found = review(
					descriptor,
					sample(descriptor),
					nest(path, { Stop: [{ hooks: [{ type: 'command', command: 'x' }] }] })
				)
				expect({ path, inert: found.inert, label: found.diff[0]?.endsWith('(runs a program)') }).toEqual({
					path,
					inert: false,
					label: true
				})
			}
			for (const path of descriptor.widens) {
				const found = review(descriptor, sample(descriptor), nest(path, 'on'))
				expect({ path, inert: found.inert, label: found.diff[0]?.endsWith('(widens what the tool may do)') }).toEqual({
					path,
					inert: false,
					label: true
				})
			}
			for (const path of descriptor.inert)
				expect({ path, inert: review(descriptor, sample(descriptor), nest(path, 'x')).inert }).toEqual({
					path,
					inert: true
				})
			for (const servers of descriptor.mcp) {
				const field = servers.runs === 'entry' ? 'command' : (servers.runs[0] as string)
				const entry = {
					[field]: 'server-bin',
					...Object.fromEntries(servers.secrets.map((name) => [name, { UPSTREAM: 'a1b2c3d4e5f6a7b8' }]))
				}
				const text = written(descriptor, nest(servers.path, { s: entry }))
				const key = servers.file.startsWith('@') || servers.file.startsWith('.') ? servers.file : sample(descriptor)
				const found = reviewWrite(descriptor.id, key, descriptor.format === 'toml' ? '' : '{}', text)
				expect({
					servers: servers.path,
					inert: found.inert,
					label: found.diff[0]?.endsWith('(an MCP server: what it runs)')
				}).toEqual({
					servers: servers.path,
					inert: false,
					label: true
				})
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
