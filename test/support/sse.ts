/** One server-sent event as a client reads it (docs/api.md "Live changes"). */
export interface Frame {
	id?: string
	event?: string
	data?: unknown
	comment?: string
}

/**
 * An open text/event-stream response, read frame by frame: `collect(ms)` gives what arrived within
 * `ms` (events only unless `comments`), `cancel()` closes it as a client going away would.
 */
export function readFrames(response: Response) {
	const reader = (response.body as ReadableStream<Uint8Array>).getReader()
	const decoder = new TextDecoder()
	let buffer = ''
	let ended = false
	const frames: Frame[] = []
	let pending: Promise<void> | undefined
	const pump = () => {
		pending ??= reader.read().then(({ value, done }) => {
			pending = undefined
			if (done) ended = true
			else buffer += decoder.decode(value, { stream: true })
			for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
				frames.push(parseFrame(buffer.slice(0, end)))
				buffer = buffer.slice(end + 2)
			}
		})
		return pending
	}
	async function collect(ms = 300, comments = false): Promise<Frame[]> {
		const until = Date.now() + ms
		while (!ended && Date.now() < until) {
			await Promise.race([pump(), Bun.sleep(Math.max(until - Date.now(), 0))])
		}
		const taken = frames.splice(0)
		return comments ? taken : taken.filter((frame) => frame.comment === undefined)
	}
	/**
	 * At least `count` events (comments aside), waiting up to 5 s for them on a loaded machine, then 100 ms
	 * more for any extra one a test must also see.
	 */
	async function take(count: number): Promise<Frame[]> {
		const events = () => frames.filter((frame) => frame.comment === undefined).length
		const until = Date.now() + 5_000
		while (!ended && events() < count && Date.now() < until)
			await Promise.race([pump(), Bun.sleep(Math.max(until - Date.now(), 0))])
		return collect(100)
	}
	return { collect, take, isEnded: () => ended, cancel: () => reader.cancel() }
}

/** One frame's lines (the server writes `field: value`, one data line, frames apart by a blank line). */
export function parseFrame(block: string): Frame {
	const frame: Frame = {}
	for (const line of block.split('\n')) {
		if (line.startsWith(':')) frame.comment = line.slice(1).trim()
		else if (line.startsWith('id: ')) frame.id = line.slice(4)
		else if (line.startsWith('event: ')) frame.event = line.slice(7)
		else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6))
	}
	return frame
}
