import { beforeAll, describe, expect, test } from 'bun:test'
import { login, type Machine } from '../support/client/machines'
import { inProcessWorld, type User, type World } from '../support/client/in-process'

/**
 * One file that cannot be sent or written never stops the rest
 * (docs/sync-model.md): sync still writes the server's changes to every
 * other file, sends what it can, and names what was not sent or not written
 * ("refused", exit 1, as pull does). In process (test/support/client/in-process.ts).
 */

let world: World
let ada: User
beforeAll(async () => {
	world = inProcessWorld()
	ada = await world.user('team', 'ada')
})

const stored = async (name: string) =>
	(await world.api('GET', `/api/configs/latest?name=${name}&tool=claude-code`, ada.key)).body.data.files as Record<
		string,
		string
	>

async function pair(name: string): Promise<[Machine, Machine]> {
	const [a, b] = [world.machine(), world.machine()]
	for (const m of [a, b]) expect((await login(m, ada, `u-${Math.random().toString(36).slice(2, 8)}`)).code).toBe(0)
	a.file('.claude/settings.json', '{\n  "theme": "dark"\n}\n')
	a.file('.claude/CLAUDE.md', '# rules\n')
	expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
	expect((await b.cfgsync(['pull', 'claude-code', '--name', name, '--yes'])).code).toBe(0)
	return [a, b]
}

const said = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`

describe('one file that cannot be sent does not stop the rest', () => {
	test('a 1 MB CLAUDE.md: sync writes the other machine’s change, sends the other change here, names CLAUDE.md as not sent (exit 1)', async () => {
		const name = 'big'
		const [a, b] = await pair(name)
		a.file('.claude/settings.json', '{\n  "theme": "light"\n}\n')
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		b.file('.claude/CLAUDE.md', `# rules\n${'x'.repeat(1024 * 1024)}\n`)
		b.file('.claude/commands/deploy.md', 'deploy it\n')
		const synced = await b.cfgsync(['sync', 'claude-code', '--name', name, '--yes'])
		expect({ code: synced.code, said: said(synced) }).toMatchObject({ code: 1 })
		expect(synced.stderr).toContain('~/.claude/CLAUDE.md')
		expect(synced.stderr).toContain('refused')
		expect(b.file('.claude/settings.json')).toBe('{\n  "theme": "light"\n}\n')
		const files = await stored(name)
		expect(files['.claude/CLAUDE.md']).toBe('# rules\n')
		expect(files['.claude/commands/deploy.md']).toBe('deploy it\n')
		// Still not sent on the next run, and still said.
		const again = await b.cfgsync(['sync', 'claude-code', '--name', name, '--yes'])
		expect(again.code).toBe(1)
		expect(again.stderr).toContain('~/.claude/CLAUDE.md')
	}, 60_000)

	test('a file where a directory should be: the files under it are not written, named; the rest lands; the next run claims no interrupted sync', async () => {
		const name = 'nodir'
		const [a, b] = await pair(name)
		a.file('.claude/settings.json', '{\n  "theme": "light"\n}\n')
		a.file('.claude/commands/deploy.md', 'deploy it\n')
		expect((await a.cfgsync(['push', 'claude-code', '--name', name])).code).toBe(0)
		b.file('.claude/commands', 'not a directory\n')
		const synced = await b.cfgsync(['sync', 'claude-code', '--name', name, '--yes'])
		expect({ code: synced.code, said: said(synced) }).toMatchObject({ code: 1 })
		expect(synced.stderr).toContain('~/.claude/commands/deploy.md')
		expect(said(synced)).not.toMatch(/EEXIST|ENOTDIR|\.tmp/)
		expect(b.file('.claude/settings.json')).toBe('{\n  "theme": "light"\n}\n')
		const again = await b.cfgsync(['sync', 'claude-code', '--name', name, '--yes'])
		expect(said(again)).not.toContain('stopped part-way')
		expect(again.code).toBe(1)
		// Once the place is free, the file arrives.
		b.file('.claude/commands', undefined)
		await Bun.$`rm ${b.home}/.claude/commands`
		const fixed = await b.cfgsync(['sync', 'claude-code', '--name', name, '--yes'])
		expect({ code: fixed.code, said: said(fixed) }).toMatchObject({ code: 0 })
		expect(b.file('.claude/commands/deploy.md')).toBe('deploy it\n')
	}, 60_000)
})
