import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { login, type Machine } from '../support/client/machines'
import { inProcessWorld, type User, type World } from '../support/client/in-process'

/**
 * Personal stays personal (docs/sync-model.md): a team config receives only
 * its own values and this machine's edits to the team's files made since they
 * were last synced from the team — never a value that came from the personal
 * config, never a local key. ada owns the team, ben is its admin. In process
 * (test/support/client/in-process.ts); watch on a real terminal stays in
 * personal-stays.e2e.test.ts.
 */

let world: World
let ada: User
let ben: User
let cy: User
beforeAll(async () => {
	world = inProcessWorld()
	ada = await world.user('team', 'ada')
	ben = await world.user('pro', 'ben')
	cy = await world.user('pro', 'cy')
})

const ok = async (m: Machine, args: string[]) => {
	const result = await m.cfgsync(args)
	if (result.code !== 0)
		throw new Error(`cfgsync ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`)
	return result
}

const teamFiles = async (tool: string, teamId: string) =>
	(
		(await world.api('GET', `/api/configs/latest?name=default&tool=${tool}&teamId=${teamId}`, ada.key)).body as {
			data: { files: Record<string, string> }
		}
	).data.files

async function team(slug: string) {
	const [owner, admin] = [world.machine(), world.machine()]
	const tag = Math.random().toString(36).slice(2, 8)
	await login(owner, ada, `o-${tag}`)
	await login(admin, ben, `a-${tag}`)
	await ok(owner, ['team', 'create', slug])
	await ok(owner, ['team', 'invite', slug, 'ben', '--role', 'admin'])
	await ok(admin, ['invitations', 'accept', slug])
	const id = ((await world.api('GET', `/api/teams/${slug}`, ada.key)).body as { id: string }).id
	return { owner, admin, id }
}

const SETTINGS = '.claude/settings.json'

describe('personal stays personal', () => {
	test("an admin's personal env key never reaches the team: not by sync --all-remote, resolve --theirs, nor the plain sync after", async () => {
		const { owner, admin, id } = await team('acme1')
		admin.file(SETTINGS, `${JSON.stringify({ env: { BOB_PRIVATE: 'bob-only-value' }, theme: 'light' }, null, 2)}\n`)
		await ok(admin, ['push', 'claude-code'])
		owner.file(SETTINGS, `${JSON.stringify({ env: { TEAM_REGION: 'eu' }, theme: 'dark' }, null, 2)}\n`)
		await ok(owner, ['push', 'claude-code', '--team', 'acme1', join(owner.home, SETTINGS)])

		await admin.cfgsync(['sync', '--all-remote', '--yes'])
		await admin.cfgsync(['resolve', 'claude-code', '--team', 'acme1', '--theirs', '--yes'])
		await admin.cfgsync(['sync', '--yes'])
		await admin.cfgsync(['sync', '--yes'])
		expect(JSON.parse(admin.file(SETTINGS) as string).env.BOB_PRIVATE).toBe('bob-only-value')
		expect((await teamFiles('claude-code', id))[SETTINGS]).not.toContain('BOB_PRIVATE')
		// An edit made here to the team's file after it was synced from the team is the team's to receive.
		const here = JSON.parse(admin.file(SETTINGS) as string)
		admin.file(SETTINGS, `${JSON.stringify({ ...here, env: { ...here.env, TEAM_LOG: 'debug' } }, null, 2)}\n`)
		await ok(admin, ['sync', '--yes'])
		const stored = (await teamFiles('claude-code', id))[SETTINGS] as string
		expect(JSON.parse(stored).env).toEqual({ TEAM_REGION: 'eu', TEAM_LOG: 'debug' })
	}, 90_000)

	test('a local key of the personal config (here and --everywhere) is never sent by push --team SLUG PATH', async () => {
		const { owner, admin, id } = await team('acme2')
		const path = '.config/Code/User/settings.json'
		admin.file(path, `${JSON.stringify({ 'editor.fontSize': 14, 'editor.tabSize': 2 }, null, 2)}\n`)
		await ok(admin, ['push', 'vscode'])
		await ok(admin, ['local', 'vscode', 'editor.fontSize'])
		await ok(admin, ['local', 'vscode', '--everywhere', 'python.defaultInterpreterPath'])
		await ok(admin, ['sync', 'vscode'])
		owner.file(path, `${JSON.stringify({ 'editor.tabSize': 2 }, null, 2)}\n`)
		await ok(owner, ['push', 'vscode', '--team', 'acme2', join(owner.home, path)])
		await ok(admin, ['pull', 'vscode', '--team', 'acme2', '--yes'])
		admin.file(
			path,
			`${JSON.stringify({ 'editor.fontSize': 18, 'editor.tabSize': 2, 'editor.wordWrap': 'on', 'python.defaultInterpreterPath': '/home/ben/private/venv/bin/python' }, null, 2)}\n`
		)
		await ok(admin, ['push', 'vscode', '--team', 'acme2', join(admin.home, path), '--yes'])
		const stored = JSON.parse((await teamFiles('vscode', id))['@Code/User/settings.json'] as string)
		expect(stored).toEqual({ 'editor.tabSize': 2, 'editor.wordWrap': 'on' })
	}, 90_000)

	test("after the team is deleted, a member's plain sync never pushes the team's content into the personal config; a push naming the file does", async () => {
		const { owner } = await team('acme3')
		const member = world.machine()
		await login(member, cy, `m-${Math.random().toString(36).slice(2, 8)}`)
		await ok(owner, ['team', 'invite', 'acme3', 'cy', '--role', 'member'])
		await ok(member, ['invitations', 'accept', 'acme3'])
		const personal = `${JSON.stringify({ theme: 'light' }, null, 2)}\n`
		member.file(SETTINGS, personal)
		member.file('.claude/CLAUDE.md', 'carol\n')
		await ok(member, ['push', 'claude-code'])
		const teamCopy = `${JSON.stringify({ theme: 'dark', env: { TEAM_REGION: 'eu' } }, null, 2)}\n`
		owner.file(SETTINGS, teamCopy)
		await ok(owner, ['push', 'claude-code', '--team', 'acme3', join(owner.home, SETTINGS)])
		await ok(member, ['pull', 'claude-code', '--team', 'acme3', '--yes', '--force'])
		expect(member.file(SETTINGS)).toBe(teamCopy)

		await ok(owner, ['team', 'delete', 'acme3', '--yes'])
		const synced = await member.cfgsync(['sync', '--yes'])
		expect(`${synced.stdout}${synced.stderr}`).toContain('only when a push names')
		const mine = async () =>
			(
				(await world.api('GET', '/api/configs/latest?name=default&tool=claude-code', cy.key)).body as {
					data: { files: Record<string, string> }
				}
			).data.files
		await member.cfgsync(['sync', '--yes'])
		expect((await mine())[SETTINGS]).toBe(personal)
		expect(member.file(SETTINGS)).toBe(teamCopy)

		// Named, it is taken in; from then on the personal config syncs it.
		await ok(member, ['push', 'claude-code', join(member.home, SETTINGS)])
		expect((await mine())[SETTINGS]).toBe(teamCopy)
		member.file(SETTINGS, `${JSON.stringify({ theme: 'dark' }, null, 2)}\n`)
		await ok(member, ['sync', '--yes'])
		expect((await mine())[SETTINGS]).toBe(`${JSON.stringify({ theme: 'dark' }, null, 2)}\n`)
	}, 90_000)

	test('a team renamed on another machine: status names the new slug and its suggested command works', async () => {
		const { owner, admin } = await team('acme4')
		owner.file(SETTINGS, `${JSON.stringify({ theme: 'dark' }, null, 2)}\n`)
		await ok(owner, ['push', 'claude-code', '--team', 'acme4', join(owner.home, SETTINGS)])
		await ok(admin, ['pull', 'claude-code', '--team', 'acme4', '--yes'])
		await ok(owner, ['team', 'rename', 'acme4', 'Acme Four', '--slug', 'acme-four'])
		admin.file(SETTINGS, `${JSON.stringify({ theme: 'light' }, null, 2)}\n`)
		const status = await admin.cfgsync(['status'])
		expect(status.stdout).toContain('of team acme-four')
		expect(status.stdout + status.stderr).not.toContain('acme4')
		const pushed = await admin.cfgsync(['push', 'claude-code', '--team', 'acme-four'])
		expect({ code: pushed.code, stderr: pushed.stderr }).toMatchObject({ code: 0 })
	}, 90_000)
})
