// docs/web.md, deleted teams, in Debian's Chromium against the compiled binary, at 1280 px light and 390 px dark:
// deleting a team says it can be restored until its purge, its owner's Teams page lists it as "Deleted — purged
// on DATE" with "Restore", and Restore brings it back to its page with its members.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, startServer, userWithKey, type Server } from '../../support/harness'
import {
	closeAll,
	FLOW_VIEWS,
	launchChromium,
	type Problems,
	requireChromium,
	shootBothWidths,
	SKIP_BROWSER_TESTS,
	sidewaysScroll,
	skipWithoutChromium,
	watchedContext
} from '../../support/browser'

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('deleted teams, in Chromium (docs/web.md)', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		let alice: { name: string; password: string; key: string }
		let bobId = ''

		beforeAll(async () => {
			requireChromium()
			const dir = emptyDir()
			server = await startServer(dir)
			alice = await userWithKey(dir, 'alice')
			const bob = await userWithKey(dir, 'bob')
			// One team per view, each with bob in it.
			for (const view of FLOW_VIEWS) {
				const slug = `crew-${view.width}`
				expect((await api(server, 'POST', '/api/teams', alice.key, { name: `Crew ${view.width}` })).status).toBe(201)
				expect(
					(await api(server, 'POST', `/api/teams/${slug}/members`, alice.key, { login: 'bob', role: 'member' })).status
				).toBe(201)
				const joined = await api(server, 'POST', `/api/invitations/${slug}/accept`, bob.key)
				expect(joined.status).toBe(200)
				bobId = joined.body.userId
			}
			browser = await launchChromium()
		}, 120_000)

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		for (const view of FLOW_VIEWS) {
			const at = `${view.width} px, ${view.scheme}`
			const slug = `crew-${view.width}`

			test(`${at}: delete, find it on Teams with its purge date, and Restore it with its members`, async () => {
				const made = await watchedContext(browser, server.url, problems, { width: view.width })
				contexts.push(made)
				const page: Page = await made.newPage()
				await page.emulateMedia({ colorScheme: view.scheme })
				await page.goto(`${server.url}/`)
				await page.getByLabel('Username or email').fill(alice.name)
				await page.getByLabel('Password', { exact: true }).fill(alice.password)
				await page.getByRole('button', { name: 'Sign in' }).click()
				await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()

				await page.goto(`${server.url}/teams/${slug}/delete`)
				await page.getByLabel(/Type the team's slug/).fill(slug)
				await page.getByRole('button', { name: 'Delete team' }).click()
				await page.waitForURL(/\/teams(\?|$)/)
				await page.getByText(/restore it from this page/).waitFor()
				const purgeDay = new Date(Date.now() + 30 * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)
				const row = page.getByRole('row', { name: new RegExp(`Crew ${view.width}`) })
				await row.getByText(/Deleted — purged on/).waitFor()
				expect(await row.textContent()).toContain(purgeDay)
				expect(await sidewaysScroll(page)).toBe(0)
				// docs/web.md shows the Teams page with a deleted team (both widths: shootBothWidths checks the phone too).
				if (view === FLOW_VIEWS[0]) await shootBothWidths(page, 'teams-deleted')

				await row.getByRole('button', { name: `Restore Crew ${view.width}` }).click()
				await page.waitForURL(new RegExp(`/teams/${slug}`))
				await page.getByText('The team was restored').waitFor()
				await page.locator(`#member-${bobId}`).getByText('bob', { exact: true }).waitFor()
			}, 60_000)
		}

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			expect(problems.list).toEqual([])
		})
	})
}
