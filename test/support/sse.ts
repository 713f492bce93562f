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
				const frame: Frame = {}
				for (const line of buffer.slice(0, end).split('\n')) {
					if (line.startsWith(':')) frame.comment = line.slice(1).trim()
					else if (line.startsWith('id: ')) frame.id = line.slice(4)
					else if (line.startsWith('event: ')) frame.event = line.slice(7)
					else if (line.startsWith('data: ')) frame.data = JSON.parse(line.slice(6))
				}
				frames.push(frame)
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
	return { collect, isEnded: () => ended, cancel: () => reader.cancel() }
}
