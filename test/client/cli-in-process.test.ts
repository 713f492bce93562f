import { describe, expect, test } from 'bun:test'
import { completionScript } from '../../src/client/commands/completion'
import { REGISTRY } from '../../src/client/commands/index'
import { EXIT } from '../../src/client/output'
import { cfgsync } from '../support/client-io'
import { homePerTest } from '../support/client/home'
import { testApp } from '../support/helpers'

/**
 * The command line in process (test/support/client-io.ts): help, "did you
 * mean", completion, --json errors and exit statuses come from cli.ts and
 * the registry whatever the program is run on.
 */

homePerTest('cli-in-process')

describe('the command line, in process', () => {
	test('the overview, help for a command both ways, and the version', async () => {
		const overview = await cfgsync(['--help'])
		expect(overview.code).toBe(0)
		expect(overview.stdout).toContain('Usage: cfgsync <command> [options]')
		// Every command but an alias the overview leaves out (teams is team list).
		for (const c of REGISTRY.filter((c) => c.usage.length > 0)) expect(overview.stdout).toContain(`  ${c.name}`)
		const help = await cfgsync(['help', 'keys'])
		expect(help.stdout).toStartWith('cfgsync keys\ncfgsync keys revoke DEVICE-OR-ID [--yes]\n')
		expect((await cfgsync(['keys', '-h'])).stdout).toBe(help.stdout)
		expect((await cfgsync(['--version'])).stdout).toMatch(/^cfgsync \S+ \(commit \S+\)\n$/)
	})

	test('a wrong command, subcommand or option is a usage error with a suggestion, as text or JSON', async () => {
		expect(await cfgsync(['tem'])).toMatchObject({
			code: EXIT.usage,
			stdout: '',
			stderr: 'cfgsync: unknown command "tem": did you mean "cfgsync team"? (see cfgsync --help)\n'
		})
		expect((await cfgsync(['invitations', 'acept'])).stderr).toBe(
			'cfgsync: unknown invitations command "acept": did you mean "cfgsync invitations accept"? (see cfgsync invitations --help)\n'
		)
		const option = await cfgsync(['--json', 'list', '--tem', 'x'])
		expect(option.code).toBe(EXIT.usage)
		expect(JSON.parse(option.stderr)).toEqual({
			error: 'cfgsync list has no option --tem: did you mean --team? (see cfgsync list --help)',
			code: 'usage'
		})
		expect((await cfgsync(['help', 'nothing'])).stderr).toBe('cfgsync: no help for "nothing" (see cfgsync --help)\n')
	})

	test('completion prints the script for a shell, and __complete the words this machine knows', async () => {
		const bash = await cfgsync(['completion', 'bash'])
		expect(bash).toMatchObject({ code: 0, stdout: completionScript('bash', REGISTRY), stderr: '' })
		expect((await cfgsync(['completion', 'bash', '--json'])).code).toBe(EXIT.usage)
		expect((await cfgsync(['__complete', 'tools'])).stdout).toContain('claude-code\n')
	})

	test('no login: exit 4 with what to run; the environment is the IO’s, not the process’s', async () => {
		const t = testApp()
		const none = await cfgsync(['whoami'], { app: t })
		expect(none).toMatchObject({
			code: EXIT.auth,
			stderr: 'cfgsync: not logged in and no server: run cfgsync login --server URL (or set CFGSYNC_SERVER)\n'
		})
		const bad = await cfgsync(['whoami'], { app: t, env: { CFGSYNC_SERVER: 'cfgsync.test' } })
		expect(bad).toMatchObject({
			code: EXIT.usage,
			stderr:
				'cfgsync: CFGSYNC_SERVER cfgsync.test has no scheme: use CFGSYNC_SERVER=http://cfgsync.test (or https://)\n'
		})
		const olga = await t.user('pro', 'olga')
		const withKey = await cfgsync(['whoami', '--json'], {
			app: t,
			env: { CFGSYNC_SERVER: 'http://cfgsync.test', CFGSYNC_API_KEY: olga.key }
		})
		expect(JSON.parse(withKey.stdout)).toMatchObject({ username: 'olga', key: 'CFGSYNC_API_KEY' })
	})
})

describe('log and trust, in process', () => {
	test('log shows this account’s events; --limit is checked before the server is asked', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		await cfgsync(['keys', 'revoke', 'nothing'], { app: t, user: olga })
		const log = await cfgsync(['log', '--json'], { app: t, user: olga })
		expect(log.code).toBe(0)
		expect(Array.isArray(JSON.parse(log.stdout))).toBe(true)
		expect((await cfgsync(['log', '--limit', '0'])).stderr).toBe(
			'cfgsync: --limit takes a number of events from 1 to 200\n'
		)
	})

	test('trust a device of this account, list, then stop', async () => {
		const t = testApp()
		const olga = await t.user('pro', 'olga')
		const as = { app: t, user: olga }
		expect((await cfgsync(['trust', 'web'], as)).stdout).toStartWith('This machine now trusts device "web"')
		expect((await cfgsync(['trust', 'nobody'], as)).code).toBe(EXIT.error)
		expect(JSON.parse((await cfgsync(['trust', '--list', '--json'], as)).stdout)).toEqual([
			{ device: 'test', trust: 'this machine' },
			{ device: 'web', trust: 'trusted' }
		])
		expect((await cfgsync(['trust', '--remove', 'web'], as)).stdout).toStartWith(
			'This machine no longer trusts device "web"'
		)
	})
})

describe('team restore, in process', () => {
	test('an owner brings a deleted team back; anyone else, or a live team, is told what exists', async () => {
		const t = testApp()
		const olga = await t.user('team', 'olga')
		const max = await t.user('pro', 'max')
		const as = { app: t, user: olga }
		expect((await cfgsync(['team', 'create', 'Crew'], as)).code).toBe(0)
		await t.join(olga, 'crew', max)
		const live = await cfgsync(['team', 'restore', 'crew'], as)
		expect(live.code).toBe(EXIT.error)
		expect(live.stderr).toContain('A deleted team "crew" of yours to restore')
		expect((await cfgsync(['team', 'delete', 'crew', '--yes'], as)).code).toBe(0)
		// Creating it again names the deleted team and how to bring it back.
		const again = await cfgsync(['team', 'create', 'Crew'], as)
		expect(again.code).toBe(EXIT.error)
		expect(again.stderr).toContain('cfgsync team restore crew')
		// A plain member cannot restore it.
		expect((await cfgsync(['team', 'restore', 'crew'], { app: t, user: max })).code).toBe(EXIT.error)
		const restored = await cfgsync(['team', 'restore', 'crew', '--json'], as)
		expect(restored.code).toBe(0)
		expect(JSON.parse(restored.stdout)).toEqual({ team: 'crew', restored: true })
		const shown = JSON.parse((await cfgsync(['team', 'show', 'crew', '--json'], as)).stdout)
		expect(shown.members.map((m: { username: string }) => m.username).sort()).toEqual(['max', 'olga'])
	})
})
