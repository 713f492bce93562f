import { describe, expect, test } from 'bun:test'
import { complete, completionScript } from '../../../src/client/commands/completion'
import { REGISTRY } from '../../../src/client/commands/index'
import { homePerTest } from '../../support/client/home'
import { put } from './run'

/** `cfgsync mcp` completes from the registry: its subcommands and options, tools for --tool, server names from this machine. */

const home = homePerTest('mcp-complete')

async function completions(args: string[]): Promise<string[]> {
	let out = ''
	const write = process.stdout.write.bind(process.stdout)
	process.stdout.write = ((chunk: string) => {
		out += chunk
		return true
	}) as typeof process.stdout.write
	try {
		await complete(args)
	} finally {
		process.stdout.write = write
	}
	return out.split('\n').filter(Boolean)
}

describe('completion of cfgsync mcp', () => {
	test('the scripts know its subcommands, options and that NAME is a server', () => {
		for (const shell of ['bash', 'zsh', 'fish']) {
			const script = completionScript(shell, REGISTRY) as string
			for (const word of ['list', 'add', 'remove', 'copy', 'env', 'header', 'url', 'allow-secrets', 'sse'])
				expect(script).toContain(word)
			expect(script).toContain('__complete mcp-servers')
		}
		expect(completionScript('bash', REGISTRY)).toContain('"mcp remove 1") kind=mcp-server')
	})

	test('server names come from every tool here', async () => {
		put(home(), '.claude.json', '{ "mcpServers": { "github": { "command": "npx" } } }')
		put(home(), '.codex/config.toml', '[mcp_servers.docs]\ncommand = "npx"\n')
		expect(await completions(['mcp-servers'])).toEqual(['docs', 'github'])
	})
})
