import { beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, serversOfThisFile, type Server } from '../support/harness'
import { login, machine, serverWithUsers, type Machine, type User } from '../support/client/machines'

/**
 * Personal stays personal (docs/sync-model.md): a team config receives only
 * its own values and this machine's edits to the team's files made since they
 * were last synced from the team — never a value that came from the personal
 * config, never a local key. ada owns the team, ben is its admin. Here what
 * only the compiled client shows (watch asking on a real terminal); the rest
 * runs in process (personal-stays-in-process.test.ts).
 */

const servers = serversOfThisFile()
let server: Server
let ada: User
let ben: User
beforeAll(async () => {
	;({ server, ada, ben } = await serverWithUsers(servers))
}, 60_000)

const ok = async (m: Machine, args: string[]) => {
	const result = await m.cfgsync(args)
	if (result.code !== 0)
		throw new Error(`cfgsync ${args.join(' ')} exited ${result.code}: ${result.stdout}${result.stderr}`)
	return result
}

async function team(slug: string) {
	const [owner, admin] = [machine(server), machine(server)]
	const tag = Math.random().toString(36).slice(2, 8)
	await login(owner, ada, `o-${tag}`)
	await login(admin, ben, `a-${tag}`)
	await ok(owner, ['team', 'create', slug])
	await ok(owner, ['team', 'invite', slug, 'ben', '--role', 'admin'])
	await ok(admin, ['invitations', 'accept', slug])
	const id = ((await api(server, 'GET', `/api/teams/${slug}`, ada.key)).body as { id: string }).id
	return { owner, admin, id }
}

const SETTINGS = '.claude/settings.json'

describe('personal stays personal', () => {
	test("watch on a terminal asks there about someone else's change, and writes it on yes", async () => {
		const { owner, admin } = await team('acme5')
		owner.file(SETTINGS, `${JSON.stringify({ theme: 'dark' }, null, 2)}\n`)
		await ok(owner, ['push', 'claude-code', '--team', 'acme5', join(owner.home, SETTINGS)])
		await ok(admin, ['pull', 'claude-code', '--team', 'acme5', '--yes'])
		const changed = `${JSON.stringify({ theme: 'dark', env: { TEAM_REGION: 'eu' } }, null, 2)}\n`
		owner.file(SETTINGS, changed)
		await ok(owner, ['push', 'claude-code', '--team', 'acme5'])
		const watched = await admin.terminal(
			['watch', 'claude-code', '--team', 'acme5'],
			[
				{ after: 'Write this file?', type: 'y\r' },
				{ after: '1 updated', type: '\x03' }
			]
		)
		expect(watched.output).not.toContain('There is no terminal to ask on')
		expect(admin.file(SETTINGS)).toBe(changed)
	}, 90_000)
})
