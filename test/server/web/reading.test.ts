// docs/web.md, reading a config: its page leads with the history (who pushed from which device) and
// the comparison form, long files are collapsed with "Show all" and each has "Copy", row buttons name
// their version; the comparison marks changed words, can ignore whitespace, expands its folds, has
// the version pickers and the tool in its title, and shows one column on a phone — within its budget.
import { describe, expect, test } from 'bun:test'
import { createAuditEvents } from '../../../src/server/modules/audit/event'
import { DIFF_LIMITS, diffData, type DiffLine, type Gap } from '../../../src/server/web/diff'
import { push, textOf, webApp } from '../../support/web'
import { buildWorld } from '../../support/web-world'

/** A file of `count` numbered YAML-ish lines, indented by `indent`. */
const lines = (count: number, indent = '  ', change?: (i: number) => string | undefined) =>
	Array.from({ length: count }, (_, i) => `${indent}${change?.(i + 1) ?? `key${i + 1}: value number ${i + 1}`}`)
		.join('\n')
		.concat('\n')

/** A user with a config of three versions: a 300-line file, the same re-indented with one word changed, then a rollback. */
async function reading() {
	const w = webApp()
	const alice = await w.user('pro', 'alice')
	const id = await push(w, alice, { files: { 'settings.yaml': lines(300) } }, { name: 'main' })
	await push(
		w,
		alice,
		{ files: { 'settings.yaml': lines(300, '    ', (i) => (i === 150 ? 'key150: value amended 150' : undefined)) } },
		{ name: 'main' }
	)
	const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as {
		id: string
		version: number
	}[]
	const v = (n: number) => versions.find((version) => version.version === n)?.id as string
	return { w, alice, id, v1: v(1), v2: v(2), browser: await w.signIn(alice) }
}

describe("a config's page (docs/web.md)", () => {
	test('history (who, from which device) and the comparison form come before the data; rows name their version; Compare is primary', async () => {
		const { w, id, v1, browser } = await reading()
		const rolled = await w.post(`/configs/${id}/rollback`, browser, { version: v1, confirmed: 'yes' })
		expect(rolled.status).toBe(303)
		const page = await w.get(`/configs/${id}`, browser)
		expect(page.status).toBe(200)
		const history = page.html.indexOf('<h2 id="history">')
		const compareForm = page.html.indexOf('Compare two versions')
		const data = page.html.indexOf('<h2 id="current-data">')
		const firstLine = page.html.indexOf('key1: value number 1')
		expect(history).toBeGreaterThan(-1)
		expect(history).toBeLessThan(compareForm)
		expect(compareForm).toBeLessThan(data)
		expect(data).toBeLessThan(firstLine)
		const text = textOf(page.html)
		// Pushed through the API with a key named "test"; the rollback from the web application.
		expect(text).toContain('Pushed by')
		expect(text).toContain('alice from test')
		expect(text).toContain('alice from web (rolled back to version 1)')
		expect(text).not.toContain('not recorded')
		// Each row's buttons carry the version in their accessible name; Compare is the primary style.
		for (const version of [1, 2]) {
			expect(text).toContain(`Compare version ${version}`)
			expect(text).toContain(`Roll back to version ${version}`)
		}
		expect(page.html).toMatch(/<a class="button" href="\/configs\/[^"]+\/compare\?from=[^"]+">Compare<span/)
		expect(page.html).toContain('<button type="submit" class="secondary">Roll back<span')
		expect(page.html).not.toContain('<button type="submit">Roll back')
	})

	test('every member of the team sees who pushed each version of a team config, and from which device; never the address', async () => {
		const { w, shared, users, browsers } = await buildWorld()
		const teamId = (await w.store.teams.findForMember('crew', users.ann.id))?.team.id
		await push(w, users.ann, { theme: 'blue' }, { name: 'shared', teamId })
		// A plain member may not read the team's activity (403), and still reads who made each version here.
		expect((await w.get('/teams/crew/activity', browsers.member)).status).toBe(403)
		for (const who of [browsers.member, browsers.admin, browsers.owner]) {
			const page = await w.get(`/configs/${shared.id}`, who)
			const text = textOf(page.html)
			expect(text).toContain('ann from test')
			expect(text).toContain('alice from test')
			expect(text).not.toContain('not recorded')
			expect(text).not.toContain('activity log')
			// The pushes came from 198.51.100.7: who and which device, never where from.
			expect(page.html).not.toContain('198.51.100.7')
		}
	})

	test('a version the activity log no longer holds says so, and why; the others still say who pushed them', async () => {
		const { w, shared, users, browsers } = await buildWorld()
		// The log keeps events for a while (CFGSYNC_AUDIT_RETENTION_DAYS): the first two pushes have left it.
		w.clock.advance(60_000)
		const teamId = (await w.store.teams.findForMember('crew', users.ann.id))?.team.id
		await w.store.audit.prune(new Date(w.clock.now() - 1000).toISOString())
		await push(w, users.ann, { theme: 'blue' }, { name: 'shared', teamId })
		const text = textOf((await w.get(`/configs/${shared.id}`, browsers.member)).html)
		expect(text).toContain('ann from test')
		expect(text.match(/no longer in the activity log/g)?.length).toBe(2)
		expect(text).toContain('The activity log keeps events for a limited time')
		expect(text).not.toContain('not recorded')
	})

	test('the header is one sentence: the exact time in brackets inside it, the comma straight after', async () => {
		const { w, id, browser } = await reading()
		const page = await w.get(`/configs/${id}`, browser)
		const sentence = /<p class="config-summary">([\s\S]*?)<\/p>/.exec(page.html)?.[1] ?? ''
		// textOf puts a space for every tag: the markup check below shows the comma follows the bracket directly.
		expect(
			textOf(sentence)
				.replace(/\s+([,.])/g, '$1')
				.trim()
		).toBe('Version 2, updated just now (2026-11-22 10:00:00 UTC), personal config. Current data')
		// The exact time is text in the sentence (no hover needed), set inline; nothing but the comma follows it.
		expect(sentence).toMatch(
			/updated <span class="when inline"><time datetime="[^"]+">just now<\/time> <span class="exact">\(2026-11-22 10:00:00 UTC\)<\/span><\/span>, personal config\./
		)
		const css = (await w.get(/href="(\/assets\/app\.css\?v=[0-9a-f]{12})"/.exec(page.html)?.[1] as string)).html
		expect(css).toMatch(/\.when\.inline \.exact \{[^}]*display: inline;/)
	})

	test('a page of older versions finds who pushed them however many events came after', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const id = await push(w, alice, { v: 1 }, { name: 'long' })
		for (let v = 2; v <= 4; v++) await push(w, alice, { v }, { name: 'long' })
		// An hour later, 1,100 more events about the config (more than the pages read from the newest one).
		w.clock.advance(3_600_000)
		const event = createAuditEvents(w.clock)
		for (let i = 0; i < 1100; i++)
			await w.store.audit.record(
				event(
					'config.pushed',
					{ userId: alice.id, username: 'alice', address: null },
					{
						target: { type: 'config', id, name: 'claude-code/long' }
					}
				)
			)
		const older = textOf((await w.get(`/configs/${id}?before=3`, await w.signIn(alice))).html)
		expect(older.match(/alice from test/g)?.length).toBe(2)
		expect(older).not.toContain('no longer in the activity log')
	})

	test('a file past 30 lines: its first 30, then a "Show all" button (aria-expanded, aria-controls) for the rest, folded; without a script the stylesheet shows it; Copy copies the whole file', async () => {
		const { w, id, browser } = await reading()
		const page = await w.get(`/configs/${id}`, browser)
		const file =
			/<div id="(file-text-\d+)" class="file-text"><pre tabindex="0" role="region" aria-labelledby="file-\d+"><code>([\s\S]*?)<\/code><\/pre>(<button[^>]*>[\s\S]*?<\/button>)<pre id="([^"]+)" tabindex="0" role="region" aria-label="settings.yaml, lines 31 to 300" hidden data-folded><code>([\s\S]*?)<\/code><\/pre><\/div>/.exec(
				page.html
			)
		expect(file).not.toBeNull()
		const [, fileId, shown, button, restId, rest] = file as unknown as string[]
		expect((shown as string).split('\n').filter(Boolean)).toHaveLength(30)
		expect(shown).toEndWith('    key30: value number 30\n')
		// A real button, named "Show all …", controlling the rest, which comes folded.
		expect(button).toStartWith('<button type="button"')
		expect(button).toContain('aria-expanded="false"')
		expect(button).toContain(`aria-controls="${restId}"`)
		expect(button).toContain('data-collapses')
		expect(button).not.toMatch(/\shidden[\s>]/)
		// Both labels: the stylesheet shows the one that fits aria-expanded ("Show less" once open).
		expect(textOf(button as string).trim()).toBe('Show all of settings.yaml (300 lines) Show less of settings.yaml')
		expect(page.html).not.toContain('<details')
		expect(`${shown}${rest}`).toBe(lines(300, '    ', (i) => (i === 150 ? 'key150: value amended 150' : undefined)))
		expect(page.html).toContain(
			`<button type="button" class="secondary small" data-copy="${fileId}" hidden>Copy<span class="visually-hidden"> settings.yaml</span></button><span id="${fileId}-status" class="copy-status" role="status"></span>`
		)
		// The script that makes the button work; without it (html.no-js) the stylesheet unfolds the rest.
		const script = /<script src="(\/assets\/app\.js\?v=[0-9a-f]+)" defer><\/script>/.exec(page.html)?.[1] as string
		expect((await w.get(script)).html).toContain('data-collapses')
		expect(page.html).toContain('<html lang="en" class="no-js">')
		const css = /<link rel="stylesheet" href="(\/assets\/app\.css\?v=[0-9a-f]+)"/.exec(page.html)?.[1] as string
		expect((await w.get(css)).html).toContain('.no-js pre[data-folded][hidden]')
	})

	test('a short file has Copy and no "Show all"', async () => {
		const w = webApp()
		const bob = await w.user('pro', 'bob')
		const id = await push(w, bob, { files: { 'a.txt': 'one\ntwo\n', 'b.txt': 'three' } }, { name: 'small' })
		const page = await w.get(`/configs/${id}`, await w.signIn(bob))
		expect(page.html).not.toContain('Show all')
		expect(page.html.match(/data-copy="file-text-\d+"/g)).toEqual([
			'data-copy="file-text-0"',
			'data-copy="file-text-1"'
		])
		expect(page.html).toContain(
			'<div id="file-text-1" class="file-text"><pre tabindex="0" role="region" aria-labelledby="file-1"><code>three</code></pre></div>'
		)
	})
})

describe('the comparison page (docs/web.md)', () => {
	test('the tool is in its title and heading; two version pickers and "Ignore whitespace" in a GET form', async () => {
		const { w, id, v1, v2, browser } = await reading()
		const page = await w.get(`/configs/${id}/compare?from=${v1}&to=${v2}`, browser)
		expect(page.status).toBe(200)
		expect(/<title>([^<]*)<\/title>/.exec(page.html)?.[1]).toContain('Claude Code · main')
		expect(textOf(/<h1>([\s\S]*?)<\/h1>/.exec(page.html)?.[1] ?? '')).toBe('Claude Code · main: version 1 → version 2')
		const form =
			/<form method="get" action="\/configs\/[^"]+\/compare" class="compare-form"[^>]*>([\s\S]*?)<\/form>/.exec(
				page.html
			)?.[1] as string
		expect(form).toBeDefined()
		expect(form).toContain('<label for="compare-from">From version</label>')
		expect(form).toContain('<label for="compare-to">To version</label>')
		expect(form).toContain(`<option value="${v1}" selected>1</option>`)
		expect(form).toContain(`<option value="${v2}" selected>2</option>`)
		expect(form).toContain('<input type="checkbox" name="ws" value="ignore"/>')
		expect(form).toContain('Ignore whitespace')
		// The form's own answer: the other order, ignoring whitespace, keeps the checkbox checked.
		const swapped = await w.get(`/configs/${id}/compare?from=${v2}&to=${v1}&ws=ignore`, browser)
		expect(swapped.html).toContain('<input type="checkbox" name="ws" value="ignore" checked/>')
		expect(textOf(swapped.html)).toContain('version 2 → version 1')
	})

	test('a re-indent with one changed word: every line without ws=ignore, only that line with it, and the word marked', async () => {
		const { w, id, v1, v2, browser } = await reading()
		const all = await w.get(`/configs/${id}/compare?from=${v1}&to=${v2}`, browser)
		expect(textOf(all.html)).toContain('+300 −300')
		// Whitespace changes are marked too: the indent that was added.
		expect(all.html).toContain(
			'<ins><span class="visually-hidden">added: </span><mark>    </mark>key1: value number 1</ins>'
		)
		const ignoring = await w.get(`/configs/${id}/compare?from=${v1}&to=${v2}&ws=ignore`, browser)
		const text = textOf(ignoring.html)
		expect(text).toContain('+1 −1')
		expect(text).toContain('ignoring whitespace')
		expect(ignoring.html).toContain('<mark>amended</mark>')
		expect(ignoring.html).not.toContain('key149: value number 149</ins>')
		// The view toggle keeps ignoring whitespace.
		expect(ignoring.html).toMatch(
			/href="\/configs\/[^"]+\/compare\?from=[^"&]+&amp;to=[^"&]+&amp;view=split&amp;ws=ignore"/
		)
	})

	test('folded runs of unchanged lines: a button (aria-expanded, aria-controls) for each, which fetches its lines, and a link without a script', async () => {
		const { w, id, v1, v2, browser } = await reading()
		for (const view of ['', '&view=split']) {
			const page = await w.get(`/configs/${id}/compare?from=${v1}&to=${v2}&ws=ignore${view}`, browser)
			const folds = [
				...page.html.matchAll(
					/<tr class="gap" id="at-([^"]+)"><td colspan="(?:4|6)">(<button[^>]*>[^<]*<\/button>)<a class="fold" href="([^"]+)">[^<]*<\/a><div id="([^"]+)" class="fold-lines" hidden data-folded><\/div><\/td><\/tr>/g
				)
			]
			// Side by side carries the one-column table too (for phones): its folds come after.
			expect(folds.map((fold) => textOf(fold[2] as string).trim())).toEqual(
				view === ''
					? ['⋯ 146 unchanged lines', '⋯ 147 unchanged lines']
					: ['⋯ 146 unchanged lines', '⋯ 147 unchanged lines', '⋯ 146 unchanged lines', '⋯ 147 unchanged lines']
			)
			for (const [, row, button, link, partId] of folds) {
				expect(button).toStartWith('<button type="button"')
				expect(button).toContain('aria-expanded="false"')
				expect(button).toContain(`aria-controls="${partId}"`)
				expect(row).toBe(partId)
				expect(button).toContain('data-collapses')
				expect(button).toContain(`data-fetch="${link}"`)
				expect(button).not.toMatch(/\shidden[\s>]/)
			}
			// Every id once on the page.
			const ids = folds.map((fold) => fold[4])
			expect(new Set(ids).size).toBe(ids.length)
			// The page holds none of the folded lines; opening a fold fetches them.
			expect(page.html).not.toContain('key1: value number 1<')
			const opened = await w.get((folds[0]?.[3] ?? '').replace(/&amp;/g, '&'), browser, { 'hx-request': 'true' })
			expect(opened.html).toContain('key1: value number 1<')
			expect(opened.html).toContain('key146: value number 146<')
			const last = await w.get((folds[1]?.[3] ?? '').replace(/&amp;/g, '&'), browser, { 'hx-request': 'true' })
			expect(last.html).toContain('key300: value number 300<')
			expect(page.html).not.toContain('<details')
		}
	})

	test('side by side also carries the one-column table, which the stylesheet shows below 640 px', async () => {
		const { w, id, v1, v2, browser } = await reading()
		const page = await w.get(`/configs/${id}/compare?from=${v1}&to=${v2}&ws=ignore&view=split`, browser)
		expect(page.html).toContain('<table class="diff split wide-only">')
		expect(page.html).toContain('<table class="diff unified narrow-only">')
		const css = await w.get(/href="(\/assets\/app\.css\?v=[0-9a-f]{12})"/.exec(page.html)?.[1] as string)
		expect(css.html).toMatch(/@media \(max-width: 639\.98px\) \{\s*table\.diff\.wide-only,[^{]*\{\s*display: none;/)
		// Nor is side by side said or offered there (the toolbar's link and words are wide-only too).
		expect(page.html).toContain('class="wide-only">Show in one column</a>')
		// Each table fixes its columns in a colgroup, whatever its first row (a fold spans them all).
		expect(page.html).toContain('<table class="diff split wide-only"><colgroup><col class="ln"/><col class="mark"/>')
		expect(page.html).toContain('<table class="diff unified narrow-only"><colgroup><col class="ln"/><col class="ln"/>')
	})
})

describe('word marks are bounded by size (docs/web.md)', () => {
	test('past the characters a comparison may mark, changed lines are shown whole, unmarked, and the comparison still answers', () => {
		const older = { files: { a: lines(200) } }
		const newer = { files: { a: lines(200, '  ', (i) => `key${i}: value changed ${i}`) } }
		const marked = diffData(older, newer)[0]?.lines.filter((line) => line.kind !== 'gap') as DiffLine[]
		expect(marked.filter((line) => line.parts).length).toBe(400)
		const unmarked = diffData(older, newer, { ...DIFF_LIMITS, wordMaxChars: 0 })[0]?.lines as (DiffLine | Gap)[]
		expect(unmarked.filter((line) => line.kind === 'added')).toHaveLength(200)
		expect(unmarked.some((line) => line.kind !== 'gap' && line.parts)).toBe(false)
	})

	test('long lines and lines that changed past recognition are not word-diffed', () => {
		const long = `x ${'a '.repeat(DIFF_LIMITS.wordMaxLineLength)}`
		const [file] = diffData({ files: { a: `${long}\n` } }, { files: { a: `${long}b\n` } })
		expect(file?.lines.some((line) => line.kind !== 'gap' && line.parts)).toBe(false)
		const [other] = diffData({ files: { a: 'alpha beta\n' } }, { files: { a: 'gamma delta\n' } })
		expect(other?.lines.some((line) => line.kind !== 'gap' && line.parts)).toBe(false)
	})

	test('8,000 changed lines of 900 characters: the same marks every time, at most wordMaxChars of them', () => {
		// 60 words of 15 characters, every fourth one changed: each pair is marked, until wordMaxChars is spent.
		const line = (seed: string, i: number) =>
			Array.from({ length: 60 }, (_, k) => (k % 4 === 0 ? `${seed}${i}-${k}` : `word-${k}`).padEnd(15, '.')).join(' ')
		const older = Array.from({ length: 4000 }, (_, i) => `same ${line('o', i)}`).join('\n')
		const newer = Array.from({ length: 4000 }, (_, i) => `same ${line('n', i)}`).join('\n')
		const markedLines = () =>
			(diffData({ files: { a: older } }, { files: { a: newer } })[0]?.lines ?? []).filter(
				(row) => row.kind !== 'gap' && row.parts
			).length
		const first = markedLines()
		expect(first).toBeGreaterThan(0)
		expect(first).toBeLessThan((2 * DIFF_LIMITS.wordMaxChars) / 1_000)
		expect(markedLines()).toBe(first)
	})
})
