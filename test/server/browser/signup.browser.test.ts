// docs/web.md first start and sign-up in a real browser: Debian's Chromium driven by playwright-core
// against the compiled binary, at 1280 and 390 px, light and dark. From an empty data directory to the
// first admin, who invites someone with a sign-up link that then dies. Any console error, CSP
// violation or request to another origin fails the run.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core'
import { emptyDir, run, serversOfThisFile, startServer, type Server } from '../../support/harness'
import {
	axeViolations,
	FLOW_VIEWS,
	screenshotDir,
	sidewaysScroll,
	watchedContext,
	type Problems,
	SKIP_BROWSER_TESTS,
	skipWithoutChromium,
	requireChromium,
	launchChromium
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
	describe('first start and sign-up in Chromium (docs/web.md)', () => {
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		const shots = screenshotDir()

		beforeAll(async () => {
			requireChromium()
			browser = await launchChromium()
		}, 120_000)

		afterAll(async () => {
			for (const context of contexts) await context.close().catch(() => {})
			await browser?.close()
			expect(problems.list).toEqual([])
		})

		/** A new person's browser at this width and colour scheme. */
		async function personAt(server: Server, width: number, scheme: 'light' | 'dark'): Promise<Page> {
			const context = await watchedContext(browser, server.url, problems, { width })
			contexts.push(context)
			const page = await context.newPage()
			await page.emulateMedia({ colorScheme: scheme })
			return page
		}

		async function fill(scope: Page | Locator, fields: Record<string, string>) {
			for (const [label, value] of Object.entries(fields)) await scope.getByLabel(label, { exact: true }).fill(value)
		}

		/** No sideways scrolling, and nothing axe-core (its default rules) finds (docs/web.md, safe to use). */
		async function fits(page: Page, name: string) {
			expect({ page: name, overflow: await sidewaysScroll(page) }).toEqual({ page: name, overflow: 0 })
			expect({ page: name, axe: await axeViolations(page) }).toEqual({ page: name, axe: [] })
		}

		for (const { width, scheme } of FLOW_VIEWS) {
			const at = `${width} px, ${scheme}`
			const shot = (name: string) => join(shots, `${name}${scheme === 'dark' ? '-dark' : ''}-${width}.png`)

			test(`${at}: first start to first admin, who invites someone with a link that then dies`, async () => {
				const dir = emptyDir()
				const server = await startServer(dir)
				servers.push(server)
				const setup = await setupAddress(server)

				// First start: the setup address makes the first admin and signs them in.
				const admin = await personAt(server, width, scheme)
				// Before that, `/` says where the setup address is, never to ask an admin (docs/web.md, "First start and sign-up").
				await admin.goto(`${server.url}/`)
				await admin.getByRole('heading', { name: 'Set up this server', level: 1 }).waitFor()
				expect(await admin.getByText('cfgsync-server setup-link').count()).toBe(1)
				expect(await admin.getByText(/ask the server.s admin/i).count()).toBe(0)
				await fits(admin, 'first start')
				await admin.screenshot({ path: shot('first-start'), fullPage: true })
				await admin.goto(setup)
				await admin.getByRole('heading', { name: 'Create the first admin', level: 1 }).waitFor()
				await fits(admin, 'setup')
				await admin.screenshot({ path: shot('setup'), fullPage: true })
				// The form by its name (docs/web.md): labelled by its heading.
				const setupForm = admin.getByRole('form', { name: 'Create the first admin' })
				await fill(setupForm, { Email: 'ada@example.test', Username: 'ada', Password: 'ada-password-1' })
				await setupForm.getByRole('button', { name: 'Create admin' }).click()
				await admin.getByRole('heading', { name: 'Admin', level: 1 }).waitFor()
				expect(await admin.getByRole('status').filter({ hasText: 'first admin' }).count()).toBe(1)
				const nav = admin.getByRole('navigation')
				expect(await nav.getByRole('link', { name: 'Admin' }).count()).toBe(1)
				// A reload repeats nothing (post/redirect/get), and the address is dead now.
				await admin.reload()
				await admin.getByRole('heading', { name: 'Admin', level: 1 }).waitFor()

				// "Invite people": a link for one account on the pro plan, shown once.
				await admin.locator('#link-plan').selectOption('pro')
				expect(await admin.getByLabel('How many uses').inputValue()).toBe('1')
				expect(await admin.getByLabel('Expires after (days)').inputValue()).toBe('7')
				await admin.getByRole('button', { name: 'Create sign-up link' }).click()
				const card = admin.getByRole('region', { name: 'New sign-up link' })
				await card.waitFor()
				const link = ((await card.locator('code').textContent()) ?? '').trim()
				expect(link).toMatch(new RegExp(`^${server.url.replace(/[.:/]/g, '\\$&')}/join/[A-Za-z0-9_-]{43}$`))
				expect(admin.url()).not.toContain('/join/')
				await fits(admin, 'admin with a new link')
				await admin.screenshot({ path: shot('admin-invite'), fullPage: true })
				const row = admin.getByRole('row', { name: /\/join\// })
				expect(await row.getByText('0 of 1').count()).toBe(1)
				expect(await row.getByText('active').count()).toBe(1)
				// Shown once: after a reload the link is gone from the page.
				await admin.reload()
				expect(await admin.getByRole('region', { name: 'New sign-up link' }).count()).toBe(0)

				// Someone else opens the link, creates their account, and is signed in.
				const zoe = await personAt(server, width, scheme)
				await zoe.goto(link)
				await zoe.getByRole('heading', { name: 'Create your account', level: 1 }).waitFor()
				await fits(zoe, 'join')
				await zoe.screenshot({ path: shot('join'), fullPage: true })
				const joinForm = zoe.getByRole('form', { name: 'Create your account' })
				await fill(joinForm, { Email: 'zoe@example.test', Username: 'zoe', Password: 'zoe-password-1' })
				await joinForm.getByRole('button', { name: 'Create account' }).click()
				await zoe.getByRole('heading', { name: 'Devices', level: 1 }).waitFor()
				// A new person's Devices has no device yet: one "Install the client" (strict: a second would throw).
				expect(await zoe.getByRole('link', { name: 'Install the client' }).getAttribute('href')).toBe('/download')
				expect(await zoe.getByRole('status').filter({ hasText: 'Your account was created' }).count()).toBe(1)
				expect(await zoe.getByRole('navigation').getByRole('link', { name: 'Admin' }).count()).toBe(0)
				expect(await zoe.getByRole('button', { name: 'Sign out' }).count()).toBe(1)
				await fits(zoe, 'welcome')

				// Used up: the link is a page that says so, with no form; so is the setup address.
				const late = await personAt(server, width, scheme)
				const answer = await late.goto(link)
				expect(answer?.status()).toBe(410)
				await late.getByRole('heading', { name: 'Sign-up link not usable', level: 1 }).waitFor()
				expect(await late.getByRole('alert').textContent()).toContain('used up')
				expect(await late.getByRole('textbox').count()).toBe(0)
				expect(await late.getByLabel('Password').count()).toBe(0)
				await fits(late, 'dead link')
				await late.screenshot({ path: shot('join-used'), fullPage: true })
				expect((await late.goto(setup))?.status()).toBe(410)
				expect(await late.getByLabel('Password').count()).toBe(0)
				// Chromium logs every 4xx document it loads; these two were asked for on purpose.
				const expected = [link, setup].map(
					(url) => `console error on ${url}: Failed to load resource: the server responded with a status of 410 (Gone)`
				)
				problems.list = problems.list.filter((problem) => !expected.includes(problem))

				// The admin sees it used; zoe is on the link's plan.
				await admin.reload()
				const used = admin.getByRole('row', { name: /\/join\// })
				expect(await used.getByText('1 of 1').count()).toBe(1)
				expect(await used.getByText('used up').count()).toBe(1)
				expect(await used.getByRole('button', { name: /Revoke/ }).count()).toBe(0)
				const users = JSON.parse((await run(dir, ['user', 'list', '--json'])).stdout) as {
					username: string
					plan: string
					isAdmin: boolean
				}[]
				expect(users.map((user) => [user.username, user.plan, user.isAdmin]).sort()).toEqual([
					['ada', 'team', true],
					['zoe', 'pro', false]
				])
				expect(problems.list).toEqual([])
				await server.stop()
				// Three people, two argon2 sign-ups and a dozen pages: more than the suite's 30 s on a loaded 2-core machine.
			}, 120_000)
		}
	})
}
