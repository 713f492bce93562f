// docs/web.md "Live changes", in Debian's Chromium against the compiled binary: a config's page and the
// configs list, left open, say within about 2 s that a push from another device ("laptop") changed what
// they show, in a status region with a "Reload" button the keyboard reaches; Reload shows the new version.
// A change to another config leaves a config's page quiet. axe-core finds nothing with the notice shown.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, run, startServer, userWithKey, type Server } from '../../support/harness'
import {
	axeViolations,
	screenshotDir,
	sidewaysScroll,
	FLOW_VIEWS,
	watchedContext,
	type Problems,
	SKIP_BROWSER_TESTS,
	skipWithoutChromium,
	requireChromium,
	launchChromium,
	closeAll
} from '../../support/browser'

/** What the notice may take to appear after the push was answered (docs/web.md: within a second or so). */
/**
 * How long a test waits for the notice before calling it missing: generous, so a busy machine never fails it.
 * How fast it comes (docs/web.md: within a second) is measured by `npm run bench` (bench/streams.ts), not here.
 */
const NOTICE_MS = 15_000

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('the live-changes notice, in Chromium (docs/web.md)', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		let alice: { name: string; password: string }
		let laptop = ''
		let configId = ''
		let version = 1

		beforeAll(async () => {
			requireChromium()
			const dir = emptyDir()
			server = await startServer(dir)
			alice = await userWithKey(dir, 'alice')
			const issued = await run(dir, ['key', 'issue', 'alice', '--device', 'laptop'])
			expect(issued.code).toBe(0)
			laptop = issued.stdout.trim()
			const first = await api(server, 'POST', '/api/configs', laptop, { name: 'work', data: { v: 1 } })
			expect(first.status).toBe(201)
			configId = first.body.id
			browser = await launchChromium()
		}, 120_000)

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		/** Signed in as alice, at `view`, on `path`, once its event stream is open. */
		async function open(view: (typeof FLOW_VIEWS)[number], path: string): Promise<Page> {
			const made = await watchedContext(browser, server.url, problems, { width: view.width })
			contexts.push(made)
			const page = await made.newPage()
			await page.emulateMedia({ colorScheme: view.scheme })
			await page.goto(`${server.url}/`)
			await page.getByLabel('Username or email').fill(alice.name)
			await page.getByLabel('Password', { exact: true }).fill(alice.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
			const stream = page.waitForResponse((response) => new URL(response.url()).pathname === '/events')
			await page.goto(`${server.url}${path}`)
			expect((await stream).status()).toBe(200)
			// The stream is live from the moment the server has placed it: give it that moment.
			await Bun.sleep(200)
			return page
		}

		const pushFromLaptop = async (name: string) => {
			const pushed = await api(server, 'POST', '/api/configs', laptop, { name, data: { v: Math.random() } })
			expect(pushed.status).toBeLessThan(300)
			return pushed.body.version as number
		}

		const noticeOf = (page: Page) => page.locator('[data-live][role="status"]')

		for (const view of FLOW_VIEWS) {
			const at = `${view.width} px, ${view.scheme}`

			test(`${at}: a config's page says "Version N was pushed from laptop — Reload"; Reload shows it`, async () => {
				const page = await open(view, `/configs/${configId}`)
				const notice = noticeOf(page)
				expect(await notice.textContent()).toBe('')
				// Another config's change is not this page's news.
				await pushFromLaptop(`other-${view.width}-${view.scheme}`)
				const started = Date.now()
				version = await pushFromLaptop('work')
				await notice.getByRole('button', { name: 'Reload' }).waitFor({ timeout: NOTICE_MS })
				const took = Date.now() - started
				console.log(`notice on the config page after ${took} ms (${at})`)
				expect(await notice.textContent()).toBe(`Version ${version} was pushed from laptop — Reload`)
				await page.screenshot({
					path: join(screenshotDir(), `live-notice-${view.width}${view.scheme === 'dark' ? '-dark' : ''}.png`)
				})
				expect(await sidewaysScroll(page)).toBe(0)
				expect(await axeViolations(page)).toEqual([])

				// The keyboard reaches Reload (it is a button in the tab order) and Enter reloads the page.
				const reload = notice.getByRole('button', { name: 'Reload' })
				expect(await reload.evaluate((button) => (button as HTMLButtonElement).tabIndex)).toBe(0)
				await reload.focus()
				await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')])
				expect(await page.getByText(`Version ${version}, updated`).count()).toBe(1)
				expect(await noticeOf(page).textContent()).toBe('')
			})
		}

		test('the configs list says which config changed, and Reload shows its new version', async () => {
			const page = await open(FLOW_VIEWS[0], '/configs')
			const notice = noticeOf(page)
			const started = Date.now()
			version = await pushFromLaptop('work')
			await notice.getByRole('button', { name: 'Reload' }).waitFor({ timeout: NOTICE_MS })
			const took = Date.now() - started
			console.log(`notice on the configs list after ${took} ms`)
			expect(await notice.textContent()).toBe(`work (claude-code): version ${version} was pushed from laptop — Reload`)
			expect(await axeViolations(page)).toEqual([])
			await Promise.all([page.waitForEvent('load'), notice.getByRole('button', { name: 'Reload' }).click()])
			const row = page.locator('tbody tr', { has: page.getByRole('link', { name: 'Claude Code · work', exact: true }) })
			expect(await row.locator('td[data-label="Version"]').textContent()).toBe(String(version))
		})

		test("a team's page names the config and who changed it; a deletion says so", async () => {
			const dir = server.dir
			const bob = await userWithKey(dir, 'bob')
			const bobs = await run(dir, ['key', 'issue', 'bob', '--device', 'laptop'])
			expect(bobs.code).toBe(0)
			const team = await api(server, 'POST', '/api/teams', laptop, { name: 'Crew' })
			expect(team.status).toBe(201)
			expect(
				(await api(server, 'POST', '/api/teams/crew/members', laptop, { login: 'bob', role: 'admin' })).status
			).toBe(201)
			expect((await api(server, 'POST', '/api/invitations/crew/accept', bob.key)).status).toBe(200)
			const page = await open(FLOW_VIEWS[0], '/teams/crew')
			const notice = noticeOf(page)
			const pushed = await api(server, 'POST', '/api/configs', bobs.stdout.trim(), {
				name: 'shared',
				teamId: team.body.id,
				data: { v: 1 }
			})
			expect(pushed.status).toBe(201)
			await notice.getByRole('button', { name: 'Reload' }).waitFor({ timeout: NOTICE_MS })
			expect(await notice.textContent()).toBe('shared (claude-code): version 1 was pushed from laptop by bob — Reload')
			// A personal config of alice's is not the team's news; deleting the team's config is.
			await pushFromLaptop('work')
			expect((await api(server, 'DELETE', `/api/configs/${pushed.body.id}`, laptop)).status).toBe(204)
			await notice.getByText('was deleted').waitFor({ timeout: NOTICE_MS })
			expect(await notice.textContent()).toBe(
				'shared (claude-code) was deleted from laptop, after 1 other change since this page was loaded — Reload'
			)
			expect(await axeViolations(page)).toEqual([])
		})

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			expect(problems.list).toEqual([])
		})
	})
}
