/**
 * For the crash tests only (docs/sync-model.md, "Crashes"): with
 * CFGSYNC_TEST_CRASH_AT set to one of these points, the client kills itself
 * with SIGKILL right there, as a power cut would, so a test can stop it at an
 * exact moment instead of racing a timer. Unset (always, outside tests), it
 * does nothing.
 *
 * - `write:N`: just after the N-th file of a pull is written;
 * - `temporary:N`: the N-th file's temporary copy is written but not yet renamed over it;
 * - `pushed`: the server has stored a push and answered, nothing after it is done.
 */
export function crashPoint(point: string): void {
	const wanted = process.env.CFGSYNC_TEST_CRASH_AT
	if (wanted !== undefined && wanted === point) process.kill(process.pid, 'SIGKILL')
}
