// docs/web.md, "nothing lost in a form", in Debian's Chromium against the compiled binary: one browser signed in
// in two tabs; the person signs out in one, then, in the other, types a team's name and presses "Create team".
// Signing out cleared the session cookie of the whole browser, so that post comes with no session at all: it
// leads to sign-in, which says the session ended and has `next` back to Teams; after signing in the form is
// there again with what was typed, nothing was created meanwhile, and sending it creates the team.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext } from 'playwright-core'
import { api, emptyDir, startServer, userWithKey, type Server } from '../../support/harness'
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
	describe('a session that ends mid-form, in Chromium (docs/web.md)', () => {
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
			browser = await launchChromium()
		}, 120_000)

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		for (const view of FLOW_VIEWS) {
			const at = `${view.width} px, ${view.scheme}`
			const name = `Night Shift ${view.width}`
			const slug = `night-shift-${view.width}`

			test(`${at}: signed out in tab B, "Create team" in tab A leads to sign-in and back, the name still typed`, async () => {
				const made = await watchedContext(browser, server.url, problems, { width: view.width })
				contexts.push(made)
				const tabA = await made.newPage()
				await tabA.emulateMedia({ colorScheme: view.scheme })
				await tabA.goto(`${server.url}/`)
				await tabA.getByLabel('Username or email').fill(alice.name)
				await tabA.getByLabel('Password', { exact: true }).fill(alice.password)
				await tabA.getByRole('button', { name: 'Sign in' }).click()
				await tabA.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
				await tabA.getByRole('link', { name: 'Teams' }).click()
				await tabA.getByRole('heading', { name: 'Teams', level: 1 }).waitFor()

				// Tab B: the same browser, so the same session; signing out there ends it for both tabs.
				const tabB = await made.newPage()
				await tabB.emulateMedia({ colorScheme: view.scheme })
				await tabB.goto(`${server.url}/configs`)
				await tabB.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
				await tabB.getByRole('button', { name: 'Sign out' }).click()
				await tabB.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
				await tabB.close()

				// Tab A still shows Teams, its form as it was: the person types and sends it.
				const form = tabA.getByRole('form', { name: 'Create team' })
				await form.getByLabel('Name').fill(name)
				await form.getByRole('button', { name: 'Create team' }).click()
				await tabA.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
				expect(new URL(tabA.url()).searchParams.get('next')).toBe('/teams')
				const said = tabA.getByRole('status').filter({ hasText: 'Your session ended' })
				expect(await said.count()).toBe(1)
				expect(await said.textContent()).toContain('nothing was changed')
				expect(await sidewaysScroll(tabA)).toBe(0)
				// Nothing was created behind the person's back.
				expect((await api(server, 'GET', `/api/teams/${slug}`, alice.key)).status).toBe(404)

				await tabA.getByLabel('Username or email').fill(alice.name)
				await tabA.getByLabel('Password', { exact: true }).fill(alice.password)
				await tabA.getByRole('button', { name: 'Sign in' }).click()
				await tabA.getByRole('heading', { name: 'Teams', level: 1 }).waitFor()
				expect(new URL(tabA.url()).pathname).toBe('/teams')
				const again = tabA.getByRole('form', { name: 'Create team' })
				expect(await again.getByLabel('Name').inputValue()).toBe(name)
				expect(await sidewaysScroll(tabA)).toBe(0)
				expect((await api(server, 'GET', `/api/teams/${slug}`, alice.key)).status).toBe(404)

				// Sent again, it works; and a reload afterwards does not bring the old values back.
				await again.getByRole('button', { name: 'Create team' }).click()
				await tabA.waitForURL(new RegExp(`/teams/${slug}$`))
				await tabA.getByRole('heading', { name, level: 1 }).waitFor()
				expect((await api(server, 'GET', `/api/teams/${slug}`, alice.key)).status).toBe(200)
				await tabA.goto(`${server.url}/teams`)
				expect(await tabA.getByRole('form', { name: 'Create team' }).getByLabel('Name').inputValue()).toBe('')
			}, 60_000)
		}

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			expect(problems.list).toEqual([])
		})
	})
}
