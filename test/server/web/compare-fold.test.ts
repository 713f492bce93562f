// docs/web.md, comparing versions: the page holds no folded run of unchanged lines; each fold is fetched
// when opened, from /configs/:id/compare/fold (htmx), or shown on a page of its own without a script. The
// route checks what the comparison checks and bounds its input: a bad address is a 400 page, never a 500.
// Runs on either engine (CFGSYNC_TEST_ENGINE).
import { beforeAll, describe, expect, test } from 'bun:test'
import { push, textOf, webApp, type Browser } from '../../support/web'

/** A file of `count` lines, "line-N stays"; `change` may say another text for some lines. */
const file = (count: number, change?: (n: number) => string | undefined) =>
	`${Array.from({ length: count }, (_, i) => change?.(i + 1) ?? `line-${i + 1} stays`).join('\n')}\n`

const HTMX = { 'hx-request': 'true' }

/** The code cells' texts of the rows of a diff table, in order. */
const codeTexts = (html: string) =>
	[...html.matchAll(/<td class="code[^"]*">([\s\S]*?)<\/td>/g)].map((cell) => textOf(cell[1] as string).trim())

/** Every fold's opening request (its button's data-fetch, which app.js has htmx fetch) and its link for no script. */
const foldsOf = (html: string) =>
	[...html.matchAll(/<tr class="gap" id="at-fold-[^"]+">([\s\S]*?)<\/tr>/g)].map((row) => {
		const cell = row[1] as string
		const unescaped = (value: string | undefined) => (value ?? '').replace(/&amp;/g, '&')
		return {
			button: /<button[^>]*>/.exec(cell)?.[0] ?? '',
			fetch: unescaped(/<button[^>]*\sdata-fetch="([^"]+)"/.exec(cell)?.[1]),
			link: unescaped(/<a[^>]*\shref="([^"]+)"/.exec(cell)?.[1]),
			label: textOf(/<button[^>]*>([\s\S]*?)<\/button>/.exec(cell)?.[1] ?? '').trim()
		}
	})

describe('a one-line change in a 3,000-line file (docs/web.md: folded runs are fetched when opened)', () => {
	let w: ReturnType<typeof webApp>
	let alice: Browser
	let bob: Browser
	let id = ''
	let v1 = ''
	let v2 = ''
	const compare = (extra = '') => `/configs/${id}/compare?from=${v1}&to=${v2}${extra}`

	beforeAll(async () => {
		w = webApp()
		const owner = await w.user('pro', 'alice')
		id = await push(w, owner, { files: { 'big.txt': file(3000), 'small.txt': 'one\n' } }, { name: 'main' })
		await push(
			w,
			owner,
			{ files: { 'big.txt': file(3000, (n) => (n === 1500 ? 'line-1500 changed' : undefined)), 'small.txt': 'one\n' } },
			{ name: 'main' }
		)
		const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: owner.key })).body as {
			id: string
			version: number
		}[]
		v1 = versions.find((version) => version.version === 1)?.id as string
		v2 = versions.find((version) => version.version === 2)?.id as string
		alice = await w.signIn(owner)
		bob = await w.signIn(await w.user('pro', 'bob'))
	})

	test('the page is under 100 KB and holds the change and its context, none of the folded lines', async () => {
		for (const view of ['', '&view=split', '&ws=ignore']) {
			const page = await w.get(compare(view), alice)
			expect(page.status).toBe(200)
			expect(Buffer.byteLength(page.html)).toBeLessThan(100_000)
			expect(page.html).toContain('line-1500 <mark>changed</mark>')
			for (const n of [1497, 1499, 1501, 1503]) expect(page.html).toContain(`line-${n} stays`)
			for (const n of [1, 2, 500, 1496, 1504, 2999, 3000]) expect(page.html).not.toContain(`line-${n} stays`)
		}
	})

	test('each fold is a button (aria-expanded, aria-controls) that fetches exactly its lines, and a link for no script', async () => {
		const page = await w.get(compare(), alice)
		const folds = foldsOf(page.html)
		expect(folds.map((fold) => fold.label)).toEqual(['⋯ 1,496 unchanged lines', '⋯ 1,497 unchanged lines'])
		const expected = [
			Array.from({ length: 1496 }, (_, i) => `line-${i + 1} stays`),
			Array.from({ length: 1497 }, (_, i) => `line-${i + 1504} stays`)
		]
		for (const [index, fold] of folds.entries()) {
			expect(fold.button).toStartWith('<button type="button"')
			expect(fold.button).toContain('aria-expanded="false"')
			const controls = /aria-controls="([^"]+)"/.exec(fold.button)?.[1] as string
			// The part it controls is on the page, folded and empty until opened.
			expect(page.html).toContain(`<div id="${controls}" class="fold-lines" hidden data-folded></div>`)
			expect(fold.fetch).toStartWith(`/configs/${id}/compare/fold?`)
			const opened = await w.get(fold.fetch, alice, HTMX)
			expect(opened.status).toBe(200)
			expect(codeTexts(opened.html)).toEqual(expected[index] as string[])
			// Its line numbers: both sides, the same here (the change kept the count).
			expect(opened.html).toContain(`<td class="ln">${index === 0 ? 1 : 1504}</td>`)
			expect(opened.html).not.toContain('<!DOCTYPE html>')
			// Without a script the link shows the same lines on a page of the application, with a way back.
			expect(fold.link).toBe(fold.fetch)
			const shown = await w.get(fold.link, alice)
			expect(shown.status).toBe(200)
			expect(shown.html).toStartWith('<!DOCTYPE html>')
			expect(codeTexts(shown.html)).toEqual(expected[index] as string[])
			expect(shown.html).toContain(`href="${compare().replace(/&/g, '&amp;')}#at-${controls}"`)
		}
	})

	test('side by side and ignoring whitespace fetch rows of their own view', async () => {
		const split = foldsOf((await w.get(compare('&view=split'), alice)).html)
		// The split table's two folds, then the one-column table's (shown on a phone).
		expect(split).toHaveLength(4)
		expect(split[0]?.fetch).toContain('view=split')
		expect(split[2]?.fetch).not.toContain('view=split')
		const rows = await w.get(split[0]?.fetch as string, alice, HTMX)
		expect(rows.status).toBe(200)
		expect(rows.html).toContain('<table class="diff split">')
		expect(codeTexts(rows.html)).toHaveLength(2 * 1496)
		const ignoring = foldsOf((await w.get(compare('&ws=ignore'), alice)).html)
		expect(ignoring[0]?.fetch).toContain('ws=ignore')
		expect((await w.get(ignoring[0]?.fetch as string, alice, HTMX)).status).toBe(200)
	})

	test('the fold route answers as the comparison does to whoever may not see the config', async () => {
		const fold = foldsOf((await w.get(compare(), alice)).html)[0]?.fetch as string
		for (const headers of [{}, HTMX]) {
			const page = await w.get(compare(), bob, headers)
			const opened = await w.get(fold, bob, headers)
			expect(page.status).toBe(404)
			expect(opened.status).toBe(page.status)
			expect(opened.html).not.toContain('line-1 stays')
		}
		const signedOut = await w.get(fold)
		expect(signedOut.status).toBe(303)
		expect(signedOut.headers.get('location')).toBe(`/?next=${encodeURIComponent(fold)}`)
		// An unknown version of this config: the comparison's 404.
		const unknown = fold.replace(`from=${v1}`, 'from=nope')
		expect((await w.get(unknown, alice)).status).toBe(
			(await w.get(compare().replace(`from=${v1}`, 'from=nope'), alice)).status
		)
	})

	test('a bad or out-of-bounds run is a 400 page, never a 500, and shows nothing', async () => {
		const fold = foldsOf((await w.get(compare(), alice)).html)[0]?.fetch as string
		const query = new URL(fold, 'http://x').searchParams
		const withParams = (change: Record<string, string | null>) => {
			const next = new URLSearchParams(query)
			for (const [name, value] of Object.entries(change))
				if (value === null) next.delete(name)
				else next.set(name, value)
			return `/configs/${id}/compare/fold?${next}`
		}
		const bad: Record<string, string | null>[] = [
			{ start: null },
			{ end: 'x' },
			{ start: '0' },
			{ start: '-3' },
			{ start: '1.5' },
			{ start: '10', end: '9' },
			{ end: '3001', start: '2999', old: '2999' },
			{ start: '1', end: '3000', old: '1' },
			{ old: '0' },
			{ old: '2999' },
			{ start: '1', end: '1500', old: '1' },
			{ old: '2' },
			{ file: 'missing.txt' },
			{ file: null },
			{ start: '1e3' },
			{ end: '99999999999999999999' },
			{ view: 'sideways' },
			{ from: null },
			{ to: '' }
		]
		for (const change of bad)
			for (const headers of [{}, HTMX]) {
				const answer = await w.get(withParams(change), alice, headers)
				expect({ change, status: answer.status }).toEqual({ change, status: 400 })
				expect(answer.html).toContain('role="alert"')
				expect(answer.html).not.toContain('line-1 stays')
			}
		// A shorter run inside a fold is fine: the lines are the same in both versions.
		const part = await w.get(withParams({ start: '10', end: '12', old: '10' }), alice, HTMX)
		expect(part.status).toBe(200)
		expect(codeTexts(part.html)).toEqual(['line-10 stays', 'line-11 stays', 'line-12 stays'])
	})

	test('a run is at most 20,000 lines', async () => {
		const owner = await w.user('pro', 'carol')
		const long = await push(w, owner, { files: { 'a.txt': file(20_010) } }, { name: 'long' })
		await push(
			w,
			owner,
			{ files: { 'a.txt': file(20_010, (n) => (n === 20_010 ? 'end' : undefined)) } },
			{ name: 'long' }
		)
		const versions = (await w.call('GET', `/api/configs/${long}/versions`, { key: owner.key })).body as {
			id: string
			version: number
		}[]
		const [to, from] = versions.map((version) => version.id)
		const carol = await w.signIn(owner)
		const at = (end: number) =>
			`/configs/${long}/compare/fold?from=${from}&to=${to}&file=a.txt&start=1&end=${end}&old=1`
		expect((await w.get(at(20_000), carol, HTMX)).status).toBe(200)
		expect((await w.get(at(20_001), carol, HTMX)).status).toBe(400)
	})
})
