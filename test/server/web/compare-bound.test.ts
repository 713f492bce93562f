// docs/web.md "Comparing versions": a comparison is decided by size, never by the clock (the same two versions
// always get the same answer), and at most one per core runs at once, in worker threads; the others wait
// briefly, then get 503 with Retry-After. Timings (24 at once keep /healthz fast): compare-bound.e2e.test.ts.
import { afterEach, describe, expect, spyOn, test } from 'bun:test'
import { type Compared, ComparisonsBusy, createComparisons } from '../../../src/server/web/comparisons'
import { DIFF_LIMITS, diffData } from '../../../src/server/web/diff'
import { push, textOf, webApp } from '../../support/web'

/** A file of `count` lines where every `every`-th line changed between the two versions. */
function scattered(count: number, every: number) {
	const older = Array.from({ length: count }, (_, i) => `line ${i} of the file`)
	const newer = older.map((line, i) => (i % every === 0 ? `${line}, changed` : line))
	return { older: { files: { a: `${older.join('\n')}\n` } }, newer: { files: { a: `${newer.join('\n')}\n` } } }
}

const restore: (() => void)[] = []
afterEach(() => {
	for (const undo of restore.splice(0)) undo()
})

describe('decided by size', () => {
	test('the same comparison gets the same answer however slow the machine: a clock racing ahead changes nothing', () => {
		const { older, newer } = scattered(6_000, 3)
		const shown = diffData(older, newer)
		expect(shown[0]).toMatchObject({ status: 'changed', added: 2_000, removed: 2_000 })
		// Every look at the clock finds a second gone by.
		let clock = Date.now()
		const slow = spyOn(Date, 'now').mockImplementation(() => (clock += 1_000))
		restore.push(() => slow.mockRestore())
		expect(diffData(older, newer)).toEqual(shown)
	})

	test(`at most ${DIFF_LIMITS.maxEdits.toLocaleString('en')} edits in all: shown up to it, too large past it`, () => {
		const within = scattered(DIFF_LIMITS.maxEdits, 2)
		expect(diffData(within.older, within.newer)[0]).toMatchObject({ added: 5_000, removed: 5_000 })
		const past = scattered(DIFF_LIMITS.maxEdits + 2, 2)
		expect(() => diffData(past.older, past.newer)).toThrow(
			expect.objectContaining({ why: 'edits' }) as unknown as Error
		)
	})
})

describe('bounded in total: one comparison per slot, the others wait briefly', () => {
	/** A comparison that runs until the test lets it finish. */
	function held() {
		const finish: ((value: Compared) => void)[] = []
		const started: number[] = []
		const run = () =>
			new Promise<Compared>((resolve) => {
				started.push(1)
				finish.push(resolve)
			})
		return { run, finish, started }
	}
	const job = {
		older: new Uint8Array(),
		newer: new Uint8Array(),
		view: {
			configId: 'c',
			from: { id: 'a', version: 1 },
			to: { id: 'b', version: 2 },
			view: 'unified' as const,
			whitespace: 'show' as const
		}
	}

	test('past the slots, a comparison waits; it runs when a slot frees, or is refused with a retry time', async () => {
		const { run, finish, started } = held()
		const comparisons = createComparisons({ slots: 2, waitMs: 200, run })
		const first = comparisons.compare(job)
		const second = comparisons.compare(job)
		const third = comparisons.compare(job)
		await Bun.sleep(0)
		expect(started).toHaveLength(2)
		expect(comparisons.load).toEqual({ running: 2, waiting: 1 })
		finish.shift()?.('first')
		expect(await first).toBe('first')
		// The waiting one takes the freed slot.
		await Bun.sleep(0)
		expect(started).toHaveLength(3)
		// Nothing frees a slot now: a fourth waits its 200 ms, then is refused.
		const refused = await comparisons.compare(job).catch((error: unknown) => error)
		expect(refused).toBeInstanceOf(ComparisonsBusy)
		expect((refused as ComparisonsBusy).retryAfterSeconds).toBeGreaterThan(0)
		for (const done of finish.splice(0)) done('later')
		expect(await second).toBe('later')
		expect(await third).toBe('later')
		expect(comparisons.load).toEqual({ running: 0, waiting: 0 })
	})

	test('the Compare page, with every slot taken for longer than a comparison waits: 503 with Retry-After, saying what to do', async () => {
		const { run, finish, started } = held()
		const w = webApp({ comparisons: createComparisons({ slots: 1, waitMs: 50, run }) })
		const alice = await w.user('pro', 'alice')
		const id = await push(w, alice, { files: { a: 'one\n' } }, { name: 'c' })
		await push(w, alice, { files: { a: 'two\n' } }, { name: 'c' })
		const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as { id: string }[]
		const path = `/configs/${id}/compare?from=${versions[1]?.id}&to=${versions[0]?.id}`
		const browser = await w.signIn(alice)
		const busy = w.get(path, browser)
		// The first holds the slot before the second asks (on PostgreSQL its reads may otherwise come second).
		while (started.length === 0) await Bun.sleep(5)
		const refused = await w.get(path, browser)
		expect(refused.status).toBe(503)
		expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
		expect(textOf(refused.html)).toContain('try again in')
		finish.shift()?.('<p>the diff</p>')
		const shown = await busy
		expect(shown.status).toBe(200)
		expect(shown.html).toContain('<div id="diff"><p>the diff</p></div>')
	})

	test('by default the comparison runs in a worker thread and the page shows it', async () => {
		const w = webApp()
		const alice = await w.user('pro', 'alice')
		const id = await push(w, alice, { files: { a: 'alpha\nbeta\n' } }, { name: 'c' })
		await push(w, alice, { files: { a: 'alpha\ngamma\n' } }, { name: 'c' })
		const versions = (await w.call('GET', `/api/configs/${id}/versions`, { key: alice.key })).body as { id: string }[]
		const page = await w.get(
			`/configs/${id}/compare?from=${versions[1]?.id}&to=${versions[0]?.id}`,
			await w.signIn(alice)
		)
		expect(page.status).toBe(200)
		expect(textOf(page.html)).toContain('1 file changed')
		expect(textOf(page.html)).toContain('gamma')
	})
})
