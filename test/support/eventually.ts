/**
 * Waits until `condition` holds, checking every 10 ms, for at most `timeoutMs` (15 s: long enough for a
 * machine running two suites at once), then returns whether it held. For what happens after an answer
 * has gone out (an access-log line, a metric, a write not awaited by the request): a test waits for the
 * condition and then asserts it, never sleeps a fixed time.
 */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<boolean> {
	const deadline = Date.now() + timeoutMs
	for (;;) {
		if (await condition()) return true
		if (Date.now() > deadline) return false
		await Bun.sleep(10)
	}
}
