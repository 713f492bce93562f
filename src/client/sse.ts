/**
 * A server-sent events parser (the WHATWG "event stream interpretation"), fed
 * text as it arrives in chunks of any size: a line may end with LF, CRLF or CR
 * (also a CR at the end of one chunk and its LF at the start of the next),
 * lines starting with ":" are comments, several `data:` lines make one event's
 * data joined by newlines, and an empty line dispatches the event. Its own
 * rather than a package so the client keeps no dependencies (docs/client.md
 * "cfgsync watch").
 *
 * It is bounded: a line, or an event's data, longer than `maxChars` throws
 * `StreamTooLarge` before it is kept, so a hostile server cannot fill memory
 * by never ending a line.
 */

export interface ServerEvent {
	/** The event name; `message` when the event names none. */
	event: string
	data: string
	/** The `id:` in force after this event (the last one seen on the stream), as the server sent it: opaque. */
	id: string | undefined
}

export const MAX_EVENT_CHARS = 64 * 1024

export class StreamTooLarge extends Error {}

export function createSseParser(onEvent: (event: ServerEvent) => void, maxChars = MAX_EVENT_CHARS) {
	let pending = ''
	/** The last chunk ended with a CR: an LF starting the next one belongs to it. */
	let afterCr = false
	let started = false
	let event = ''
	let data: string[] = []
	let dataChars = 0
	let lastId: string | undefined

	function line(text: string): void {
		if (text === '') {
			if (data.length > 0) onEvent({ event: event || 'message', data: data.join('\n'), id: lastId })
			event = ''
			data = []
			dataChars = 0
			return
		}
		if (text.startsWith(':')) return
		const colon = text.indexOf(':')
		const field = colon === -1 ? text : text.slice(0, colon)
		let value = colon === -1 ? '' : text.slice(colon + 1)
		if (value.startsWith(' ')) value = value.slice(1)
		if (field === 'data') {
			dataChars += value.length + 1
			if (dataChars > maxChars) throw new StreamTooLarge(`an event larger than ${maxChars / 1024} KiB`)
			data.push(value)
		} else if (field === 'event') event = value
		else if (field === 'id' && !value.includes('\0')) lastId = value
		// `retry` and unknown fields are ignored: the client keeps its own backoff.
	}

	return {
		/** Parses a decoded chunk, calling onEvent for each complete event. */
		push(chunk: string): void {
			let text = chunk
			if (afterCr && text.startsWith('\n')) text = text.slice(1)
			afterCr = false
			if (!started && text.length > 0) {
				started = true
				if (text.startsWith('\uFEFF')) text = text.slice(1)
			}
			let from = 0
			for (;;) {
				const cr = text.indexOf('\r', from)
				const lf = text.indexOf('\n', from)
				const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf)
				if (end === -1) break
				const whole = pending + text.slice(from, end)
				pending = ''
				if (whole.length > maxChars) throw new StreamTooLarge(`a line longer than ${maxChars / 1024} KiB`)
				line(whole)
				if (text[end] === '\r') {
					if (end + 1 === text.length) afterCr = true
					else if (text[end + 1] === '\n') {
						from = end + 2
						continue
					}
				}
				from = end + 1
			}
			pending += text.slice(from)
			if (pending.length > maxChars) throw new StreamTooLarge(`a line longer than ${maxChars / 1024} KiB`)
		}
	}
}
