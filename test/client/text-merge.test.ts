import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { sha256 } from '../../src/client/hash'
import { judge } from '../../src/client/sync/engine'
import { jsonSyntaxError, parseJsonc } from '../../src/client/sync/json'
import { markersLeft, plainSplitsOf } from '../../src/client/sync/syntax'
import { conflictMarkerLine, mergeLines, pick, splitLines, withMarkers } from '../../src/client/sync/text-merge'

const base = (content: string) => ({ content, hash: sha256(content) })

describe('the line merge (docs/sync-model.md, "Text files")', () => {
	test('lines keep their endings: joined, they are the text byte for byte', () => {
		for (const text of ['', 'a', 'a\n', 'a\r\nb', '\uFEFFa\n\nb\r\n', '\n\n'])
			expect(splitLines(text).join('')).toBe(text)
	})

	test('one side unchanged gives the other byte for byte; both sides alike give it once; a clash is only where the sides differ (fast-check, seed printed)', () => {
		const seed = process.env.PROPERTY_SEED ? Number(process.env.PROPERTY_SEED) : Date.now() % 2 ** 31
		console.log(`line merge property: seed ${seed} (replay with PROPERTY_SEED=${seed})`)
		const text = fc.array(fc.constantFrom('a\n', 'b\n', '\n', 'c\r\n', 'd'), { maxLength: 12 }).map((l) => l.join(''))
		fc.assert(
			fc.property(text, text, text, (o, a, b) => {
				expect(pick(mergeLines(o, a, o) ?? [], 'mine')).toBe(a)
				expect(pick(mergeLines(o, o, b) ?? [], 'mine')).toBe(b)
				expect(pick(mergeLines(o, a, a) ?? [], 'theirs')).toBe(a)
				const regions = mergeLines(o, a, b) ?? []
				for (const region of regions) if (!('ok' in region)) expect(region.mine).not.toEqual(region.theirs)
			}),
			{ seed, numRuns: 500 }
		)
	})

	test('markers: this machine, then the server (with its version); a last line without a newline gets one', () => {
		const regions = mergeLines('a\nb', 'a\nmine', 'a\ntheirs') ?? []
		expect(withMarkers(regions, 4)).toBe('a\n<<<<<<< this machine\nmine\n=======\ntheirs\n>>>>>>> server (version 4)\n')
		expect(conflictMarkerLine(withMarkers(regions, 4))).toBe(2)
	})

	test('a push refuses only a complete set of markers, and says where and what to do', () => {
		expect(conflictMarkerLine('<<<<<<< HEAD\nno split or end\n')).toBeUndefined()
		expect(conflictMarkerLine('# Git\nA conflict looks like <<<<<<< this\n=======\n')).toBeUndefined()
		expect(conflictMarkerLine('x\r\n<<<<<<< this machine\r\na\r\n=======\r\nb\r\n>>>>>>> server\r\n')).toBe(2)
		expect(markersLeft('x\n<<<<<<< this machine\na\n=======\nb\n>>>>>>> server (version 2)\n')).toBe(
			'still marked with conflict markers (the first at line 2, from cfgsync resolve --edit): keep the lines you want between <<<<<<< and >>>>>>>, delete the marker lines'
		)
	})

	test('a marker line resolve --edit wrote is refused alone too; a lone ======= only beyond the plain ones the file had', () => {
		expect(markersLeft('x\n<<<<<<< this machine\na\n')).toContain('line 2')
		expect(markersLeft('x\na\n=======\nb\n>>>>>>> server (version 2)\n')).toContain('line 5')
		expect(markersLeft('Title\n=======\nx\n')).toBeUndefined()
		expect(markersLeft('Title\n=======\nx\n', 1)).toBeUndefined()
		expect(markersLeft('Title\n=======\na\n=======\nb\n', 1)).toContain('line 4')
		expect(plainSplitsOf('Title\n=======\n<<<<<<< this machine\na\n=======\nb\n>>>>>>> server\n')).toBe(1)
	})

	test('content from the server never costs long: a huge file that differs everywhere is a whole-file conflict, quickly', () => {
		const many = (prefix: string) => Array.from({ length: 60_000 }, (_, i) => `${prefix}${i % 3}\n`).join('')
		const started = performance.now()
		const v = judge('.claude/CLAUDE.md', base(many('o')), many('a'), many('b'), sha256)
		expect(v).toMatchObject({ kind: 'conflict', keys: ['the whole file (too large to merge line by line)'] })
		// A long file (4,000 lines, far more than any tool's) changed at both ends still merges.
		const big = Array.from({ length: 4_000 }, (_, i) => `line ${i}\n`)
		const local = [...big]
		local[0] = 'mine\n'
		const remote = [...big]
		remote[3_999] = 'theirs\n'
		const merged = judge('.claude/CLAUDE.md', base(big.join('')), local.join(''), remote.join(''), sha256)
		expect(merged.kind).toBe('merged')
		expect(performance.now() - started).toBeLessThan(5_000)
	})
})

describe('JSON nested too deeply', () => {
	test('is not valid, with a reason, instead of overflowing the stack', () => {
		const deep = `${'['.repeat(30_000)}${']'.repeat(30_000)}`
		expect(parseJsonc(deep)).toBeUndefined()
		expect(jsonSyntaxError(deep)).toEqual({ line: 1, column: 2049, problem: 'it nests more than 2,048 levels deep' })
		const v = judge('.claude/settings.json', base('{"a":1}'), '{"a":2}', deep, sha256)
		expect(v.kind).toBe('conflict')
		expect(parseJsonc(`${'['.repeat(2048)}${']'.repeat(2048)}`)).toBeDefined()
	})
})
