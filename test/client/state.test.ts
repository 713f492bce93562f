import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { acquireLock, lockFile } from '../../src/client/lock'
import { installedPaths, type Paths, stateDir, usePaths } from '../../src/client/paths'
import { allStates, getState, setState, stateKey, type SyncState } from '../../src/client/state'
import { pathsIn } from '../support/client/home'
import { tempDir } from '../support/temp'

let saved: Record<string, string | undefined>
let before: Paths | undefined
/** This test's home, with its state in `state` and no XDG config directory: the lock workers get the same. */
let machine: Record<string, string | undefined> = {}
beforeAll(() => {
	saved = { CFGSYNC_LOCK_TIMEOUT: process.env.CFGSYNC_LOCK_TIMEOUT }
	before = installedPaths()
})
beforeEach(() => {
	const home = tempDir('home')
	machine = { HOME: home, XDG_STATE_HOME: join(home, 'state'), XDG_CONFIG_HOME: undefined }
	usePaths(pathsIn(home, machine))
})
afterAll(() => {
	usePaths(before)
	for (const [key, value] of Object.entries(saved)) {
		if (value === undefined) delete process.env[key]
		else process.env[key] = value
	}
})

const state = (tool: string, version = 1): SyncState => ({
	format: 2,
	server: 'http://s',
	username: 'ada',
	tool: tool as SyncState['tool'],
	name: 'default',
	version,
	hash: 'h',
	files: { '.claude/settings.json': { content: '{}', hash: 'x' } },
	syncedAt: '2026-01-01T00:00:00.000Z'
})

describe('sync state', () => {
	test('one 0600 file per config in a 0700 directory, base content included; listed per server and user', () => {
		const key = stateKey({ server: 'http://s', username: 'ada', tool: 'claude-code', name: 'default' })
		setState(key, state('claude-code'))
		expect(getState(key)).toEqual(state('claude-code'))
		const dir = join(stateDir(), 'configs')
		const [file] = readdirSync(dir)
		expect(statSync(join(dir, file as string)).mode & 0o777).toBe(0o600)
		expect(statSync(dir).mode & 0o777).toBe(0o700)
		setState(stateKey({ server: 'http://s', username: 'ben', tool: 'codex', name: 'default' }), {
			...state('codex'),
			username: 'ben'
		})
		expect(allStates('http://s', 'ada').map((s) => s.tool)).toEqual(['claude-code'])
	})

	test("an older client's state.json (hashes only, OS-specific editor keys) is read as a base with hashes", () => {
		mkdirSync(stateDir(), { recursive: true })
		writeFileSync(
			join(stateDir(), 'state.json'),
			JSON.stringify({
				'http://s ada personal vscode default': {
					hash: 'h1',
					version: 4,
					files: { '.config/Code/User/settings.json': 'abc' },
					syncedAt: 't'
				}
			})
		)
		const legacy = getState('http://s ada personal vscode default')
		expect(legacy).toMatchObject({
			format: 2,
			tool: 'vscode',
			version: 4,
			hash: 'h1',
			files: { '@Code/User/settings.json': { hash: 'abc' } }
		})
		expect(allStates('http://s', 'ada').map((s) => s.tool)).toEqual(['vscode'])
	})
})

const runWorker = (name: string, rounds: number) =>
	new Promise<number>((resolve) => {
		const child = spawn(
			process.execPath,
			[join(import.meta.dir, '..', 'support', 'client', 'lock-worker.ts'), name, String(rounds)],
			{
				env: Object.fromEntries(Object.entries({ ...process.env, ...machine }).filter(([, v]) => v !== undefined)),
				stdio: 'inherit'
			}
		)
		child.on('exit', (code) => resolve(code ?? 1))
	})

describe('the lock', () => {
	test('a second holder waits, then fails with a message naming the lock and how to clear it', async () => {
		process.env.CFGSYNC_LOCK_TIMEOUT = '0.3'
		const first = await acquireLock('pull')
		const started = Date.now()
		const second = await acquireLock('push').then(
			() => 'acquired',
			(error: Error) => error.message
		)
		expect(Date.now() - started).toBeGreaterThanOrEqual(250)
		expect(second).toContain(`holds the lock ${lockFile()}`)
		expect(second).toContain('"cfgsync pull"')
		expect(second).toContain(`rm ${lockFile()}`)
		first.release()
		expect(existsSync(lockFile())).toBe(false)
		const third = await acquireLock('push')
		third.release()
	})

	test('a lock left by a process that died is taken over; so is one that was never written', async () => {
		process.env.CFGSYNC_LOCK_TIMEOUT = '2'
		const dead = spawn(process.execPath, ['-e', '0'])
		const pid = await new Promise<number>((resolve) => dead.on('exit', () => resolve(dead.pid as number)))
		mkdirSync(stateDir(), { recursive: true })
		writeFileSync(
			lockFile(),
			JSON.stringify({ pid, host: (await import('node:os')).hostname(), command: 'pull', since: 'then', token: 't' })
		)
		const lock = await acquireLock('push')
		expect(JSON.parse(readFileSync(lockFile(), 'utf8')).pid).toBe(process.pid)
		lock.release()
		// Created but never written (a crash in between), and older than 10 s.
		writeFileSync(lockFile(), '')
		utimesSync(lockFile(), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000))
		const again = await acquireLock('push')
		again.release()
	})

	test('parallel commands never lose an update or a state entry (4 processes × 25 rounds, many times over)', async () => {
		process.env.CFGSYNC_LOCK_TIMEOUT = '60'
		const tools = ['claude-code', 'cursor', 'codex', 'gemini-cli']
		const codes = await Promise.all(tools.map((tool) => runWorker(tool, 25)))
		expect(codes).toEqual([0, 0, 0, 0])
		expect(readFileSync(join(stateDir(), 'counter'), 'utf8')).toBe('100')
		const states = allStates('server', 'user')
		expect(states.map((s) => [s.tool as string, s.version]).sort()).toEqual(tools.map((tool) => [tool, 25]).sort())
		expect(existsSync(lockFile())).toBe(false)
	}, 60_000)
})
