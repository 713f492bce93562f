// docs/web.md, finding things, in Debian's Chromium at 1280 and 390 px, light and dark, with 60 rows in each
// list: Configs, the Admin page's users and Activity have a "Search" field and "Next"/"Previous" past 50 rows;
// Activity is in the navigation and links what it names; rows stay compact; times show the exact time as text.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, run, startServer, userWithKey, type Server } from '../../support/harness'
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

const pad = (n: number) => String(n).padStart(2, '0')

/** The heights of the rows of the page's first table body, in px. */
const rowHeights = (page: Page) =>
	page
		.locator('tbody')
		.first()
		.locator('tr')
		.evaluateAll((rows) => rows.map((row) => row.getBoundingClientRect().height))

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('search and pages with 60 rows, in Chromium', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		let alice: { name: string; password: string }
		let root: { name: string; password: string }

		beforeAll(async () => {
			requireChromium()
			const dir = emptyDir()
			server = await startServer(dir)
			root = await userWithKey(dir, 'root')
			expect((await run(dir, ['user', 'set-admin', 'root', 'on'])).code).toBe(0)
			const user = await userWithKey(dir, 'alice')
			alice = user
			// 60 configs (and 60 pushes in alice's activity), then four named "default" for four tools.
			for (let n = 0; n < 60; n++)
				expect(
					(await api(server, 'POST', '/api/configs', user.key, { name: `cfg-${pad(n)}`, data: { n } })).status
				).toBe(201)
			for (const tool of ['claude-code', 'cursor', 'vscode', 'codex'])
				expect((await api(server, 'POST', '/api/configs', user.key, { tool, data: { tool } })).status).toBe(201)
			// 60 more users for the Admin page, four at a time.
			for (let batch = 0; batch < 60; batch += 4) {
				await Promise.all(
					[0, 1, 2, 3].map(async (offset) => {
						const name = `person-${pad(batch + offset)}`
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
								'free',
								'--password-stdin'
							],
							{ stdin: `pw-${name}-secret\n` }
						)
						expect(added.code).toBe(0)
					})
				)
			}
			browser = await launchChromium()
		}, 180_000)

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		async function open(view: (typeof FLOW_VIEWS)[number], who: { name: string; password: string }): Promise<Page> {
			const made = await watchedContext(browser, server.url, problems, { width: view.width })
			contexts.push(made)
			const page = await made.newPage()
			await page.emulateMedia({ colorScheme: view.scheme })
			await page.goto(`${server.url}/`)
			await page.getByLabel('Username or email').fill(who.name)
			await page.getByLabel('Password', { exact: true }).fill(who.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
			return page
		}

		const rows = (page: Page) => page.locator('tbody').first().locator('tr')
		/** The first table's rows once a full page of them has arrived: a heading can show before the table ends. */
		const fullPage = async (page: Page) => {
			await rows(page).nth(49).waitFor({ state: 'attached' })
			return rows(page).count()
		}

		for (const view of FLOW_VIEWS) {
			const at = `${view.width} px, ${view.scheme}`
			const phone = view.width < 600

			test(`${at}: Configs: Next and Previous past 50, a search, the tool by each "default"`, async () => {
				const page = await open(view, alice)
				expect(await fullPage(page)).toBe(50)
				expect(await page.getByRole('link', { name: 'Previous' }).count()).toBe(0)
				await page.getByRole('link', { name: 'Next' }).click()
				await page.waitForURL(/\/configs\?page=2$/)
				expect(await rows(page).count()).toBe(14)
				expect(await page.getByRole('link', { name: 'Next' }).count()).toBe(0)
				// The four "default" configs, each named by its tool first, so each link says which it is.
				for (const tool of ['Claude Code', 'Cursor', 'VS Code', 'Codex'])
					expect(await page.getByRole('link', { name: `${tool} · default`, exact: true }).count()).toBe(1)
				await page.getByRole('link', { name: 'Previous' }).click()
				await page.waitForURL(/\/configs$/)
				expect(await fullPage(page)).toBe(50)
				// Search from the keyboard: typed, then Enter.
				await page.getByLabel('Search', { exact: true }).fill('CFG-0')
				await page.keyboard.press('Enter')
				await page.waitForURL(/q=CFG-0/)
				expect(await rows(page).count()).toBe(10)
				expect(await page.getByLabel('Search', { exact: true }).inputValue()).toBe('CFG-0')
				// Compact: no row of the list is over 130 px on a phone (90 px wide), and no time wraps.
				const heights = await rowHeights(page)
				expect(Math.max(...heights)).toBeLessThanOrEqual(phone ? 130 : 90)
				const timeLines = await page
					.locator('.when time')
					.evaluateAll((times) =>
						times.map((time) =>
							Math.round(
								time.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(time).lineHeight || '20')
							)
						)
					)
				for (const lines of timeLines) expect(lines).toBeLessThanOrEqual(1)
				// The exact time is there as text for everyone: no hover needed.
				const exact = page.locator('.when .exact').first()
				expect(await exact.isVisible()).toBe(true)
				expect(await exact.textContent()).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/)
				expect(await sidewaysScroll(page)).toBe(0)
			})

			test(`${at}: Activity from the navigation: sentences, Next and Previous, a search, a link to the config`, async () => {
				const page = await open(view, alice)
				await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click()
				await page.getByRole('heading', { name: 'Your activity', level: 1 }).waitFor()
				expect(await fullPage(page)).toBe(50)
				await page.getByText('You pushed Claude Code · default version 1').first().waitFor()
				await page.getByRole('link', { name: 'Next' }).click()
				await page.waitForURL(/\/activity\?before=/)
				// 64 pushes and the sign-ins of the tests so far: at least 15 older events, fewer than a page.
				const older = await rows(page).count()
				expect(older).toBeGreaterThanOrEqual(15)
				expect(older).toBeLessThan(50)
				expect(await page.getByRole('link', { name: 'Next' }).count()).toBe(0)
				await page.getByRole('link', { name: 'Previous' }).click()
				await page.waitForURL(/\/activity\?after=/)
				expect(await fullPage(page)).toBe(50)
				await page.getByLabel('Search', { exact: true }).fill('cfg-07')
				await page.keyboard.press('Enter')
				await page.waitForURL(/q=cfg-07/)
				expect(await rows(page).count()).toBe(1)
				expect(Math.max(...(await rowHeights(page)))).toBeLessThanOrEqual(phone ? 130 : 90)
				await page.getByRole('link', { name: 'Claude Code · cfg-07' }).click()
				await page.getByRole('heading', { name: /cfg-07/, level: 1 }).waitFor()
				expect(await sidewaysScroll(page)).toBe(0)
			})

			test(`${at}: Admin: 50 users a page, a search, one-line actions side by side`, async () => {
				const page = await open(view, root)
				await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Admin' }).click()
				await page.getByRole('heading', { name: 'Admin', level: 1 }).waitFor()
				expect(await fullPage(page)).toBe(50)
				await page.getByText('Users 1–50 of 62, page 1 of 2').waitFor()
				// The table fits its page: no column pushed past the page's edge (it once spilled 52 px at 1280).
				const spill = await page
					.locator('table[aria-labelledby="users-heading"]')
					.evaluate((table) => table.scrollWidth - (table.parentElement?.clientWidth ?? 0))
				expect(spill).toBeLessThanOrEqual(0)
				await page.getByRole('link', { name: 'Next' }).click()
				await page.waitForURL(/\/admin\?page=2$/)
				expect(await rows(page).count()).toBe(12)
				await page.getByText('Users 51–62 of 62, page 2 of 2').waitFor()
				// Past the end: said, with the last page a link away.
				await page.goto(`${server.url}/admin?page=99`)
				await page.getByText('There is no page 99: the 62 users fill 2 pages.').waitFor()
				await page.getByRole('link', { name: 'Go to the last page (page 2)' }).click()
				await page.waitForURL(/\/admin\?page=2$/)
				expect(await rows(page).count()).toBe(12)
				// "Invite people", below the users, is a link away from the top of the page (on a phone many screens down).
				await page
					.getByRole('navigation', { name: 'On this page' })
					.getByRole('link', { name: 'Invite people' })
					.click()
				await page.waitForURL(/#invite-people$/)
				const top = await page
					.getByRole('heading', { name: 'Invite people', level: 2 })
					.evaluate((heading) => heading.getBoundingClientRect().top)
				expect(top).toBeGreaterThanOrEqual(0)
				expect(top).toBeLessThan(page.viewportSize()?.height ?? 0)
				await page.getByRole('link', { name: 'Previous' }).click()
				await page.waitForURL(/\/admin$/)
				await page.getByLabel('Search', { exact: true }).fill('person-05@')
				await page.keyboard.press('Enter')
				await page.waitForURL(/q=person-05/)
				expect(await rows(page).count()).toBe(1)
				const row = rows(page).first()
				const buttons = await row
					.getByRole('button')
					.filter({ hasText: /Reset password|Revoke keys|Remove/ })
					.evaluateAll((found) => found.map((button) => button.getBoundingClientRect().top))
				expect(buttons).toHaveLength(3)
				// Side by side: one line of buttons, on a phone too.
				expect(new Set(buttons.map((top) => Math.round(top / 10))).size).toBe(1)
				expect(Math.max(...(await rowHeights(page)))).toBeLessThanOrEqual(phone ? 130 : 90)
				expect(await sidewaysScroll(page)).toBe(0)
			})
		}

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			expect(problems.list).toEqual([])
		})
	})
}
