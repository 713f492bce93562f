import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { join } from 'node:path'
import { api, emptyDir, run, startServer, userWithKey, serversOfThisFile } from '../../support/harness'

const servers = serversOfThisFile()

test('teams through the binary: team push by an admin, refusal for a member, purge and user remove from the command line', async () => {
	const dir = emptyDir()
	const server = await startServer(dir)
	servers.push(server)
	const owner = await userWithKey(dir, 'olga')
	const admin = await userWithKey(dir, 'adam', 'pro')
	const member = await userWithKey(dir, 'mia', 'free')

	const team = await api(server, 'POST', '/api/teams', owner.key, { name: 'Platform Team' })
	expect(team).toMatchObject({ status: 201, body: { slug: 'platform-team' } })
	expect(
		(await api(server, 'POST', '/api/teams/platform-team/members', owner.key, { login: 'adam', role: 'admin' })).status
	).toBe(201)
	expect((await api(server, 'POST', '/api/invitations/platform-team/accept', admin.key)).status).toBe(200)
	expect(
		(
			await api(server, 'POST', '/api/teams/platform-team/members', admin.key, {
				login: 'mia@example.test',
				role: 'member'
			})
		).status
	).toBe(201)
	expect((await api(server, 'POST', '/api/invitations/platform-team/accept', member.key)).status).toBe(200)

	const pushed = await api(server, 'POST', '/api/configs', admin.key, {
		teamId: team.body.id,
		tool: 'windsurf',
		data: { rules: ['a'] }
	})
	expect(pushed.status).toBe(201)
	expect(
		(await api(server, 'POST', '/api/configs', member.key, { teamId: team.body.id, tool: 'windsurf', data: {} })).status
	).toBe(403)
	expect(
		(await api(server, 'GET', `/api/configs/latest?name=default&tool=windsurf&teamId=${team.body.id}`, member.key)).body
			.data
	).toEqual({ rules: ['a'] })

	const refused = await run(dir, ['user', 'remove', 'olga'])
	expect(refused.code).toBe(1)
	expect(refused.stderr.trim().split('\n')).toHaveLength(1)
	expect(refused.stderr).toContain('Platform Team (platform-team)')

	expect((await api(server, 'DELETE', '/api/teams/platform-team', owner.key)).status).toBe(204)
	expect((await run(dir, ['purge'])).stdout).toContain('nothing to purge')
	// Age the deletion past the 30 days, as if time had passed.
	const db = new Database(join(dir, 'data', 'cfgsync.db'))
	db.run("UPDATE teams SET deleted_at = '2000-01-01T00:00:00.000Z'")
	db.close()
	const purged = await run(dir, ['purge'])
	expect(purged).toMatchObject({ code: 0 })
	expect(purged.stdout).toContain('purged 1 team')
	const check = new Database(join(dir, 'data', 'cfgsync.db'), { readonly: true })
	expect(check.query('SELECT count(*) AS n FROM configs').get()).toEqual({ n: 0 })
	expect(check.query('SELECT count(*) AS n FROM config_versions').get()).toEqual({ n: 0 })
	expect(check.query('SELECT count(*) AS n FROM team_members').get()).toEqual({ n: 0 })
	check.close()
	expect((await run(dir, ['user', 'remove', 'olga'])).code).toBe(0)
	expect((await api(server, 'GET', '/api/me', owner.key)).status).toBe(401)
})
