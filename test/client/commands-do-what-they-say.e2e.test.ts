import { beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { api, emptyDir, serversOfThisFile, startServer, userWithKey, type Server } from '../support/harness'
import { CLI, login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'

/**
 * The commands doing what they say, against the compiled server: every next
 * command the client prints is run as printed (through a shell, on a
 * terminal) and must work; discard; a new machine is offered the server's
 * configs; dry runs, several tools, lists capped at 20, the 512 KiB refusal
 * and an offline status; watch reports a conflict and an outage once; status
 * after resolve; push --only stays; errors in our own words.
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
beforeAll(async () => {
	;({ server, ada } = await serverWithUsers(servers))
}, 60_000)

async function loggedIn(user: User, on: Server = server): Promise<Machine> {
	const m = machine(on)
	expect((await login(m, user, `d-${Math.random().toString(36).slice(2, 8)}`)).code).toBe(0)
	return m
}

/** Words that end a command printed inside a sentence ("cfgsync diff codex shows the difference"). */
const PROSE = new Set([
	'shows',
	'sends',
	'drops',
	'starts',
	'pulls',
	'settles',
	'lists',
	'then',
	'while',
	'again',
	'to'
])

/**
 * Every concrete command in a text: `cfgsync` and its words up to the end of
 * the clause. A word may hold a single-quoted part (`~/'my file.md'`).
 * Templates (TOOL, PATH..., --mine|--theirs) are not commands to run.
 */
export function suggestions(text: string): string[] {
	const found: string[] = []
	for (const match of text.matchAll(/(?<![\w/-])cfgsync (?=\S)/g)) {
		const words: string[] = []
		let i = (match.index ?? 0) + match[0].length
		for (;;) {
			let word = ''
			while (i < text.length && !/[\s;,()]/.test(text[i] as string)) {
				if (text[i] === "'") {
					const end = text.indexOf("'", i + 1)
					word += text.slice(i, end + 1)
					i = end + 1
				} else word += text[i++]
			}
			const last = /[.:]$/.test(word) && !word.endsWith("'")
			if (last) word = word.slice(0, -1)
			if (word === '' || PROSE.has(word)) break
			words.push(word)
			if (last || text[i] !== ' ') break
			i++
		}
		const line = `cfgsync ${words.join(' ')}`
		if (words.some((w) => /^[A-Z][A-Z.]*$/.test(w) || w.includes('|') || w.includes('...'))) continue
		if (!found.includes(line)) found.push(line)
	}
	return found
}

/** A directory with `cfgsync` in it: the client under test, as a person's shell finds it. */
const bin = (() => {
	const dir = join(emptyDir(), 'bin')
	mkdirSync(dir)
	symlinkSync(CLI, join(dir, 'cfgsync'))
	return dir
})()

/**
 * Runs a printed command line as printed: through sh (so `~` expands and quotes
 * are read as a person's shell reads them), on a terminal, answering y to a
 * question. Output is stdout and stderr together.
 */
async function runPrinted(m: Machine, line: string, on: Server = server): Promise<{ code: number; output: string }> {
	const proc = Bun.spawn(['script', '-qefc', line, '/dev/null'], {
		cwd: m.home,
		env: {
			PATH: `${bin}:${process.env.PATH ?? ''}`,
			SHELL: '/bin/sh',
			HOME: m.home,
			XDG_CONFIG_HOME: join(m.home, '.config'),
			XDG_STATE_HOME: join(m.home, '.local', 'state'),
			CFGSYNC_SERVER: on.url,
			NO_COLOR: '1'
		},
		stdin: new Blob(['y\r']),
		stdout: 'pipe',
		stderr: 'pipe'
	})
	const [output, code] = await Promise.all([new Response(proc.stdout).text(), proc.exited])
	return { code, output }
}

/** Runs each suggestion found in `text` that `pick` selects; none may be a usage error. */
async function runEach(m: Machine, text: string, pick: (line: string) => boolean) {
	const lines = suggestions(text).filter(pick)
	expect(lines.length).toBeGreaterThan(0)
	const results: { line: string; code: number; output: string }[] = []
	for (const line of lines) {
		const result = await runPrinted(m, line)
		expect({
			line,
			code: result.code,
			usage: /unknown|not inside your home|choose one side/.test(result.output)
		}).not.toMatchObject({
			code: 2
		})
		expect({ line, usage: /unknown|not inside your home|choose one side/.test(result.output) }).toEqual({
			line,
			usage: false
		})
		results.push({ line, ...result })
	}
	return results
}

describe('every printed next command works as printed', () => {
	test('the suggestion finder reads commands out of sentences', () => {
		expect(
			suggestions(
				"Choose a side: cfgsync resolve codex --mine ~/.codex/AGENTS.md (keep this machine's) or cfgsync resolve codex --theirs ~/'a b.md' (take the server's); cfgsync diff codex shows the difference. Run cfgsync pull codex. cfgsync push TOOL --only PATH..."
			)
		).toEqual([
			'cfgsync resolve codex --mine ~/.codex/AGENTS.md',
			"cfgsync resolve codex --theirs ~/'a b.md'",
			'cfgsync diff codex',
			'cfgsync pull codex'
		])
	})

	test('a conflict after pull PATH: resolve and diff name those files and settle them; the files not named are not called foreign', async () => {
		const a = await loggedIn(ada)
		const b = await loggedIn(ada)
		a.file('.claude/commands/my review.md', 'server side\n')
		a.file('.claude/commands/plain.md', 'plain\n')
		a.file('.claude/CLAUDE.md', 'memory\n')
		expect((await a.cfgsync(['push', 'claude-code', '-n', 'p12'])).code).toBe(0)
		b.file('.claude/commands/my review.md', 'this side\n')
		const pulled = await b.cfgsync(['pull', 'claude-code', '-n', 'p12', join(b.home, '.claude/commands')])
		expect(pulled.code).toBe(3)
		// The file not named is one of the config's: never "not a claude-code file this machine syncs".
		expect(pulled.stdout).not.toContain('not a claude-code file')
		expect(pulled.stdout).toContain('other file of claude-code/p12 on the server was left alone (you named PATHs)')
		expect(pulled.stderr).toContain("cfgsync resolve claude-code --name p12 --theirs ~/'.claude/commands/my review.md'")
		// The directory named to pull is the directory named to resolve: it settles the conflicts in it.
		const dirResolve = await b.cfgsync([
			'resolve',
			'claude-code',
			'-n',
			'p12',
			'--theirs',
			join(b.home, '.claude/commands')
		])
		expect(dirResolve.code).toBe(0)
		expect(dirResolve.stdout).not.toContain('Nothing to resolve')
		expect(b.file('.claude/commands/my review.md')).toBe('server side\n')

		// Again, and this time every suggestion printed is run as printed.
		a.file('.claude/commands/my review.md', 'server side 2\n')
		expect((await a.cfgsync(['push', 'claude-code', '-n', 'p12'])).code).toBe(0)
		b.file('.claude/commands/my review.md', 'this side 2\n')
		const again = await b.cfgsync(['pull', 'claude-code', '-n', 'p12', join(b.home, '.claude/commands/my review.md')])
		expect(again.code).toBe(3)
		const text = `${again.stdout}\n${again.stderr}`
		// diff shows the difference; --theirs takes the server's side; pull of the files left alone writes them.
		const [diffed] = await runEach(b, text, (line) => line.includes(' diff '))
		expect(diffed?.output).toContain('server side 2')
		await runEach(b, text, (line) => !line.includes('--mine') && !line.includes(' diff '))
		expect(b.file('.claude/commands/my review.md')).toBe('server side 2\n')
		expect(b.file('.claude/CLAUDE.md')).toBe('memory\n')
		expect((await b.cfgsync(['status', 'claude-code', '-n', 'p12'])).stdout).toContain('in sync')
	}, 90_000)

	test('rollback with unsent changes here says a pull keeps them and names discard; both commands run as printed do what they say', async () => {
		const m = await loggedIn(ada)
		m.file('.codex/AGENTS.md', 'v1\n')
		expect((await m.cfgsync(['push', 'codex', '-n', 'rb'])).code).toBe(0)
		m.file('.codex/AGENTS.md', 'v2\n')
		expect((await m.cfgsync(['push', 'codex', '-n', 'rb'])).code).toBe(0)
		m.file('.codex/AGENTS.md', 'v3, not sent\n')
		const rolled = await m.cfgsync(['rollback', 'codex', '-n', 'rb', '--to', '1'])
		expect(rolled.code).toBe(0)
		expect(rolled.stdout).toContain('a pull keeps it')
		expect(rolled.stdout).toContain('cfgsync discard codex --name rb')
		const ran = await runEach(m, rolled.stdout, (line) => line.includes('discard'))
		expect(ran[0]?.output).toContain('Discarded')
		expect(m.file('.codex/AGENTS.md')).toBe('v2\n')
		const pulled = await runPrinted(m, 'cfgsync pull codex --name rb')
		expect(pulled.code).toBe(0)
		expect(m.file('.codex/AGENTS.md')).toBe('v1\n')
	}, 60_000)

	test('a new machine: status and sync list the configs the server holds; sync --all-remote as printed syncs them', async () => {
		const user = await userWithKey(server.dir, 'newbie', 'pro')
		const first = await loggedIn(user)
		first.file('.codex/AGENTS.md', 'agents\n')
		first.file('.gemini/GEMINI.md', 'gemini\n')
		expect((await first.cfgsync(['push', 'codex'])).code).toBe(0)
		expect((await first.cfgsync(['push', 'gemini-cli', '-n', 'work'])).code).toBe(0)
		const fresh = await loggedIn(user)
		const status = await fresh.cfgsync(['status'])
		expect(status.stdout).not.toContain('syncs no config yet: cfgsync push TOOL')
		expect(status.stdout).toContain('codex/default (version 1)')
		expect(status.stdout).toContain('gemini-cli/work (version 1)')
		const sync = await fresh.cfgsync(['sync'])
		expect(sync.code).toBe(0)
		expect(sync.stdout).toContain('codex/default (version 1')
		expect(fresh.exists('.codex/AGENTS.md')).toBe(false)
		await runEach(fresh, sync.stdout, (line) => line.includes('--all-remote'))
		expect(fresh.file('.codex/AGENTS.md')).toBe('agents\n')
		expect(fresh.file('.gemini/GEMINI.md')).toBe('gemini\n')
		const after = await fresh.cfgsync(['status'])
		expect(after.code).toBe(0)
		expect(after.stdout).toContain('gemini-cli/work: in sync')

		// On a terminal, sync asks instead, and yes starts syncing.
		const other = await loggedIn(user)
		const asked = await other.terminal(['sync'], 'y\r')
		expect(asked.output).toContain('Start syncing them on this machine')
		expect(asked.code).toBe(0)
		expect(other.file('.codex/AGENTS.md')).toBe('agents\n')
	}, 90_000)

	test("an unsent change named in a pull's output is dropped by the discard it names; a status conflict names runnable resolves", async () => {
		const a = await loggedIn(ada)
		const b = await loggedIn(ada)
		a.file('.gemini/GEMINI.md', 'one\n')
		a.file('.gemini/settings.json', '{"theme": "dark"}\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'un'])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'gemini-cli', '-n', 'un'])).code).toBe(0)
		b.file('.gemini/GEMINI.md', 'two, here only\n')
		a.file('.gemini/settings.json', '{"theme": "light"}\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'un'])).code).toBe(0)
		const pulled = await b.cfgsync(['pull', 'gemini-cli', '-n', 'un'])
		expect(pulled.code).toBe(0)
		await runEach(b, pulled.stdout, (line) => line.includes('discard'))
		expect(b.file('.gemini/GEMINI.md')).toBe('one\n')

		b.file('.gemini/settings.json', '{"theme": "mine"}\n')
		a.file('.gemini/settings.json', '{"theme": "theirs"}\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'un'])).code).toBe(0)
		const status = await b.cfgsync(['status'])
		expect(status.code).toBe(3)
		await runEach(b, status.stderr, (line) => line.includes('un --theirs'))
		expect(b.file('.gemini/settings.json')).toBe('{"theme": "theirs"}\n')
	}, 60_000)
})

describe('discard', () => {
	test('drops unsent changes (all, or the PATHs given) after a backup; asks on a terminal; needs --yes without one', async () => {
		const m = await loggedIn(ada)
		m.file('.claude/settings.json', '{"theme": "dark"}\n')
		m.file('.claude/CLAUDE.md', 'memory\n')
		expect((await m.cfgsync(['push', 'claude-code', '-n', 'dis'])).code).toBe(0)
		m.file('.claude/settings.json', '{"theme": "changed"}\n')
		m.file('.claude/CLAUDE.md', 'changed memory\n')
		m.file('.claude/commands/new.md', 'never synced\n')

		const unattended = await m.cfgsync(['discard', 'claude-code', '-n', 'dis'])
		expect(unattended.code).toBe(2)
		// Refused, it never says it dropped anything.
		expect(unattended.stdout).toContain('changed here: goes back to the synced version')
		expect(unattended.stdout + unattended.stderr).not.toMatch(/dropped|discarded|: deleted/i)
		expect(unattended.stderr).toContain('cfgsync discard claude-code --name dis --yes')
		const no = await m.terminal(['discard', 'claude-code', '-n', 'dis'], 'n\r')
		expect(no.code).toBe(1)
		expect(no.output).toContain("Drop this machine's unsent changes to 3 files of claude-code/dis")
		expect(m.file('.claude/CLAUDE.md')).toBe('changed memory\n')

		const one = await m.cfgsync(['discard', 'claude-code', '-n', 'dis', '--yes', join(m.home, '.claude/CLAUDE.md')])
		expect(one.code).toBe(0)
		expect(m.file('.claude/CLAUDE.md')).toBe('memory\n')
		expect(m.file('.claude/settings.json')).toBe('{"theme": "changed"}\n')

		const all = await m.cfgsync(['discard', 'claude-code', '-n', 'dis', '-y'])
		expect(all.code).toBe(0)
		expect(all.stdout).toContain('never synced: to be deleted')
		expect(all.stdout).toContain('Discarded')
		expect(m.file('.claude/settings.json')).toBe('{"theme": "dark"}\n')
		expect(m.exists('.claude/commands/new.md')).toBe(false)
		const backups = join(m.home, '.local/state/cfgsync/backups')
		const copies = readdirSync(backups).map((d) => readdirSync(join(backups, d), { recursive: true }).map(String))
		expect(copies.flat()).toContain(join('.claude', 'commands', 'new.md'))
		expect((await m.cfgsync(['status', 'claude-code', '-n', 'dis'])).code).toBe(0)
		expect((await m.cfgsync(['discard', 'claude-code', '-n', 'dis'])).stdout).toContain('nothing to discard')

		// Without a terminal, the refusal names the command that works unattended; run as printed, it does.
		m.file('.claude/CLAUDE.md', 'again\n')
		const refused = await m.cfgsync(['discard', 'claude-code', '-n', 'dis', join(m.home, '.claude/CLAUDE.md')])
		expect(refused.code).toBe(2)
		await runEach(m, refused.stderr, (line) => line.includes('--yes'))
		expect(m.file('.claude/CLAUDE.md')).toBe('memory\n')
	}, 60_000)
})

describe('a new machine, dry runs and what output names', () => {
	test('sync takes several tools; push --dry-run and sync --dry-run name what they would send (team configs too) and change nothing', async () => {
		const m = await loggedIn(ada)
		expect((await m.cfgsync(['team', 'create', 'Dry', 'Run', '--slug', 'dry'])).code).toBe(0)
		m.file('.codex/AGENTS.md', 'a\n')
		m.file('.gemini/GEMINI.md', 'g\n')
		m.file('.cursor/rules/team.md', 'rule\n')
		expect((await m.cfgsync(['push', 'codex', '-n', 'dry'])).code).toBe(0)
		expect((await m.cfgsync(['push', 'gemini-cli', '-n', 'dry'])).code).toBe(0)
		expect((await m.cfgsync(['push', 'cursor', '--team', 'dry', join(m.home, '.cursor/rules/team.md')])).code).toBe(0)

		const preview = await m.cfgsync(['push', 'codex', '-n', 'dry', '--dry-run'])
		expect(preview.code).toBe(0)
		m.file('.codex/AGENTS.md', 'a2\n')
		const dry = await m.cfgsync(['push', 'codex', '-n', 'dry', '--dry-run'])
		expect(dry.code).toBe(0)
		expect(dry.stdout).toContain('~/.codex/AGENTS.md (changed here, would be sent)')
		const server1 = await api(server, 'GET', '/api/configs/latest?name=dry&tool=codex', ada.key)
		expect(server1.body.version).toBe(1)

		m.file('.gemini/GEMINI.md', 'g2\n')
		m.file('.cursor/rules/team.md', 'rule 2\n')
		const syncDry = await m.cfgsync(['sync', '--dry-run'])
		expect(syncDry.stdout).toContain('~/.codex/AGENTS.md (changed here, would be sent)')
		expect(syncDry.stdout).toContain('~/.gemini/GEMINI.md (changed here, would be sent)')
		expect(syncDry.stdout).toContain('~/.cursor/rules/team.md (changed here, would be sent)')
		expect((await api(server, 'GET', '/api/configs/latest?name=dry&tool=gemini-cli', ada.key)).body.version).toBe(1)

		// Several tools at once; the one not named is left alone.
		const two = await m.cfgsync(['sync', 'codex', 'gemini-cli'])
		expect(two.code).toBe(0)
		expect(two.stdout).toContain('~/.codex/AGENTS.md (changed here, sent)')
		expect(two.stdout).toContain('~/.gemini/GEMINI.md (changed here, sent)')
		expect(two.stdout).not.toContain('cursor')
		expect((await api(server, 'GET', '/api/configs/latest?name=dry&tool=codex', ada.key)).body.version).toBe(2)

		// A dry run meets what the push would meet: a secret for the team is refused, and the command it names works.
		m.file('.cursor/rules/team.md', 'rule 3: token ghp_0123456789abcdefghijklmnopqrstuvwxyzAB\n')
		const secret = await m.cfgsync(['push', 'cursor', '--team', 'dry', '--dry-run'])
		expect(secret.code).toBe(1)
		expect(secret.stderr).toContain('A push would be refused to cursor/default of team dry')
		expect(secret.stderr).toContain('Nothing was sent')
		const allowed = await m.cfgsync(['push', 'cursor', '--team', 'dry', '--dry-run', '--allow-secrets'])
		expect(allowed.code).toBe(0)
		expect(allowed.stdout).toContain('~/.cursor/rules/team.md (changed here, would be sent)')
		const teamId = (await api(server, 'GET', '/api/teams/dry', ada.key)).body.id
		const teamConfig = await api(
			server,
			'GET',
			`/api/configs/latest?name=default&tool=cursor&teamId=${teamId}`,
			ada.key
		)
		expect(teamConfig.body.version).toBe(1)
	}, 90_000)

	test('output names the files that changed, 20 at most with a count of the rest; a config over 512 KiB is refused naming the largest files', async () => {
		const m = await loggedIn(ada)
		for (let i = 0; i < 25; i++) m.file(`.claude/agents/a${String(i).padStart(2, '0')}.md`, `agent ${i}\n`)
		const pushed = await m.cfgsync(['push', 'claude-code', '-n', 'many'])
		expect(pushed.code).toBe(0)
		expect(pushed.stdout).toContain('~/.claude/agents/a19.md (added, sent)')
		expect(pushed.stdout).not.toContain('a20.md')
		expect(pushed.stdout).toContain('and 5 more files sent')
		expect(pushed.stdout).toContain('as version 1 (25 files, 25 sent)')

		const other = await loggedIn(ada)
		const pulled = await other.cfgsync(['pull', 'claude-code', '-n', 'many'])
		expect(pulled.stdout.split('\n').filter((line) => line.includes('(created)'))).toHaveLength(20)
		expect(pulled.stdout).toContain('and 5 more files written here')

		const big = await loggedIn(ada)
		big.file('.claude/CLAUDE.md', `${'m'.repeat(300 * 1024)}\n`)
		big.file('.claude/commands/huge.md', `${'c'.repeat(200 * 1024)}\n`)
		big.file('.claude/agents/large.md', `${'a'.repeat(100 * 1024)}\n`)
		big.file('.claude/settings.json', '{}\n')
		const refused = await big.cfgsync(['push', 'claude-code', '-n', 'big'])
		expect(refused.code).toBe(1)
		expect(refused.stderr).toContain('more than the 512 KiB a config may hold')
		expect(refused.stderr).toContain('~/.claude/CLAUDE.md (301 KiB), ~/.claude/commands/huge.md (201 KiB)')
		expect((await api(server, 'GET', '/api/configs/latest?name=big&tool=claude-code', ada.key)).status).toBe(404)
	}, 90_000)
})

describe('smaller things', () => {
	test('global options before the command work as after it: cfgsync --profile work status, --json, --server=URL', async () => {
		const m = await loggedIn(ada)
		m.file('.gemini/GEMINI.md', 'notes\n')
		expect((await m.cfgsync(['push', 'gemini-cli', '-n', 'globals'])).code).toBe(0)
		const after = await m.cfgsync(['status', 'gemini-cli', '-n', 'globals', '--profile', 'default'])
		const before = await m.cfgsync(['--profile', 'default', 'status', 'gemini-cli', '-n', 'globals'])
		expect(before.stderr).not.toContain('unknown command')
		expect(before).toEqual(after)
		const json = await m.cfgsync(['--json', `--server=${server.url}`, 'status', 'gemini-cli', '-n', 'globals'])
		expect(json.code).toBe(0)
		expect(JSON.parse(json.stdout)[0].status).toBe('in sync')
		const unknownProfile = await m.cfgsync(['--profile', 'work', 'status'])
		expect(unknownProfile.stderr).not.toContain('unknown command')
	}, 60_000)

	test('status after push refused by a conflict and resolve --theirs does not claim the server version is synced; it says what pull brings', async () => {
		const a = await loggedIn(ada)
		const b = await loggedIn(ada)
		a.file('.gemini/GEMINI.md', 'one\n')
		a.file('.gemini/settings.json', '{"a": 1}\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'st'])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'gemini-cli', '-n', 'st'])).code).toBe(0)
		a.file('.gemini/GEMINI.md', 'two\n')
		a.file('.gemini/settings.json', '{"a": 2}\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'st'])).code).toBe(0)
		b.file('.gemini/settings.json', '{"a": 3}\n')
		expect((await b.cfgsync(['push', 'gemini-cli', '-n', 'st'])).code).toBe(3)
		const resolved = await b.cfgsync(['resolve', 'gemini-cli', '-n', 'st', '--theirs'])
		expect(resolved.code).toBe(0)
		expect(resolved.stdout).toContain(
			'~/.gemini/GEMINI.md (changed on the server, not written here: cfgsync pull gemini-cli --name st)'
		)
		const status = await b.cfgsync(['status', 'gemini-cli', '-n', 'st'])
		expect(status.stdout).toContain('remote changes (synced version 1, server version 2)')
		await runEach(b, resolved.stdout, (line) => line.includes('pull'))
		expect(b.file('.gemini/GEMINI.md')).toBe('two\n')
		expect((await b.cfgsync(['status', 'gemini-cli', '-n', 'st'])).stdout).toContain(
			'in sync (synced version 2, server version 2)'
		)
	}, 60_000)

	test('push --only stays: it sends only its PATHs, keeps the others, and the next sync takes in no new file', async () => {
		const m = await loggedIn(ada)
		m.file('.claude/settings.json', '{"theme": "dark"}\n')
		m.file('.claude/CLAUDE.md', 'memory\n')
		expect((await m.cfgsync(['push', 'claude-code', '-n', 'only'])).code).toBe(0)
		m.file('.claude/settings.json', '{"theme": "light"}\n')
		const only = await m.cfgsync(['push', 'claude-code', '-n', 'only', '--only', join(m.home, '.claude/settings.json')])
		expect(only.code).toBe(0)
		const files = async () =>
			Object.keys((await api(server, 'GET', '/api/configs/latest?name=only&tool=claude-code', ada.key)).body.data.files)
		expect((await files()).sort()).toEqual(['.claude/CLAUDE.md', '.claude/settings.json'])
		// A new file of the tool is not taken in by a plain run: the config keeps to its files.
		m.file('.claude/commands/x.md', 'x\n')
		const synced = await m.cfgsync(['sync', 'claude-code', '-n', 'only'])
		expect(synced.code).toBe(0)
		expect((await files()).sort()).toEqual(['.claude/CLAUDE.md', '.claude/settings.json'])
		expect((await m.cfgsync(['status', 'claude-code', '-n', 'only'])).code).toBe(0)
		// Naming a file adds it to the config.
		expect((await m.cfgsync(['push', 'claude-code', '-n', 'only', join(m.home, '.claude/commands/x.md')])).code).toBe(0)
		expect((await files()).sort()).toEqual(['.claude/CLAUDE.md', '.claude/commands/x.md', '.claude/settings.json'])
		expect((await m.cfgsync(['sync', 'claude-code', '-n', 'only'])).code).toBe(0)
		expect((await files()).sort()).toEqual(['.claude/CLAUDE.md', '.claude/commands/x.md', '.claude/settings.json'])
	}, 60_000)

	test("a wrong option is told in cfgsync's words, not node:util's; a server that is down, not Bun's", async () => {
		const m = await loggedIn(ada)
		const unknown = await m.cfgsync(['push', 'codex', '--bogus'])
		expect(unknown.code).toBe(2)
		expect(unknown.stderr).not.toContain('positional argument')
		expect(unknown.stderr).toContain('cfgsync push has no option --bogus')
		expect((await m.cfgsync(['push', 'codex', '--nam', 'x'])).stderr).toContain('did you mean --name?')
		expect((await m.cfgsync(['push', 'codex', '--name'])).stderr).toContain('--name needs a value')
		expect((await m.cfgsync(['push', 'codex', '--yes=1'])).stderr).toContain('--yes takes no value')
		const ambiguous = await m.cfgsync(['push', 'codex', '--name', '-y'])
		expect(ambiguous.stderr).toContain('--name=VALUE')
		expect(ambiguous.stderr).not.toContain('XYZ')
		const down = await m.cfgsync(['list', '--server', 'http://127.0.0.1:9'], { env: { CFGSYNC_API_KEY: ada.key } })
		expect(down.code).toBe(1)
		expect(down.stderr).not.toContain('Is the computer able to access the url')
		expect(down.stderr).toContain('nothing answers there (connection refused)')
	}, 60_000)
})

describe('with the server down', () => {
	test('status still shows what changed here; watch says the server is down once, then that it is back, and sends what waited; discard works offline', async () => {
		const dir = emptyDir()
		const own = await startServer(dir)
		servers.push(own)
		const port = new URL(own.url).port
		const user = await userWithKey(dir, 'ada', 'pro')
		const m = await loggedIn(user, own)
		m.file('.codex/AGENTS.md', 'one\n')
		m.file('.codex/config.toml', 'model = "o3"\n')
		expect((await m.cfgsync(['push', 'codex'])).code).toBe(0)
		m.file('.codex/AGENTS.md', 'two, offline\n')
		await own.stop()

		const status = await m.cfgsync(['status'])
		expect(status.code).toBe(1)
		expect(status.stdout).toContain('codex/default: server unreachable')
		expect(status.stdout).toContain('~/.codex/AGENTS.md: changed here')
		expect(status.stderr).toContain('connection refused')

		const watcher = m.start(['watch', 'codex', '--interval', '1s'])
		await Bun.sleep(5000)
		const back = await startServer(dir, { args: ['--port', port] })
		servers.push(back)
		const deadline = Date.now() + 20_000
		while (Date.now() < deadline) {
			const latest = await api(back, 'GET', '/api/configs/latest?name=default&tool=codex', user.key)
			if (latest.body?.version === 2) break
			await Bun.sleep(250)
		}
		watcher.kill('SIGINT')
		await watcher.exited
		const [out, err] = await Promise.all([
			new Response(watcher.stdout as ReadableStream).text(),
			new Response(watcher.stderr as ReadableStream).text()
		])
		expect(err.split('\n').filter((line) => line.includes('connection refused'))).toHaveLength(1)
		expect(err).toContain('answers again')
		expect(out).toContain('pushed version 2')

		// discard needs no server: the synced version is this machine's own.
		await back.stop()
		m.file('.codex/config.toml', 'model = "offline"\n')
		const discarded = await m.cfgsync(['discard', 'codex', '--yes'])
		expect(discarded.code).toBe(0)
		expect(m.file('.codex/config.toml')).toBe('model = "o3"\n')
	}, 90_000)

	test('watch reports a conflict once, not every poll, while the changes it holds back wait', async () => {
		const a = await loggedIn(ada)
		const b = await loggedIn(ada)
		a.file('.gemini/settings.json', '{"a": 1}\n')
		a.file('.gemini/GEMINI.md', 'one\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'w'])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'gemini-cli', '-n', 'w'])).code).toBe(0)
		a.file('.gemini/settings.json', '{"a": 2}\n')
		expect((await a.cfgsync(['push', 'gemini-cli', '-n', 'w'])).code).toBe(0)
		b.file('.gemini/settings.json', '{"a": 3}\n')
		b.file('.gemini/GEMINI.md', 'here only\n')
		const watcher = b.start(['watch', 'gemini-cli', '-n', 'w', '--interval', '1s'])
		await Bun.sleep(6000)
		watcher.kill('SIGINT')
		await watcher.exited
		const err = await new Response(watcher.stderr as ReadableStream).text()
		expect(err.split('\n').filter((line) => line.includes('1 conflict in gemini-cli/w'))).toHaveLength(1)
	}, 60_000)
})
