import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { createSseParser, type ServerEvent, StreamTooLarge } from '../../src/client/sse'

/** docs/client.md "cfgsync watch": the event stream is read by the client's own bounded parser. */

const parse = (chunks: string[], max?: number): ServerEvent[] => {
	const events: ServerEvent[] = []
	const parser = createSseParser((event) => events.push(event), max)
	for (const chunk of chunks) parser.push(chunk)
	return events
}

const STREAM =
	': connected\n\nid: 0042\nevent: config\ndata: {"id":"c1","hash":"h"}\n\n: keep-alive\n\nevent: reset\ndata: {}\n\n'

describe('the event stream parser', () => {
	test('reads the frames the server sends: id, event, one JSON data line, comments', () => {
		expect(parse([STREAM])).toEqual([
			{ event: 'config', data: '{"id":"c1","hash":"h"}', id: '0042' },
			// The id stays in force until another one comes (what Last-Event-ID sends).
			{ event: 'reset', data: '{}', id: '0042' }
		])
	})

	test('the same events however the text is cut into chunks, also inside a line or between CR and LF', () => {
		const crlf = STREAM.replace(/\n/g, '\r\n')
		const cr = STREAM.replace(/\n/g, '\r')
		const whole = parse([STREAM])
		for (const text of [STREAM, crlf, cr]) {
			expect(parse([text])).toEqual(whole)
			for (let i = 0; i <= text.length; i++) expect(parse([text.slice(0, i), text.slice(i)])).toEqual(whole)
			expect(parse([...text])).toEqual(whole)
		}
		expect(parse(['data: a\r', '\ndata: b\r', '\r\n'])).toEqual([{ event: 'message', data: 'a\nb', id: undefined }])
	})

	test('for any cutting of any events (fast-check)', () => {
		const seed = Number(process.env.PROPERTY_SEED ?? Date.now() % 2 ** 31)
		console.log(`sse parser property: seed ${seed} (replay with PROPERTY_SEED=${seed})`)
		const value = fc.stringMatching(/^[^\r\n]*$/)
		const frame = fc.record({
			id: fc.stringMatching(/^[0-9a-z-]{1,20}$/),
			event: fc.constantFrom('config', 'revoked', 'reset', 'invitation'),
			data: fc.array(value, { minLength: 1, maxLength: 3 })
		})
		fc.assert(
			fc.property(
				fc.array(frame, { maxLength: 5 }),
				fc.constantFrom('\n', '\r\n', '\r'),
				fc.array(fc.nat(), { maxLength: 8 }),
				(frames, eol, cuts) => {
					const text = frames
						.map(
							(f) =>
								[`id: ${f.id}`, `event: ${f.event}`, ...f.data.map((d) => `data: ${d}`), ': note', ''].join(eol) + eol
						)
						.join('')
					const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b)
					const chunks = [0, ...points].map((from, i) => text.slice(from, [...points, text.length][i]))
					expect(parse(chunks)).toEqual(frames.map((f) => ({ event: f.event, data: f.data.join('\n'), id: f.id })))
				}
			),
			{ seed, numRuns: 300 }
		)
	})

	test('multi-line data, a field without a space or value, a BOM, unknown fields; an event without data is none', () => {
		expect(
			parse(['\uFEFFdata:first\ndata\ndata:  two spaces\nretry: 5\nfoo: bar\n\nevent: empty\n\nid\ndata: x\n\n'])
		).toEqual([
			{ event: 'message', data: 'first\n\n two spaces', id: undefined },
			{ event: 'message', data: 'x', id: '' }
		])
		// An event cut off by the end of the stream is not dispatched.
		expect(parse(['event: config\ndata: {}\n'])).toEqual([])
	})

	test('a line or an event larger than the bound throws before it is kept', () => {
		expect(() => parse(['data: ', 'x'.repeat(200)], 100)).toThrow(StreamTooLarge)
		expect(() => parse([`: ${'x'.repeat(200)}\n`], 100)).toThrow(StreamTooLarge)
		expect(() => parse([Array.from({ length: 20 }, () => `data: ${'y'.repeat(10)}\n`).join('')], 100)).toThrow(
			StreamTooLarge
		)
		expect(parse([`data: ${'z'.repeat(90)}\n\n`], 100)).toHaveLength(1)
	})
})
