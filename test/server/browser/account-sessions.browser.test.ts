// docs/web.md Account and Devices, in Debian's Chromium against the compiled binary: two browsers signed in as the
// same person, one signs the other out from its Account page (the other's next page is sign-in); a device is
// renamed (and a taken name refused by its field); "Sign out everywhere else" ends every other browser's session.
// axe-core checks each new state, and no page logs an error or breaks the CSP.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, startServer, userWithKey, type Server } from '../../support/harness'
import {
	axeViolations,
	closeAll,
	launchChromium,
	type Problems,
	requireChromium,
	SKIP_BROWSER_TESTS,
	sidewaysScroll,
	skipWithoutChromium,
	watchedContext
} from '../../support/browser'

const FIREFOX_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'
const SAFARI_IPHONE =
	'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1'

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('Account: web sessions, and renaming devices, in Chromium (docs/web.md)', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		let alice: { name: string; password: string; key: string }

		beforeAll(async () => {
			requireChromium()
			const dir = emptyDir()
			server = await startServer(dir)
			alice = await userWithKey(dir, 'alice')
			// A second device, "laptop", beside the "e2e" key the harness issued.
			const laptop = await api(server, 'POST', '/api/auth/login', undefined, {
				login: 'alice',
				password: alice.password,
				device: 'laptop'
			})
			expect(laptop.status).toBe(201)
			browser = await launchChromium()
		}, 120_000)

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		/** A browser of its own (a context), signed in as alice; `userAgent` makes it another browser on Account. */
		async function signedIn(options: { width?: number; userAgent?: string } = {}): Promise<Page> {
			const made = await watchedContext(browser, server.url, problems, options)
			contexts.push(made)
			const page = await made.newPage()
			await page.goto(`${server.url}/`)
			await page.getByLabel('Username or email').fill(alice.name)
			await page.getByLabel('Password', { exact: true }).fill(alice.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
			return page
		}

		/** Where a browser whose session ended lands on its next page load: sign-in, saying why, with `next`. */
		async function landsOnSignIn(page: Page, path: string) {
			await page.goto(`${server.url}${path}`)
			await page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
			expect(new URL(page.url()).searchParams.get('next')).toBe(path)
			expect(await page.getByRole('status').filter({ hasText: 'Your session ended' }).count()).toBe(1)
		}

		/** axe-core on the page as it is, at 1280 px and then at 390 px (the same state, narrower). */
		async function accessible(page: Page, state: string) {
			for (const width of [1280, 390]) {
				await page.setViewportSize({ width, height: width < 600 ? 844 : 900 })
				expect({ state, width, violations: await axeViolations(page) }).toEqual({ state, width, violations: [] })
				expect({ state, width, sideways: await sidewaysScroll(page) }).toEqual({ state, width, sideways: 0 })
			}
			await page.setViewportSize({ width: 1280, height: 900 })
		}

		test('one browser signs the other out from Account; the other lands on sign-in at its next page load', async () => {
			const here = await signedIn()
			const there = await signedIn({ userAgent: FIREFOX_WINDOWS })
			await here.getByRole('link', { name: 'Account' }).click()
			const sessions = here.getByRole('table', { name: 'Web sessions' })
			await sessions.waitFor()
			// This browser is marked and has no button of its own; the other is named by its browser and address.
			const mine = sessions.getByRole('row', { name: /Chrome on Linux/ })
			expect(await mine.getByText('This session').isVisible()).toBe(true)
			expect(await mine.getByRole('button').count()).toBe(0)
			const signOut = here.getByRole('button', { name: 'Sign out Firefox on Windows, 127.0.0.1', exact: true })
			expect(await signOut.isVisible()).toBe(true)
			await accessible(here, 'account with another web session')
			await signOut.click()
			await here.getByRole('status').filter({ hasText: 'That web session was signed out' }).waitFor()
			expect(await sessions.getByRole('row', { name: /Firefox/ }).count()).toBe(0)
			await landsOnSignIn(there, '/configs')
			// This one goes on.
			await here.goto(`${server.url}/configs`)
			await here.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
		})

		test('a device is renamed in its row (its buttons name it); a name another device has is refused by the field', async () => {
			const page = await signedIn()
			await page.getByRole('link', { name: 'Devices' }).click()
			await page.getByRole('heading', { name: 'Devices', level: 1 }).waitFor()
			// Every button names its device.
			for (const device of ['e2e', 'laptop']) {
				expect(await page.getByRole('button', { name: `Revoke ${device}`, exact: true }).count()).toBe(1)
				expect(await page.getByRole('button', { name: `Rename ${device}`, exact: true }).count()).toBe(1)
			}
			await accessible(page, 'devices with a Rename per row')
			const field = page.getByLabel('New name of laptop', { exact: true })
			await field.fill('e2e')
			await page.getByRole('button', { name: 'Rename laptop', exact: true }).click()
			// Back by a redirect: the message by its field, the focus in it, the typed name kept.
			const refused = page.getByLabel('New name of laptop', { exact: true })
			await page.getByText('Another of your devices is named "e2e" already').waitFor()
			expect(await refused.getAttribute('aria-invalid')).toBe('true')
			const described = (await refused.getAttribute('aria-describedby')) ?? ''
			expect(await page.locator(`[id="${described}"]`).textContent()).toContain('Another of your devices')
			expect(await refused.evaluate((input) => input === document.activeElement)).toBe(true)
			expect(await refused.inputValue()).toBe('e2e')
			await accessible(page, 'devices, a refused Rename')
			await refused.fill('work laptop')
			await page.getByRole('button', { name: 'Rename laptop', exact: true }).click()
			await page.getByRole('status').filter({ hasText: 'The device was renamed.' }).waitFor()
			expect(await page.getByRole('button', { name: 'Revoke work laptop', exact: true }).count()).toBe(1)
			expect(await page.getByRole('rowheader', { name: 'work laptop', exact: true }).count()).toBe(1)
			// The key itself still works.
			const keys = await api(server, 'GET', '/api/keys', alice.key)
			expect((keys.body as { device: string }[]).map((key) => key.device).sort()).toEqual(['e2e', 'work laptop'])
		})

		test('"Sign out everywhere else" ends every other browser\'s session and keeps this one', async () => {
			const here = await signedIn()
			const others = [await signedIn({ userAgent: FIREFOX_WINDOWS }), await signedIn({ userAgent: SAFARI_IPHONE })]
			await here.goto(`${server.url}/account`)
			const sessions = here.getByRole('table', { name: 'Web sessions' })
			expect(await sessions.getByRole('row', { name: /Safari on iOS/ }).count()).toBe(1)
			await here.getByRole('button', { name: 'Sign out everywhere else', exact: true }).click()
			await here.getByRole('status').filter({ hasText: 'Every other web session of yours was signed out' }).waitFor()
			// Only this session is left (and the header row).
			expect(await sessions.getByRole('row').count()).toBe(2)
			expect(await here.getByText('You are signed in in this browser only.').isVisible()).toBe(true)
			await accessible(here, 'account, signed in here only')
			for (const other of others) await landsOnSignIn(other, '/devices')
			await here.goto(`${server.url}/devices`)
			await here.getByRole('heading', { name: 'Devices', level: 1 }).waitFor()
		})

		test('no console error, CSP violation, request elsewhere or browser dialog on any page', () => {
			expect(problems.list).toEqual([])
		})
	})
}
