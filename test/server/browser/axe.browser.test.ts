// docs/web.md (safe to use): axe-core, its default rules with best practices included, reports no
// violation on any page, for any role, at 1280 and 390 px, light and dark. Every page each role can
// reach is opened in Debian's Chromium against the compiled binary and checked in the four views;
// the run also fails on sideways scrolling at either width and on any console error or CSP violation.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { api, emptyDir, run, startServer, userWithKey, type Server } from '../../support/harness'
import {
	axeViolations,
	closeAll,
	launchChromium,
	postFromPage,
	type Problems,
	requireChromium,
	sidewaysScroll,
	SKIP_BROWSER_TESTS,
	skipWithoutChromium,
	VIEWS,
	watchedContext,
	wrongSignupPost
} from '../../support/browser'

/** `returning`: the owner again, in a browser of its own whose session ends mid-form (signed out in another tab). */
type Role = 'signed out' | 'admin' | 'owner' | 'member' | 'newcomer' | 'returning'

/** A page to check: who looks, what it is called in a failure, and how to open it (a path, or steps). */
interface Target {
	role: Role
	name: string
	open: string | ((page: Page) => Promise<void>)
}

if (SKIP_BROWSER_TESTS) {
	skipWithoutChromium()
} else {
	describe('axe-core on every page, for every role, at 1280 and 390 px, light and dark (docs/web.md)', () => {
		let server: Server
		let browser: Browser
		const problems: Problems = { list: [] }
		const contexts: BrowserContext[] = []
		const sessions = new Map<Role, Page>()
		const targets: Target[] = []

		beforeAll(async () => {
			requireChromium()
			const dir = emptyDir()
			server = await startServer(dir)
			const root = await userWithKey(dir, 'root')
			expect((await run(dir, ['user', 'set-admin', 'root', 'on'])).code).toBe(0)
			const alice = await userWithKey(dir, 'alice')
			const bob = await userWithKey(dir, 'bob', 'free')
			const dave = await userWithKey(dir, 'dave', 'free')
			const users: Record<Exclude<Role, 'signed out'>, { name: string; password: string }> = {
				admin: root,
				owner: alice,
				member: bob,
				newcomer: dave,
				returning: alice
			}

			// alice: a files config with two versions, one line far wider than a phone, so its block scrolls sideways.
			const wide = `{ "comment": "${'a long line that scrolls sideways '.repeat(8)}" }\n`
			const pushed = await api(server, 'POST', '/api/configs', alice.key, {
				name: 'work',
				data: { files: { 'settings.json': '{\n  "theme": "dark"\n}\n', 'wide.json': wide } }
			})
			expect(pushed.status).toBe(201)
			const configId: string = pushed.body.id
			const second = await api(server, 'POST', '/api/configs', alice.key, {
				name: 'work',
				data: { files: { 'settings.json': '{\n  "theme": "light"\n}\n', 'wide.json': wide.replace('long', 'wide') } }
			})
			expect(second.status).toBe(200)
			const versions = await api(server, 'GET', `/api/configs/${configId}/versions`, alice.key)
			const [newest, oldest] = [versions.body[0].id, versions.body[versions.body.length - 1].id]
			// alice owns a team with bob in it, its own config, and a pending invitation for dave.
			const team = await api(server, 'POST', '/api/teams', alice.key, { name: 'Crew' })
			expect(team.status).toBe(201)
			const teamId: string = team.body.id
			// alice also deleted a team, which her Teams page offers to restore until its purge.
			expect((await api(server, 'POST', '/api/teams', alice.key, { name: 'Old Crew' })).status).toBe(201)
			expect((await api(server, 'DELETE', '/api/teams/old-crew', alice.key)).status).toBe(204)
			expect(
				(await api(server, 'POST', '/api/teams/crew/members', alice.key, { login: 'bob', role: 'member' })).status
			).toBe(201)
			expect((await api(server, 'POST', '/api/invitations/crew/accept', bob.key)).status).toBe(200)
			expect(
				(await api(server, 'POST', '/api/teams/crew/members', alice.key, { login: 'dave', role: 'member' })).status
			).toBe(201)
			expect(
				(
					await api(server, 'POST', '/api/configs', alice.key, {
						name: 'shared',
						teamId,
						data: { files: { 'AGENTS.md': '# Team rules\n' } }
					})
				).status
			).toBe(201)
			// alice: a Codex config whose file holds two MCP servers, one with a secret (masked on the page).
			const withServers = await api(server, 'POST', '/api/configs', alice.key, {
				name: 'agents',
				tool: 'codex',
				data: {
					files: {
						'.codex/config.toml':
							'[mcp_servers.github]\ncommand = "npx"\nargs = ["-y", "@modelcontextprotocol/server-github"]\n\n[mcp_servers.github.env]\nGITHUB_TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"\n\n[mcp_servers.search]\nurl = "https://search.example.com/mcp"\n'
					}
				}
			})
			expect(withServers.status).toBe(201)
			const keys = await api(server, 'GET', '/api/keys', alice.key)
			const aliceKeyId: string = keys.body[0].id
			// alice: a second device (a Rename can clash with the first's name) and a web session in another browser,
			// which her Account lists with its "Sign out" (docs/web.md).
			const laptop = await api(server, 'POST', '/api/auth/login', undefined, {
				login: 'alice',
				password: alice.password,
				device: 'laptop'
			})
			expect(laptop.status).toBe(201)
			const elsewhere = await fetch(`${server.url}/sign-in`, {
				method: 'POST',
				redirect: 'manual',
				body: new URLSearchParams({ login: 'alice', password: alice.password }),
				headers: {
					'content-type': 'application/x-www-form-urlencoded',
					origin: 'null',
					'sec-fetch-site': 'same-origin',
					'user-agent': 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'
				}
			})
			expect(elsewhere.status).toBe(303)
			const bobId = (await api(server, 'GET', '/api/me', bob.key)).body.id as string
			const daveId = (await api(server, 'GET', '/api/me', dave.key)).body.id as string
			// alice: two versions of 8,000 unique lines, too large to compare here (docs/web.md).
			const unique = (seed: string) =>
				`${Array.from({ length: 8000 }, (_, i) => `${seed}-${i}-${((i * 2654435761) % 4294967296).toString(16)}`).join('\n')}\n`
			const big = await api(server, 'POST', '/api/configs', alice.key, {
				name: 'big',
				data: { files: { 'big.txt': unique('old') } }
			})
			expect(big.status).toBe(201)
			expect(
				(
					await api(server, 'POST', '/api/configs', alice.key, {
						name: 'big',
						data: { files: { 'big.txt': unique('new') } }
					})
				).status
			).toBe(200)
			const bigVersions = (await api(server, 'GET', `/api/configs/${big.body.id}/versions`, alice.key)).body as {
				id: string
			}[]
			// alice: a config rolled back to its first version, whose question opened again says it is done (docs/web.md).
			const rolled = await api(server, 'POST', '/api/configs', alice.key, { name: 'rolled', data: { v: 1 } })
			expect((await api(server, 'POST', '/api/configs', alice.key, { name: 'rolled', data: { v: 2 } })).status).toBe(
				200
			)
			const rolledFirst = (
				(await api(server, 'GET', `/api/configs/${rolled.body.id}/versions`, alice.key)).body as {
					id: string
					version: number
				}[]
			).find((version) => version.version === 1)?.id as string
			expect(
				(await api(server, 'POST', `/api/configs/${rolled.body.id}/rollback`, alice.key, { versionId: rolledFirst }))
					.status
			).toBeLessThan(300)
			// alice: a one-line change in the middle of 400 lines, so its comparison has folded runs of unchanged lines.
			const lines = Array.from({ length: 400 }, (_, index) => `line ${index + 1}: ${'x'.repeat(20)}`)
			let longId = ''
			for (const change of ['before', 'after']) {
				const copy = [...lines]
				copy[200] = `the changed line, ${change}`
				const pushed = await api(server, 'POST', '/api/configs', alice.key, {
					name: 'long',
					data: { files: { 'settings.txt': `${copy.join('\n')}\n` } }
				})
				expect(pushed.status).toBeLessThan(300)
				longId = pushed.body.id
			}
			const longVersions = (await api(server, 'GET', `/api/configs/${longId}/versions`, alice.key)).body as {
				id: string
			}[]
			const longCompare = `/configs/${longId}/compare?from=${longVersions[1]?.id}&to=${longVersions[0]?.id}`
			// The setup address this server printed at its first start: dead since root is an admin (410).
			const setupPath = new URL(/"setup":"([^"]+)"/.exec(server.log())?.[1] as string).pathname
			let added = 0

			browser = await launchChromium()
			const signedOut = await context()
			sessions.set('signed out', await signedOut.newPage())
			for (const [role, user] of Object.entries(users) as [Role, { name: string; password: string }][]) {
				const page = await (await context()).newPage()
				await page.goto(`${server.url}/`)
				await page.getByLabel('Username or email').fill(user.name)
				await page.getByLabel('Password', { exact: true }).fill(user.password)
				await page.getByRole('button', { name: 'Sign in' }).click()
				await page.getByRole('heading', { name: 'Configs', level: 1 }).waitFor()
				sessions.set(role, page)
			}

			const config = `/configs/${configId}`
			// A sign-up link (docs/web.md), also listed on the Admin page.
			const joinPath = new URL((await run(dir, ['invite', 'create', '--uses', '5'])).stdout.trim()).pathname
			targets.push(
				{ role: 'signed out', name: 'sign in', open: '/' },
				{
					role: 'signed out',
					name: 'a failed sign-in',
					open: async (page) => {
						await page.goto(`${server.url}/`)
						await page.getByLabel('Username or email').fill('alice')
						await page.getByLabel('Password', { exact: true }).fill('not her password')
						await page.getByRole('button', { name: 'Sign in' }).click()
						await page.getByRole('alert').waitFor()
					}
				},
				{ role: 'signed out', name: 'download', open: '/download' },
				{ role: 'signed out', name: 'an address that is no page (404)', open: '/no/such/page' },
				{ role: 'newcomer', name: 'an address that is no page, signed in (404)', open: '/settings' },
				{ role: 'newcomer', name: 'download, signed in', open: '/download' },
				{
					// The notice signing out leaves for the next page (a one-time cookie, never the URL).
					role: 'signed out',
					name: 'signed out',
					open: async (page) => {
						await page.context().addCookies([{ name: 'cfgsync_notice', value: 'signed-out', url: server.url }])
						await page.goto(`${server.url}/`)
						await page.getByText('You are signed out').waitFor()
					}
				},
				{ role: 'newcomer', name: 'configs, empty', open: '/configs' },
				{ role: 'newcomer', name: 'teams, an invitation', open: '/teams' },
				{ role: 'newcomer', name: 'activity', open: '/activity' },
				{ role: 'newcomer', name: 'admin, refused', open: '/admin' },
				{ role: 'newcomer', name: 'a config that is not there', open: `/configs/${crypto.randomUUID()}` },
				{ role: 'owner', name: 'configs', open: '/configs' },
				{ role: 'owner', name: 'a config', open: config },
				{ role: 'owner', name: 'a config holding MCP servers', open: `/configs/${withServers.body.id}` },
				{ role: 'owner', name: 'compare', open: `${config}/compare?from=${oldest}&to=${newest}` },
				{
					role: 'owner',
					name: 'compare side by side',
					open: `${config}/compare?from=${oldest}&to=${newest}&view=split`
				},
				{ role: 'owner', name: 'roll back', open: `${config}/rollback?version=${oldest}` },
				{
					role: 'owner',
					name: 'roll back, asked again once done',
					open: `/configs/${rolled.body.id}/rollback?version=${rolledFirst}`
				},
				{
					role: 'owner',
					name: 'compare, too large to compare here',
					open: `/configs/${big.body.id}/compare?from=${bigVersions[1]?.id}&to=${bigVersions[0]?.id}`
				},
				{ role: 'owner', name: 'devices', open: '/devices' },
				{ role: 'owner', name: 'revoke a device', open: `/devices/${aliceKeyId}/revoke` },
				{
					role: 'owner',
					name: 'revoke a device, asked in the dialog',
					open: async (page) => {
						await page.goto(`${server.url}/devices`)
						await page.getByRole('button', { name: 'Revoke' }).first().click()
						await page.getByRole('dialog').waitFor()
					}
				},
				{ role: 'owner', name: 'teams, with a deleted team to restore', open: '/teams' },
				{
					role: 'owner',
					name: 'teams, a failed Create team (the message by its field)',
					open: async (page) => {
						await page.goto(`${server.url}/teams`)
						const form = page.getByRole('form', { name: 'Create team' })
						await form.getByLabel('Name').fill('Crew again')
						await form.getByLabel('Slug').fill('crew')
						await form.getByRole('button', { name: 'Create team' }).click()
						await page.locator('#team-slug-error').waitFor()
					}
				},
				{ role: 'owner', name: 'a team', open: '/teams/crew' },
				{ role: 'owner', name: "a team's activity", open: '/teams/crew/activity' },
				{ role: 'owner', name: 'remove a member', open: `/teams/crew/members/${bobId}/remove` },
				{ role: 'owner', name: 'cancel an invitation', open: `/teams/crew/members/${daveId}/remove` },
				{
					role: 'owner',
					name: 'remove a member, asked in the dialog',
					open: async (page) => {
						await page.goto(`${server.url}/teams/crew`)
						await page.getByRole('row', { name: /bob/ }).getByRole('button', { name: 'Remove' }).click()
						await page.getByRole('dialog', { name: /Remove bob/ }).waitFor()
					}
				},
				{ role: 'owner', name: 'leave, as the last owner', open: '/teams/crew/leave' },
				{ role: 'owner', name: 'delete a team', open: '/teams/crew/delete' },
				{ role: 'owner', name: 'account, with another web session to sign out', open: '/account' },
				{
					role: 'owner',
					name: 'devices, a refused Rename (the message by its field)',
					open: async (page) => {
						await page.goto(`${server.url}/devices`)
						await page.getByLabel('New name of laptop', { exact: true }).fill('e2e')
						await page.getByRole('button', { name: 'Rename laptop', exact: true }).click()
						await page.locator('.rename-form .field-error').waitFor()
					}
				},
				{ role: 'owner', name: 'activity', open: '/activity' },
				{ role: 'owner', name: 'activity, searched', open: '/activity?q=default' },
				{ role: 'owner', name: 'configs, searched with no match', open: '/configs?q=nothing-like-it' },
				{ role: 'member', name: 'configs', open: '/configs' },
				{ role: 'member', name: 'a team config, without history', open: '/teams/crew' },
				{ role: 'member', name: 'leave a team', open: '/teams/crew/leave' },
				{ role: 'member', name: 'devices', open: '/devices' },
				{ role: 'admin', name: 'admin', open: '/admin' },
				{ role: 'admin', name: 'admin, searched', open: '/admin?q=bob' },
				{ role: 'admin', name: 'admin, a page past the end', open: '/admin?page=99' },
				{ role: 'admin', name: 'server activity', open: '/admin/activity' },
				{ role: 'admin', name: 'server activity, searched', open: '/admin/activity?q=alice' },
				{ role: 'admin', name: 'reset a password', open: `/admin/users/${bobId}/reset-password` },
				{ role: 'admin', name: 'revoke keys', open: `/admin/users/${bobId}/revoke-keys` },
				{ role: 'admin', name: 'remove a user', open: `/admin/users/${bobId}/remove` },
				{
					role: 'admin',
					name: 'admin, a one-time password shown once',
					open: async (page) => {
						await page.goto(`${server.url}/admin`)
						const form = page.getByRole('form', { name: 'Add user' })
						added++
						await form.getByLabel('Email').fill(`new-${added}@example.test`)
						await form.getByLabel('Username').fill(`new-${added}`)
						await form.getByRole('button', { name: 'Add user' }).click()
						await page.locator('code.secret').waitFor()
					}
				},
				{
					role: 'admin',
					name: 'admin, a refused Add user (the message by its field)',
					open: async (page) => {
						await page.goto(`${server.url}/admin`)
						const add = page.getByRole('form', { name: 'Add user' })
						await add.getByLabel('Email').fill('alice@example.test')
						await add.getByLabel('Username').fill('alice-again')
						await add.getByRole('button', { name: 'Add user' }).click()
						await page.locator('#new-email-error').waitFor()
					}
				},
				{
					role: 'admin',
					name: 'admin, a refused Invite people (the message by its field)',
					open: async (page) => {
						await page.goto(`${server.url}/admin`)
						const invite = page.getByRole('form', { name: 'Invite people' })
						await invite.evaluate((form) => form.setAttribute('novalidate', ''))
						await invite.getByLabel('How many uses').fill('5000')
						await invite.getByRole('button', { name: 'Create sign-up link' }).click()
						await page.locator('#link-uses-error').waitFor()
					}
				},
				{
					role: 'admin',
					name: 'admin, a new sign-up link shown once',
					open: async (page) => {
						await page.goto(`${server.url}/admin`)
						await page
							.getByRole('form', { name: 'Invite people' })
							.getByRole('button', { name: 'Create sign-up link' })
							.click()
						await page.getByRole('region', { name: 'New sign-up link' }).waitFor()
					}
				},
				{
					role: 'admin',
					name: 'revoke a sign-up link',
					open: async (page) => {
						await page.goto(`${server.url}/admin`)
						await page
							.getByRole('button', { name: /^Revoke \/join\// })
							.first()
							.click()
						await page.getByRole('heading', { name: /^Revoke the sign-up link/, level: 1 }).waitFor()
					}
				},
				{
					role: 'owner',
					name: "teams, re-creating a deleted team's name (the slug is held by it)",
					open: async (page) => {
						await page.goto(`${server.url}/teams`)
						const form = page.getByRole('form', { name: 'Create team' })
						await form.getByLabel('Name').fill('Old Crew')
						await form.getByRole('button', { name: 'Create team' }).click()
						await page.getByText('is held by your deleted team Old Crew').waitFor()
					}
				},
				{
					role: 'owner',
					name: 'compare, as without a script (folded runs are links)',
					open: async (page) => {
						await page.goto(`${server.url}${longCompare}`)
						await withoutScript(page)
					}
				},
				{
					role: 'owner',
					name: "a folded run's own page (the fold's link, without a script)",
					open: async (page) => {
						await page.goto(`${server.url}${longCompare}`)
						await withoutScript(page)
						await page
							.getByRole('link', { name: /unchanged lines/ })
							.first()
							.click()
						await page.getByRole('heading', { name: 'settings.txt: unchanged lines', level: 1 }).waitFor()
						await withoutScript(page)
					}
				},
				{
					role: 'returning',
					name: 'sign in, "Your session ended" before a form was sent',
					open: async (page) => {
						await sessionEndsMidForm(page, alice)
					}
				},
				{
					role: 'returning',
					name: 'teams, the form restored after signing in again',
					open: async (page) => {
						await sessionEndsMidForm(page, alice)
						await signInHere(page, alice)
						await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor()
						const restored = page.getByRole('form', { name: 'Create team' }).getByLabel('Name')
						expect(await restored.inputValue()).toBe('Night Shift')
					}
				},
				{ role: 'signed out', name: 'create your account (a sign-up link)', open: joinPath },
				{
					role: 'signed out',
					name: 'create your account, a taken username (the message by its field)',
					open: async (page) => {
						await page.goto(`${server.url}${joinPath}`)
						const form = page.getByRole('form', { name: 'Create your account' })
						await form.getByLabel('Email', { exact: true }).fill('someone@example.test')
						await form.getByLabel('Username', { exact: true }).fill('alice')
						await form.getByLabel('Password', { exact: true }).fill('a long password')
						await form.getByRole('button', { name: 'Create account' }).click()
						await page.locator('#username-error').waitFor()
					}
				},
				{ role: 'signed out', name: 'a sign-up link that does not exist', open: `/join/${'x'.repeat(43)}` },
				{ role: 'signed out', name: 'a setup address no longer usable (410)', open: setupPath },
				{
					// Last: only wrong posts count (docs/operations.md, views never do), 30 from this address; then even a
					// post from the page itself is the 429 page.
					role: 'signed out',
					name: 'too many attempts (429)',
					open: async (page) => {
						for (let probe = 0; (await wrongSignupPost(server.url, probe)).status !== 429; probe++)
							expect(probe).toBeLessThan(40)
						await page.goto(`${server.url}/join/${'y'.repeat(43)}`)
						await postFromPage(page, `/join/${'y'.repeat(43)}`)
						await page.getByRole('heading', { name: 'Too many attempts', level: 1 }).waitFor()
					}
				}
			)
		}, 120_000)

		/**
		 * The page as a browser without JavaScript shows it: every page comes with `html.no-js`, which app.js takes
		 * off, and under which the stylesheet shows the links and parts a script would fold. axe-core cannot run in
		 * a context with JavaScript switched off (its timers never fire), so the class is put back instead.
		 */
		async function withoutScript(page: Page) {
			await page.evaluate(() => document.documentElement.classList.add('no-js'))
		}

		/** Signs in on the sign-in page the page is on. */
		async function signInHere(page: Page, user: { name: string; password: string }) {
			await page.getByLabel('Username or email').fill(user.name)
			await page.getByLabel('Password', { exact: true }).fill(user.password)
			await page.getByRole('button', { name: 'Sign in' }).click()
		}

		/**
		 * Teams with a name typed into "Create team", the person signed out in another tab of the same browser, then
		 * the form sent: the page ends on sign-in, saying the session ended (docs/web.md, nothing lost in a form).
		 */
		async function sessionEndsMidForm(page: Page, user: { name: string; password: string }) {
			await page.goto(`${server.url}/teams`)
			if (new URL(page.url()).pathname !== '/teams') {
				await signInHere(page, user)
				await page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor()
			}
			await page.getByRole('form', { name: 'Create team' }).getByLabel('Name').fill('Night Shift')
			const other = await page.context().newPage()
			await other.goto(`${server.url}/configs`)
			await other.getByRole('button', { name: 'Sign out' }).click()
			await other.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor()
			await other.close()
			await page.getByRole('form', { name: 'Create team' }).getByRole('button', { name: 'Create team' }).click()
			await page.getByRole('status').filter({ hasText: 'Your session ended' }).waitFor()
		}

		afterAll(async () => {
			await closeAll(contexts, browser, server)
		})

		async function context() {
			const made = await watchedContext(browser, server.url, problems)
			contexts.push(made)
			return made
		}

		test('no violation on any page, in any of the four views', async () => {
			const found: string[] = []
			let runs = 0
			for (const target of targets) {
				const page = sessions.get(target.role)!
				for (const width of [1280, 390]) {
					// Opened once per width, in the light scheme, and checked by every rule; then the same page in the
					// dark scheme, which changes colours only (test/server/web/stylesheet.test.ts), by the colour rules.
					await page.setViewportSize({ width, height: width < 600 ? 844 : 900 })
					await page.emulateMedia({ colorScheme: 'light' })
					if (typeof target.open === 'string') await page.goto(`${server.url}${target.open}`)
					else await target.open(page)
					for (const view of VIEWS.filter((view) => view.width === width)) {
						await page.emulateMedia({ colorScheme: view.scheme })
						const where = `${target.role}: ${target.name} at ${view.width} px, ${view.scheme}`
						const colourOnly = view.scheme === 'dark'
						for (const line of await axeViolations(page, { colourOnly })) found.push(`${where}: ${line}`)
						const overflow = await sidewaysScroll(page)
						if (overflow > 0) found.push(`${where}: scrolls sideways by ${overflow} px`)
						runs++
					}
				}
			}
			console.log(`axe: ${runs} page runs, ${found.length} violations`)
			expect(found).toEqual([])
			expect(runs).toBe(targets.length * VIEWS.length)
		}, 600_000)

		test('no page logged an error, broke the Content-Security-Policy, or reached another origin', () => {
			// The pages that answer 4xx on purpose (a failed sign-in, a refusal, a missing config, the only owner's
			// Leave, a dead setup address, too many attempts) log their status.
			expect(problems.list.filter((line) => !/status of (401|403|404|409|410|429)/.test(line))).toEqual([])
		})
	})
}
