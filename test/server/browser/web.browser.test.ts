// docs/web.md in a real browser: Debian's Chromium driven by playwright-core against the compiled
// binary, through the web application's flows (docs/web.md). Every page is also shot at 1280 and 390 px (dist/screenshots).
// Any console error, CSP violation or request to another origin fails the run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, run, startServer, type Server } from '../../support/harness'
import {
	CHROMIUM,
	CHROMIUM_ARGS,
	ensureBinary,
	HAVE_CHROMIUM,
	screenshotDir,
	sidewaysScroll,
	watchedContext,
	type Problems,
	IN_CI
} from '../../support/browser'

if (!HAVE_CHROMIUM && !IN_CI) {
	test.skip(`browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`, () => {})
} else {
	describe('the web application in Chromium (docs/web.md)', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		const users = {
			alice: { name: 'alice', password: 'alice-password-1', key: '', laptopKey: '' },
			bob: { name: 'bob', password: 'bob-password-1', key: '' },
			carol: { name: 'carol', password: 'carol-password-1', key: '' },
			root: { name: 'root', password: 'root-password-1', key: '' }
		}
		let configId = ''
		const shots = screenshotDir()

		beforeAll(async () => {
			expect(HAVE_CHROMIUM ? CHROMIUM : 'Chromium is required when CI=true: apt-get install -y chromium').toBe(CHROMIUM)
			ensureBinary()
			const dir = emptyDir()
			server = await startServer(dir)
			for (const [name, user] of Object.entries(users)) {
				const added = await run(
					dir,
					[
						'user',
						'add',
						'--email',
						`${name}@example.test`,
						'--username',
						name,
						'--plan',
						'team',
						'--password-stdin',
						...(name === 'root' ? ['--admin'] : [])
					],
					{
						stdin: `${user.password}\n`
					}
				)
				expect(added.stderr).toBe('')
				user.key = (await run(dir, ['key', 'issue', name, '--device', 'desktop'])).stdout.trim()
			}
			users.alice.laptopKey = (await run(dir, ['key', 'issue', 'alice', '--device', 'old-laptop'])).stdout.trim()
			// Two versions of a files config, one file holding markup that must stay text.
			const first = await api(server, 'POST', '/api/configs', users.alice.key, {
				name: 'work',
				data: {
					files: {
						'settings.json': '{\n  "theme": "dark",\n  "fontSize": 13\n}\n',
						'CLAUDE.md': '# Notes\n<script>alert("x")</script>\n'
					}
				}
			})
			expect(first.status).toBe(201)
			configId = first.body.id
			const second = await api(server, 'POST', '/api/configs', users.alice.key, {
				name: 'work',
				data: {
					files: {
						'settings.json': '{\n  "theme": "light",\n  "fontSize": 13\n}\n',
						'CLAUDE.md': '# Notes\n<script>alert("x")</script>\nUse tabs.\n'
					}
				}
			})
			expect(second.status).toBe(200)
			browser = await (await import('playwright-core')).chromium.launch({
				executablePath: CHROMIUM,
				args: CHROMIUM_ARGS
			})
		}, 120_000)

		afterAll(async () => {
			for (const context of contexts) await context.close().catch(() => {})
			await browser?.close()
			await server?.stop()
		})

		const context = async (width = 1280) => {
			const made = await watchedContext(browser, server.url, problems, { width })
			contexts.push(made)
			return made
		}

		/** Signs in with the keyboard alone: type, Tab, type, Enter. */
		async function signIn(page: Page, user: { name: string; password: string }) {
			await page.goto(`${server.url}/`)
			await expect(page.getByLabel('Username or email')).toBeDefined()
			await page.getByLabel('Username or email').focus()
			await page.keyboard.type(user.name)
			await page.keyboard.press('Tab')
			await page.keyboard.type(user.password)
			await page.keyboard.press('Enter')
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
		}

		/** The page at 1280 px, then the same URL at 390 px with no sideways scrolling. */
		async function shoot(page: Page, name: string) {
			expect({ page: name, overflow: await sidewaysScroll(page) }).toEqual({ page: name, overflow: 0 })
			await page.screenshot({ path: join(shots, `${name}-1280.png`), fullPage: true })
			const phone = await page.context().newPage()
			await phone.setViewportSize({ width: 390, height: 844 })
			await phone.goto(page.url())
			expect({ page: name, overflow: await sidewaysScroll(phone) }).toEqual({ page: name, overflow: 0 })
			await phone.screenshot({ path: join(shots, `${name}-390.png`), fullPage: true })
			await phone.close()
		}

		test('sign in with the keyboard; the navigation has Configs, Devices, Teams, Account and Sign out, and no Admin for a non-admin', async () => {
			const page = await (await context()).newPage()
			await page.goto(`${server.url}/`)
			await shoot(page, 'sign-in')
			// The login field has focus on arrival; the keyboard does the rest.
			expect(await page.evaluate(() => document.activeElement?.id)).toBe('login')
			await signIn(page, users.alice)
			const nav = page.getByRole('navigation')
			for (const name of ['Configs', 'Devices', 'Teams', 'Account'])
				expect(await nav.getByRole('link', { name, exact: true }).count()).toBe(1)
			expect(await nav.getByRole('link', { name: 'Admin' }).count()).toBe(0)
			expect(await page.getByRole('button', { name: 'Sign out' }).count()).toBe(1)
			expect(await page.getAttribute('html', 'lang')).toBe('en')
			await shoot(page, 'configs')
		})

		test('revoke a device: its row goes, and the API refuses its key at once', async () => {
			const page = await (await context()).newPage()
			await signIn(page, users.alice)
			await page.getByRole('link', { name: 'Devices', exact: true }).click()
			await page.getByRole('heading', { name: 'Devices' }).waitFor()
			await shoot(page, 'devices')
			expect((await api(server, 'GET', '/api/me', users.alice.laptopKey)).status).toBe(200)
			const row = page.getByRole('row', { name: /old-laptop/ })
			// Asked first, naming the device: dismissed, nothing happens.
			let asked = ''
			page.once('dialog', (dialog) => {
				asked = dialog.message()
				void dialog.dismiss()
			})
			await row.getByRole('button', { name: 'Revoke' }).click()
			await page.waitForTimeout(300)
			expect(asked).toContain('old-laptop')
			expect((await api(server, 'GET', '/api/me', users.alice.laptopKey)).status).toBe(200)
			page.once('dialog', (dialog) => void dialog.accept())
			await row.getByRole('button', { name: 'Revoke' }).click()
			await row.waitFor({ state: 'detached' })
			// docs/web.md: a status message says what happened; focus goes to the next row's control or the heading.
			await page.getByRole('status').filter({ hasText: 'old-laptop' }).waitFor()
			await page.waitForFunction(() => document.activeElement !== document.body)
			const focus = await page.evaluate(() => ({
				id: document.activeElement?.id,
				text: document.activeElement?.textContent?.trim(),
				row: document.activeElement?.closest('tr')?.id ?? null
			}))
			expect(focus.id === 'devices-heading' || (focus.text === 'Revoke' && focus.row !== null)).toBe(true)
			expect((await api(server, 'GET', '/api/me', users.alice.laptopKey)).status).toBe(401)
			expect((await api(server, 'GET', '/api/me', users.alice.key)).status).toBe(200)
			await page.reload()
			expect(await page.getByRole('row', { name: /old-laptop/ }).count()).toBe(0)
		})

		test('open a config, compare two versions (and toggle the view in place), roll back', async () => {
			const page = await (await context()).newPage()
			await signIn(page, users.alice)
			await page.getByRole('link', { name: 'work' }).click()
			await page.getByRole('heading', { name: /work/, level: 1 }).waitFor()
			// One block per file, titled with its path; the markup in the data is text.
			expect(await page.getByRole('heading', { name: 'CLAUDE.md' }).count()).toBe(1)
			expect(await page.getByRole('heading', { name: 'settings.json' }).count()).toBe(1)
			expect(await page.getByText('<script>alert("x")</script>').count()).toBeGreaterThan(0)
			await shoot(page, 'config')
			// The same page in the dark scheme (prefers-color-scheme), for docs/web.md.
			await page.emulateMedia({ colorScheme: 'dark' })
			await page.screenshot({ path: join(shots, 'config-dark-1280.png'), fullPage: true })
			await page.emulateMedia({ colorScheme: 'light' })
			const history = page.getByRole('row', { name: /^1 / })
			await history.getByRole('link', { name: 'Compare' }).click()
			await page.getByRole('heading', { name: 'Version 1 → version 2' }).waitFor()
			expect(await page.locator('table.diff del').count()).toBeGreaterThan(0)
			expect(await page.locator('table.diff ins').count()).toBeGreaterThan(0)
			await shoot(page, 'compare')
			await page.getByRole('link', { name: 'Show side by side' }).click()
			await page.locator('table.diff.split').first().waitFor()
			expect(page.url()).toContain('/compare?')
			await page.getByRole('link', { name: 'Show in one column' }).click()
			await page.locator('table.diff.unified').first().waitFor()
			await page.goto(`${server.url}/configs/${configId}`)
			await page.getByRole('row', { name: /^1 / }).getByRole('button', { name: 'Roll back' }).click()
			await page.getByRole('heading', { name: /Roll back/ }).waitFor()
			await page.getByRole('button', { name: 'Roll back' }).click()
			await page.getByRole('status').filter({ hasText: 'Rolled back:' }).waitFor()
			expect(await page.getByRole('row', { name: /^3 / }).getByText('current').count()).toBe(1)
			const latest = await api(server, 'GET', '/api/configs/latest?name=work&tool=claude-code', users.alice.key)
			expect(latest.body.version).toBe(3)
			expect(latest.body.data.files['settings.json']).toContain('"dark"')
		})

		test('create a team and invite someone, who accepts', async () => {
			const owner = await (await context()).newPage()
			await signIn(owner, users.alice)
			await owner.getByRole('link', { name: 'Teams', exact: true }).click()
			await owner.getByLabel('Name', { exact: true }).fill('Platform <Team>')
			await owner.getByRole('button', { name: 'Create team' }).click()
			await owner.getByRole('heading', { name: 'Platform <Team>', level: 1 }).waitFor()
			const invite = owner.getByRole('form', { name: 'Add member' })
			await invite.getByLabel('Username or email').fill('bob')
			await invite.getByLabel('Role').selectOption('member')
			await invite.getByRole('button', { name: 'Add member' }).click()
			await owner.getByText('The invitation was sent').waitFor()
			expect(
				await owner.getByRole('row', { name: /bob/ }).getByRole('button', { name: 'Cancel invitation' }).count()
			).toBe(1)

			const invitee = await (await context()).newPage()
			await signIn(invitee, users.bob)
			await invitee.getByRole('link', { name: 'Teams', exact: true }).click()
			await shoot(invitee, 'teams')
			await invitee.getByRole('button', { name: 'Accept' }).click()
			await invitee.getByRole('heading', { name: 'Platform <Team>', level: 1 }).waitFor()

			await owner.reload()
			const bobRow = owner.getByRole('row', { name: /bob/ })
			expect(await bobRow.getByLabel('Role').inputValue()).toBe('member')
			// docs/web.md: nothing changes on a keystroke. ArrowUp on the closed select sends nothing.
			let posted = 0
			owner.on('request', (request) => {
				if (request.method() === 'POST' && request.url().endsWith('/role')) posted++
			})
			await bobRow.getByLabel('Role').focus()
			await owner.keyboard.press('ArrowUp')
			await owner.waitForTimeout(500)
			expect(posted).toBe(0)
			await owner.reload()
			expect(await owner.getByRole('row', { name: /bob/ }).getByLabel('Role').inputValue()).toBe('member')
			// The owner changes bob's role in place with Save, then it holds after a reload.
			await owner.getByRole('row', { name: /bob/ }).getByLabel('Role').selectOption('admin')
			expect(posted).toBe(0)
			await Promise.all([
				owner.waitForResponse((response) => response.url().endsWith('/role') && response.status() === 200),
				owner.getByRole('row', { name: /bob/ }).getByRole('button', { name: 'Save' }).click()
			])
			await owner.getByRole('status').filter({ hasText: 'bob is now an admin' }).waitFor()
			await owner.reload()
			expect(await owner.getByRole('row', { name: /bob/ }).getByLabel('Role').inputValue()).toBe('admin')
			await shoot(owner, 'team')
			// A refusal in place: demoting the last owner brings the row back with an alert (htmx swaps the 409).
			const before = problems.list.length
			await owner.getByRole('row', { name: /alice/ }).getByLabel('Role').selectOption('member')
			await owner.getByRole('row', { name: /alice/ }).getByRole('button', { name: 'Save' }).click()
			await owner.getByRole('row', { name: /alice/ }).getByRole('alert').waitFor()
			expect(await owner.getByRole('row', { name: /alice/ }).getByLabel('Role').inputValue()).toBe('owner')
			// The browser and htmx report the 409 on the console; that, and only that, is expected here.
			const reported = problems.list.splice(before)
			expect(reported.length).toBeGreaterThan(0)
			for (const line of reported) expect(line).toMatch(/409|htmx:responseError/)
			// The team's own link (the navigation has an Activity link too, to your own).
			await owner.getByRole('main').getByRole('link', { name: 'Activity' }).click()
			await owner.getByRole('heading', { name: /Activity of/ }).waitFor()
			await shoot(owner, 'team-activity')
		})

		test('change the password: this session stays, the other one ends, the new password signs in', async () => {
			const here = await (await context()).newPage()
			const there = await (await context()).newPage()
			await signIn(here, users.bob)
			await signIn(there, users.bob)
			await here.getByRole('link', { name: 'Account', exact: true }).click()
			await shoot(here, 'account')
			await here.getByLabel('Current password').fill(users.bob.password)
			// Not exact: "New password" is the only field whose name contains it.
			await here.getByLabel('New password').fill('bob-new-password-2')
			// "Sign out my devices" is checked by default: bob's device key goes with the old password.
			expect(await here.getByLabel('Sign out my devices').isChecked()).toBe(true)
			expect((await api(server, 'GET', '/api/me', users.bob.key)).status).toBe(200)
			await here.getByRole('button', { name: 'Change password' }).click()
			await here.getByText('Your password was changed').waitFor()
			expect((await api(server, 'GET', '/api/me', users.bob.key)).status).toBe(401)
			await here.getByRole('link', { name: 'Configs', exact: true }).click()
			await here.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
			await there.reload()
			await there.getByRole('button', { name: 'Sign in' }).waitFor()
			users.bob.password = 'bob-new-password-2'
			await signIn(there, users.bob)
			await there.getByRole('link', { name: 'Account', exact: true }).click()
			await there.getByRole('link', { name: 'Your activity' }).click()
			await there.getByRole('heading', { name: 'Your activity' }).waitFor()
			await shoot(there, 'activity')
		})

		test('sign out: the session ends on the server, pages ask to sign in again', async () => {
			const page = await (await context()).newPage()
			await signIn(page, users.alice)
			const cookies = await page.context().cookies()
			const session = cookies.find((cookie) => cookie.name === 'cfgsync_session')
			expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' })
			await page.getByRole('button', { name: 'Sign out' }).click()
			await page.getByRole('button', { name: 'Sign in' }).waitFor()
			await page.goto(`${server.url}/devices`)
			await page.getByRole('button', { name: 'Sign in' }).waitFor()
			// The old cookie, sent again by hand, is refused: the session is gone on the server.
			const replay = await fetch(`${server.url}/devices`, {
				headers: { cookie: `cfgsync_session=${session?.value}` },
				redirect: 'manual'
			})
			expect(replay.status).toBe(303)
		})

		test('an admin changes a plan (in place), and sees the Admin link', async () => {
			const page = await (await context()).newPage()
			await signIn(page, users.root)
			await page.getByRole('navigation').getByRole('link', { name: 'Admin' }).click()
			await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor()
			await shoot(page, 'admin')
			const row = page.getByRole('row', { name: /bob@example\.test/ })
			expect(await row.getByLabel('Plan').inputValue()).toBe('team')
			await row.getByLabel('Plan').selectOption('free')
			await Promise.all([
				page.waitForResponse((response) => response.url().endsWith('/plan') && response.status() === 200),
				row.getByRole('button', { name: 'Save' }).click()
			])
			await page.reload()
			expect(
				await page
					.getByRole('row', { name: /bob@example\.test/ })
					.getByLabel('Plan')
					.inputValue()
			).toBe('free')
			const list = await run(server.dir, ['user', 'list'])
			expect(list.stdout).toMatch(/bob.*free/)
		})

		test('remove a member in place: a status message names them, focus goes to the next row or the heading', async () => {
			const owner = await (await context()).newPage()
			await signIn(owner, users.alice)
			await owner.goto(`${server.url}/teams`)
			await owner.getByRole('link', { name: 'Platform <Team>' }).click()
			await owner.getByRole('heading', { name: 'Platform <Team>', level: 1 }).waitFor()
			owner.once('dialog', (dialog) => void dialog.accept())
			const bobRow = owner.getByRole('row', { name: /bob/ })
			await bobRow.getByRole('button', { name: 'Remove' }).click()
			await bobRow.waitFor({ state: 'detached' })
			await owner.getByRole('status').filter({ hasText: 'bob was removed from Platform <Team>.' }).waitFor()
			await owner.waitForFunction(() => document.activeElement !== document.body)
			const focus = await owner.evaluate(() => ({
				id: document.activeElement?.id,
				row: document.activeElement?.closest('tr')?.id ?? null,
				tag: document.activeElement?.tagName
			}))
			expect(focus.id === 'members-heading' || (focus.row !== null && focus.tag !== 'TR')).toBe(true)
		})

		test('delete a team: the page asks for its slug, and only the slug deletes it', async () => {
			const owner = await (await context()).newPage()
			await signIn(owner, users.alice)
			await owner.goto(`${server.url}/teams`)
			await owner.getByLabel('Name', { exact: true }).fill('Scratch')
			await owner.getByRole('button', { name: 'Create team' }).click()
			await owner.getByRole('heading', { name: 'Scratch', level: 1 }).waitFor()
			await owner.getByRole('button', { name: 'Delete team' }).click()
			await owner.getByRole('heading', { name: 'Delete Scratch' }).waitFor()
			await shoot(owner, 'delete-team')
			const before = problems.list.length
			await owner.getByLabel("Type the team's slug, scratch, to confirm").fill('Scratch')
			await owner.getByRole('button', { name: 'Delete team' }).click()
			await owner.getByRole('alert').filter({ hasText: 'is not this team' }).waitFor()
			// The browser logs the 400 of the page that asks again; that, and only that, is expected here.
			for (const line of problems.list.splice(before)) expect(line).toMatch(/status of 400/)
			expect((await api(server, 'GET', '/api/teams/scratch', users.alice.key)).status).toBe(200)
			await owner.getByLabel("Type the team's slug, scratch, to confirm").fill('scratch')
			await owner.getByRole('button', { name: 'Delete team' }).click()
			await owner.getByText('The team was deleted.').waitFor()
			expect((await api(server, 'GET', '/api/teams/scratch', users.alice.key)).status).toBe(404)
		})

		test("an admin resets a password: asked first, shown once after the redirect, never in the URL; a reload repeats nothing; the user's keys are revoked", async () => {
			const page = await (await context()).newPage()
			await signIn(page, users.root)
			await page.goto(`${server.url}/admin`)
			expect((await api(server, 'GET', '/api/me', users.carol.key)).status).toBe(200)
			await page
				.getByRole('row', { name: /carol@example\.test/ })
				.getByRole('button', { name: 'Reset password' })
				.click()
			await page.getByRole('heading', { name: 'Reset the password of carol' }).waitFor()
			expect((await api(server, 'GET', '/api/me', users.carol.key)).status).toBe(200)
			await shoot(page, 'reset-password')
			await page.getByRole('button', { name: 'Reset password' }).click()
			const secret = page.locator('code.secret')
			await secret.waitFor()
			const password = (await secret.textContent()) ?? ''
			expect(password.length).toBe(16)
			expect(page.url()).not.toContain(password)
			expect((await api(server, 'GET', '/api/me', users.carol.key)).status).toBe(401)
			await page.reload()
			await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor()
			expect(await page.locator('code.secret').count()).toBe(0)
			// The temporary password still signs carol in: the reload reset nothing again.
			const carol = await (await context()).newPage()
			await signIn(carol, { name: 'carol', password })
		})

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			expect(problems.list).toEqual([])
		})
	})
}
