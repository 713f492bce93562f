import { describe, expect, test } from 'bun:test'
import { EXIT } from '../../src/client/output'
import { cfgsync } from '../support/client-io'
import { homePerTest } from '../support/client/home'
import { testApp } from '../support/helpers'

/**
 * `cfgsync team` in process (test/support/client-io.ts): each subcommand an
 * entry of the registry, run against the in-process server with a fake IO.
 */

homePerTest('team-in-process')

const TEAM_HELP = `cfgsync team list                          (also: cfgsync teams)
cfgsync team create NAME [--slug S]
cfgsync team show SLUG
cfgsync team invite SLUG LOGIN [--role admin|member]   (also: team add)
cfgsync team role SLUG LOGIN owner|admin|member
cfgsync team remove SLUG LOGIN
cfgsync team leave SLUG
cfgsync team rename SLUG NAME [--slug NEW]
cfgsync team delete SLUG [--yes]
cfgsync team restore SLUG

Teams and their members. LOGIN is a username or an email. Nobody joins
without accepting: invite sends an invitation (it expires after 7 days) and
the person runs cfgsync invitations accept SLUG. Owners invite admins and
members, admins invite members; role is for owners (also on a pending
invitation); remove takes a member out or cancels an invitation; a team
always keeps an owner. rename keeps the slug unless --slug is given (the old
one stays reserved for the team for 30 days). delete asks first (y/N), and
without a terminal needs --yes; the team disappears for every member at once
and is removed for good after 30 days; until then its owners can bring it
back, members, invitations and configs as they were, with restore.`

const EXIT_HELP = `Exit status: 0 ok, 1 error, 2 usage (unknown command, option or argument, bad value,
a --server without http:// or https://, --yes needed without a terminal), 3 conflict
(a person must choose: cfgsync resolve), 4 not logged in or key refused.`

describe('cfgsync team, in process', () => {
	test('create, list (and teams), show, as text and --json', async () => {
		const t = testApp()
		const owner = await t.user('team', 'olga')
		const as = { app: t, user: owner }
		const empty = await cfgsync(['team', 'list'], as)
		expect(empty).toMatchObject({ code: 0, stderr: '' })
		expect(empty.stdout).toBe(
			'You are in no team. Create one (Team plan): cfgsync team create NAME; invitations you received: cfgsync invitations\n'
		)
		const created = await cfgsync(['team', 'create', 'Platform', 'Team', '--slug', 'platform'], as)
		expect(created.code).toBe(0)
		expect(created.stdout).toBe(
			'Created team "Platform Team" (platform); you are its owner. Invite people with: cfgsync team invite platform LOGIN\n'
		)
		const listed = await cfgsync(['team', 'list'], as)
		expect(listed.stdout).toBe('SLUG      NAME           ROLE   CREATED\nplatform  Platform Team  owner  just now\n')
		expect((await cfgsync(['teams'], as)).stdout).toBe(listed.stdout)
		const asJson = await cfgsync(['team', 'list', '--json'], as)
		expect(JSON.parse(asJson.stdout)).toEqual([expect.objectContaining({ slug: 'platform', role: 'owner' })])
		const shown = await cfgsync(['team', 'show', 'platform'], as)
		expect(shown.stdout.split('\n').slice(0, 4)).toEqual([
			'Platform Team (platform), created just now; you are an owner.',
			'',
			'USERNAME  EMAIL              ROLE   JOINED',
			'olga      olga@example.test  owner  just now'
		])
	})

	test('invite, accept, role, remove and leave, with the other side through invitations', async () => {
		const t = testApp()
		const owner = await t.user('team', 'olga')
		const member = await t.user('free', 'mia')
		const asOwner = { app: t, user: owner }
		const asMember = { app: t, user: member }
		await cfgsync(['team', 'create', 'Core'], asOwner)
		const invited = await cfgsync(['team', 'invite', 'core', 'mia'], asOwner)
		expect(invited.stdout).toBe(
			'Invited mia to core as member. They join once they accept: cfgsync invitations accept core (the invitation expires in 7 days).\n'
		)
		expect((await cfgsync(['invitations'], asMember)).stdout).toContain('core  Core  member  olga')
		expect((await cfgsync(['invitations', 'accept', 'core'], asMember)).stdout).toBe(
			'Joined core as member. Its configs: cfgsync list --team core\n'
		)
		expect((await cfgsync(['team', 'role', 'core', 'MIA@example.test', 'admin'], asOwner)).stdout).toBe(
			'mia is now an admin of core.\n'
		)
		const left = await cfgsync(['team', 'leave', 'core'], asMember)
		expect(left).toMatchObject({ code: 0, stdout: 'You left core.\n' })
		await cfgsync(['team', 'add', 'core', 'mia', '--role', 'admin'], asOwner)
		expect((await cfgsync(['team', 'remove', 'core', 'mia'], asOwner)).stdout).toBe(
			'Cancelled the invitation of mia to core.\n'
		)
		const last = await cfgsync(['team', 'leave', 'core'], asOwner)
		expect(last.code).toBe(EXIT.error)
		expect(last.stderr).toContain('Make someone else an owner first (cfgsync team role core LOGIN owner)')
	})

	test('delete asks on a terminal, and without one needs --yes', async () => {
		const t = testApp()
		const owner = await t.user('team', 'olga')
		await cfgsync(['team', 'create', 'Gone'], { app: t, user: owner })
		const unattended = await cfgsync(['team', 'delete', 'gone'], { app: t, user: owner })
		expect(unattended.code).toBe(EXIT.usage)
		expect(unattended.stderr).toBe(
			'cfgsync: Delete team "Gone" (gone, 1 member)? Its configs disappear for every member at once, and are removed for good after 30 days: there is no terminal to ask on, so nothing was done. To do it without asking: cfgsync team delete gone --yes\n'
		)
		const declined = await cfgsync(['team', 'delete', 'gone'], { app: t, user: owner, tty: true, answers: ['n'] })
		expect(declined.code).toBe(EXIT.error)
		expect(declined.io.asked).toHaveLength(1)
		expect(declined.io.asked[0]).toEndWith('[y/N] ')
		const deleted = await cfgsync(['team', 'delete', 'gone', '--json'], {
			app: t,
			user: owner,
			tty: true,
			answers: ['y']
		})
		expect(deleted.code).toBe(0)
		expect(JSON.parse(deleted.stdout)).toEqual({ team: 'gone', deleted: true })
	})

	test('usage: no subcommand, a wrong one, an option of another, too few or too many words', async () => {
		const none = await cfgsync(['team'])
		expect(none).toMatchObject({
			code: EXIT.usage,
			stderr:
				'cfgsync: which team command? list, create, show, invite, role, remove, leave, rename, delete or restore (see cfgsync team --help)\n'
		})
		expect((await cfgsync(['team', 'lst'])).stderr).toBe(
			'cfgsync: unknown team command "lst": did you mean "cfgsync team list"? (see cfgsync team --help)\n'
		)
		expect((await cfgsync(['team', 'list', '--role', 'admin'])).stderr).toBe(
			"cfgsync: --role is for team invite (team role SLUG LOGIN ROLE changes a member's role)\n"
		)
		expect((await cfgsync(['teams', '--slug', 'x'])).stderr).toBe(
			'cfgsync: --slug is for team create and team rename\n'
		)
		expect((await cfgsync(['team', 'role', 'core', 'mia'])).stderr).toBe(
			'cfgsync: cfgsync team role SLUG LOGIN owner|admin|member\n'
		)
		expect((await cfgsync(['team', 'show', ' '])).stderr).toBe('cfgsync: cfgsync team show SLUG\n')
		const extra = await cfgsync(['team', 'show', 'core', 'more', '--json'])
		expect(extra).toMatchObject({ code: EXIT.usage, stdout: '' })
		expect(JSON.parse(extra.stderr)).toEqual({
			error: 'unexpected argument "more" (see cfgsync team --help)',
			code: 'usage'
		})
	})

	test('--help: a line per subcommand from its entry, then what teams are', async () => {
		const help = await cfgsync(['team', '--help'])
		expect(help).toMatchObject({ code: 0, stderr: '' })
		expect(help.stdout).toBe(`${TEAM_HELP}\n\n${EXIT_HELP}\n`)
		expect((await cfgsync(['help', 'team'])).stdout).toBe(help.stdout)
	})
})
