// docs/web.md, round 3 ("no dead ends, nothing lost in a form"), in Debian's Chromium against the
// compiled binary, at 1280 px light and 390 px dark: an unknown address is the application's 404 page with a
// way home; the Admin 403 leads home; /download has the header, fits a phone and copies its command; the
// comparison keeps its line numbers narrow and offers side by side only where it fits.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, run, startServer, userWithKey, type Server } from '../../support/harness'
import {
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

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('round 3 of the web application, in Chromium (docs/web.md)', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		let alice: { name: string; password: string; key: string }
		let configId = ''
		const versionIds: string[] = []

		beforeAll(async () => {
			requireChromium()
			const dir = emptyDir()
			server = await startServer(dir)
			alice = await userWithKey(dir, 'alice')
			await userWithKey(dir, 'root')
			expect((await run(dir, ['user', 'set-admin', 'root', 'on'])).code).toBe(0)
			// A long file with a one-line change in its middle: the comparison starts with a fold row.
			const lines = Array.from({ length: 400 }, (_, index) => `line ${index + 1}: ${'x'.repeat(20)}`)
			for (const change of ['before', 'after']) {
				const copy = [...lines]
				copy[200] = `the changed line, ${change}`
				const pushed = await api(server, 'POST', '/api/configs', alice.key, {
					name: 'work',
					data: { files: { 'settings.txt': `${copy.join('\n')}\n` } }
				})
				expect(pushed.status).toBeLessThan(300)
				configId = pushed.body.id
			}
			const versions = await api(server, 'GET', `/api/configs/${configId}/versions`, alice.key)
			for (const version of versions.body) versionIds.push(version.id)
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

		async function signIn(page: Page, who: { name: string; password: string }) {
			await page.goto(`${server.url}/`)
			await page.getByLabel('Username or email').fill(who.name)
			await page.getByLabel('Password', { exact: true }).fill(who.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
			await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
		}

		for (const view of FLOW_VIEWS) {
			const at = `${view.width} px, ${view.scheme}`

			test(`${at}: an unknown address is the application's 404 page, with a way home, signed out and in`, async () => {
				const page = await open(view)
				const response = await page.goto(`${server.url}/no/such/page`)
				expect(response?.status()).toBe(404)
				expect(await page.getByRole('heading', { name: 'Not found', level: 1 }).isVisible()).toBe(true)
				expect(await page.title()).toBe('Not found · cfgsync')
				await page.getByRole('link', { name: 'Go to sign in' }).click()
				await page.getByRole('button', { name: 'Sign in' }).waitFor()
				await signIn(page, alice)
				await page.goto(`${server.url}/settings`)
				expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true)
				await page.getByRole('main').getByRole('link', { name: 'Go to Configs' }).click()
				await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
				// The API keeps its JSON.
				const api404 = await page.request.get(`${server.url}/api/nope`, {
					headers: { authorization: `Bearer ${alice.key}` }
				})
				expect(await api404.json()).toEqual({ error: 'No such route.', code: 'not_found' })
			})

			test(`${at}: the Admin 403 leads home, not to itself`, async () => {
				const page = await open(view)
				await signIn(page, alice)
				await page.goto(`${server.url}/admin`)
				await page.getByRole('heading', { name: 'Not allowed', level: 1 }).waitFor()
				await page
					.getByRole('main')
					.getByRole('link', { name: /^Back to/ })
					.click()
				await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
			})

			test(`${at}: /download has the header and navigation, fits the width and copies its command`, async () => {
				const page = await open(view)
				await signIn(page, alice)
				await page.goto(`${server.url}/download`)
				expect(await page.getByRole('navigation', { name: 'Main' }).isVisible()).toBe(true)
				expect(await sidewaysScroll(page)).toBe(0)
				const text = (await page.getByRole('main').textContent()) ?? ''
				expect(text).not.toContain('npm run')
				await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url })
				await page.getByRole('button', { name: 'Copy First commands' }).click()
				await page.getByText('Copied.').waitFor()
				const region = page.getByRole('region', { name: 'First commands' })
				const box = await region.boundingBox()
				expect(box!.width).toBeLessThanOrEqual(view.width)
				// Every character of the command is inside the box: it wraps rather than scrolls.
				expect(await region.evaluate((pre) => pre.scrollWidth - pre.clientWidth)).toBe(0)
			})

			test(`${at}: the comparison keeps line numbers narrow when it starts with a fold; side by side only from 640 px`, async () => {
				const page = await open(view)
				await signIn(page, alice)
				const [to, from] = versionIds
				for (const split of [false, true]) {
					await page.goto(
						`${server.url}/configs/${configId}/compare?from=${from}&to=${to}${split ? '&view=split' : ''}`
					)
					const table = page.locator('table.diff:visible').first()
					// The first row is a fold (200 unchanged lines): the columns still follow the colgroup.
					expect(await table.locator('tr').first().getAttribute('class')).toBe('gap')
					const changed = table.locator('tr:not(.gap)').filter({ hasText: 'the changed line' }).first()
					const numberWidth = (await changed.locator('td.ln').first().boundingBox())!.width
					const codeWidth = (await changed.locator('td.code').first().boundingBox())!.width
					expect(numberWidth).toBeLessThan(60)
					expect(codeWidth).toBeGreaterThan(view.width < 640 ? 200 : 450)
					expect(await sidewaysScroll(page)).toBe(0)
				}
				const offer = page.getByRole('link', { name: /side by side|one column/ })
				if (view.width < 640) {
					expect(await page.getByRole('link', { name: 'Show side by side' }).isVisible()).toBe(false)
					expect(await page.getByText('Showing side by side').isVisible()).toBe(false)
				} else expect(await offer.isVisible()).toBe(true)
			})

			test(`${at}: a failed form comes back by a redirect, the message by its field, focus there, values kept`, async () => {
				const page = await open(view)
				await signIn(page, alice)
				await page.goto(`${server.url}/teams`)
				const form = page.getByRole('form', { name: 'Create team' })
				await form.getByLabel('Name').fill(`Crew ${view.width}`)
				await form.getByLabel('Slug').fill(`crew-${view.width}`)
				await form.getByRole('button', { name: 'Create team' }).click()
				await page.getByRole('heading', { name: `Crew ${view.width}`, level: 1 }).waitFor()
				await page.goto(`${server.url}/teams`)
				await form.getByLabel('Name').fill('Another crew')
				await form.getByLabel('Slug').fill(`crew-${view.width}`)
				await form.getByRole('button', { name: 'Create team' }).click()
				const slug = form.getByLabel('Slug')
				await page.waitForFunction(() => document.activeElement?.id === 'team-slug', null, { timeout: 5_000 })
				expect(await slug.getAttribute('aria-invalid')).toBe('true')
				const described = ((await slug.getAttribute('aria-describedby')) ?? '').split(' ')[0]
				const message = await page.locator(`#${described}`).textContent()
				expect(message).toContain('taken')
				expect(await form.getByLabel('Name').inputValue()).toBe('Another crew')
				expect(await slug.inputValue()).toBe(`crew-${view.width}`)
				// Reached by a redirect: the address is the form's page, and a reload sends nothing again.
				expect(new URL(page.url()).pathname).toBe('/teams')
				const reloaded = await page.reload()
				expect(reloaded?.request().method()).toBe('GET')
				expect(await page.locator('[aria-invalid="true"]').count()).toBe(0)
			})
		}

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			expect(problems.list.filter((line) => !/status of (401|403|404)/.test(line))).toEqual([])
		})
	})
}
