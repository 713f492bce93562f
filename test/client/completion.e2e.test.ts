import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { serversOfThisFile, type Server } from '../support/harness'
import { CLI, login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'
import { COMMON } from '../../src/client/commands/command'
import { REGISTRY } from '../../src/client/commands/index'

/**
 * Issue 20: `cfgsync completion bash|zsh|fish`. The bash script is loaded
 * into bash and asked what it completes (COMPREPLY, filled by compgen);
 * config names and teams come from this machine's sync state. zsh's and
 * fish's scripts are checked by those shells when they are installed
 * (fish answers `complete -C` itself; zsh is syntax-checked and loaded).
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
let m: Machine
let bin: string
beforeAll(async () => {
	;({ server, ada } = await serverWithUsers(servers))
	m = machine(server)
	expect((await login(m, ada, 'completion')).code).toBe(0)
	await m.cfgsync(['team', 'create', 'Tab', 'Team'])
	m.file('.codex/AGENTS.md', 'x\n')
	await m.cfgsync(['push', 'codex', '-n', 'work-rules'])
	await m.cfgsync(['push', 'codex', '--team', 'tab-team', join(m.home, '.codex', 'AGENTS.md')])
	m.file('.gemini/GEMINI.md', 'y\n')
	await m.cfgsync(['push', 'gemini-cli', '-n', 'gem'])
	// `cfgsync` on PATH, as an installed client is (fish's script calls it by name).
	bin = join(m.home, 'bin')
	mkdirSync(bin)
	symlinkSync(CLI, join(bin, 'cfgsync'))
}, 60_000)

const shell = (name: string) => Bun.which(name) !== null

async function script(which: string): Promise<string> {
	const out = await m.cfgsync(['completion', which])
	expect(out.code).toBe(0)
	const file = join(m.home, `completion.${which}`)
	writeFileSync(file, out.stdout)
	return file
}

/** What bash completes for the words typed (the last one is the word under the cursor). */
async function bash(words: string[]): Promise<string[]> {
	const file = await script('bash')
	const quoted = words.map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ')
	const program = `source '${file}'; COMP_WORDS=(cfgsync ${quoted}); COMP_CWORD=${words.length}; _cfgsync; printf '%s\\n' "\${COMPREPLY[@]}"`
	const proc = Bun.spawn(['bash', '--norc', '--noprofile', '-c', program], {
		cwd: m.home,
		env: {
			PATH: `${bin}:${process.env.PATH}`,
			HOME: m.home,
			XDG_CONFIG_HOME: join(m.home, '.config'),
			XDG_STATE_HOME: join(m.home, '.local', 'state')
		},
		stdout: 'pipe',
		stderr: 'pipe'
	})
	const [out, err, code] = await Promise.all([
		new Response(proc.stdout).text(),
		new Response(proc.stderr).text(),
		proc.exited
	])
	expect({ words, err, code }).toEqual({ words, err: '', code: 0 })
	return out.split('\n').filter(Boolean).sort()
}

describe('cfgsync completion', () => {
	test('bash: the script registers itself, and compgen completes commands, options, tools, subcommands, roles, config names and teams', async () => {
		const file = await script('bash')
		const registered = Bun.spawnSync([
			'bash',
			'--norc',
			'-c',
			`source '${file}'; complete -p cfgsync`
		]).stdout.toString()
		expect(registered.trim()).toBe('complete -F _cfgsync cfgsync')
		expect(await bash(['pu'])).toEqual(['pull', 'push'])
		expect(await bash(['t'])).toEqual(['team', 'teams', 'trust'])
		expect(await bash(['push', ''])).toEqual(['claude-code', 'codex', 'cursor', 'gemini-cli', 'vscode', 'windsurf'])
		expect(await bash(['pull', 'cl'])).toEqual(['claude-code'])
		expect(await bash(['push', 'codex', '--na'])).toEqual(['--name'])
		expect(await bash(['diff', 'codex', '--no'])).toEqual(['--no-pager'])
		expect(await bash(['push', 'codex', '--name', ''])).toEqual(['default', 'work-rules'])
		expect(await bash(['push', 'codex', '-n', 'w'])).toEqual(['work-rules'])
		expect(await bash(['pull', 'gemini-cli', '--name', ''])).toEqual(['default', 'gem'])
		expect(await bash(['pull', 'codex', '--team', ''])).toEqual(['tab-team'])
		expect(await bash(['team', ''])).toEqual([
			'add',
			'create',
			'delete',
			'invite',
			'leave',
			'list',
			'remove',
			'rename',
			'restore',
			'role',
			'show'
		])
		expect(await bash(['team', 'show', ''])).toEqual(['tab-team'])
		expect(await bash(['team', 'role', 'tab-team', 'ben', ''])).toEqual(['admin', 'member', 'owner'])
		expect(await bash(['team', 'invite', 'tab-team', 'ben', '--role', ''])).toEqual(['admin', 'member'])
		expect(await bash(['keys', ''])).toEqual(['list', 'rename', 'revoke'])
		expect(await bash(['invitations', 'a'])).toEqual(['accept'])
		expect(await bash(['completion', ''])).toEqual(['bash', 'fish', 'zsh'])
		expect(await bash(['log', '--type', 'config.p'])).toEqual(['config.pushed'])
		expect(await bash(['push', 'codex', '.codex/AG'])).toEqual(['.codex/AGENTS.md'])
		expect(await bash(['--profile', 'x', 'who'])).toEqual(['whoami'])
		expect(await bash(['whoami', '--'])).toContain('--profile')
	}, 60_000)

	test("bash: cfgsync local completes the keys of the tool's settings files here, prefixed with the file when it has several", async () => {
		m.file(
			'.config/Code/User/settings.json',
			'{\n  // mine\n  "editor.fontSize": 14,\n  "[python]": {"editor.tabSize": 4}\n}\n'
		)
		expect(await bash(['local', 'vscode', 'editor.f'])).toEqual(['editor.fontSize'])
		expect(await bash(['local', 'vscode', 'editor.fontSize', '[py'])).toEqual(['[python]', '[python].editor.tabSize'])
		m.file('.claude/settings.json', '{"model": "opus", "permissions": {"allow": []}}\n')
		m.file('.claude.json', '{"mcpServers": {"local-db": {}}, "numStartups": 1}\n')
		expect(await bash(['local', 'claude-code', '~/.claude/settings.json:'])).toEqual([
			'model',
			'permissions',
			'permissions.allow'
		])
		expect(await bash(['local', 'claude-code', '~/.claude.json:mcp'])).toEqual(['mcpServers', 'mcpServers.local-db'])
	}, 60_000)

	test('bash: every option of every command in the registry completes, and the word after a valued one is its value, not an argument', async () => {
		const file = await script('bash')
		// One bash run: each case prints its words, a case per line ("cmd ... --opt" → candidates).
		const cases: { words: string[]; want: string }[] = []
		for (const c of REGISTRY) {
			const lead = [
				c.name,
				...(c.subcommands ? [c.subcommands[0]?.name as string] : []),
				...(c.args[0]?.completes === 'tool' ? ['codex'] : [])
			]
			for (const [long, spec] of Object.entries({ ...COMMON, ...c.options })) {
				if (c.raw && long in COMMON) continue
				cases.push({ words: [...lead, `--${long}`], want: `--${long}` })
				// -h is --help's other spelling: the scripts offer --help.
				if ('short' in spec && spec.short && long !== 'help')
					cases.push({ words: [...lead, `-${spec.short}`], want: `-${spec.short}` })
				// After a valued option and its value, the next word is still the command's: the tool list for push, etc.
				if (spec.type === 'string' && c.args[0]?.completes === 'tool')
					cases.push({ words: [c.name, `--${long}`, 'x', 'cod'], want: 'codex' })
			}
		}
		const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`
		const program = [
			`source '${file}'`,
			...cases.map(
				(k) =>
					`COMP_WORDS=(cfgsync ${k.words.map(quote).join(' ')}); COMP_CWORD=${k.words.length}; COMPREPLY=(); _cfgsync; printf '%s\\n' "\${COMPREPLY[*]}"`
			)
		].join('\n')
		const proc = Bun.spawn(['bash', '--norc', '--noprofile', '-c', program], {
			cwd: m.home,
			env: {
				PATH: `${bin}:${process.env.PATH}`,
				HOME: m.home,
				XDG_CONFIG_HOME: join(m.home, '.config'),
				XDG_STATE_HOME: join(m.home, '.local', 'state')
			},
			stdout: 'pipe',
			stderr: 'pipe'
		})
		const [out, err] = await Promise.all([
			new Response(proc.stdout).text(),
			new Response(proc.stderr).text(),
			proc.exited
		])
		expect(err).toBe('')
		const answers = out.split('\n')
		const missing = cases
			.filter((k, i) => !(answers[i] ?? '').split(' ').includes(k.want))
			.map((k) => `${k.words.join(' ')} → ${k.want}`)
		expect(cases.length).toBeGreaterThan(80)
		expect(missing).toEqual([])
		// Values complete from their lists: roles, audit event types, profiles.
		expect(await bash(['team', 'invite', 'tab-team', 'ben', '--role', 'a'])).toEqual(['admin'])
		expect(await bash(['log', '--type', 'master_key.'])).toEqual(['master_key.rotated'])
	}, 60_000)

	test.skipIf(!shell('fish'))(
		'fish: complete -C answers with the same candidates',
		async () => {
			const file = await script('fish')
			const ask = (line: string) => {
				const proc = Bun.spawnSync(['fish', '--no-config', '-c', `source '${file}'; complete -C '${line}'`], {
					cwd: m.home,
					env: {
						PATH: `${bin}:${process.env.PATH}`,
						HOME: m.home,
						XDG_CONFIG_HOME: join(m.home, '.config'),
						XDG_STATE_HOME: join(m.home, '.local', 'state')
					}
				})
				expect(proc.stderr.toString()).toBe('')
				return proc.stdout
					.toString()
					.split('\n')
					.filter(Boolean)
					.map((line) => line.split('\t')[0])
					.sort()
			}
			expect(Bun.spawnSync(['fish', '--no-config', '-n', file]).exitCode).toBe(0)
			expect(ask('cfgsync pu')).toEqual(['pull', 'push'])
			expect(ask('cfgsync push ')).toEqual(['claude-code', 'codex', 'cursor', 'gemini-cli', 'vscode', 'windsurf'])
			expect(ask('cfgsync team ')).toEqual([
				'add',
				'create',
				'delete',
				'invite',
				'leave',
				'list',
				'remove',
				'rename',
				'restore',
				'role',
				'show'
			])
			expect(ask('cfgsync push codex --name ')).toEqual(['default', 'work-rules'])
			expect(ask('cfgsync pull codex --team ')).toEqual(['tab-team'])
			expect(ask('cfgsync team role tab-team ben ')).toEqual(['admin', 'member', 'owner'])
			expect(ask('cfgsync push codex .codex/AG')).toEqual(['.codex/AGENTS.md'])
		},
		60_000
	)

	test.skipIf(!shell('zsh'))(
		'zsh: the script parses and defines _cfgsync for compdef after compinit',
		async () => {
			const file = await script('zsh')
			expect(Bun.spawnSync(['zsh', '-n', file]).exitCode).toBe(0)
			const loaded = Bun.spawnSync(
				[
					'zsh',
					'-f',
					'-c',
					`autoload -U compinit && compinit -u -D && source '${file}' && whence -w _cfgsync && print -- \${_comps[cfgsync]}`
				],
				{ env: { PATH: process.env.PATH ?? '', HOME: m.home } }
			)
			expect(loaded.stderr.toString()).toBe('')
			expect(loaded.stdout.toString()).toBe('_cfgsync: function\n_cfgsync\n')
		},
		60_000
	)

	test('usage: an unknown shell, no shell, or --json is exit 2', async () => {
		expect((await m.cfgsync(['completion', 'tcsh'])).code).toBe(2)
		expect((await m.cfgsync(['completion'])).code).toBe(2)
		expect((await m.cfgsync(['completion', 'bash', '--json'])).code).toBe(2)
	})
})
