// docs/web.md's smaller promises in Debian's Chromium, at 1280 and 390 px, light and dark: after a failed
// sign-in the cursor is in the password field; "Show password" shows and hides it (aria-pressed); signing out
// says so; Devices links "Install the client" to /download; the team's only owner is told why they cannot
// leave instead of a dead end; a config's long lines scroll sideways with the keyboard; pages arrive compressed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, startServer, userWithKey, type Server } from '../../support/harness'
import {
	sidewaysScroll,
	watchedContext,
	type Problems,
	FLOW_VIEWS,
	SKIP_BROWSER_TESTS,
	skipWithoutChromium,
	requireChromium,
	launchChromium,
	closeAll
} from '../../support/browser'

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('the smaller promises of docs/web.md, in Chromium', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		let alice: { name: string; password: string }
		let configId = ''

		beforeAll(async () => {
			requireChromium()
			const dir = emptyDir()
			server = await startServer(dir)
			const user = await userWithKey(dir, 'alice')
			alice = user
			const pushed = await api(server, 'POST', '/api/configs', user.key, {
				name: 'work',
				data: { files: { 'wide.json': `{ "note": "${'a line far wider than any screen '.repeat(12)}" }\n` } }
			})
			expect(pushed.status).toBe(201)
			configId = pushed.body.id
			expect((await api(server, 'POST', '/api/teams', user.key, { name: 'Solo' })).status).toBe(201)
			browser = await launchChromium()
		}, 120_000)

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		async function open(view: (typeof FLOW_VIEWS)[number]): Promise<Page> {
			const made = await watchedContext(browser, server.url, problems, { width: view.width })
			contexts.push(made)
			const page = await made.newPage()
			await page.emulateMedia({ colorScheme: view.scheme })
			return page
		}

		/** The id of the focused element once it is `id`, or what has the focus after 5 s (the page's script may still be starting). */
		const activeId = async (page: Page, id: string) => {
			await page.waitForFunction((want) => document.activeElement?.id === want, id, { timeout: 5_000 }).catch(() => {})
			return page.evaluate(() => document.activeElement?.id ?? '')
		}

		for (const view of FLOW_VIEWS) {
			const at = `${view.width} px, ${view.scheme}`

			test(`${at}: a failed sign-in keeps the login and puts the cursor in the password field; "Show password" toggles it`, async () => {
				const page = await open(view)
				await page.goto(`${server.url}/`)
				expect(await activeId(page, 'login')).toBe('login')
				await page.keyboard.type(alice.name)
				await page.keyboard.press('Tab')
				await page.keyboard.type('not-the-password')
				await page.keyboard.press('Enter')
				await page.getByRole('alert').waitFor()
				expect(await page.getByLabel('Username or email').inputValue()).toBe(alice.name)
				expect(await activeId(page, 'password')).toBe('password')
				// Type the right one where the cursor already is; show it, check it, hide it again with the keyboard.
				await page.keyboard.type(alice.password)
				const toggle = page.getByRole('button', { name: 'Show password' })
				expect(await toggle.getAttribute('aria-pressed')).toBe('false')
				await toggle.focus()
				await page.keyboard.press('Space')
				expect(await toggle.getAttribute('aria-pressed')).toBe('true')
				expect(await page.locator('#password').getAttribute('type')).toBe('text')
				expect(await page.locator('#password').inputValue()).toBe(alice.password)
				await page.keyboard.press('Enter')
				expect(await toggle.getAttribute('aria-pressed')).toBe('false')
				expect(await page.locator('#password').getAttribute('type')).toBe('password')
				// Shown again, then sent: the form goes with the field hidden, and signs in.
				await toggle.click()
				expect(await page.locator('#password').getAttribute('type')).toBe('text')
				await page.getByRole('button', { name: 'Sign in' }).click()
				await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
				expect(await sidewaysScroll(page)).toBe(0)
			})

			test(`${at}: signing out says so on the sign-in page`, async () => {
				const page = await open(view)
				await signIn(page)
				await page.getByRole('button', { name: 'Sign out' }).click()
				await page.getByRole('status').filter({ hasText: 'You are signed out' }).waitFor()
				expect(await page.getByRole('button', { name: 'Sign in' }).count()).toBe(1)
			})

			test(`${at}: Devices links "Install the client" to /download, which fits the screen`, async () => {
				const page = await open(view)
				await signIn(page)
				await page.getByRole('link', { name: 'Devices', exact: true }).click()
				await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor()
				await page.getByRole('link', { name: 'Install the client' }).click()
				await page.getByRole('heading', { name: /Install the cfgsync client/ }).waitFor()
				expect(new URL(page.url()).pathname).toBe('/download')
				expect(await sidewaysScroll(page)).toBe(0)
			})

			test(`${at}: the team's only owner is offered no Leave, and the leave address explains and leads back`, async () => {
				const page = await open(view)
				await signIn(page)
				await page.goto(`${server.url}/teams/solo`)
				const row = page.getByRole('row', { name: /alice/ })
				await row.getByText('You are the only owner').waitFor()
				expect(await row.getByRole('button', { name: 'Leave' }).count()).toBe(0)
				// Someone who types the address, or an old bookmark, gets the reason, not "Something went wrong".
				await page.goto(`${server.url}/teams/solo/leave`)
				await page.getByRole('heading', { name: 'You cannot leave Solo yet' }).waitFor()
				expect(await page.getByText('Something went wrong').count()).toBe(0)
				await page.getByRole('link', { name: 'Back to Solo' }).click()
				await page.getByRole('heading', { name: 'Solo', level: 1 }).waitFor()
				// The browser logs the 409 of that page; that, and only that, is expected here.
				const expected = problems.list.filter((line) => /solo\/leave.*status of 409/.test(line))
				expect(expected.length).toBeGreaterThan(0)
				problems.list.splice(0, problems.list.length, ...problems.list.filter((line) => !expected.includes(line)))
			})

			test(`${at}: a config's long lines scroll sideways from the keyboard; the page arrives compressed`, async () => {
				const page = await open(view)
				await signIn(page)
				const response = await page.goto(`${server.url}/configs/${configId}`)
				expect(['br', 'gzip']).toContain(response?.headers()['content-encoding'] ?? 'none')
				expect(response?.headers().vary).toBe('Accept-Encoding')
				const block = page.getByRole('region', { name: 'wide.json' })
				expect(await block.getAttribute('tabindex')).toBe('0')
				await block.focus()
				expect(await block.evaluate((element) => element.scrollWidth > element.clientWidth)).toBe(true)
				await page.keyboard.press('End')
				await page.keyboard.press('ArrowRight')
				await page.waitForFunction(() => (document.querySelector('pre[role="region"]')?.scrollLeft ?? 0) > 0)
				expect(await sidewaysScroll(page)).toBe(0)
			})
		}

		async function signIn(page: Page) {
			await page.goto(`${server.url}/`)
			await page.getByLabel('Username or email').fill(alice.name)
			await page.getByLabel('Password', { exact: true }).fill(alice.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
		}

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			// A failed sign-in answers 401 on purpose, and the browser logs it.
			expect(problems.list.filter((line) => !/sign-in.*status of 401/.test(line))).toEqual([])
		})
	})
}
