// docs/web.md ("a failed form comes back by a redirect too"), in Debian's Chromium against the compiled binary, at
// 1280 px light and 390 px dark: sign-in, "Create the first admin", "Create your account", Admin's "Add user" and
// "Invite people" come back after a failed post by a redirect, the message by its field (aria-invalid,
// aria-describedby), the focus there, every value but the password kept; a reload shows the form clean and Back
// never asks to resend. After a roll back, Back to its confirmation says it is done instead of asking again.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { api, emptyDir, run, serversOfThisFile, startServer, userWithKey, type Server } from '../../support/harness'
import {
	axeViolations,
	closeAll,
	FLOW_VIEWS,
	launchChromium,
	type Problems,
	requireChromium,
	SKIP_BROWSER_TESTS,
	sidewaysScroll,
	skipWithoutChromium,
	watchedContext
} from '../../support/browser'

const servers = serversOfThisFile()

/** The setup address the server printed at its first start. */
async function setupAddress(server: Server): Promise<string> {
	const deadline = Date.now() + 10_000
	while (Date.now() < deadline) {
		const found = /"setup":"([^"]+)"/.exec(server.log())?.[1]
		if (found) return found
		await Bun.sleep(50)
	}
	throw new Error(`no setup address printed: ${server.log()}`)
}

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('every form on one pattern, in Chromium (docs/web.md)', () => {
		let server: Server
		let dir: string
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		let alice: { name: string; password: string; key: string }
		let root: { name: string; password: string; key: string }

		beforeAll(async () => {
			requireChromium()
			dir = emptyDir()
			server = await startServer(dir)
			alice = await userWithKey(dir, 'alice', 'pro')
			root = await userWithKey(dir, 'root')
			expect((await run(dir, ['user', 'set-admin', 'root', 'on'])).code).toBe(0)
			browser = await launchChromium()
		}, 120_000)

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		async function open(view: (typeof FLOW_VIEWS)[number], on: Server = server): Promise<Page> {
			const made = await watchedContext(browser, on.url, problems, { width: view.width })
			contexts.push(made)
			const page = await made.newPage()
			await page.emulateMedia({ colorScheme: view.scheme })
			return page
		}

		async function signIn(page: Page, who: { name: string; password: string }) {
			await page.goto(`${server.url}/`)
			await page.getByLabel('Username or email').fill(who.name)
			await page.getByLabel('Password', { exact: true }).fill(who.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
		}

		/**
		 * The pattern, as a person meets it: the focus in `field`, which is marked invalid and described by its message
		 * (which says `text`); the address is the form's page, reached by a GET.
		 */
		async function expectBackAtField(page: Page, field: Locator, id: string, text: string | RegExp, path: string) {
			await page.waitForFunction((wanted) => document.activeElement?.id === wanted, id, { timeout: 5_000 })
			expect(await field.getAttribute('aria-invalid')).toBe('true')
			const described = ((await field.getAttribute('aria-describedby')) ?? '').split(' ')[0] as string
			expect(described).toBe(`${id}-error`)
			const message = (await page.locator(`#${described}`).textContent()) ?? ''
			if (typeof text === 'string') expect(message).toContain(text)
			else expect(message).toMatch(text)
			expect(new URL(page.url()).pathname).toBe(path)
		}

		/** A reload is a GET (nothing sent again) that shows the form clean. */
		async function expectReloadClean(page: Page) {
			const reloaded = await page.reload()
			expect(reloaded?.request().method()).toBe('GET')
			expect(await page.locator('[aria-invalid="true"]').count()).toBe(0)
		}

		/** axe-core finds nothing on the page as it is, and it does not scroll sideways. */
		async function clean(page: Page, name: string) {
			expect({ page: name, axe: await axeViolations(page) }).toEqual({ page: name, axe: [] })
			expect({ page: name, overflow: await sidewaysScroll(page) }).toEqual({ page: name, overflow: 0 })
		}

		for (const view of FLOW_VIEWS) {
			const at = `${view.width} px, ${view.scheme}`

			test(`${at}: a wrong password comes back by a redirect, said by the password field; the login kept; reload and Back send nothing`, async () => {
				const page = await open(view)
				await page.goto(`${server.url}/`)
				await page.getByLabel('Username or email').fill('alice')
				await page.getByLabel('Password', { exact: true }).fill('not her password')
				await page.getByRole('button', { name: 'Sign in' }).click()
				const password = page.getByLabel('Password', { exact: true })
				await expectBackAtField(page, password, 'password', 'Wrong username, email or password.', '/')
				expect(await page.getByRole('alert').textContent()).toContain('Wrong username, email or password.')
				expect(await page.getByLabel('Username or email').inputValue()).toBe('alice')
				expect(await password.inputValue()).toBe('')
				await clean(page, 'a failed sign-in')
				await expectReloadClean(page)
				// Signing in now works, and Back from Configs is the sign-in address by a GET, never a form to resend.
				await page.getByLabel('Username or email').fill('alice')
				await page.getByLabel('Password', { exact: true }).fill(alice.password)
				await page.getByRole('button', { name: 'Sign in' }).click()
				await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
				const back = await page.goBack()
				expect(back?.request().method()).toBe('GET')
			})

			test(`${at}: an unknown login reads the same as a wrong password`, async () => {
				const page = await open(view)
				await page.goto(`${server.url}/`)
				await page.getByLabel('Username or email').fill('nobody-here')
				await page.getByLabel('Password', { exact: true }).fill('whatever it is')
				await page.getByRole('button', { name: 'Sign in' }).click()
				const password = page.getByLabel('Password', { exact: true })
				await expectBackAtField(page, password, 'password', 'Wrong username, email or password.', '/')
			})

			test(`${at}: "Create the first admin" with a short password: said by its field, email and username kept`, async () => {
				// A server of its own: the setup address works only until the first admin exists.
				const fresh = await startServer(emptyDir())
				servers.push(fresh)
				const setup = await setupAddress(fresh)
				const page = await open(view, fresh)
				await page.goto(setup)
				const form = page.getByRole('form', { name: 'Create the first admin' })
				await form.getByLabel('Email', { exact: true }).fill('ada@example.test')
				await form.getByLabel('Username', { exact: true }).fill('ada')
				// Eight spaces pass the browser's minlength; the server refuses a password of only spaces.
				await form.getByLabel('Password', { exact: true }).fill('        ')
				await form.getByRole('button', { name: 'Create admin' }).click()
				const password = form.getByLabel('Password', { exact: true })
				await expectBackAtField(page, password, 'password', 'only spaces', new URL(setup).pathname)
				expect(await form.getByLabel('Email', { exact: true }).inputValue()).toBe('ada@example.test')
				expect(await form.getByLabel('Username', { exact: true }).inputValue()).toBe('ada')
				expect(await password.inputValue()).toBe('')
				await clean(page, 'setup, a refused password')
				await expectReloadClean(page)
				// Corrected, it makes the admin.
				await form.getByLabel('Email', { exact: true }).fill('ada@example.test')
				await form.getByLabel('Username', { exact: true }).fill('ada')
				await form.getByLabel('Password', { exact: true }).fill('ada-password-1')
				await form.getByRole('button', { name: 'Create admin' }).click()
				await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor()
			})

			test(`${at}: "Create your account" with a taken username: said by its field, the email kept`, async () => {
				// The link as printed names the default address; this server listens elsewhere.
				const printed = (await run(dir, ['invite', 'create', '--uses', '1'])).stdout.trim()
				const link = `${server.url}${new URL(printed).pathname}`
				const page = await open(view)
				await page.goto(link)
				const form = page.getByRole('form', { name: 'Create your account' })
				await form.getByLabel('Email', { exact: true }).fill(`someone-${view.width}@example.test`)
				await form.getByLabel('Username', { exact: true }).fill('alice')
				await form.getByLabel('Password', { exact: true }).fill('a long password')
				await form.getByRole('button', { name: 'Create account' }).click()
				const username = form.getByLabel('Username', { exact: true })
				await expectBackAtField(page, username, 'username', 'already exists', new URL(link).pathname)
				expect(await form.getByLabel('Email', { exact: true }).inputValue()).toBe(`someone-${view.width}@example.test`)
				expect(await username.inputValue()).toBe('alice')
				await clean(page, 'join, a taken username')
				await expectReloadClean(page)
				// The link was not used up: another username makes the account.
				await form.getByLabel('Email', { exact: true }).fill(`someone-${view.width}@example.test`)
				await form.getByLabel('Username', { exact: true }).fill(`someone-${view.width}`)
				await form.getByLabel('Password', { exact: true }).fill('a long password')
				await form.getByRole('button', { name: 'Create account' }).click()
				await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor()
			})

			test(`${at}: Admin "Add user" with a taken email, and "Invite people" with too many uses: each said by its field`, async () => {
				const page = await open(view)
				await signIn(page, root)
				await page.goto(`${server.url}/admin`)
				const add = page.getByRole('form', { name: 'Add user' })
				await add.getByLabel('Email', { exact: true }).fill('alice@example.test')
				await add.getByLabel('Username', { exact: true }).fill(`alice-${view.width}`)
				await add.getByLabel('Plan', { exact: true }).selectOption('pro')
				await add.getByLabel('Password (optional)').fill('a long password')
				await add.getByRole('button', { name: 'Add user' }).click()
				const email = add.getByLabel('Email', { exact: true })
				await expectBackAtField(page, email, 'new-email', 'email already exists', '/admin')
				expect(await add.getByLabel('Username', { exact: true }).inputValue()).toBe(`alice-${view.width}`)
				expect(await add.getByLabel('Plan', { exact: true }).inputValue()).toBe('pro')
				expect(await add.getByLabel('Password (optional)').inputValue()).toBe('')
				await clean(page, 'admin, a refused Add user')
				await expectReloadClean(page)

				const invite = page.getByRole('form', { name: 'Invite people' })
				// A browser's own checks would stop 5000 before sending; the server says the same by the field.
				await invite.evaluate((form) => form.setAttribute('novalidate', ''))
				await invite.getByLabel('How many uses').fill('5000')
				await invite.getByLabel('Expires after (days)').fill('30')
				await invite.getByRole('button', { name: 'Create sign-up link' }).click()
				const uses = invite.getByLabel('How many uses')
				await expectBackAtField(page, uses, 'link-uses', 'at most 1000 accounts', '/admin')
				expect(await uses.inputValue()).toBe('5000')
				expect(await invite.getByLabel('Expires after (days)').inputValue()).toBe('30')
				await clean(page, 'admin, a refused Invite people')
				await expectReloadClean(page)
			})

			test(`${at}: after a roll back, Back to its confirmation says it is done and offers no Roll back`, async () => {
				const name = `rolled-${view.width}`
				for (const value of ['first', 'second']) {
					const pushed = await api(server, 'POST', '/api/configs', alice.key, {
						name,
						data: { files: { 'notes.txt': `${value}\n` } }
					})
					expect(pushed.status).toBeLessThan(300)
				}
				const configs = await api(server, 'GET', '/api/configs', alice.key)
				const id = (configs.body as { id: string; name: string }[]).find((config) => config.name === name)?.id
				const page = await open(view)
				await signIn(page, alice)
				await page.goto(`${server.url}/configs/${id}`)
				await page.getByRole('button', { name: 'Roll back to version 1', exact: true }).click()
				await page.getByRole('heading', { name: `Roll back ${name}`, level: 1 }).waitFor()
				await page.getByRole('button', { name: 'Roll back', exact: true }).click()
				await page.getByText('Rolled back: the chosen version is now the current one').waitFor()
				const back = await page.goBack()
				expect(back?.request().method()).toBe('GET')
				await page.getByText('Version 1 is already current: version 3').waitFor()
				expect(await page.getByRole('button', { name: 'Roll back', exact: true }).count()).toBe(0)
				await clean(page, 'roll back, already done')
				await page.getByRole('link', { name: /^Go to / }).click()
				await page.getByRole('heading', { level: 1, name: new RegExp(name) }).waitFor()
				// Three versions: going Back added none.
				const versions = await api(server, 'GET', `/api/configs/${id}/versions`, alice.key)
				expect((versions.body as unknown[]).length).toBe(3)
			})
		}

		test('without a script: a failed sign-in and a failed "Add user" come back the same way (plain forms, autofocus)', async () => {
			const made = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } })
			contexts.push(made)
			const page = await made.newPage()
			await page.goto(`${server.url}/`)
			await page.getByLabel('Username or email').fill('root')
			await page.getByLabel('Password', { exact: true }).fill('not the password')
			await page.getByRole('button', { name: 'Sign in' }).click()
			await expectBackAtField(page, page.getByLabel('Password', { exact: true }), 'password', 'Wrong username', '/')
			await page.getByLabel('Password', { exact: true }).fill(root.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
			await page.goto(`${server.url}/admin`)
			const add = page.getByRole('form', { name: 'Add user' })
			await add.getByLabel('Email', { exact: true }).fill('someone-new@example.test')
			await add.getByLabel('Username', { exact: true }).fill('root')
			await add.getByRole('button', { name: 'Add user' }).click()
			const username = add.getByLabel('Username', { exact: true })
			await expectBackAtField(page, username, 'new-username', 'username already exists', '/admin')
			expect(await add.getByLabel('Email', { exact: true }).inputValue()).toBe('someone-new@example.test')
		})

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			expect(problems.list.filter((line) => !/status of (401|403|404)/.test(line))).toEqual([])
		})
	})
}
