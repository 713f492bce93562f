import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { expect, test } from 'bun:test'
import { ensureBinary } from './binary'
import type { Server } from './harness'

/** Debian's Chromium (CI installs it with `apt-get install -y chromium`); CHROMIUM_PATH points elsewhere. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
export const HAVE_CHROMIUM = existsSync(CHROMIUM)

/** Playwright's own browser download cannot work here: Debian's Chromium, with flags for a headless box. */
export const CHROMIUM_ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync'
]

const ROOT = resolve(import.meta.dir, '..', '..')
/** Every page at both widths (CFGSYNC_SCREENSHOTS puts them elsewhere); the README and docs/web.md show a few of them (copied into docs/screenshots). */
export const SCREENSHOTS = process.env.CFGSYNC_SCREENSHOTS ?? join(ROOT, 'dist', 'screenshots')

/** What a page must never do (docs/api.md, docs/web.md): log an error, break the CSP, reach another origin, scroll sideways or open a browser dialog. */
export interface Problems {
	list: string[]
}

/**
 * A browser context that records every console error, uncaught exception,
 * Content-Security-Policy violation and request to another origin.
 */
export async function watchedContext(
	browser: Browser,
	origin: string,
	problems: Problems,
	/** `userAgent`: another browser's, so two contexts' web sessions are told apart on Account (docs/web.md). */
	options: { width?: number; userAgent?: string } = {}
): Promise<BrowserContext> {
	const width = options.width ?? 1280
	const context = await browser.newContext({
		viewport: { width, height: width < 600 ? 844 : 900 },
		deviceScaleFactor: 1,
		colorScheme: 'light',
		...(options.userAgent === undefined ? {} : { userAgent: options.userAgent })
	})
	// Runs before the page's own scripts; CSP does not apply to it. Violations are reported by the page itself too.
	await context.addInitScript(() => {
		document.addEventListener('securitypolicyviolation', (event) =>
			console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)
		)
		// docs/web.md: no page scrolls sideways, at 1280 px or 390 px. Every page a test visits is measured once
		// loaded, after each htmx swap and after a change of viewport, and reported as an error (so as a problem).
		// A viewport narrower than 320 px is one Chromium passes through while resizing (seen: 1 px wide under
		// load), not one a person has: the widths that matter, 390 and 1280, are measured once they are reached.
		const measure = () =>
			requestAnimationFrame(() => {
				const root = document.documentElement
				if (root.clientWidth >= 320 && root.scrollWidth > root.clientWidth)
					console.error(`sideways scroll: ${root.scrollWidth - root.clientWidth} px at ${root.clientWidth} px wide`)
			})
		window.addEventListener('load', measure)
		window.addEventListener('resize', measure)
		document.addEventListener('htmx:afterSettle', measure)
	})
	context.on('request', (request) => {
		const url = request.url()
		if (!url.startsWith(`${origin}/`) && !url.startsWith('data:'))
			problems.list.push(`request to another origin: ${url}`)
	})
	context.on('page', (page) => watchPage(page, problems))
	return context
}

function watchPage(page: Page, problems: Problems) {
	page.on('console', (message) => {
		if (message.type() === 'error') problems.list.push(`console error on ${page.url()}: ${message.text()}`)
	})
	page.on('pageerror', (error) => problems.list.push(`uncaught exception on ${page.url()}: ${error.message}`))
	// docs/web.md: the pages ask in their own <dialog>; a browser dialog (confirm, alert, prompt) is a problem.
	page.on('dialog', (dialog) => {
		problems.list.push(`a browser dialog opened on ${page.url()}: ${dialog.message()}`)
		void dialog.dismiss()
	})
}

/** How far the page scrolls sideways at its width, in px: 0 is what every page must say, at 1280 and 390 px (docs/web.md). */
export async function sidewaysScroll(page: Page): Promise<number> {
	return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)
}

export function screenshotDir(): string {
	mkdirSync(SCREENSHOTS, { recursive: true })
	return SCREENSHOTS
}

/**
 * A page for docs/screenshots at both widths: as it is now (at 1280 px, light), then its address opened again at
 * 390 px in the same context (so as the same person). Neither may scroll sideways.
 */
export async function shootBothWidths(page: Page, name: string): Promise<void> {
	const overflow = await sidewaysScroll(page)
	if (overflow > 0) throw new Error(`${name} scrolls sideways by ${overflow} px at 1280 px`)
	await page.screenshot({ path: join(screenshotDir(), `${name}-1280.png`), fullPage: true })
	const phone = await page.context().newPage()
	try {
		await phone.setViewportSize({ width: 390, height: 844 })
		await phone.goto(page.url())
		const narrow = await sidewaysScroll(phone)
		if (narrow > 0) throw new Error(`${name} scrolls sideways by ${narrow} px at 390 px`)
		await phone.screenshot({ path: join(screenshotDir(), `${name}-390.png`), fullPage: true })
	} finally {
		await phone.close()
	}
}

/** axe-core's script, read when a test first asks for it. */
let axeSource: string | undefined

/**
 * What axe found on the page as it is now: one line per violation and element, empty when none.
 * `colourOnly` runs just the default rules of axe's colour category (`cat.color`: contrast, links told
 * apart by colour): all that can change when only the colour scheme does (docs/web.md: the dark scheme
 * sets colours and nothing else, which test/server/web/stylesheet.test.ts holds).
 */
export async function axeViolations(page: Page, options: { colourOnly?: boolean } = {}): Promise<string[]> {
	// Evaluated over the DevTools protocol, so the page's CSP (script-src 'self') does not block axe itself.
	if (!(await page.evaluate(() => 'axe' in window))) {
		axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
		await page.evaluate(axeSource)
	}
	const violations = await page.evaluate(async (colourOnly) => {
		const axe = (
			window as unknown as {
				axe: {
					run: (context: Document, options: object) => Promise<unknown>
					getRules: (tags?: string[]) => { ruleId: string }[]
				}
			}
		).axe
		const colour = new Set(axe.getRules(['cat.color']).map((rule) => rule.ruleId))
		// Every other rule switched off; the colour rules stay as the default run has them (AAA contrast stays off).
		const rules = colourOnly
			? Object.fromEntries(
					axe
						.getRules()
						.filter((rule) => !colour.has(rule.ruleId))
						.map((rule) => [rule.ruleId, { enabled: false }])
				)
			: {}
		const result = (await axe.run(document, { resultTypes: ['violations'], rules })) as {
			violations: { id: string; help: string; nodes: { target: string[] }[] }[]
		}
		return result.violations.map((violation) => ({
			id: violation.id,
			help: violation.help,
			targets: violation.nodes.map((node) => node.target.join(' '))
		}))
	}, options.colourOnly ?? false)
	return violations.flatMap((violation) =>
		violation.targets.map((target) => `${violation.id} (${violation.help}) at ${target}`)
	)
}

/** Under CI nothing may skip: a missing Chromium fails the browser tests instead. */
export const IN_CI = process.env.CI === 'true' || process.env.CI === '1'

/** The four views every page is checked in by axe-core (axe.browser.test.ts): both widths, both colour schemes. */
export const VIEWS = [
	{ width: 1280, scheme: 'light' },
	{ width: 1280, scheme: 'dark' },
	{ width: 390, scheme: 'light' },
	{ width: 390, scheme: 'dark' }
] as const

/**
 * The views a flow is walked through: each width and each colour scheme, once each. A scheme changes colours
 * only, and those are checked on every page in all four VIEWS by axe-core; walking every flow four times cost
 * CI minutes and found nothing two walks did not.
 */
export const FLOW_VIEWS = [VIEWS[0], VIEWS[3]] as const

/** Outside CI a machine without Chromium skips the browser tests with one line saying so; in CI they must run. */
export const SKIP_BROWSER_TESTS = !HAVE_CHROMIUM && !IN_CI
export const skipWithoutChromium = (): void =>
	test.skip(`browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`, () => {})

/** Before a browser file's server starts: Chromium must be there (a failure in CI, never a skip), and the binary current. */
export function requireChromium(): void {
	expect(HAVE_CHROMIUM ? CHROMIUM : 'Chromium is required when CI=true: apt-get install -y chromium').toBe(CHROMIUM)
	ensureBinary()
}

/** Debian's Chromium, launched for one test file. */
export async function launchChromium(): Promise<Browser> {
	return (await import('playwright-core')).chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}

/** A browser file's afterAll: its contexts, then the browser, then the server. */
export async function closeAll(contexts: BrowserContext[], browser?: Browser, server?: Server): Promise<void> {
	for (const made of contexts) await made.close().catch(() => {})
	await browser?.close()
	await server?.stop()
}

/**
 * A wrong post to a sign-up link from this machine, as a browser on the site's own page sends it: what counts
 * toward an address's sign-up budget (docs/operations.md; opening a link never does).
 */
export const wrongSignupPost = (origin: string, probe: number) =>
	fetch(`${origin}/join/${String(probe).padStart(43, 'z')}`, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'null', 'sec-fetch-site': 'same-origin' },
		body: new URLSearchParams({ email: 'probe@example.test', username: 'probe', password: 'probe-password' })
	})

/** Posts an empty form to `action` from the page, as its own form would (the page then shows the answer). */
export const postFromPage = (page: Page, action: string) =>
	page.evaluate((to) => {
		const form = document.createElement('form')
		form.method = 'post'
		form.action = to
		document.body.append(form)
		form.submit()
	}, action)
