import { beforeAll, describe, expect, test } from 'bun:test'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { login, machine, nodeBundle, serverWithUsers, type Machine, type User } from '../support/client/machines'
import { api, emptyDir, serversOfThisFile, type Server } from '../support/harness'

/**
 * docs/sync-model.md, "Crashes", on the compiled client against the compiled
 * server: a pull of 150 command files killed part-way is never pushed back
 * (the silent revert), leaves no temporary file, and later server
 * changes are no conflicts; a push killed after the server stored it, or
 * whose answer a proxy lost (502) or never sent (time-out), is this
 * machine's own version, never a conflict with itself.
 */

const servers = serversOfThisFile()
let server: Server
let ada: User

type Mode = 'pass' | 'hold' | 'forward-502' | 'drop-502' | 'drop-502-then-down'

/**
 * A proxy in front of the server that misbehaves on pushes only (POST
 * /api/configs): `hold` forwards it and never answers, `forward-502` forwards
 * it and answers 502 like nginx, `drop-502` answers 502 without forwarding
 * (`drop-502-then-down`: and every request after it too).
 * `stored` resolves once the server has answered a forwarded push.
 */
function startProxy(upstream: string) {
	const state = { mode: 'pass' as Mode, down: false, stored: Promise.withResolvers<number>() }
	const listener = Bun.serve({
		port: 0,
		hostname: '127.0.0.1',
		idleTimeout: 0,
		async fetch(request) {
			const url = new URL(request.url)
			const push = request.method === 'POST' && url.pathname === '/api/configs'
			if (state.down) return badGateway()
			if (push && state.mode === 'drop-502-then-down') state.down = true
			if (push && state.mode.startsWith('drop-502')) return badGateway()
			const reply = await fetch(`${upstream}${url.pathname}${url.search}`, {
				method: request.method,
				headers: request.headers,
				body: request.method === 'GET' ? undefined : await request.arrayBuffer(),
				redirect: 'manual'
			})
			if (push && state.mode !== 'pass') {
				await reply.arrayBuffer()
				state.stored.resolve(reply.status)
				if (state.mode === 'hold') return new Promise<Response>(() => {})
				return badGateway()
			}
			const headers = new Headers(reply.headers)
			for (const name of ['content-encoding', 'content-length', 'transfer-encoding']) headers.delete(name)
			return new Response(reply.body, { status: reply.status, headers })
		}
	})
	return {
		url: `http://127.0.0.1:${listener.port}`,
		set: (mode: Mode) => {
			state.mode = mode
			state.down = false
			state.stored = Promise.withResolvers<number>()
		},
		stored: () => state.stored.promise,
		stop: () => listener.stop(true)
	}
}

const badGateway = () =>
	new Response('<html><body><h1>502 Bad Gateway</h1></body></html>\n', {
		status: 502,
		headers: { 'content-type': 'text/html' }
	})

let proxy: ReturnType<typeof startProxy>

beforeAll(async () => {
	;({ server, ada } = await serverWithUsers(servers))
	proxy = startProxy(server.url)
}, 60_000)

const COUNT = 150
const commandKey = (i: number) => `.claude/commands/c${String(i).padStart(3, '0')}.md`
/** Writes the 150 command files, file i holding `text(i)`. */
const writeCommands = (m: Machine, text: (i: number) => string) => {
	for (let i = 0; i < COUNT; i++) m.file(commandKey(i), text(i))
}
const old = (i: number) => `# Command ${i}\n\nThe first words.\n`
const fresh = (i: number) => `# Command ${i}\n\nThe second words.\n`
const later = (i: number) => `# Command ${i}\n\nThe third words.\n`
/** How many of the command files hold `text(i)`. */
const holding = (m: Machine, text: (i: number) => string) =>
	Array.from({ length: COUNT }, (_, i) => m.file(commandKey(i)) === text(i)).filter(Boolean).length

/** Every temporary file a cfgsync write leaves (`.NAME.cfgsync-PID-RANDOM.tmp`) under a home. */
function temporaries(home: string): string[] {
	const found: string[] = []
	const visit = (dir: string) => {
		for (const entry of readdirSync(dir, { withFileTypes: true })) {
			if (entry.isDirectory()) visit(join(dir, entry.name))
			else if (/\.cfgsync-\d+-[0-9a-f]+\.tmp$/.test(entry.name)) found.push(join(dir, entry.name))
		}
	}
	visit(home)
	return found
}

const latest = async (name: string) =>
	(await api(server, 'GET', `/api/configs/latest?name=${name}&tool=claude-code`, ada.key)).body as {
		version: number
		data: { files: Record<string, string> }
	}

let devices = 0
async function loggedIn(on: Server = server, command?: string[]): Promise<Machine> {
	const m = machine(on, { command })
	expect((await login(m, ada, `crash-${++devices}`)).code).toBe(0)
	return m
}

/** A config of 150 command files pushed from A (the first words) and pulled by B, then changed by A (the second words). */
async function pulledThenChanged(name: string, command?: string[]): Promise<[Machine, Machine]> {
	const a = await loggedIn()
	const b = await loggedIn(server, command)
	writeCommands(a, old)
	expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
	expect((await b.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
	writeCommands(a, fresh)
	expect((await a.cfgsync(['push', 'claude-code', '--name', name])).stdout).toContain('version 2')
	return [a, b]
}

/**
 * The rest of the scenario once B's pull was killed: A reverts the
 * files and pushes (version 3); B's sync must take A's revert and push
 * nothing back; no temporary file stays; A's later change is no conflict.
 */
async function afterTheKill(a: Machine, b: Machine, name: string) {
	writeCommands(a, old)
	expect((await a.cfgsync(['push', 'claude-code', '--name', name])).stdout).toContain('version 3')
	const synced = await b.cfgsync(['sync', 'claude-code', '--name', name])
	expect({ code: synced.code, pushed: synced.stdout.includes('pushed version') }).toEqual({ code: 0, pushed: false })
	const server3 = await latest(name)
	expect(server3.version).toBe(3)
	expect(Object.values(server3.data.files)).toEqual(Array.from({ length: COUNT }, (_, i) => old(i)))
	expect(holding(b, old)).toBe(COUNT)
	expect(temporaries(b.home)).toEqual([])

	for (let i = 0; i < COUNT; i += 15) a.file(commandKey(i), later(i))
	expect((await a.cfgsync(['push', 'claude-code', '--name', name])).stdout).toContain('version 4')
	const pulled = await b.cfgsync(['pull', 'claude-code', '--name', name])
	expect({ code: pulled.code, stderr: pulled.stderr }).toEqual({ code: 0, stderr: '' })
	expect(pulled.stdout).toContain('0 created, 10 updated, 0 deleted')
	expect(b.file(commandKey(15))).toBe(later(15))
	const status = await b.cfgsync(['status', 'claude-code', '--name', name])
	expect({ code: status.code, stdout: status.stdout }).toEqual({
		code: 0,
		stdout: `claude-code/${name}: in sync (synced version 4, server version 4)\n`
	})
}

describe('a command killed part-way', () => {
	test('a pull of 150 files killed (SIGKILL) once it has begun writing is never pushed back: the next sync takes the revert, no temporary file stays, later changes are no conflicts', async () => {
		const name = 'crash-pull'
		const [a, b] = await pulledThenChanged(name)
		const pull = b.start(['pull', 'claude-code', '--name', name])
		// Killed as soon as the first file holds the second words: the other files are being written.
		while (b.file(commandKey(0)) !== fresh(0) && pull.exitCode === null) await Bun.sleep(1)
		pull.kill('SIGKILL')
		await pull.exited
		const written = holding(b, fresh)
		// On a loaded machine the pull may finish first: what follows must hold either way.
		console.log(
			pull.signalCode === 'SIGKILL'
				? `the pull was killed with ${written} of ${COUNT} files written`
				: 'the pull finished before it could be killed'
		)
		expect(written).toBeGreaterThan(0)
		await afterTheKill(a, b, name)
	}, 60_000)

	test('killed at exact moments (after 95 files; between a temporary file and its rename): the next command names what it found and finishes', async () => {
		for (const [at, name] of [
			['write:95', 'crash-at-95'],
			['temporary:96', 'crash-at-temporary']
		] as const) {
			const [a, b] = await pulledThenChanged(name)
			const pull = await b.cfgsync(['pull', 'claude-code', '--name', name], { env: { CFGSYNC_TEST_CRASH_AT: at } })
			expect({ at, code: pull.code, stdout: pull.stdout }).toEqual({ at, code: 137, stdout: '' })
			expect(holding(b, fresh)).toBe(95)
			expect(holding(b, old)).toBe(55)
			expect(temporaries(b.home).length).toBe(at === 'write:95' ? 0 : 1)

			// Before the next command settles it, status already sees the 95 files as the server's.
			const status = await b.cfgsync(['status', 'claude-code', '--name', name])
			expect(status.stdout).toStartWith(`claude-code/${name}: remote changes (synced version 1, server version 2)\n`)
			expect(status.stdout).not.toContain('changed here')
			// status changes nothing of the person's, but the killed command's temporary file goes.
			expect(temporaries(b.home)).toEqual([])

			writeCommands(a, old)
			expect((await a.cfgsync(['push', 'claude-code', '--name', name])).stdout).toContain('version 3')
			const synced = await b.cfgsync(['sync', 'claude-code', '--name', name])
			expect(synced.code).toBe(0)
			expect(synced.stderr).toBe(
				`An earlier cfgsync pull of claude-code/${name} was stopped part-way: it had written 95 of its 150 files, which now count as the server's version (nothing of them is sent back).\n`
			)
			expect(synced.stdout).not.toContain('pushed version')
			expect((await latest(name)).version).toBe(3)
			expect(holding(b, old)).toBe(COUNT)
			expect(temporaries(b.home)).toEqual([])
		}
	}, 90_000)

	test('a killed pull, then edits here: to a file it had written (a change made here) and to one it had not (a conflict with the server, never overwritten)', async () => {
		const name = 'crash-edit'
		const [a, b] = await pulledThenChanged(name)
		expect(
			(await b.cfgsync(['pull', 'claude-code', '--name', name], { env: { CFGSYNC_TEST_CRASH_AT: 'write:95' } })).code
		).toBe(137)
		b.file(commandKey(3), '# Mine\n')
		b.file(commandKey(140), '# Mine too\n')
		const status = await b.cfgsync(['status', 'claude-code', '--name', name])
		expect(status.code).toBe(3)
		expect(status.stdout).toContain('  ~/.claude/commands/c003.md: changed here\n')
		expect(status.stdout).toContain('  ~/.claude/commands/c140.md: conflict: ')
		const synced = await b.cfgsync(['sync', 'claude-code', '--name', name])
		expect(synced.code).toBe(3)
		expect(synced.stderr).toContain('2 changed here since: ~/.claude/commands/c003.md, ~/.claude/commands/c140.md')
		expect(synced.stdout).toContain('! ~/.claude/commands/c140.md (conflict')
		expect(synced.stdout).not.toContain('! ~/.claude/commands/c003.md')
		expect(b.file(commandKey(140))).toBe('# Mine too\n')
		expect(holding(b, fresh)).toBe(COUNT - 2)
		expect((await latest(name)).version).toBe(2)

		expect((await b.cfgsync(['resolve', 'claude-code', '--name', name, '--mine'])).code).toBe(0)
		const pushed = await b.cfgsync(['push', 'claude-code', '--name', name])
		expect(pushed.stdout).toContain('as version 3')
		const files = (await latest(name)).data.files
		expect(Object.keys(files).filter((key) => files[key] !== fresh(Number(key.slice(-6, -3))))).toEqual([
			commandKey(3),
			commandKey(140)
		])
		expect([files[commandKey(3)], files[commandKey(140)]]).toEqual(['# Mine\n', '# Mine too\n'])
		expect(a.file(commandKey(3))).toBe(fresh(3))
	}, 60_000)

	test('a push killed (SIGKILL) after the server stored it: the next edits push as edits, never as 150 conflicts with itself', async () => {
		const name = 'crash-push'
		proxy.set('pass')
		const a = await loggedIn({ ...server, url: proxy.url })
		writeCommands(a, old)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		writeCommands(a, fresh)
		proxy.set('hold')
		const push = a.start(['push', 'claude-code', '--name', name])
		expect(await proxy.stored()).toBe(200)
		push.kill('SIGKILL')
		await push.exited
		proxy.set('pass')
		expect((await latest(name)).version).toBe(2)

		for (let i = 0; i < COUNT; i += 10) a.file(commandKey(i), later(i))
		const status = await a.cfgsync(['status', 'claude-code', '--name', name])
		expect(status.stdout).toStartWith(`claude-code/${name}: local changes (synced version 2, server version 2)\n`)
		expect(status.stdout.split('\n').filter((line) => line.endsWith(': changed here')).length).toBe(15)
		const pushed = await a.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: pushed.code, stdout: pushed.stdout }).toEqual({
			code: 0,
			stdout: expect.stringContaining(`Pushed claude-code/${name} as version 3 (150 files`)
		})
		expect(pushed.stderr).toBe(
			`An earlier cfgsync push of claude-code/${name} was stopped part-way: its push had reached the server (version 2).\n`
		)
		const files = (await latest(name)).data.files
		expect(files[commandKey(10)]).toBe(later(10))
		expect(files[commandKey(11)]).toBe(fresh(11))
		expect(temporaries(a.home)).toEqual([])
	}, 60_000)
})

describe('a discard killed part-way', () => {
	test('the temporary file it was writing beside the tool file is removed by the next command, even status', async () => {
		const m = await loggedIn()
		m.file('.gemini/settings.json', '{\n  "a": 1\n}\n')
		m.file('.gemini/GEMINI.md', '# x\n')
		expect((await m.cfgsync(['push', 'gemini-cli', '--name', 'discarded'])).code).toBe(0)
		m.file('.gemini/settings.json', '{\n  "a": 2\n}\n')
		m.file('.gemini/GEMINI.md', '# y\n')
		const killed = await m.cfgsync(['discard', 'gemini-cli', '--name', 'discarded', '--yes'], {
			env: { CFGSYNC_TEST_CRASH_AT: 'temporary:1' }
		})
		expect(killed.code).toBe(137)
		expect(temporaries(m.home)).toHaveLength(1)
		await m.cfgsync(['status', 'gemini-cli', '--name', 'discarded'])
		expect(temporaries(m.home)).toEqual([])
	}, 60_000)
})

describe('a push stored, then another machine pushed before this one ran again', () => {
	test('the stored push is found in the history: the next push here is an edit on top of both, no conflict', async () => {
		const name = 'crash-push-then-other'
		proxy.set('pass')
		const a = await loggedIn({ ...server, url: proxy.url })
		const c = await loggedIn()
		writeCommands(a, old)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		expect((await c.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		writeCommands(a, fresh)
		proxy.set('hold')
		const push = a.start(['push', 'claude-code', '--name', name])
		expect(await proxy.stored()).toBe(200)
		push.kill('SIGKILL')
		await push.exited
		proxy.set('pass')

		expect((await c.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		c.file(commandKey(149), '# Theirs\n')
		expect((await c.cfgsync(['push', 'claude-code', '--name', name])).stdout).toContain('version 3')

		a.file(commandKey(0), later(0))
		const pushed = await a.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: pushed.code, stderr: pushed.stderr }).toEqual({
			code: 0,
			stderr: `An earlier cfgsync push of claude-code/${name} was stopped part-way: its push had reached the server (version 2).\n`
		})
		expect(pushed.stdout).toContain('as version 4')
		const files = (await latest(name)).data.files
		expect([files[commandKey(0)], files[commandKey(1)], files[commandKey(149)]]).toEqual([
			later(0),
			fresh(1),
			'# Theirs\n'
		])
	}, 60_000)
})

describe('a sync killed right after the server stored its push', () => {
	test('the merge it wrote and pushed is the base: the next edit here syncs as an edit, nothing is pushed twice', async () => {
		const name = 'crash-sync'
		const a = await loggedIn()
		const b = await loggedIn()
		const settings = (theme: string, model: string) => `{\n  "theme": "${theme}",\n  "model": "${model}"\n}\n`
		a.file('.claude/settings.json', settings('dark', 'opus'))
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		expect((await b.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		a.file('.claude/settings.json', settings('light', 'opus'))
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		b.file('.claude/settings.json', settings('dark', 'sonnet'))
		const killed = await b.cfgsync(['sync', 'claude-code', '--name', name], {
			env: { CFGSYNC_TEST_CRASH_AT: 'pushed' }
		})
		expect(killed.code).toBe(137)
		expect(b.file('.claude/settings.json')).toBe(settings('light', 'sonnet'))
		expect((await latest(name)).version).toBe(3)

		b.file('.claude/settings.json', settings('light', 'haiku'))
		const synced = await b.cfgsync(['sync', 'claude-code', '--name', name])
		expect({ code: synced.code, stderr: synced.stderr }).toEqual({
			code: 0,
			stderr: `An earlier cfgsync sync of claude-code/${name} was stopped part-way: it had written 0 of its 1 file; 1 changed here since: ~/.claude/settings.json; its push had reached the server (version 3).\n`
		})
		expect(synced.stdout).toContain('pushed version 4')
		expect((await latest(name)).data.files['.claude/settings.json']).toBe(settings('light', 'haiku'))
		expect((await a.cfgsync(['sync', 'claude-code', '--name', name])).code).toBe(0)
		expect(a.file('.claude/settings.json')).toBe(settings('light', 'haiku'))
	}, 60_000)
})

describe('a push whose answer is lost', () => {
	test('a proxy forwards the push and answers 502: the client finds its push on the server, says so, and later pushes are no conflicts with itself', async () => {
		const name = 'lost-502'
		proxy.set('pass')
		const a = await loggedIn({ ...server, url: proxy.url })
		a.file('.claude/settings.json', '{\n  "theme": "dark"\n}\n')
		writeCommands(a, old)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)

		writeCommands(a, fresh)
		proxy.set('forward-502')
		const lost = await a.cfgsync(['push', 'claude-code', '--name', name])
		expect(await proxy.stored()).toBe(200)
		expect(lost.code).toBe(0)
		expect(lost.stderr).toBe(
			`The answer to this push of claude-code/${name} was lost (HTTP 502), but the server has it: version 2.\n`
		)
		expect(lost.stdout).toContain(`Pushed claude-code/${name} as version 2 (151 files`)

		proxy.set('pass')
		for (let round = 3; round <= 4; round++) {
			a.file('.claude/settings.json', `{\n  "theme": "round ${round}"\n}\n`)
			a.file(commandKey(round), `# Round ${round}\n`)
			const pushed = await a.cfgsync(['push', 'claude-code', '--name', name])
			expect({ round, code: pushed.code, stderr: pushed.stderr }).toEqual({ round, code: 0, stderr: '' })
			expect(pushed.stdout).toContain(`as version ${round}`)
		}
		const synced = await a.cfgsync(['sync', 'claude-code', '--name', name])
		expect(synced.code).toBe(0)
	}, 60_000)

	test('a proxy answers 502 without forwarding: the client says the push may not have been stored and that running it again is safe; it is', async () => {
		const name = 'lost-dropped'
		proxy.set('pass')
		const a = await loggedIn({ ...server, url: proxy.url })
		writeCommands(a, old)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		writeCommands(a, fresh)
		proxy.set('drop-502')
		const dropped = await a.cfgsync(['push', 'claude-code', '--name', name])
		expect(dropped.code).toBe(1)
		expect(dropped.stderr).toBe(
			`cfgsync: The answer to this push of claude-code/${name} was lost (HTTP 502), and the server does not show it: it may not have been stored. Nothing here is lost, and running the same command again is safe (it first checks what the server holds); cfgsync status claude-code --name ${name} shows where things stand.\n`
		)
		proxy.set('drop-502-then-down')
		const down = await a.cfgsync(['push', 'claude-code', '--name', name])
		expect(down.code).toBe(1)
		expect(down.stderr).toStartWith(
			`An earlier cfgsync push of claude-code/${name} was stopped part-way: its push was not stored (its changes are still to send).\ncfgsync: The answer to this push of claude-code/${name} was lost (HTTP 502), and the server could not be asked whether it stored it (`
		)
		expect(down.stderr).toEndWith(
			`). Nothing here is lost, and running the same command again is safe (it first checks what the server holds); cfgsync status claude-code --name ${name} shows where things stand.\n`
		)
		proxy.set('pass')
		const status = await a.cfgsync(['status', 'claude-code', '--name', name])
		expect(status.stdout).toStartWith(`claude-code/${name}: local changes (synced version 1, server version 1)\n`)
		const again = await a.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: again.code, stderr: again.stderr }).toEqual({
			code: 0,
			stderr: `An earlier cfgsync push of claude-code/${name} was stopped part-way: its push was not stored (its changes are still to send).\n`
		})
		expect(again.stdout).toContain('as version 2 (150 files')
		expect(Object.values((await latest(name)).data.files)).toEqual(Array.from({ length: COUNT }, (_, i) => fresh(i)))
	}, 60_000)

	test('a push whose answer never comes (CFGSYNC_TIMEOUT) but which the server stored is done, not a conflict', async () => {
		const name = 'lost-timeout'
		proxy.set('pass')
		const a = await loggedIn({ ...server, url: proxy.url })
		a.file('.claude/CLAUDE.md', '# One\n')
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		a.file('.claude/CLAUDE.md', '# Two\n')
		proxy.set('hold')
		const slow = await a.cfgsync(['push', 'claude-code', '--name', name], { env: { CFGSYNC_TIMEOUT: '1' } })
		expect({ code: slow.code, stderr: slow.stderr }).toEqual({
			code: 0,
			stderr: `The answer to this push of claude-code/${name} was lost (no answer within 1 s), but the server has it: version 2.\n`
		})
		proxy.set('pass')
		a.file('.claude/CLAUDE.md', '# Three\n')
		const pushed = await a.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: pushed.code, stderr: pushed.stderr }).toEqual({ code: 0, stderr: '' })
		expect(pushed.stdout).toContain('as version 3')
	}, 60_000)
})

describe('the client on Node (the npm package)', () => {
	test('a pull killed after 95 files is settled, and a push answered 502 after it was stored is done', async () => {
		const node = ['node', await nodeBundle(emptyDir())]
		const name = 'crash-node'
		const [a, b] = await pulledThenChanged(name, node)
		const pull = await b.cfgsync(['pull', 'claude-code', '--name', name], {
			env: { CFGSYNC_TEST_CRASH_AT: 'write:95' }
		})
		expect(pull.code).toBe(137)
		expect(holding(b, fresh)).toBe(95)
		writeCommands(a, old)
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).stdout).toContain('version 3')
		const synced = await b.cfgsync(['sync', 'claude-code', '--name', name])
		expect({ code: synced.code, pushed: synced.stdout.includes('pushed version') }).toEqual({ code: 0, pushed: false })
		expect(holding(b, old)).toBe(COUNT)

		proxy.set('pass')
		const viaProxy = await loggedIn({ ...server, url: proxy.url }, node)
		expect((await viaProxy.cfgsync(['pull', 'claude-code', '--name', name])).code).toBe(0)
		viaProxy.file(commandKey(7), '# Seven\n')
		proxy.set('forward-502')
		const lost = await viaProxy.cfgsync(['push', 'claude-code', '--name', name])
		expect({ code: lost.code, stderr: lost.stderr }).toEqual({
			code: 0,
			stderr: `The answer to this push of claude-code/${name} was lost (HTTP 502), but the server has it: version 4.\n`
		})
		proxy.set('pass')
		viaProxy.file(commandKey(8), '# Eight\n')
		expect((await viaProxy.cfgsync(['push', 'claude-code', '--name', name])).stdout).toContain('as version 5')
	}, 90_000)
})
