import { describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { openWithMasterKey } from '../../../src/server/boot'
import { loadConfig } from '../../../src/server/config'
import { createSignupService } from '../../../src/server/modules/signup/service'
import { fastPasswords } from '../../support/helpers'
import { serverCli } from '../../support/source-cli'
import { tempDir } from '../../support/temp'
import { textOf, webApp, type WebApp } from '../../support/web'

/** docs/operations.md and issue 35.11: one setup address per fleet; `setup-link`; it dies after 24 h and with any admin. */
const DAY = 86_400_000

/** An instance of the fleet starting: the signup service as `serve` makes it (one per instance, one shared store). */
const instance = (w: WebApp) =>
	createSignupService({ store: w.store, clock: w.clock, passwords: fastPasswords, sealer: w.sealer })
const person = (name: string) => ({ email: `${name}@example.test`, username: name, password: `${name}-password-1` })

describe('the setup address of a fleet', () => {
	test('instances starting together on an empty database print the same address', async () => {
		const w = webApp()
		const tokens = await Promise.all([instance(w), instance(w), instance(w)].map((one) => one.openSetup('team')))
		expect(tokens[0]).toMatch(/^[A-Za-z0-9_-]{43}$/)
		expect(new Set(tokens).size).toBe(1)
		// A later start (still no user) prints it again.
		expect(await instance(w).openSetup('team')).toBe(tokens[0])
		expect((await w.get(`/setup/${tokens[0]}`)).status).toBe(200)
	})

	test('it dies after 24 hours; a start after that prints a new one', async () => {
		const w = webApp()
		const token = (await instance(w).openSetup('team')) as string
		w.clock.advance(DAY - 60_000)
		expect((await w.get(`/setup/${token}`)).status).toBe(200)
		w.clock.advance(120_000)
		const dead = await w.get(`/setup/${token}`)
		expect(dead.status).toBe(410)
		expect(textOf(dead.html)).toContain('cfgsync-server setup-link')
		expect((await w.post(`/setup/${token}`, undefined, person('eve'))).status).toBe(410)
		const next = (await instance(w).openSetup('team')) as string
		expect(next).not.toBe(token)
		expect((await w.get(`/setup/${next}`)).status).toBe(200)
	})

	test('a fresh address (setup-link) ends the older ones, even after users were added', async () => {
		const w = webApp()
		const first = (await instance(w).openSetup('team')) as string
		await w.user('team', 'alice') // `user add`, no admin
		expect(await instance(w).openSetup('team')).toBeUndefined() // a start with users prints none
		const fresh = (await instance(w).openSetup('team', { fresh: true })) as string
		expect(fresh).not.toBe(first)
		expect((await w.get(`/setup/${first}`)).status).toBe(410)
		expect((await w.post(`/setup/${fresh}`, undefined, person('ada'))).status).toBe(303)
		expect(await instance(w).openSetup('team', { fresh: true })).toBeUndefined()
	})

	test('it dies when any user is made admin, however', async () => {
		const w = webApp()
		const token = (await instance(w).openSetup('team')) as string
		const bob = await w.user('team', 'bob')
		await w.store.users.setAdmin(bob.id, true)
		expect((await w.get(`/setup/${token}`)).status).toBe(410)
		expect(await instance(w).openSetup('team', { fresh: true })).toBeUndefined()
	})
})

describe.skipIf(process.env.CFGSYNC_TEST_ENGINE === 'postgres')(
	'cfgsync-server setup-link (SQLite, from the terminal)',
	() => {
		test('prints a new address while no admin exists, and refuses once one does', async () => {
			const dir = tempDir('setup-link')
			const data = join(dir, 'data')
			const first = await openWithMasterKey(loadConfig({ dataDir: data }))
			first.store.close()
			const printed = await serverCli(['setup-link', '--public-url', 'https://cfgsync.example.com', '--data-dir', data])
			expect(printed.code).toBe(0)
			expect(printed.stdout).toMatch(/^https:\/\/cfgsync\.example\.com\/setup\/[A-Za-z0-9_-]{43}\n$/)
			const again = await serverCli(['setup-link', '--data-dir', data])
			expect(again.stdout).not.toBe(printed.stdout)
			const admin = [
				'user',
				'add',
				'--email',
				'a@example.test',
				'--username',
				'a',
				'--admin',
				'--password',
				'password-a'
			]
			expect((await serverCli([...admin, '--data-dir', data])).code).toBe(0)
			const refused = await serverCli(['setup-link', '--data-dir', data])
			expect(refused.code).toBe(1)
			expect(refused.stderr).toContain('has an admin already')
		})
	}
)
