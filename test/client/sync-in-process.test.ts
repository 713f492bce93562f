import { describe, expect, test } from 'bun:test'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { EXIT } from '../../src/client/output'
import { cfgsync } from '../support/client-io'
import { homePerTest, pathsIn } from '../support/client/home'
import { testApp } from '../support/helpers'
import { tempDir } from '../support/temp'

/**
 * push, pull, sync, status, history and diff in process (test/support/client-io.ts): two machines
 * (two homes) against one in-process server, each command in milliseconds. The compiled client's
 * own checks stay in the *.e2e tests.
 */

const laptopHome = homePerTest('sync-in-process')
const SETTINGS = '.claude/settings.json'

const put = (home: string, path: string, value: unknown) => {
	mkdirSync(dirname(join(home, path)), { recursive: true })
	writeFileSync(join(home, path), `${JSON.stringify(value, null, 2)}\n`)
}
const read = (home: string, path: string) => JSON.parse(readFileSync(join(home, path), 'utf8'))

async function twoMachines() {
	const t = testApp()
	const ada = await t.user('pro', 'ada')
	const as = { app: t, user: ada }
	const desk = tempDir('sync-in-process-desk')
	// The desk is another machine: its own home, passed as the paths of its command lines.
	return { t, as, laptop: laptopHome(), desk, onDesk: { ...as, paths: pathsIn(desk) } }
}

describe('sync commands in process', () => {
	test('push from one machine, pull on another: the file arrives, and status says both are in sync', async () => {
		const { as, laptop, desk, onDesk } = await twoMachines()
		put(laptop, SETTINGS, { theme: 'dark' })
		const pushed = await cfgsync(['push', 'claude-code'], as)
		expect(pushed).toMatchObject({ code: 0 })
		expect(pushed.stdout).toContain('Pushed claude-code/default as version 1')
		const pulled = await cfgsync(['pull', 'claude-code', '--json'], onDesk)
		expect(pulled.code).toBe(0)
		expect(JSON.parse(pulled.stdout)).toMatchObject({
			serverVersion: 1,
			changes: [{ path: SETTINGS, action: 'created' }]
		})
		expect(read(desk, SETTINGS)).toEqual({ theme: 'dark' })
		for (const home of [laptop, desk]) {
			const status = await cfgsync(['status'], { ...as, paths: pathsIn(home) })
			expect(status.code).toBe(EXIT.ok)
			expect(status.stdout).toContain('claude-code/default: in sync (synced version 1, server version 1)')
		}
	})

	test('an edit here: status exits 1 naming the file, diff --exit-code shows it, sync sends it; history lists both versions, newest first', async () => {
		const { as, laptop, desk, onDesk } = await twoMachines()
		put(laptop, SETTINGS, { theme: 'dark' })
		expect((await cfgsync(['push', 'claude-code'], as)).code).toBe(0)
		expect((await cfgsync(['pull', 'claude-code'], onDesk)).code).toBe(0)

		put(desk, SETTINGS, { theme: 'light' })
		const status = await cfgsync(['status'], onDesk)
		expect(status.code).toBe(EXIT.error)
		expect(status.stdout).toContain(
			`local changes (synced version 1, server version 1)\n  ~/${SETTINGS}: changed here\n`
		)
		const asJson = await cfgsync(['status', '--json'], onDesk)
		expect(asJson.code).toBe(EXIT.error)
		expect(JSON.parse(asJson.stdout)[0]).toMatchObject({
			status: 'local changes',
			files: [{ path: SETTINGS, change: 'local' }]
		})

		const diff = await cfgsync(['diff', 'claude-code', '--exit-code'], onDesk)
		expect(diff.code).toBe(EXIT.error)
		expect(diff.stdout).toContain('-  "theme": "dark"')
		expect(diff.stdout).toContain('+  "theme": "light"')
		expect((await cfgsync(['diff', 'claude-code'], onDesk)).code).toBe(EXIT.ok)

		const synced = await cfgsync(['sync'], onDesk)
		expect(synced.code).toBe(0)
		expect(synced.stdout).toContain('pushed version 2')
		expect((await cfgsync(['diff', 'claude-code', '--exit-code'], onDesk)).stdout).toContain('No differences')

		// The laptop takes it in with its own sync.
		expect((await cfgsync(['sync'], as)).code).toBe(0)
		expect(read(laptop, SETTINGS)).toEqual({ theme: 'light' })

		const history = await cfgsync(['history', 'claude-code', '--json'], as)
		expect(history.code).toBe(0)
		const versions = JSON.parse(history.stdout).versions as { version: number; isCurrent: boolean; files: string[] }[]
		expect(versions.map((v) => [v.version, v.isCurrent])).toEqual([
			[2, true],
			[1, false]
		])
		expect(versions[0]?.files).toEqual([SETTINGS])
		const table = await cfgsync(['history', 'claude-code'], as)
		expect(table.stdout.split('\n')[0]).toMatch(/^VERSION +PUSHED +BY +FILES/)
		expect(table.stdout).toMatch(/^2 +just now +ada on test +1 +\(current\)$/m)
	})

	test('both machines change the same setting: the second push is a conflict (exit 3) that names how to settle it; nothing is sent', async () => {
		const { as, laptop, desk, onDesk } = await twoMachines()
		put(laptop, SETTINGS, { theme: 'dark' })
		expect((await cfgsync(['push', 'claude-code'], as)).code).toBe(0)
		expect((await cfgsync(['pull', 'claude-code'], onDesk)).code).toBe(0)
		put(laptop, SETTINGS, { theme: 'solarized' })
		expect((await cfgsync(['push', 'claude-code'], as)).code).toBe(0)
		put(desk, SETTINGS, { theme: 'light' })
		const clash = await cfgsync(['push', 'claude-code'], onDesk)
		expect(clash.code).toBe(EXIT.conflict)
		expect(clash.stderr).toContain('cfgsync resolve claude-code --mine')
		expect(clash.stderr).toContain('Nothing was sent and nothing written here')
		expect(read(desk, SETTINGS)).toEqual({ theme: 'light' })
		const taken = await cfgsync(['resolve', 'claude-code', '--theirs'], onDesk)
		expect(taken.code).toBe(0)
		expect(read(desk, SETTINGS)).toEqual({ theme: 'solarized' })
	})
})

describe('discard keeps what stays on this machine', () => {
	test('a file never synced that holds a local key: discard takes back the rest, the local key stays', async () => {
		const { as, laptop } = await twoMachines()
		put(laptop, SETTINGS, { theme: 'dark' })
		expect((await cfgsync(['push', 'claude-code'], as)).code).toBe(0)
		put(laptop, '.claude.json', { mcpServers: { 'private-a': { command: 'own-a' } } })
		const local = await cfgsync(['local', 'claude-code', '~/.claude.json:mcpServers.private-a'], as)
		expect(local.code).toBe(0)
		put(laptop, '.claude.json', {
			mcpServers: { 'private-a': { command: 'own-a' }, shared: { command: 'not-yet-sent' } }
		})
		const discarded = await cfgsync(['discard', 'claude-code', '--yes'], as)
		expect(discarded.code).toBe(0)
		expect(read(laptop, '.claude.json')).toEqual({ mcpServers: { 'private-a': { command: 'own-a' } } })
	})
})
