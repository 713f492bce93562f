import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { TOOLS, type Tool } from '../../../src/shared/constants'
import { type McpServer, cannotHold, differences, readServers, writeServer } from '../../../src/client/mcp/translate'
import { DESCRIPTORS } from '../../../src/client/tools'

/**
 * The translation between the six tools' MCP formats (docs/client.md, "MCP
 * servers"): each descriptor's table says how its entries are spelled. An
 * entry written to one tool and copied to another reads back the same
 * (command, args, env names, url, headers, transport), or the target says
 * why it cannot hold it; a write never touches anything outside its entry.
 */

const SEED = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31
const RUNS = process.env.CI === 'true' ? 500 : Number(process.env.PROPERTY_RUNS ?? 150)

/** Realistic files of each tool, with comments where the format has them, and another server. */
const EXISTING: Record<Tool, string> = {
	'claude-code': `{
  "numStartups": 41,
  "autoUpdaterStatus": "enabled",
  "projects": {
    "/home/ada/work": { "allowedTools": [], "mcpServers": {} }
  },
  "mcpServers": {
    "sentry": { "type": "http", "url": "https://mcp.sentry.dev/mcp" }
  },
  "oauthAccount": { "emailAddress": "ada@example.com" }
}
`,
	codex: `# Codex settings
model = "o3"

# Servers Codex starts
[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"] # pinned

[profiles.fast]
model = "o4-mini"
`,
	'gemini-cli': `{
  // Gemini CLI settings
  "theme": "GitHub",
  "mcpServers": {
    "docs": { "command": "npx", "args": ["-y", "docs-mcp"] }, // kept
  },
}
`,
	cursor: `{
  "mcpServers": {
    "linear": { "url": "https://mcp.linear.app/sse" }
  }
}
`,
	vscode: `{
	// VS Code's user MCP servers
	"inputs": [],
	"servers": {
		"docs": { "type": "stdio", "command": "npx", "args": ["-y", "docs-mcp"] }
	}
}
`,
	windsurf: `{
  "mcpServers": {}
}
`
}

const stdio: McpServer = {
	transport: 'stdio',
	command: 'npx',
	args: ['-y', '@modelcontextprotocol/server-github'],
	env: { GITHUB_TOOLSETS: 'repos,issues', LOG_LEVEL: 'debug' }
}
const http: McpServer = {
	transport: 'http',
	url: 'https://api.example.com/mcp',
	headers: { 'X-Team': 'platform' }
}
const sse: McpServer = { transport: 'sse', url: 'https://events.example.com/sse' }

/** What a server is, for comparing: its fields with env and header names sorted (values too, here). */
const canonical = (server: McpServer | undefined) =>
	server === undefined
		? undefined
		: {
				transport: server.transport,
				command: server.command,
				args: server.args ?? [],
				env: Object.entries(server.env ?? {}).sort(),
				url: server.url,
				headers: Object.entries(server.headers ?? {}).sort()
			}

const fileOf = (tool: Tool) => DESCRIPTORS[tool].mcpTable.file

describe('each tool has a translation table', () => {
	test('the table names the file and the servers object where the tool keeps its MCP servers', () => {
		for (const tool of TOOLS) {
			const table = DESCRIPTORS[tool].mcpTable
			// The table's place is one of the descriptor's MCP places, so the review and secret detection see it.
			expect(
				DESCRIPTORS[tool].mcp.some(
					(m) => m.file === table.file.replace(/#.*$/, '') && m.path.join('.') === table.path.join('.')
				)
			).toBe(true)
			expect(table.stdio).toBeDefined()
			expect(table.http).toBeDefined()
		}
		expect(fileOf('vscode')).toBe('@Code/User/mcp.json')
		expect(DESCRIPTORS.vscode.platforms.linux?.files).toContain('@Code/User/mcp.json')
	})

	test("each tool's own spelling", () => {
		const written = (tool: Tool, server: McpServer) => {
			const text = writeServer(tool, EXISTING[tool], 'x', server)
			if (typeof text !== 'string') throw new Error(text.why)
			return text
		}
		expect(written('claude-code', http)).toContain('"type": "http"')
		expect(written('codex', stdio)).toContain('[mcp_servers.x]')
		expect(written('codex', http)).toContain('[mcp_servers.x.http_headers]')
		expect(written('gemini-cli', http)).toContain('"httpUrl": "https://api.example.com/mcp"')
		expect(written('gemini-cli', sse)).toContain('"url": "https://events.example.com/sse"')
		expect(written('vscode', stdio)).toContain('"type": "stdio"')
		expect(written('windsurf', http)).toContain('"serverUrl": "https://api.example.com/mcp"')
		expect(written('cursor', http)).toContain('"url": "https://api.example.com/mcp"')
	})

	test('the servers already in realistic files are read', () => {
		expect(canonical(readServers('claude-code', EXISTING['claude-code']).get('sentry'))).toEqual(
			canonical({ transport: 'http', url: 'https://mcp.sentry.dev/mcp' })
		)
		for (const tool of ['codex', 'gemini-cli', 'vscode'] as const)
			expect(canonical(readServers(tool, EXISTING[tool]).get('docs'))).toEqual(
				canonical({ transport: 'stdio', command: 'npx', args: ['-y', 'docs-mcp'] })
			)
	})
})

describe('a round trip for every ordered pair of the six tools', () => {
	for (const from of TOOLS)
		for (const to of TOOLS) {
			test(`${from} → ${to}`, () => {
				for (const server of [stdio, http, sse]) {
					const refusedAtA = cannotHold(from, server)
					if (refusedAtA !== undefined) {
						expect(refusedAtA).toContain(server.transport === 'sse' ? 'SSE' : server.transport)
						expect(writeServer(from, EXISTING[from], 'x', server)).toEqual({ why: refusedAtA })
						continue
					}
					const a = writeServer(from, EXISTING[from], 'x', server)
					if (typeof a !== 'string') throw new Error(a.why)
					const readA = readServers(from, a).get('x')
					expect(canonical(readA)).toEqual(canonical(server))
					const refusedAtB = cannotHold(to, readA as McpServer)
					const b = writeServer(to, EXISTING[to], 'x', readA as McpServer)
					if (refusedAtB !== undefined) {
						// Named, and nothing written that the tool could not read.
						expect(b).toEqual({ why: refusedAtB })
						continue
					}
					if (typeof b !== 'string') throw new Error(b.why)
					expect(canonical(readServers(to, b).get('x'))).toEqual(canonical(server))
					expect(differences(readA as McpServer, readServers(to, b).get('x') as McpServer)).toEqual([])
				}
			})
		}

	test('what a tool cannot hold is said in words: Codex, Cursor and Windsurf have no SSE', () => {
		for (const tool of ['codex', 'cursor', 'windsurf'] as const) expect(cannotHold(tool, sse)).toMatch(/SSE/)
		for (const tool of ['claude-code', 'gemini-cli', 'vscode'] as const) expect(cannotHold(tool, sse)).toBeUndefined()
	})

	test('differences are named field by field', () => {
		expect(differences(stdio, { ...stdio, args: ['-y', 'other'] })).toEqual(['args'])
		expect(differences(stdio, { ...stdio, env: { LOG_LEVEL: 'x' } })).toEqual(['env names'])
		expect(differences(stdio, http)).toContain('transport')
		expect(differences(http, { ...http, headers: {} })).toEqual(['headers'])
	})
})

// Random entries and random files around them: everything outside the entry survives byte for byte.
const word = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/)
const value = fc.oneof(
	fc.stringMatching(/^[A-Za-z0-9 ._/:-]{0,16}$/),
	fc.integer({ min: -1000, max: 1000 }),
	fc.boolean()
)
const entry: fc.Arbitrary<McpServer> = fc.oneof(
	fc.record({
		transport: fc.constant('stdio' as const),
		command: word,
		args: fc.array(fc.stringMatching(/^[A-Za-z0-9 ._/:=-]{0,12}$/), { maxLength: 4 }),
		env: fc.dictionary(fc.stringMatching(/^[A-Z][A-Z0-9_]{0,8}$/), fc.stringMatching(/^[a-z0-9,._-]{0,10}$/), {
			maxKeys: 3
		})
	}),
	fc.record({
		transport: fc.constant('http' as const),
		url: word.map((w) => `https://${w}.example.com/mcp`),
		headers: fc.dictionary(fc.stringMatching(/^X-[A-Za-z]{1,8}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/), { maxKeys: 2 })
	})
)

/** A JSON file of a tool: other keys, comments, the servers object with other servers, in random spacing. */
const jsonFile = (container: string[]) =>
	fc
		.record({
			before: fc.array(fc.tuple(word, value), { maxLength: 3 }),
			after: fc.array(fc.tuple(word, value), { maxLength: 3 }),
			others: fc.array(fc.tuple(word, word), { maxLength: 3 }),
			comment: fc.boolean(),
			tabs: fc.boolean()
		})
		.map(({ before, after, others, comment, tabs }) => {
			const i = tabs ? '\t' : '  '
			const pairs = (list: [string, unknown][], depth: number) =>
				list.map(([k, v]) => `${i.repeat(depth)}"${k}_": ${JSON.stringify(v)},`).join('\n')
			const servers = others
				.map(([name, command]) => `${i.repeat(2)}"o_${name}": { "command": "${command}" }`)
				.filter((line, n, all) => all.findIndex((l) => l.split(':')[0] === line.split(':')[0]) === n)
				.join(',\n')
			const head = container.slice(0, -1)
			const open = head.map((k, n) => `${i.repeat(n + 1)}"${k}": {`).join('\n')
			const close = head.map((_, n) => `${i.repeat(head.length - n)}}`).join('\n')
			return [
				'{',
				comment ? `${i}// kept as it is` : '',
				pairs(before, 1),
				open,
				`${i}"${container.at(-1)}": {${servers ? `\n${servers}\n${i}` : ''}}${head.length > 0 ? '' : ','}`,
				close ? `${close},` : '',
				pairs(after, 1),
				`${i}"last_": true`,
				'}',
				''
			]
				.filter((line) => line !== '')
				.join('\n')
		})

const tomlFile = fc
	.record({
		top: fc.array(fc.tuple(word, value), { maxLength: 3 }),
		others: fc.array(word, { maxLength: 2 }),
		comment: fc.boolean(),
		profile: fc.boolean()
	})
	.map(({ top, others, comment, profile }) =>
		[
			comment ? '# Codex settings, by hand' : '',
			...[...new Map(top.map(([k, v]) => [k, v])).entries()].map(([k, v]) => `t_${k} = ${JSON.stringify(v)}`),
			...[...new Set(others)].map((name) => `\n[mcp_servers.o_${name}]\ncommand = "npx" # theirs`),
			profile ? '\n[profiles.fast]\nmodel = "o4-mini"' : '',
			''
		]
			.filter((line, n, all) => line !== '' || n === all.length - 1)
			.join('\n')
	)

const fileFor = (tool: Tool) =>
	tool === 'codex' ? tomlFile : jsonFile(DESCRIPTORS[tool].mcpTable.path.map((p) => p) as string[])

/** The text with the entry named `x` taken out (and the servers object left as the write found it). */
const withoutEntry = (tool: Tool, text: string) => {
	const removed = writeServer(tool, text, 'x', undefined)
	if (typeof removed !== 'string') throw new Error(removed.why)
	return removed
}

describe('property: other content and comments survive byte for byte', () => {
	test(`adding then removing an entry gives back the same bytes, and other servers read the same (seed ${SEED})`, () => {
		console.log(`translate property: seed ${SEED}, ${RUNS} runs (PROPERTY_SEED=${SEED} repeats them)`)
		fc.assert(
			fc.property(
				fc.constantFrom(...TOOLS).chain((tool) => fc.tuple(fc.constant(tool), fileFor(tool), entry)),
				([tool, file, server]) => {
					const servers = readServers(tool, file)
					const written = writeServer(tool, file, 'x', server)
					if (typeof written !== 'string') throw new Error(written.why)
					// The entry reads back; every other server reads as before.
					expect(canonical(readServers(tool, written).get('x'))).toEqual(canonical(server))
					for (const [name, other] of servers)
						expect(canonical(readServers(tool, written).get(name))).toEqual(canonical(other))
					// Every line of the file outside the entry is still there, in order, byte for byte.
					const lines = written.split('\n')
					let at = 0
					for (const line of file.split('\n')) {
						// A server before the new entry gains the comma that separates them.
						const found = Math.max(lines.indexOf(line, at), lines.indexOf(`${line},`, at))
						// The servers object's own brackets may open up to take the entry.
						if (found < 0 && (/^\s*[}\]]?,?\s*$/.test(line) || line.includes(': {}'))) continue
						expect({ line, found: found >= 0 }).toEqual({ line, found: true })
						at = found + 1
					}
					// Taking it out again gives the file back exactly (a servers object it made is left empty).
					const back = withoutEntry(tool, written)
					if (servers.size > 0 || tool === 'codex') expect(back).toBe(file)
				}
			),
			{ seed: SEED, numRuns: RUNS }
		)
	})
})
