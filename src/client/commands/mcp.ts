import { list } from '../mcp/list'
import { CliFailure, EXIT } from '../output'
import { defineCommand, type Input } from './command'

export const MCP_HELP = `cfgsync mcp list [--tool T]...

One list of MCP servers in every tool, on every machine. The servers live
in each tool's own file, in its own format (Claude Code's ~/.claude.json,
Codex's config.toml, Gemini CLI's settings.json, Cursor's mcp.json, VS
Code's user mcp.json, Windsurf's mcp_config.json); the next sync carries
each tool's file to your other machines as usual.

  list      every server × tool on this machine: "same", "differs" (and
            how: command, args, env names, url, headers, transport) or
            "missing". Env and header values are never shown.

  --tool T  the tools to look at (may be given several times); without it,
            the tools this machine syncs and those whose MCP file is here`

const options = {
	tool: { type: 'string', completes: 'tool', multiple: true }
} as const

async function run({ values, positionals }: Input<typeof options>) {
	const [sub, ...rest] = positionals
	if (sub === undefined) throw new CliFailure('which? cfgsync mcp list (see cfgsync mcp --help)', EXIT.usage)
	if (sub === 'list') {
		if (rest.length > 0) throw new CliFailure(`unexpected argument "${rest[0]}" (see cfgsync mcp --help)`, EXIT.usage)
		return list(values)
	}
}

export const mcp = defineCommand({
	name: 'mcp',
	group: 'Sync',
	summary: '',
	usage: ['mcp list [--tool T]...'],
	help: MCP_HELP,
	args: [],
	subcommands: [{ name: 'list', args: [] }],
	options,
	run
})
