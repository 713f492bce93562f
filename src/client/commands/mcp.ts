import { add } from '../mcp/add'
import { copy, remove } from '../mcp/copy'
import { list } from '../mcp/list'
import { CliFailure, EXIT, safe } from '../output'
import { defineCommand, type Input, TEAM, YES } from './command'

export const MCP_HELP = `cfgsync mcp list [--tool T]...
cfgsync mcp add NAME [--tool T]... [--env KEY[=VALUE]]... -- COMMAND [ARGS...]
cfgsync mcp add NAME [--tool T]... --url URL [--header K[=V]]... [--sse]
cfgsync mcp remove NAME [--tool T]...
cfgsync mcp copy --from TOOL [NAME...] [--tool T]... [--yes]

One list of MCP servers in every tool, on every machine. The servers live
in each tool's own file, in its own format (Claude Code's ~/.claude.json,
Codex's config.toml, Gemini CLI's settings.json, Cursor's mcp.json, VS
Code's user mcp.json, Windsurf's mcp_config.json); the next sync carries
each tool's file to your other machines as usual.

  list      every server × tool on this machine: "same", "differs" (and
            how: command, args, env names, url, headers, transport) or
            "missing". Env and header values are never shown.
  add       writes the server into each tool's file in its own format,
            keeping the file's other keys, comments and formatting; a tool
            that cannot hold it (a transport it lacks) is named, not written.
            An entry of that name that differs is replaced after asking
            (without a terminal only with --yes).
  remove    takes the server out of each tool's file.
  copy      writes TOOL's servers (all, or those NAMEd) into the other
            tools, where list shows them missing or different; asks before
            replacing a differing entry, and without a terminal replaces
            nothing (exit 1) unless --yes. A value TOOL keeps on this
            machine, or one that looks like a secret, stays on this machine.

  --tool T         the tools (may be given several times); without it, add
                   writes to the tools this machine syncs, and list looks at
                   those and at the tools whose MCP file is here
  --env KEY        asks for the value (no echo; from standard input, one line
                   each, without a terminal) and keeps it on this machine: a
                   local key of each file's config, never sent by a sync
  --env KEY=VALUE  a value that syncs; one that looks like a secret is refused
                   unless --allow-secrets, and always for a team
  --from TOOL      the tool copy reads
  --url URL        a remote server (streamable HTTP; --sse for SSE)
  --header K[=V]   a header of a remote server, as --env for its value
  --allow-secrets  syncs a secret-looking value given on the command line
  --team SLUG      the team's configs (an owner or admin): members receive
                   its servers with their next sync, after the review
  -y, --yes        replaces a differing entry without asking`

const options = {
	tool: { type: 'string', completes: 'tool', multiple: true },
	env: { type: 'string', multiple: true },
	header: { type: 'string', multiple: true },
	url: { type: 'string' },
	from: { type: 'string' },
	sse: { type: 'boolean' },
	'allow-secrets': { type: 'boolean' },
	...TEAM,
	...YES
} as const

// Its subcommands (src/client/mcp/) take the command's IO, printer, session and exit status.
async function run({ values, positionals, ...ctx }: Input<typeof options>) {
	const [sub, ...rest] = positionals
	if (sub === undefined)
		throw new CliFailure('which? cfgsync mcp list|add|remove|copy (see cfgsync mcp --help)', EXIT.usage)
	if (sub === 'list') {
		if (rest.length > 0)
			throw new CliFailure(`unexpected argument "${safe(rest[0] ?? '')}" (see cfgsync mcp --help)`, EXIT.usage)
		return list(ctx, values)
	}
	if (sub === 'add') return add(ctx, values, rest)
	if (sub === 'remove') return remove(ctx, values, rest)
	if (sub === 'copy') return copy(ctx, values, rest)
}

export const mcp = {
	...defineCommand({
		name: 'mcp',
		group: 'Sync',
		summary: 'MCP servers in every tool',
		usage: [
			'mcp list | add NAME [--tool T]... -- COMMAND [ARGS...] | add NAME --url URL',
			'mcp remove NAME [--tool T]... | copy --from TOOL [NAME...]'
		],
		help: MCP_HELP,
		args: [],
		subcommands: [
			{ name: 'list', args: [] },
			{ name: 'add', args: [{ name: 'NAME', completes: 'mcp-server' }] },
			{ name: 'remove', args: [{ name: 'NAME', completes: 'mcp-server' }] },
			{ name: 'copy', args: [{ name: 'NAME', completes: 'mcp-server', repeats: true }] }
		],
		options,
		run
	}),
	run
}
