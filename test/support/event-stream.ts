import { type Frame, parseFrame } from './sse'

/** One server-sent event as a test reads it, with when it arrived. */
export interface StreamFrame extends Frame {
	/** performance.now() when the frame's last byte arrived. */
	at: number
}

/**
 * GET /api/events on a running server, read frame by frame (docs/api.md "Live changes"): `next` waits for
 * the next event (comments skipped), `frames` holds every frame so far.
 */
export async function openEventStream(url: string, key: string, lastEventId?: string) {
	const controller = new AbortController()
	const headers: Record<string, string> = { authorization: `Bearer ${key}` }
	if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
	const response = await fetch(`${url}/api/events`, { headers, signal: controller.signal })
	if (response.status !== 200) throw new Error(`GET /api/events answered ${response.status}`)
	const frames: StreamFrame[] = []
	const waiting: (() => void)[] = []
	let ended = false
	void (async () => {
		const decoder = new TextDecoder()
		let buffer = ''
		try {
			for await (const chunk of response.body as ReadableStream<Uint8Array>) {
				buffer += decoder.decode(chunk, { stream: true })
				for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
					frames.push({ ...parseFrame(buffer.slice(0, end)), at: performance.now() })
					buffer = buffer.slice(end + 2)
				}
				for (const wake of waiting.splice(0)) wake()
			}
		} catch {
			// aborted
		}
		ended = true
		for (const wake of waiting.splice(0)) wake()
	})()
	let read = 0
	return {
		frames,
		isEnded: () => ended,
		/** The next event, or undefined when none came within `ms`. */
		async next(ms = 3_000): Promise<StreamFrame | undefined> {
			const until = performance.now() + ms
			for (;;) {
				while (read < frames.length) {
					const frame = frames[read++] as StreamFrame
					if (frame.comment === undefined) return frame
				}
				if (ended || performance.now() >= until) return undefined
				await new Promise<void>((wake) => {
					waiting.push(wake)
					setTimeout(wake, until - performance.now())
				})
			}
		},
		close: () => controller.abort()
	}
}
